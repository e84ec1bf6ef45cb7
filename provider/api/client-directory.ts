/**
 * The client directory: one per provider process and tenant, it answers every client read of the
 * ClientSettings operations, choosing between single reads (`GET /clients/{id}`) and list pages
 * (`GET /clients?page=k&per_page=100&include_totals=true`) as the reads come, without knowing how
 * many will come. The policy and the proof of its cost bound are in docs/client-reads.md; the
 * pure parts of the decision are exported below ({@link pageCountOf}, {@link singleGetBudget},
 * {@link shouldListRemainingPages}).
 *
 * Freshness (docs/client-reads.md, "Freshness"): the directory only serves what it fetched during
 * the current pass. {@link ClientDirectory.startPass} begins a pass; the provider calls it when a
 * command starts (in Pulumi, each engine run starts its own provider process and configures it
 * once). A page fetched during the command reflects the tenant after the command started, so a
 * refresh served from it sees every change made before the refresh began, exactly as a single GET
 * sent at that moment would; a change made while the command runs is a race either way. The only
 * writes the provider makes during a pass are its own PATCHes, whose answers (the whole client)
 * replace what the pages said ({@link ClientDirectory.remember}); a PATCH whose outcome is unknown
 * makes the directory forget the client ({@link ClientDirectory.forget}).
 *
 * HTTP stays outside: the transport is injected, so the policy is tested without a server.
 */

import { ReadPass } from "./client-read-pass.js";
import type {
  ClientDirectoryStats,
  ClientDirectoryTransport,
  WireClient,
} from "./client-read-policy.js";

/**
 * Every client read of one tenant in one provider process: the ClientSettings gateway
 * calls {@link ClientDirectory.get} where it used to call `GET /clients/{id}`, and
 * {@link ClientDirectory.remember} with every PATCH answer.
 *
 * Cost per pass (docs/client-reads.md): for `N` reads of a tenant of `T` clients, `P = ceil(T/100)`,
 * at most `2 * min(N, P) + 1` calls when every read asks for the same fields and nothing else
 * writes to the tenant meanwhile; about `P` when many reads are pending together (Pulumi's
 * parallel reads behind the rate limiter). Additional calls, each bounded: one single GET per
 * client absent from a complete listing (deleted, or skipped by offset paging while another client
 * was deleted), one page refetch per page and per growth of the requested fields, and single GETs
 * for every waiting read after a page failed.
 *
 * @typeParam C - the caller's per-read context, handed to the transport untouched.
 */
export class ClientDirectory<C> {
  private pass: ReadPass<C>;

  /** @param transport - the two calls the directory makes; see {@link ClientDirectoryTransport}. */
  constructor(private readonly transport: ClientDirectoryTransport<C>) {
    this.pass = new ReadPass(transport);
  }

  /**
   * Starts a new pass: nothing fetched before is served again. Call it when a command starts
   * (the provider's `configure`). Reads still pending in the previous pass are answered by that
   * pass, from its own fetches.
   */
  startPass(): void {
    this.pass = new ReadPass(this.transport);
  }

  /**
   * The client's `fields` (wire names) as the API answers them now, or `undefined` when the
   * client does not exist (a single GET answered 404; absence from list pages alone is never
   * trusted). The answer holds `client_id` and those of `fields` the API answered: a field the
   * client lacks, or key material the credentials may not read (`client_secret`, `encryption_key`,
   * `client_authentication_methods` without `read:client_keys`), is absent, as in a single GET.
   *
   * Served from the pass's pages when an entry holds every requested field; otherwise the call
   * waits for the next decision (same turn's reads are decided together). Rejects with the
   * transport's error only for a call made on this read's own context.
   *
   * @param context - passed to the transport for any call this read causes.
   */
  get(id: string, fields: readonly string[], context: C): Promise<WireClient | undefined> {
    return this.pass.get(id, fields, context);
  }

  /**
   * Records a PATCH answer (the whole client) in the current pass: later reads of any fields are
   * served from it, and a page or GET sent before it cannot overwrite it. A PATCH answer that is
   * not the whole client must not be passed here: {@link ClientDirectory.forget} the client instead.
   */
  remember(client: WireClient): void {
    this.pass.remember(client);
  }

  /**
   * Drops what the pass knows about a client, e.g. after a PATCH that failed or timed out (its
   * outcome is unknown): the next read of it is a single GET, and pages sent before cannot
   * restore it.
   */
  forget(id: string): void {
    this.pass.forget(id);
  }

  /** Calls made during the current pass. */
  stats(): ClientDirectoryStats {
    return { ...this.pass.stats };
  }
}
