/**
 * One read pass of the client directory (docs/client-reads.md): the reads of one command, what it
 * fetched, and the calls it decides to make. {@link ClientDirectory} (client-directory.ts) starts
 * a pass per command and hands it every read.
 *
 * @module
 */

import {
  CLIENT_PAGE_SIZE,
  type ClientDirectoryStats,
  type ClientDirectoryTransport,
  covers,
  type Entry,
  ID_FIELD,
  pageCountOf,
  pickFields,
  shouldListRemainingPages,
  type WireClient,
} from "./client-read-policy.js";

interface Waiter<C> {
  readonly id: string;
  readonly fields: ReadonlySet<string>;
  readonly context: C;
  readonly resolve: (client: WireClient | undefined) => void;
  readonly reject: (error: unknown) => void;
}

interface PageState {
  /** Answered at least once during this pass. */
  done: boolean;
  /** Fetches of this page in flight. */
  inFlight: number;
}

/**
 * The reads of one pass. A pass that has been replaced keeps answering the reads it already
 * holds, from its own fetches, but takes no new ones.
 */
export class ReadPass<C> {
  private readonly union = new Set<string>([ID_FIELD]);
  private readonly entries = new Map<string, Entry>();
  /** Ids remembered or forgotten, with when: a fetch sent before that must not overwrite them. */
  private readonly touchedAt = new Map<string, number>();
  private readonly pages = new Map<number, PageState>();
  /** The ids each page held when it was last answered. */
  private readonly pageIds = new Map<number, ReadonlySet<string>>();
  /** Single GETs in flight per id, with the fields they ask for. */
  private readonly getting = new Map<string, ReadonlySet<string>[]>();
  private waiting: Waiter<C>[] = [];
  private clock = 0;
  private total: number | undefined;
  private listing = false;
  private degraded = false;
  private rentedGets = 0;
  private pumpScheduled = false;
  readonly stats: ClientDirectoryStats = { singleGets: 0, pages: 0 };

  constructor(private readonly transport: ClientDirectoryTransport<C>) {}

  get(id: string, wanted: readonly string[], context: C): Promise<WireClient | undefined> {
    const fields = new Set([ID_FIELD, ...wanted]);
    for (const field of fields) this.union.add(field);
    return new Promise((resolve, reject) => {
      this.waiting.push({ id, fields, context, resolve, reject });
      this.schedulePump();
    });
  }

  remember(client: WireClient): void {
    const sentAt = this.tick();
    this.touchedAt.set(client.client_id, sentAt);
    this.entries.set(client.client_id, {
      client: structuredClone(client),
      fields: "all",
      page: undefined,
      sentAt,
    });
    this.schedulePump();
  }

  forget(id: string): void {
    this.touchedAt.set(id, this.tick());
    this.entries.delete(id);
  }

  private tick(): number {
    this.clock += 1;
    return this.clock;
  }

  /**
   * Decisions wait for the current turn's reads: reads issued together (Pulumi's parallel reads,
   * `Promise.all` in tests) are decided as one batch.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Serves what can be served and sends the calls the policy chooses for the rest. */
  private pump(): void {
    const unlocated: Waiter<C>[] = [];
    const unlocatedIds = new Set<string>();
    const refetch = new Map<number, C>();
    let firstPageFor: Waiter<C> | undefined;
    const pageCount = this.total === undefined ? undefined : pageCountOf(this.total);
    for (const waiter of this.waiting.slice()) {
      const entry = this.entries.get(waiter.id);
      if (entry !== undefined && covers(entry, waiter.fields)) {
        this.answer(waiter, entry.client);
      } else if (this.gettingCovers(waiter)) {
        // A single GET of this client with these fields is on its way: its entry will serve.
      } else if (this.degraded) {
        this.singleGet(waiter);
      } else if (entry?.page !== undefined) {
        // Located, but fetched with fewer fields: one call refetches the whole page, never more
        // than the single GET it replaces.
        if (this.pageState(entry.page).inFlight === 0) refetch.set(entry.page, waiter.context);
      } else if (entry !== undefined || this.touchedAt.has(waiter.id)) {
        this.singleGet(waiter);
      } else if (pageCount === undefined) {
        firstPageFor ??= waiter;
      } else if (this.allPagesDone(pageCount)) {
        // Absent from a complete listing. Offset paging can skip a client when another is deleted
        // between two pages, and "not found" makes a refresh drop the resource, so a single GET
        // confirms it (docs/client-reads.md, "Absent clients").
        this.singleGet(waiter);
      } else if (!this.listing && !unlocatedIds.has(waiter.id)) {
        // Two reads of one client are one miss: the second is served by the first's fetch.
        unlocatedIds.add(waiter.id);
        unlocated.push(waiter);
      }
    }
    if (firstPageFor !== undefined && this.pageState(0).inFlight === 0) {
      this.fetchPage(0, firstPageFor.context);
    }
    for (const [page, context] of refetch) this.fetchPage(page, context);
    const first = unlocated[0];
    if (first !== undefined && pageCount !== undefined) {
      if (shouldListRemainingPages(this.rentedGets, unlocated.length, pageCount)) {
        this.listing = true;
        for (let page = 0; page < pageCount; page += 1) {
          const state = this.pageState(page);
          if (!state.done && state.inFlight === 0) this.fetchPage(page, first.context);
        }
      } else {
        for (const waiter of unlocated) {
          this.rentedGets += 1;
          this.singleGet(waiter);
        }
      }
    }
    // Progress guarantee: a read still waiting with nothing in flight would wait forever.
    if (this.waiting.length > 0 && !this.anythingInFlight()) {
      for (const waiter of this.waiting.slice()) this.singleGet(waiter);
    }
  }

  private answer(waiter: Waiter<C>, client: WireClient | undefined): void {
    this.waiting = this.waiting.filter((w) => w !== waiter);
    waiter.resolve(client === undefined ? undefined : pickFields(client, waiter.fields));
  }

  private pageState(page: number): PageState {
    let state = this.pages.get(page);
    if (state === undefined) {
      state = { done: false, inFlight: 0 };
      this.pages.set(page, state);
    }
    return state;
  }

  private allPagesDone(pageCount: number): boolean {
    for (let page = 0; page < pageCount; page += 1) {
      if (!this.pages.get(page)?.done) return false;
    }
    return true;
  }

  private anythingInFlight(): boolean {
    for (const state of this.pages.values()) if (state.inFlight > 0) return true;
    return this.getting.size > 0;
  }

  private gettingCovers(waiter: Waiter<C>): boolean {
    const inFlight = this.getting.get(waiter.id) ?? [];
    return inFlight.some((fields) => [...waiter.fields].every((field) => fields.has(field)));
  }

  /** The fields a call asks for: everything asked so far, `client_id` first, the rest sorted. */
  private requestFields(): { list: string[]; set: ReadonlySet<string> } {
    const rest = [...this.union].filter((field) => field !== ID_FIELD).sort();
    const list = [ID_FIELD, ...rest];
    return { list, set: new Set(list) };
  }

  /** Stores a fetched client unless the pass holds newer data about it. */
  private store(client: WireClient, entry: Omit<Entry, "client">): void {
    const id = client.client_id;
    if ((this.touchedAt.get(id) ?? 0) > entry.sentAt) return;
    const known = this.entries.get(id);
    if (known !== undefined && known.sentAt > entry.sentAt) return;
    this.entries.set(id, { ...entry, client });
  }

  private singleGet(waiter: Waiter<C>): void {
    this.waiting = this.waiting.filter((w) => w !== waiter);
    const { list, set } = this.requestFields();
    const sentAt = this.tick();
    const inFlight = this.getting.get(waiter.id) ?? [];
    inFlight.push(set);
    this.getting.set(waiter.id, inFlight);
    this.stats.singleGets += 1;
    this.transport.getOne(waiter.id, list, waiter.context).then(
      (client) => {
        this.doneGetting(waiter.id, set);
        if (client === undefined) {
          if ((this.touchedAt.get(waiter.id) ?? 0) <= sentAt) {
            this.entries.set(waiter.id, { client, fields: "all", page: undefined, sentAt });
          }
        } else this.store(client, { fields: set, page: undefined, sentAt });
        waiter.resolve(client === undefined ? undefined : pickFields(client, waiter.fields));
        this.schedulePump();
      },
      (error: unknown) => {
        this.doneGetting(waiter.id, set);
        waiter.reject(error);
        this.schedulePump();
      },
    );
  }

  private doneGetting(id: string, fields: ReadonlySet<string>): void {
    const remaining = (this.getting.get(id) ?? []).filter((f) => f !== fields);
    if (remaining.length === 0) this.getting.delete(id);
    else this.getting.set(id, remaining);
  }

  private fetchPage(page: number, context: C): void {
    const state = this.pageState(page);
    const { list, set } = this.requestFields();
    const sentAt = this.tick();
    state.inFlight += 1;
    this.stats.pages += 1;
    this.transport.listPage(page, CLIENT_PAGE_SIZE, list, context).then(
      (answer) => {
        state.inFlight -= 1;
        state.done = true;
        // The first answer fixes the page count of the pass; clients created later fall outside
        // it and are found by a single GET.
        this.total ??= answer.total;
        const ids = new Set<string>();
        for (const client of answer.clients) {
          ids.add(client.client_id);
          this.store(client, { fields: set, page, sentAt });
        }
        // A client that was on this page and is not any more (a deletion moved it to another
        // page) is no longer located: its next read needing more fields is a single GET, not
        // another refetch of this page.
        for (const id of this.pageIds.get(page) ?? []) {
          const entry = this.entries.get(id);
          if (!ids.has(id) && entry?.page === page)
            this.entries.set(id, { ...entry, page: undefined });
        }
        this.pageIds.set(page, ids);
        this.schedulePump();
      },
      () => {
        // The transport has already retried what can be retried. The error belongs to the read
        // whose context made the call, but every read waiting on the page is served alike: by its
        // own single GET, which reports its own failure, if any, under its own name.
        state.inFlight -= 1;
        this.degraded = true;
        this.schedulePump();
      },
    );
  }
}
