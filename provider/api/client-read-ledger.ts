/**
 * What one read pass has fetched (docs/design/client-reads.md): the entries its pages, its single GETs and
 * the provider's PATCH answers left, ordered by one logical clock; the fields every call asks for;
 * the latest fetch of each page; and the single GETs under way. The read pass
 * (client-read-pass.ts) decides which calls to make and makes them; the ledger records them, so
 * that later data wins ("Freshness") and a read is served only by a fetch that asked for all of
 * its fields (rule 5 of "Policy").
 *
 * @module
 */

import {
  type ClientListPage,
  covers,
  type Entry,
  ID_FIELD,
  includesAll,
  type ReadStanding,
  standingOf,
  type WireClient,
} from "./client-read-policy.js";

/** A call under way or answered, with the fields it asked for. */
interface Fetch<T> {
  readonly fields: ReadonlySet<string>;
  readonly answer: Promise<T>;
}

/** The bookkeeping of one read pass: one per pass, so nothing outlives the command it serves. */
export class ClientReadLedger {
  /** `client_id` and every field asked for so far: what every call asks for. */
  private readonly fields = new Set<string>([ID_FIELD]);
  private readonly entries = new Map<string, Entry>();
  /** Clients remembered or forgotten, with when: a fetch sent before must not overwrite them. */
  private readonly touchedAt = new Map<string, number>();
  /** The latest fetch of each page. */
  private readonly pages = new Map<number, Fetch<void>>();
  /** Single GETs under way, per client. */
  private readonly singles = new Map<string, Fetch<WireClient | undefined>[]>();
  /** Pages answered during the pass. */
  private readonly pagesAnswered = new Set<number>();
  /** The logical clock that orders fetches and PATCH answers: later data wins. */
  private clock = 0;
  private knownTotal: number | undefined;

  /**
   * The tenant's client count, from the first page answered; `undefined` until then. Later pages
   * do not change it: the page count of a pass is fixed once, and a client created afterwards falls
   * outside it and is found by a single GET.
   */
  get total(): number | undefined {
    return this.knownTotal;
  }

  /** Adds `fields` to what every later call asks for; a field once asked for stays for the pass. */
  ask(fields: Iterable<string>): void {
    for (const field of fields) this.fields.add(field);
  }

  /**
   * What every call asks for: `client_id` first, then every field asked for so far, sorted, so that
   * two calls asking for the same fields send the same query.
   */
  requestFields(): ReadonlySet<string> {
    const rest = [...this.fields].filter((field) => field !== ID_FIELD).sort();
    return new Set([ID_FIELD, ...rest]);
  }

  /**
   * Advances the clock: the time of a call about to be sent, to pass to {@link store} with its
   * answer. Taken when the call is sent, not when it is answered: an answer that arrives late may
   * still describe the client as it was before a PATCH answered in between.
   */
  tick(): number {
    this.clock += 1;
    return this.clock;
  }

  /**
   * Records a PATCH answer, the whole client: it serves a read of any fields, and a fetch sent
   * before it cannot overwrite it. The client is copied, so the caller may change its own.
   */
  remember(client: WireClient): void {
    const sentAt = this.tick();
    this.touchedAt.set(client.client_id, sentAt);
    this.entries.set(client.client_id, {
      client: structuredClone(client),
      fields: "all",
      page: undefined,
      sentAt,
    });
  }

  /** Drops the client's entry; a fetch sent before this cannot restore it. */
  forget(id: string): void {
    this.touchedAt.set(id, this.tick());
    this.entries.delete(id);
  }

  /**
   * Stores a fetched client, or its absence (`undefined`, a single GET's 404), unless the ledger
   * holds newer data about it: a PATCH answer or a forget, or a fetch sent later.
   */
  store(id: string, client: WireClient | undefined, entry: Omit<Entry, "client">): void {
    if ((this.touchedAt.get(id) ?? 0) > entry.sentAt) return;
    const known = this.entries.get(id);
    if (known !== undefined && known.sentAt > entry.sentAt) return;
    this.entries.set(id, { ...entry, client });
  }

  /**
   * Records an answered page sent at `sentAt` asking for `fields`: the tenant's total if none is
   * known yet, the page as answered (see {@link isListed}), and each of its clients.
   */
  pageAnswered(
    page: number,
    answered: ClientListPage,
    fields: ReadonlySet<string>,
    sentAt: number,
  ): void {
    this.knownTotal ??= answered.total;
    this.pagesAnswered.add(page);
    for (const client of answered.clients) {
      this.store(client.client_id, client, { fields, page, sentAt });
    }
  }

  /**
   * The entry of client `id` if it holds every one of `fields` (absence included: the fetch asked
   * for them), else `undefined`: a read may be served only by such an entry.
   */
  covering(id: string, fields: ReadonlySet<string>): Entry | undefined {
    const entry = this.entries.get(id);
    return entry !== undefined && covers(entry, fields) ? entry : undefined;
  }

  /**
   * Where a read of client `id` asking for `fields` stands (see {@link standingOf});
   * `listed` says whether every page of the tenant has been answered (see {@link isListed}).
   */
  standingOf(id: string, fields: ReadonlySet<string>, listed: boolean): ReadStanding {
    return standingOf(fields, {
      entry: this.entries.get(id),
      touched: this.touchedAt.has(id),
      listed,
    });
  }

  /** Whether each of the `pageCount` pages of the tenant has been answered during the pass. */
  isListed(pageCount: number): boolean {
    for (let page = 0; page < pageCount; page += 1) {
      if (!this.pagesAnswered.has(page)) return false;
    }
    return true;
  }

  /**
   * The latest fetch of `page` if it asked for every one of `fields`, under way or answered;
   * `undefined` when the page was never fetched or only with fewer fields.
   */
  pageFetch(page: number, fields: ReadonlySet<string>): Promise<void> | undefined {
    const latest = this.pages.get(page);
    return latest !== undefined && includesAll(latest.fields, fields) ? latest.answer : undefined;
  }

  /** The latest fetch of every page fetched so far, in the order the pages were first fetched. */
  pageFetches(): Promise<void>[] {
    return [...this.pages.values()].map((fetch) => fetch.answer);
  }

  /**
   * Records a fetch of `page` asking for `fields` as the page's latest, replacing any earlier one.
   * `answer` must not reject: the pass settles a failed page itself (it then reads singly), and
   * the reads that wait on a page through {@link pageFetch} or {@link pageFetches} handle no
   * failure.
   */
  pageSent(page: number, fields: ReadonlySet<string>, answer: Promise<void>): void {
    this.pages.set(page, { fields, answer });
  }

  /**
   * The answer of a single GET of client `id` under way that asked for every one of `fields`, if
   * any: a read may wait for it rather than send its own.
   */
  singleUnderWay(
    id: string,
    fields: ReadonlySet<string>,
  ): Promise<WireClient | undefined> | undefined {
    return this.singles.get(id)?.find((get) => includesAll(get.fields, fields))?.answer;
  }

  /**
   * Records a single GET of client `id` asking for `fields` as under way until `answer` settles,
   * either way: a failed GET is no longer under way, and the next read makes its own call.
   */
  singleSent(
    id: string,
    fields: ReadonlySet<string>,
    answer: Promise<WireClient | undefined>,
  ): void {
    const get = { fields, answer };
    this.singles.set(id, [...(this.singles.get(id) ?? []), get]);
    const done = () => {
      const rest = (this.singles.get(id) ?? []).filter((other) => other !== get);
      if (rest.length === 0) this.singles.delete(id);
      else this.singles.set(id, rest);
    };
    answer.then(done, done);
  }
}
