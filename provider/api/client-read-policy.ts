/**
 * The vocabulary and the pure decisions of client reads (docs/design/client-reads.md): what a read
 * answers, the two calls a read pass makes, and the rules that choose, per batch of reads, between
 * single GETs and list pages. The read pass (client-read-pass.ts) only carries out what
 * {@link planBatch} decides.
 *
 * @module
 */

/** A client as a read answers it: wire (snake_case) field names, with its id. */
export interface WireClient {
  /** The client's id. */
  client_id: string;
  /** The other fields that were asked for, spelled as on the wire. */
  [field: string]: unknown;
}

/** One list page as the platform answers it with `include_totals=true`. */
export interface ClientListPage {
  /** The clients of the page, in the platform's order. */
  readonly clients: readonly WireClient[];
  /** How many clients the tenant holds (the platform's `total`). */
  readonly total: number;
}

/**
 * How a read pass reaches the API. Both functions carry the context of the read that made the
 * call (the gateway's operation context: resource name, deadline), so a failure is reported by,
 * and bounded by the deadline of, a read that caused it.
 *
 * @typeParam C - the caller's per-read context, passed through untouched.
 */
export interface ClientReadTransport<C> {
  /**
   * `GET /clients/{id}?fields=...&include_fields=true`: the client, or `undefined` when the API
   * answers 404 (no such client). Any other failure rejects.
   */
  getOne(id: string, fields: readonly string[], context: C): Promise<WireClient | undefined>;
  /**
   * `GET /clients?page=...&per_page=...&include_totals=true&fields=...&include_fields=true`.
   * A failure rejects; the pass then reads its clients one by one.
   */
  listPage(
    page: number,
    perPage: number,
    fields: readonly string[],
    context: C,
  ): Promise<ClientListPage>;
  /**
   * How many more calls could leave now without waiting for the tenant's rate limiter, at most
   * `upTo`: a pass rents no more single GETs at once (docs/design/client-reads.md, "Rentals").
   */
  turnsNow(upTo: number): number;
}

/**
 * What a list page's body lacks to be read as a {@link ClientListPage}, worded to follow
 * "answered without" (`a finite numeric \`total\``), or `undefined` when it is one. A tenant we did
 * not write, or a proxy in front of it, may answer a page without `total` or with something other
 * than an array of clients; such a page is a failed page (docs/design/client-reads.md, "Pages that are
 * not pages"), since a pass that trusted it could neither count the tenant's pages nor store its
 * clients.
 */
export function listPageProblem(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "a JSON object";
  const { clients, total } = body as { clients?: unknown; total?: unknown };
  if (!Array.isArray(clients)) return "a `clients` array";
  if (typeof total !== "number" || !Number.isFinite(total) || total < 0) {
    return "a finite numeric `total`";
  }
  const named = (client: unknown) =>
    typeof client === "object" &&
    client !== null &&
    typeof (client as { client_id?: unknown }).client_id === "string";
  return clients.every(named) ? undefined : "a string `client_id` on every client";
}

/** Clients per list page: the platform's maximum. */
export const CLIENT_PAGE_SIZE = 100;

/** The field every call asks for, so that the clients of a page can be told apart. */
export const ID_FIELD = "client_id";

/** How many list pages hold a tenant of `total` clients (0 for an empty tenant). */
export function pageCountOf(total: number): number {
  return Math.ceil(Math.max(0, total) / CLIENT_PAGE_SIZE);
}

/**
 * How many single GETs a pass may spend on clients not found in the pages fetched so far before
 * listing the remaining pages instead: `max(0, P - 2)` for a tenant of `P` pages. With page 0
 * fetched first, this keeps every pass within `2 * min(N, P) + 1` calls for `N` reads
 * (docs/design/client-reads.md, "Bound"). Any budget from `P - 3` to `P + 1` meets that bound; `P - 2` is
 * the largest that reads 200 of 210 clients one at a time in 4 calls. `P <= 2` gives 0: the first
 * miss lists the rest.
 *
 * @internal
 */
export function singleGetBudget(pageCount: number): number {
  return Math.max(0, pageCount - 2);
}

/**
 * The rental decision: list the remaining pages rather than read `misses` more clients one by
 * one, given the `spent` single GETs of the pass so far? True once the GETs would exceed
 * {@link singleGetBudget}. Reads that arrive together are one batch of misses, so a large batch
 * lists at once (the stack evidently manages many clients), a small one still reads singly.
 *
 * @internal
 */
export function shouldListRemainingPages(
  spent: number,
  misses: number,
  pageCount: number,
): boolean {
  return spent + misses > singleGetBudget(pageCount);
}

/** A known client: what a fetch answered, and which fields that fetch asked for. */
export interface Entry {
  /** The client, or undefined when a single GET answered 404 during this pass. */
  readonly client: WireClient | undefined;
  /** The fields the fetch asked for; `all` for a PATCH answer (the whole client). */
  readonly fields: ReadonlySet<string> | "all";
  /** The page it came from, so a read needing more fields refetches that one page. */
  readonly page: number | undefined;
  /** When the fetch was sent (the pass's logical clock): later data wins. */
  readonly sentAt: number;
}

/** Whether `asked` holds every one of `wanted`. */
export function includesAll(asked: ReadonlySet<string>, wanted: ReadonlySet<string>): boolean {
  for (const field of wanted) if (!asked.has(field)) return false;
  return true;
}

/** Whether an entry holds every field of a read (absence included: the fetch asked for it). */
export function covers(entry: Entry, fields: ReadonlySet<string>): boolean {
  return entry.fields === "all" || includesAll(entry.fields, fields);
}

/** The client narrowed to the fields a read asked for, plus its id; a fresh object. */
export function pickFields(client: WireClient, fields: ReadonlySet<string>): WireClient {
  const answer: WireClient = { client_id: client.client_id };
  for (const field of fields) {
    if (Object.hasOwn(client, field)) answer[field] = structuredClone(client[field]);
  }
  return answer;
}

/**
 * Where a read stands when its batch is decided, from what the pass holds about its client:
 * - `answered`: an entry holds every field it asks for (absence included);
 * - `refetch`: its client is on page `page`, fetched without some of its fields;
 * - `single`: only a single GET answers it: its client was remembered, forgotten or read singly,
 *   or is on no page of a complete listing (docs/design/client-reads.md, "Calls outside the bound");
 * - `miss`: its client is on none of the pages fetched so far.
 */
export type ReadStanding =
  | { readonly kind: "answered" | "single" | "miss" }
  | { readonly kind: "refetch"; readonly page: number };

/** What the pass holds about one client, as {@link standingOf} weighs it. */
export interface ClientKnowledge {
  /** The latest fetch or PATCH answer that included the client, if any. */
  readonly entry: Entry | undefined;
  /** Whether a PATCH was remembered or forgotten for it during the pass. */
  readonly touched: boolean;
  /** Whether every page of the tenant has been answered during the pass. */
  readonly listed: boolean;
}

/** The standing of a read of `fields` (see {@link ReadStanding}). */
export function standingOf(fields: ReadonlySet<string>, known: ClientKnowledge): ReadStanding {
  const { entry } = known;
  if (entry !== undefined && covers(entry, fields)) return { kind: "answered" };
  // Located, but fetched with fewer fields: one call refetches the whole page, never more than
  // the single GET it replaces.
  if (entry?.page !== undefined) return { kind: "refetch", page: entry.page };
  if (entry !== undefined || known.touched || known.listed) return { kind: "single" };
  return { kind: "miss" };
}

/** The pass so far, as {@link planBatch} weighs it. */
export interface PassProgress {
  /** List pages of the tenant, from page 0's total. */
  readonly pageCount: number;
  /** Single GETs spent on misses so far. */
  readonly rented: number;
  /** Whether an earlier batch chose to list every page. */
  readonly listing: boolean;
  /** Calls that could leave now without waiting for the rate limiter. */
  readonly turns: number;
  /** Whether a call of the pass (a page or a single GET) is under way. */
  readonly callsUnderWay: boolean;
}

/** The calls a batch makes before its reads are answered from what the pass holds. */
export interface BatchPlan {
  /** Pages to fetch, or to wait for when a fetch with the batch's fields is already under way. */
  readonly pages: readonly number[];
  /** Whether this batch chooses to list every page (at most once per pass). */
  readonly lists: boolean;
  /** Single GETs this batch spends on its misses, one per client: the first `rents` misses. */
  readonly rents: number;
  /**
   * The clients of the other misses: decided again in the next batch, with the reads that arrive
   * meanwhile, instead of renting GETs that would wait for the rate limiter.
   */
  readonly defers: readonly string[];
}

/**
 * What a batch of reads, given their clients and standings, makes the pass do: refetch the pages
 * of stale entries, and for the misses (distinct clients) either rent a single GET each or list
 * every page ({@link shouldListRemainingPages}). Once a pass lists, later misses add no call: each
 * waits for the page of the listing that holds its client, and is decided again should none hold
 * it. Reads answered, and reads that need a single GET anyway, add nothing here: after the pages,
 * each read is answered from the pass's entries or by its own single GET.
 *
 * Renting commits a call only when it can leave now ({@link PassProgress.turns}): the other misses
 * are deferred to the next batch, which comes once the calls under way are answered and holds the
 * reads that arrived meanwhile, so that a GET that would only have waited for the rate limiter is
 * decided with what those reads tell. With no turn free and no call under way, one miss is rented
 * anyway: some call must be under way for the next batch to come. Every miss still counts towards
 * listing, deferred or not, so the decision to list comes no later than without deferring, and
 * the bound holds (docs/design/client-reads.md, "Rentals").
 */
export function planBatch(
  reads: ReadonlyArray<{ readonly id: string; readonly standing: ReadStanding }>,
  pass: PassProgress,
): BatchPlan {
  const pages = new Set<number>();
  const misses = new Set<string>();
  for (const { id, standing } of reads) {
    if (standing.kind === "refetch") pages.add(standing.page);
    else if (standing.kind === "miss") misses.add(id);
  }
  if (misses.size === 0 || pass.listing) {
    return { pages: [...pages], lists: false, rents: 0, defers: [] };
  }
  if (shouldListRemainingPages(pass.rented, misses.size, pass.pageCount)) {
    return {
      pages: Array.from({ length: pass.pageCount }, (_, page) => page),
      lists: true,
      rents: 0,
      defers: [],
    };
  }
  const rentable = pass.turns > 0 ? pass.turns : pass.callsUnderWay ? 0 : 1;
  const clients = [...misses];
  return {
    pages: [...pages],
    lists: false,
    rents: Math.min(clients.length, rentable),
    defers: clients.slice(rentable),
  };
}
