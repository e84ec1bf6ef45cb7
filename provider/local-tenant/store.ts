/**
 * The tenant's state: clients, event streams, the selected push provider and the client grants
 * that decide which scopes the token endpoint hands out.
 *
 * Every read returns a copy and every write stores a copy, so neither a route handler nor a test
 * can change the state by holding on to an object.
 */

import type { PUSH_PROVIDERS } from "../schema/index.js";
import type { WireClient } from "./clients.js";

/** The push notification providers (docs/design/platform.md, "Push providers"), as the schema module lists them. */
export type PushProvider = (typeof PUSH_PROVIDERS)[number];

/** An event stream as stored and answered: its 26-character id and whatever else it holds. */
export interface WireEventStream {
  /** `est_` followed by 22 letters and digits on the platform. */
  id: string;
  /** Fields beyond the id are not in the spec; the seed decides them. */
  [field: string]: unknown;
}

/** A client grant: the scopes a client may obtain for the management API. */
export interface ClientGrant {
  /** The client the grant belongs to. */
  client_id: string;
  /** The granted scopes. */
  scope: string[];
}

/** The whole tenant as plain JSON. */
export interface TenantState {
  /** Name of the tenant, shown in every client's `tenant` field. */
  tenant: string;
  /** The selected push notification provider. */
  pushProvider: PushProvider;
  /** Every client, in wire form. */
  clients: WireClient[];
  /** Every event stream. */
  eventStreams: WireEventStream[];
  /** Every client grant for the management API. */
  grants: ClientGrant[];
}

/** Read and write access to the tenant's state, for the routes and for tests. */
export class TenantStore {
  private clients = new Map<string, WireClient>();
  private eventStreams = new Map<string, WireEventStream>();
  private grants = new Map<string, string[]>();
  private pushProvider: PushProvider = "guardian";
  private readonly initial: TenantState;
  private changes = 0;

  /** @param state - the starting state; {@link TenantStore.reset} returns to it. */
  constructor(state: TenantState) {
    this.initial = structuredClone(state);
    this.reset();
  }

  /**
   * How many writes the state has had since start (any client, stream, provider or grant write, a
   * reset included): the console re-reads what it shows when this moves, so that it need not
   * compare the state itself.
   */
  get version(): number {
    return this.changes;
  }

  /** Name of the tenant. */
  get tenant(): string {
    return this.initial.tenant;
  }

  /** Puts the state back to what it was at start (same ids and secrets). */
  reset(): void {
    this.changes += 1;
    const state = structuredClone(this.initial);
    this.pushProvider = state.pushProvider;
    this.clients = new Map(state.clients.map((c) => [c.client_id, c]));
    this.eventStreams = new Map(state.eventStreams.map((s) => [s.id, s]));
    this.grants = new Map(state.grants.map((g) => [g.client_id, g.scope]));
  }

  /** A copy of the client, or undefined when there is none with this id. */
  getClient(clientId: string): WireClient | undefined {
    const client = this.clients.get(clientId);
    return client === undefined ? undefined : structuredClone(client);
  }

  /** Stores a client as given (creating or replacing it); it should carry the response fields. */
  putClient(client: WireClient): void {
    this.changes += 1;
    this.clients.set(client.client_id, structuredClone(client));
  }

  /** Removes a client and its grant; says whether it existed. */
  deleteClient(clientId: string): boolean {
    this.changes += 1;
    this.grants.delete(clientId);
    return this.clients.delete(clientId);
  }

  /**
   * One page of the clients that pass `filter`, in creation order (a PATCH does not move a
   * client), and how many pass it in all. Only the page is copied, so paging through thousands of
   * clients stays cheap.
   */
  listClients(
    filter: (client: Readonly<WireClient>) => boolean,
    start: number,
    count: number,
  ): { clients: WireClient[]; total: number } {
    const clients: WireClient[] = [];
    let total = 0;
    for (const client of this.clients.values()) {
      if (!filter(client)) continue;
      if (total >= start && clients.length < count) clients.push(structuredClone(client));
      total += 1;
    }
    return { clients, total };
  }

  /** Ids of every client, in insertion order. */
  clientIds(): string[] {
    return [...this.clients.keys()];
  }

  /** The selected push provider. */
  getProvider(): PushProvider {
    return this.pushProvider;
  }

  /** Selects the push provider. */
  setProvider(provider: PushProvider): void {
    this.changes += 1;
    this.pushProvider = provider;
  }

  /** Whether an event stream with this id exists. */
  eventStreamExists(id: string): boolean {
    return this.eventStreams.has(id);
  }

  /** A copy of the event stream, or undefined. */
  getEventStream(id: string): WireEventStream | undefined {
    const stream = this.eventStreams.get(id);
    return stream === undefined ? undefined : structuredClone(stream);
  }

  /** Stores an event stream (for tests: "the stream exists again"). */
  putEventStream(stream: WireEventStream): void {
    this.changes += 1;
    this.eventStreams.set(stream.id, structuredClone(stream));
  }

  /** Deletes an event stream; says whether it existed. */
  deleteEventStream(id: string): boolean {
    this.changes += 1;
    return this.eventStreams.delete(id);
  }

  /** Ids of every event stream, in insertion order. */
  eventStreamIds(): string[] {
    return [...this.eventStreams.keys()];
  }

  /** The scopes granted to a client for the management API, or undefined without a grant. */
  grantedScopes(clientId: string): string[] | undefined {
    const scopes = this.grants.get(clientId);
    return scopes === undefined ? undefined : [...scopes];
  }

  /** Grants scopes to a client, replacing its grant (an empty list keeps a grant with none). */
  setGrant(clientId: string, scopes: readonly string[]): void {
    this.changes += 1;
    this.grants.set(clientId, [...scopes]);
  }

  /** The whole tenant as plain JSON. */
  snapshot(): TenantState {
    return structuredClone({
      tenant: this.tenant,
      pushProvider: this.pushProvider,
      clients: [...this.clients.values()],
      eventStreams: [...this.eventStreams.values()],
      grants: [...this.grants].map(([client_id, scope]) => ({ client_id, scope })),
    });
  }
}
