/**
 * One read pass of a tenant's clients (docs/design/client-reads.md): every client read of one command,
 * batched by one DataLoader, whose batch function fetches the list pages {@link planBatch} chooses
 * and answers each read from the pass's entries or by its own single GET. This module decides when
 * a batch goes and what each read waits for, and makes the calls; what they answered is kept by the
 * pass's {@link ClientReadLedger} (client-read-ledger.ts).
 *
 * Freshness: a pass serves only what it fetched itself, and the provider starts a new one per
 * command ({@link startClientReadPass} in tenants.ts), so a refresh sees every change made before
 * it began. The provider's own PATCH answers go in with {@link ClientReadPass.remember}; a PATCH
 * whose outcome is unknown takes its client out with {@link ClientReadPass.forget}.
 *
 * @module
 */

import DataLoader from "dataloader";
import { ClientReadLedger } from "./client-read-ledger.js";
import {
  CLIENT_PAGE_SIZE,
  type ClientReadTransport,
  ID_FIELD,
  listPageProblem,
  pageCountOf,
  pickFields,
  planBatch,
  type ReadStanding,
  type WireClient,
} from "./client-read-policy.js";

/** One read: a client, the wire fields it asks for (`client_id` included), and its context. */
interface ClientRead<C> {
  readonly id: string;
  readonly fields: ReadonlySet<string>;
  readonly context: C;
}

/**
 * What the batch function answers for one read: its answer to come. DataLoader settles every read
 * of a batch only once the whole batch is answered; wrapped, each read settles as soon as its own
 * answer does (see `readBatch`).
 */
interface PendingAnswer {
  readonly answer: Promise<WireClient | undefined>;
}

/** Calls made by a pass, by kind. */
export interface ClientReadStats {
  /** Single-client GETs. */
  singleGets: number;
  /** List pages. */
  pages: number;
}

/**
 * The client reads of one command against one tenant and credentials.
 *
 * Cost (docs/design/client-reads.md, "Bound"): for `N` reads of a tenant of `T` clients,
 * `P = ceil(T/100)`, at most `2 * min(N, P) + 1` calls when every read asks for the same fields
 * and nothing else writes to the tenant meanwhile; about `P` when most reads arrive together.
 * Beyond that, each bounded: one single GET per client absent from a complete listing, one page
 * refetch per page and growth of the requested fields, and single GETs for every read after a
 * page failed.
 *
 * @typeParam C - the caller's per-read context, handed to the transport untouched.
 */
export class ClientReadPass<C> {
  /** Calls made so far. */
  readonly stats: ClientReadStats = { singleGets: 0, pages: 0 };
  private readonly loader: DataLoader<ClientRead<C>, PendingAnswer>;
  /** What the pass has fetched: entries, the fields it asks for, pages, single GETs under way. */
  private readonly ledger = new ClientReadLedger();
  /** Calls under way, pages and single GETs: a batch waits for them before it is decided. */
  private readonly callsUnderWay = new Set<Promise<unknown>>();
  private rented = 0;
  private listing = false;
  /** A page failed: the pass reads every client singly from then on. */
  private pagesFailed = false;

  /** @param transport - the two calls the pass makes; see {@link ClientReadTransport}. */
  constructor(private readonly transport: ClientReadTransport<C>) {
    this.loader = new DataLoader((reads) => this.readBatch(reads), {
      // Reads go to the batch function as they come; memoizing is the entries' job, which also
      // knows about PATCH answers.
      cache: false,
      batchScheduleFn: (dispatch) => this.schedule(dispatch),
    });
  }

  /**
   * The client's `fields` (wire names) as the API answers them now, or `undefined` when the
   * client does not exist (a single GET answered 404; absence from list pages alone is never
   * trusted). The answer holds `client_id` and those of `fields` the API answered: a field the
   * client lacks, or key material the credentials may not read (`client_secret`, `encryption_key`,
   * `client_authentication_methods` without `read:client_keys`), is absent, as in a single GET.
   *
   * Rejects with the transport's error only for a single GET made on this read's own context.
   *
   * @param context - passed to the transport for any call this read causes.
   */
  read(id: string, fields: readonly string[], context: C): Promise<WireClient | undefined> {
    const wanted = new Set([ID_FIELD, ...fields]);
    this.ledger.ask(wanted);
    return this.load({ id, fields: wanted, context });
  }

  /** `read` through the loader: its batch, then its own answer (see {@link PendingAnswer}). */
  private load(read: ClientRead<C>): Promise<WireClient | undefined> {
    return this.loader.load(read).then(({ answer }) => answer);
  }

  /**
   * Records a PATCH answer (the whole client): later reads of any fields are served from it, and
   * a page or GET sent before it cannot overwrite it. A PATCH answer that is not the whole client
   * must not be passed here: {@link ClientReadPass.forget} the client instead.
   */
  remember(client: WireClient): void {
    this.ledger.remember(client);
  }

  /**
   * Drops what the pass knows about a client, e.g. after a PATCH that failed or timed out (its
   * outcome is unknown): the next read of it is a single GET, and fetches sent before cannot
   * restore it.
   */
  forget(id: string): void {
    this.ledger.forget(id);
  }

  /**
   * When a batch is handed to {@link readBatch}. Reads that arrive while a call of the pass is
   * under way (a page, or a single GET, most of whose time is its wait for the rate limiter) wait
   * for it and are decided together, as one batch: Pulumi sends reads one gRPC call at a time, so
   * without the wait every read of a refresh or an adoption would be a batch of one, and the pass
   * would rent its whole single-GET budget before it saw how many reads were coming. Once the pass
   * lists every page there is no such choice left, so a batch goes at the next turn and each of
   * its reads waits only for the page that holds its client (docs/design/client-reads.md, "Batches").
   */
  private schedule(dispatch: () => void): void {
    if (this.listing && !this.pagesFailed) {
      setImmediate(dispatch);
      return;
    }
    const settled = async () => {
      // Bounded: no call starts while a batch waits (only a dispatched batch makes calls), so
      // every round waits for calls already under way, each bounded by its read's deadline.
      while (this.callsUnderWay.size > 0) await Promise.allSettled(this.callsUnderWay);
    };
    // A batch decided again without a call under way comes back here at once, in microtasks
    // where no timer (no deadline) can run: `readBatch` decides a read again only after a call
    // it waited for, or after page 0 left the pass a total or its pages failed, so that happens
    // at most once per read (docs/design/client-reads.md, "Pages that are not pages").
    void settled().then(dispatch);
  }

  /** Counts `call` among the calls under way until it settles; returns it. */
  private underWay<T>(call: Promise<T>): Promise<T> {
    this.callsUnderWay.add(call);
    const settled = () => this.callsUnderWay.delete(call);
    call.then(settled, settled);
    return call;
  }

  /**
   * The batch function. While the tenant's size is unknown, a batch with a miss fetches page 0
   * and then joins the reads that arrived meanwhile, so that all of them are decided together.
   * Otherwise: the pages {@link planBatch} chooses, then each read's answer, as soon as a page
   * answered it or, failing that, once every page is in: a read does not wait for the pages that
   * hold other clients (an adoption's creates then finish as their pages arrive instead of all at
   * once after the last one).
   */
  private async readBatch(reads: readonly ClientRead<C>[]): Promise<PendingAnswer[]> {
    const [first] = reads;
    if (first === undefined) return [];
    const fields = new Set(reads.flatMap((read) => [...read.fields]));
    let pages: Promise<void>[] = [];
    /** Whether the read at this index waits for the listing rather than for `pages`. */
    let awaitsListing = (_index: number) => false;
    /** Whether the read at this index is decided again in the next batch. */
    let deferred = (_index: number) => false;
    const { total } = this.ledger;
    if (total === undefined && !this.pagesFailed) {
      if (reads.some((read) => this.standingOf(read, false).kind === "miss")) {
        await this.fetchPage(0, fields, first.context);
        // A page 0 that taught no total failed (see `fetchPage`); this keeps the next batch from
        // coming here again, whatever the page was.
        if (this.ledger.total === undefined) this.pagesFailed = true;
        // Decided again, with what page 0 told and the reads that arrived meanwhile.
        return reads.map((read) => pending(this.load(read)));
      }
    } else if (total !== undefined && !this.pagesFailed) {
      const pageCount = pageCountOf(total);
      const listed = this.ledger.isListed(pageCount);
      const standings = reads.map((read) => ({
        id: read.id,
        standing: this.standingOf(read, listed),
      }));
      const plan = planBatch(standings, {
        pageCount,
        rented: this.rented,
        listing: this.listing,
        turns: this.transport.turnsNow(reads.length),
        callsUnderWay: this.callsUnderWay.size > 0,
      });
      this.rented += plan.rents;
      this.listing ||= plan.lists;
      pages = plan.pages.map((page) => this.fetchPage(page, fields, first.context));
      if (this.listing) awaitsListing = (index) => standings[index]?.standing.kind === "miss";
      // Only misses are deferred, and every read of a missed client is a miss.
      const defers = new Set(plan.defers);
      deferred = (index) => defers.has(reads[index]?.id ?? "");
    }
    // Without pages to wait for, a read's single GET starts here, before the deferred reads join
    // the next batch below: that batch then waits for the GET (see `schedule`).
    const answers = reads.map((read, index) =>
      deferred(index)
        ? undefined
        : pending(
            awaitsListing(index)
              ? this.afterListing(read)
              : pages.length === 0
                ? this.answer(read)
                : this.answeredBy(read, pages).then(() => this.answer(read)),
          ),
    );
    return reads.map((read, index) => answers[index] ?? pending(this.load(read)));
  }

  /**
   * The answer to a read that arrived while the pass lists every page: from the page that holds
   * its client as soon as that page is in; if no page of the listing answered it, decided again
   * once they are all in (a page refetch or a single GET), as if it had arrived after the listing.
   * Waiting for the listing's own fetches, rather than asking for every page again with the
   * batch's fields, keeps a field first asked for now to one refetch of one page.
   */
  private async afterListing(read: ClientRead<C>): Promise<WireClient | undefined> {
    await this.answeredBy(read, this.ledger.pageFetches());
    const entry = this.ledger.covering(read.id, read.fields);
    if (entry !== undefined) return narrowed(entry.client, read);
    return this.load(read);
  }

  /** Settles once an entry holds every field of `read`, or once every one of `pages` is in. */
  private answeredBy(read: ClientRead<C>, pages: readonly Promise<void>[]): Promise<void> {
    let left = pages.length;
    if (left === 0) return Promise.resolve();
    return new Promise((settle) => {
      const answered = () => {
        left -= 1;
        if (left === 0 || this.ledger.covering(read.id, read.fields) !== undefined) settle();
      };
      // `fetchPage` never rejects; were one to, the read would still settle.
      for (const page of pages) void page.then(answered, answered);
    });
  }

  private standingOf(read: ClientRead<C>, listed: boolean): ReadStanding {
    return this.ledger.standingOf(read.id, read.fields, listed);
  }

  /** From the pass's entries when one holds every field, else by a single GET. */
  private async answer(read: ClientRead<C>): Promise<WireClient | undefined> {
    const entry = this.ledger.covering(read.id, read.fields);
    if (entry !== undefined) return narrowed(entry.client, read);
    const underWay = this.ledger.singleUnderWay(read.id, read.fields);
    if (underWay !== undefined) {
      // Another read's GET of this client is on its way; should it fail, this read makes its own
      // call, so that each read reports its own failure under its own name.
      const shared = await underWay.then(
        (client) => ({ client }),
        () => undefined,
      );
      if (shared !== undefined) return narrowed(shared.client, read);
    }
    return narrowed(await this.singleGet(read), read);
  }

  /** `GET /clients/{id}` for `read`, asking for every field of the pass. */
  private singleGet(read: ClientRead<C>): Promise<WireClient | undefined> {
    const fields = this.ledger.requestFields();
    const sentAt = this.ledger.tick();
    this.stats.singleGets += 1;
    const answer = this.underWay(
      this.transport.getOne(read.id, [...fields], read.context).then((client) => {
        this.ledger.store(read.id, client, { fields, page: undefined, sentAt });
        return client;
      }),
    );
    this.ledger.singleSent(read.id, fields, answer);
    return answer;
  }

  /**
   * The latest fetch of `page` if it asked for every one of `fields`, else a new fetch asking
   * for every field of the pass. Never rejects: a failed page makes the pass read singly, and
   * each read then reports its own failure, if any, under its own name. A page that is not one
   * ({@link listPageProblem}: no `total`, no `clients` array) has failed, whatever the transport
   * made of it (docs/design/client-reads.md, "Pages that are not pages").
   */
  private fetchPage(page: number, fields: ReadonlySet<string>, context: C): Promise<void> {
    const latest = this.ledger.pageFetch(page, fields);
    if (latest !== undefined) return latest;
    const asked = this.ledger.requestFields();
    const sentAt = this.ledger.tick();
    this.stats.pages += 1;
    const answer: Promise<void> = this.underWay(
      this.transport.listPage(page, CLIENT_PAGE_SIZE, [...asked], context).then(
        (answered) => {
          if (listPageProblem(answered) === undefined) {
            this.ledger.pageAnswered(page, answered, asked, sentAt);
          } else this.pagesFailed = true;
        },
        () => {
          // The transport has already retried what can be retried.
          this.pagesFailed = true;
        },
      ),
    );
    this.ledger.pageSent(page, asked, answer);
    return answer;
  }
}

/**
 * `answer` as the batch function hands it to DataLoader. Its read handles a failure; the catch
 * keeps Node from calling it unhandled before the read has taken it from DataLoader.
 */
function pending(answer: Promise<WireClient | undefined>): PendingAnswer {
  answer.catch(() => undefined);
  return { answer };
}

/** The client narrowed to what `read` asked for; a fresh object. */
function narrowed<C>(client: WireClient | undefined, read: ClientRead<C>): WireClient | undefined {
  return client === undefined ? undefined : pickFields(client, read.fields);
}
