/**
 * What the console shows over time (docs/design/local-tenant.md, "The console"): the bucket's level each
 * second, the requests of each second by caller and status, and a log of the latest requests.
 *
 * It keeps all of this only while a console page is open. With no page open, every `request` and
 * background call returns at once, there is no timer and no history: the local tenant of a test
 * run, which nobody watches, pays one comparison a request. The first page to open starts the
 * one-second timer and an empty history; the last to close stops the timer and drops the history.
 * A page therefore shows the tenant from the moment the first page opened, not from its start:
 * the price of costing nothing the rest of the time.
 */

import { DEFAULT_PACING_BUDGET, reserveTokens } from "../../api/pacing-budget.js";
import type { TokenBucket } from "../rate-limit.js";
import type { RequestStats } from "../stats.js";
import {
  type BucketInfo,
  HISTORY_SECONDS,
  LOG_LIMIT,
  type LogEntry,
  type Second,
  type SecondCounts,
  type Tick,
} from "./shared.js";

/** Runs `run` every `ms` until the returned function is called. */
export type IntervalTimer = (run: () => void, ms: number) => () => void;

/** Node's `setInterval`, unref'd: an open console never keeps a process alive on its own. */
const nodeInterval: IntervalTimer = (run, ms) => {
  const timer = setInterval(run, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** What {@link ConsoleMonitor} watches. */
export interface MonitorParts {
  /** The management API's bucket, whose level is drawn (read, never taken from). */
  bucket: TokenBucket;
  /** The counters, whose background requests the monitor is told of while a page is open. */
  stats: RequestStats;
  /** Milliseconds since the epoch: the bucket's clock. */
  clock: () => number;
  /** The store's change count, sent with each tick. */
  version: () => number;
  /** Default Node's `setInterval`, unref'd; a test fires ticks itself. */
  interval?: IntervalTimer | undefined;
}

function emptyCounts(): SecondCounts {
  return { ok: 0, client: 0, limited: 0, server: 0, backgroundAllowed: 0, backgroundRefused: 0 };
}

/** The bucket and the provider's default reserve of it, or null without a rate limit. */
export function bucketInfo(bucket: TokenBucket): BucketInfo | null {
  const settings = bucket.current();
  if (settings === null) return null;
  return { ...settings, reserve: reserveTokens(settings.burst, DEFAULT_PACING_BUDGET) };
}

/**
 * The console's memory of the tenant while pages are open; see the module's comment for why it
 * keeps nothing otherwise.
 */
export class ConsoleMonitor {
  private readonly viewers = new Set<(tick: Tick) => void>();
  private log: LogEntry[] = [];
  private history: Second[] = [];
  private counts: SecondCounts = emptyCounts();
  private seq = 0;
  private sentSeq = 0;
  private stopTimer: (() => void) | undefined;
  private readonly interval: IntervalTimer;

  /** Builds an idle monitor: no timer and nothing kept until {@link ConsoleMonitor.attach}. */
  constructor(private readonly parts: MonitorParts) {
    this.interval = parts.interval ?? nodeInterval;
  }

  /** Whether a page is open: only then is anything recorded. */
  get active(): boolean {
    return this.viewers.size > 0;
  }

  /** How many pages are open (their event streams, which the routes cap). */
  get pages(): number {
    return this.viewers.size;
  }

  /**
   * Adds a page, told of each second by `send`; returns what removes it. The first page starts
   * the timer and the history, the last one's removal stops and drops them.
   */
  attach(send: (tick: Tick) => void): () => void {
    if (this.viewers.size === 0) this.start();
    this.viewers.add(send);
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      this.viewers.delete(send);
      if (this.viewers.size === 0) this.stop();
    };
  }

  /** The history and the log so far, oldest first, for a page that just opened. */
  recorded(): { history: Second[]; log: LogEntry[] } {
    return { history: [...this.history], log: [...this.log] };
  }

  /** Records one answered request; does nothing while no page is open. */
  request(entry: Omit<LogEntry, "seq" | "at">): void {
    if (!this.active) return;
    if (entry.caller === "program") {
      const { status } = entry;
      const counts = this.counts;
      if (status === "dropped" || status >= 500) counts.server += 1;
      else if (status === 429) counts.limited += 1;
      else if (status >= 400) counts.client += 1;
      else counts.ok += 1;
    }
    this.seq += 1;
    this.log.push({ ...entry, seq: this.seq, at: this.parts.clock() });
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT);
  }

  /** Ends every page's stream: the server stops. */
  close(): void {
    this.viewers.clear();
    this.stop();
  }

  private start(): void {
    this.counts = emptyCounts();
    this.parts.stats.onBackground = (allowed) => {
      if (allowed) this.counts.backgroundAllowed += 1;
      else this.counts.backgroundRefused += 1;
      this.request({
        method: "GET",
        path: "(bucket)",
        status: allowed ? 200 : 429,
        caller: "background",
        ms: 0,
      });
    };
    this.stopTimer = this.interval(() => this.tick(), 1000);
  }

  private stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
    this.parts.stats.onBackground = undefined;
    this.log = [];
    this.history = [];
    this.counts = emptyCounts();
    this.sentSeq = this.seq;
  }

  /** Closes the second: into the history, and to every page with the log entries it added. */
  private tick(): void {
    const second: Second = {
      ...this.counts,
      at: this.parts.clock(),
      level: this.parts.bucket.level(),
    };
    this.counts = emptyCounts();
    this.history.push(second);
    if (this.history.length > HISTORY_SECONDS) this.history.shift();
    const entries = this.log.filter((entry) => entry.seq > this.sentSeq);
    this.sentSeq = this.seq;
    const tick: Tick = {
      second,
      entries,
      version: this.parts.version(),
      bucket: bucketInfo(this.parts.bucket),
    };
    for (const send of this.viewers) send(tick);
  }
}
