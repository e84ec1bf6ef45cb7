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

/** A client as a read answers it: wire (snake_case) field names, with its id. */
export interface DirectoryClient {
  /** The client's id. */
  client_id: string;
  /** The other fields that were asked for, spelled as on the wire. */
  [field: string]: unknown;
}

/** One list page as the platform answers it with `include_totals=true`. */
export interface DirectoryPage {
  /** The clients of the page, in the platform's order. */
  readonly clients: readonly DirectoryClient[];
  /** How many clients the tenant holds (the platform's `total`). */
  readonly total: number;
}

/**
 * How the directory reaches the API. Both functions carry the context of the read that made the
 * directory call (the gateway's operation context: resource name, deadline), so a failure is
 * reported by, and bounded by the deadline of, a read that caused it.
 *
 * @typeParam C - the caller's per-read context, passed through untouched.
 */
export interface ClientDirectoryTransport<C> {
  /**
   * `GET /clients/{id}?fields=...&include_fields=true`: the client, or `undefined` when the API
   * answers 404 (no such client). Any other failure rejects.
   */
  getOne(id: string, fields: readonly string[], context: C): Promise<DirectoryClient | undefined>;
  /**
   * `GET /clients?page=...&per_page=...&include_totals=true&fields=...&include_fields=true`.
   * A failure rejects; the directory then reads the waiting clients one by one.
   */
  listPage(
    page: number,
    perPage: number,
    fields: readonly string[],
    context: C,
  ): Promise<DirectoryPage>;
}

/** Clients per list page: the platform's maximum. */
export const CLIENT_PAGE_SIZE = 100;

/** The field every read asks for, so that page entries can be told apart. */
const ID_FIELD = "client_id";

/** How many list pages hold a tenant of `total` clients (0 for an empty tenant). */
export function pageCountOf(total: number): number {
  return Math.ceil(Math.max(0, total) / CLIENT_PAGE_SIZE);
}

/**
 * How many single GETs a pass may spend on clients not found in the pages fetched so far before
 * listing the remaining pages instead: `max(0, P - 2)` for a tenant of `P` pages. With page 0
 * fetched first, this keeps every pass within `2 * min(N, P) + 1` calls for `N` reads
 * (docs/client-reads.md, "Bound"). Any budget from `P - 3` to `P + 1` meets that bound; `P - 2` is
 * the largest that reads 200 of 210 clients one at a time in 4 calls. `P <= 2` gives 0: the first
 * miss lists the rest.
 */
export function singleGetBudget(pageCount: number): number {
  return Math.max(0, pageCount - 2);
}

/**
 * The rental decision: list the remaining pages rather than read `misses` more clients one by
 * one, given the `spent` single GETs of the pass so far? True once the GETs would exceed
 * {@link singleGetBudget}. Concurrent reads arrive as a batch of misses, so a large batch lists at
 * once (the stack evidently manages many clients), a small one still reads singly.
 */
export function shouldListRemainingPages(
  spent: number,
  misses: number,
  pageCount: number,
): boolean {
  return spent + misses > singleGetBudget(pageCount);
}

/** Calls made during the current pass, by kind. */
export interface ClientDirectoryStats {
  /** Single-client GETs. */
  singleGets: number;
  /** List pages. */
  pages: number;
}

/** A known client: what a fetch answered, and which fields that fetch asked for. */
interface Entry {
  /** The client, or undefined when a single GET answered 404 during this pass. */
  readonly client: DirectoryClient | undefined;
  /** The fields the fetch asked for; `all` for a PATCH answer (the whole client). */
  readonly fields: ReadonlySet<string> | "all";
  /** The page it came from, so a read needing more fields refetches that one page. */
  readonly page: number | undefined;
  /** When the fetch was sent (the pass's logical clock): later data wins. */
  readonly sentAt: number;
}

interface Waiter<C> {
  readonly id: string;
  readonly fields: ReadonlySet<string>;
  readonly context: C;
  readonly resolve: (client: DirectoryClient | undefined) => void;
  readonly reject: (error: unknown) => void;
}

interface PageState {
  /** Answered at least once during this pass. */
  done: boolean;
  /** Fetches of this page in flight. */
  inFlight: number;
}

/** Whether an entry holds every field of a read (absence included: the fetch asked for it). */
function covers(entry: Entry, fields: ReadonlySet<string>): boolean {
  if (entry.fields === "all") return true;
  for (const field of fields) if (!entry.fields.has(field)) return false;
  return true;
}

/** The client narrowed to the fields a read asked for, plus its id; a fresh object. */
function project(client: DirectoryClient, fields: ReadonlySet<string>): DirectoryClient {
  const answer: DirectoryClient = { client_id: client.client_id };
  for (const field of fields) {
    if (Object.hasOwn(client, field)) answer[field] = structuredClone(client[field]);
  }
  return answer;
}

/**
 * The reads of one pass. A pass that has been replaced keeps answering the reads it already
 * holds, from its own fetches, but takes no new ones.
 */
class ReadPass<C> {
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

  get(id: string, wanted: readonly string[], context: C): Promise<DirectoryClient | undefined> {
    const fields = new Set([ID_FIELD, ...wanted]);
    for (const field of fields) this.union.add(field);
    return new Promise((resolve, reject) => {
      this.waiting.push({ id, fields, context, resolve, reject });
      this.schedulePump();
    });
  }

  remember(client: DirectoryClient): void {
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

  private answer(waiter: Waiter<C>, client: DirectoryClient | undefined): void {
    this.waiting = this.waiting.filter((w) => w !== waiter);
    waiter.resolve(client === undefined ? undefined : project(client, waiter.fields));
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
  private store(client: DirectoryClient, entry: Omit<Entry, "client">): void {
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
        waiter.resolve(client === undefined ? undefined : project(client, waiter.fields));
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

/**
 * Every client read of one tenant in one provider process (issue 12): the ClientSettings gateway
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
  get(id: string, fields: readonly string[], context: C): Promise<DirectoryClient | undefined> {
    return this.pass.get(id, fields, context);
  }

  /**
   * Records a PATCH answer (the whole client) in the current pass: later reads of any fields are
   * served from it, and a page or GET sent before it cannot overwrite it. A PATCH answer that is
   * not the whole client must not be passed here: {@link ClientDirectory.forget} the client instead.
   */
  remember(client: DirectoryClient): void {
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
