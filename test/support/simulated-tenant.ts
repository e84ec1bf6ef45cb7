/**
 * A tenant in memory behind a client read pass's transport (`provider/api/client-read-pass.ts`),
 * answering single reads and list pages as the local tenant API does (same field selection and key
 * hiding, `clientAsAnswered`), and counting every call. Calls are answered a turn later, or held
 * until the test releases them, so a test decides exactly which reads are pending when the
 * pass decides.
 */

import type {
  WireClient as AnsweredClient,
  ClientListPage,
  ClientReadTransport,
} from "../../provider/api/client-read-policy.js";
import { clientAsAnswered, type WireClient } from "../../provider/local-tenant/clients.js";
import { generatedClients } from "../../provider/local-tenant/seed.js";

/** One call the pass made, as the tenant saw it. */
export type TenantCall =
  | { kind: "getOne"; id: string; fields: readonly string[]; context: string }
  | { kind: "listPage"; page: number; perPage: number; fields: readonly string[]; context: string };

/** Options of {@link SimulatedTenant}. */
export interface SimulatedTenantOptions {
  /** Hide key material, as for credentials without `read:client_keys`. */
  hideKeys?: boolean;
  /** Hold every call until {@link SimulatedTenant.release}; default: answer a turn later. */
  hold?: boolean;
  /**
   * How many event-loop turns a call takes to be answered (default: none, a microtask later),
   * so that calls made together can be answered out of order, as over a network.
   */
  turns?: (call: TenantCall) => number;
  /** Runs when a call is answered, before the answer is computed (to change the tenant). */
  beforeAnswer?: (call: TenantCall, tenant: SimulatedTenant) => void;
  /** An error to fail a call with instead of answering it. */
  failure?: (call: TenantCall) => Error | undefined;
  /**
   * The body a list page call answers instead of the page itself, as a tenant we did not write
   * may (a page without `total`, or whose `clients` is not an array); default: the page.
   */
  pageBody?: (call: TenantCall, page: ClientListPage) => unknown;
  /**
   * How many calls could leave now without waiting for the rate limiter, as the pass asks before
   * it rents single GETs; default: as many as it asks.
   */
  turnsNow?: () => number;
}

/** `count` clients, deterministic (the local tenant API's generated clients). */
export function tenantClients(count: number): WireClient[] {
  return generatedClients(count).map((client, index) => ({
    ...client,
    client_id: String(client.client_id),
    // Key material on every client, so tests can see it hidden or shown.
    client_secret: `secret-${index}`,
  }));
}

/** A tenant of clients in creation order, with a transport for a read pass. */
export class SimulatedTenant {
  /** The clients, in creation (and listing) order. */
  clients: WireClient[];
  /** Every call, in the order made. */
  readonly calls: TenantCall[] = [];
  private held: Array<() => void> = [];

  constructor(
    clients: WireClient[],
    private readonly options: SimulatedTenantOptions = {},
  ) {
    this.clients = clients.map((c) => structuredClone(c));
  }

  /** Calls made, by kind. */
  count(kind?: TenantCall["kind"]): number {
    return kind === undefined
      ? this.calls.length
      : this.calls.filter((c) => c.kind === kind).length;
  }

  /** Calls waiting for {@link SimulatedTenant.release}. */
  get pending(): number {
    return this.held.length;
  }

  /** Answers every held call (in the order made); returns how many. */
  release(): number {
    const held = this.held;
    this.held = [];
    for (const answer of held) answer();
    return held.length;
  }

  /** The client as a single GET with `fields` would answer it now. */
  answered(id: string, fields: readonly string[]): AnsweredClient | undefined {
    const client = this.clients.find((c) => c.client_id === id);
    return client === undefined ? undefined : this.view(client, fields);
  }

  /** The transport the pass under test uses; contexts are strings naming the read. */
  transport(): ClientReadTransport<string> {
    return {
      getOne: (id, fields, context) =>
        this.answer({ kind: "getOne", id, fields: [...fields], context }, () =>
          this.answered(id, fields),
        ),
      listPage: (page, perPage, fields, context) =>
        this.answer({ kind: "listPage", page, perPage, fields: [...fields], context }, () => {
          const slice = this.clients.slice(page * perPage, (page + 1) * perPage);
          const answer: ClientListPage = {
            clients: slice.map((c) => this.view(c, fields)),
            total: this.clients.length,
          };
          const call: TenantCall = {
            kind: "listPage",
            page,
            perPage,
            fields: [...fields],
            context,
          };
          // What the tenant answered, whatever its shape: the transport's type does not check it.
          return (this.options.pageBody?.(call, answer) ?? answer) as ClientListPage;
        }),
      turnsNow: (upTo) => Math.min(upTo, this.options.turnsNow?.() ?? upTo),
    };
  }

  private view(client: WireClient, fields: readonly string[]): AnsweredClient {
    const shown = clientAsAnswered(client, {
      selection: { fields, include: true },
      showKeys: this.options.hideKeys !== true,
    });
    return shown as AnsweredClient;
  }

  private answer<T>(call: TenantCall, compute: () => T): Promise<T> {
    this.calls.push(call);
    return new Promise<T>((resolve, reject) => {
      const respond = () => {
        this.options.beforeAnswer?.(call, this);
        const error = this.options.failure?.(call);
        if (error !== undefined) reject(error);
        else resolve(compute());
      };
      if (this.options.hold === true) this.held.push(respond);
      else if (this.options.turns !== undefined) afterTurns(this.options.turns(call), respond);
      else queueMicrotask(respond);
    });
  }
}

/** Runs `callback` after `turns` turns of the event loop (at once for 0). */
function afterTurns(turns: number, callback: () => void): void {
  if (turns <= 0) callback();
  else setImmediate(() => afterTurns(turns - 1, callback));
}
