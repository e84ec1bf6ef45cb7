/**
 * The client directory's decisions and vocabulary (docs/client-reads.md): what a read answers, what
 * the directory asks the API for, and the pure rules that choose between single GETs and list
 * pages, exported so they are tested on their own.
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
export interface DirectoryPage {
  /** The clients of the page, in the platform's order. */
  readonly clients: readonly WireClient[];
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
  getOne(id: string, fields: readonly string[], context: C): Promise<WireClient | undefined>;
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
export const ID_FIELD = "client_id";

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
 *
 * @internal
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

/** Whether an entry holds every field of a read (absence included: the fetch asked for it). */
export function covers(entry: Entry, fields: ReadonlySet<string>): boolean {
  if (entry.fields === "all") return true;
  for (const field of fields) if (!entry.fields.has(field)) return false;
  return true;
}

/** The client narrowed to the fields a read asked for, plus its id; a fresh object. */
export function pickFields(client: WireClient, fields: ReadonlySet<string>): WireClient {
  const answer: WireClient = { client_id: client.client_id };
  for (const field of fields) {
    if (Object.hasOwn(client, field)) answer[field] = structuredClone(client[field]);
  }
  return answer;
}
