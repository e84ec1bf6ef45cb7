/**
 * Background load: the other callers of the tenant (docs/design/local-tenant.md, "Background load").
 *
 * The platform's rate-limit bucket is one per tenant, shared with the customer's own back ends
 * (docs/design/local-tenant.md, "Rate limit"). To show what a
 * deployment does to them, the local tenant can play such a back end: `rate` reads a second, sent
 * `burst` at a time, each taking a token from the management API's bucket, and counted apart from
 * the program's requests (`RequestStats.background`).
 *
 * The requests do not travel over HTTP: the only thing production shares with the program on the
 * platform is the bucket, and a read takes its token in the bucket before anything else that could
 * tell it apart (token, scope, route). Taking the token directly is therefore exactly what the
 * bucket sees of a read, while HTTP requests would have to be kept out of the program's counters,
 * need a token of their own, and compete for the event loop and sockets with the program under
 * test, adding latency to it that production's calls do not add on the platform.
 *
 * With a network delay (`network-delay.ts`), each request reaches the bucket after its own drawn
 * delay, as the program's do: a burst sent together arrives spread by the draws.
 *
 * When a burst is due is a pure function of the start time and the clock ({@link burstsDueBy},
 * {@link burstDueAt}); {@link BackgroundLoad} only runs what is due whenever its timer fires, so
 * tests drive it with an injected clock and timers and never sleep.
 */

import { CommandUsageError } from "../errors.js";
import type { TokenBucket } from "./rate-limit.js";
import type { RequestStats } from "./stats.js";

/** Background load settings: `rate` reads a second, sent `burst` together every `burst / rate` s. */
export interface BackgroundLoadOptions {
  /** Requests a second of the other callers; greater than 0, at most {@link MAX_BACKGROUND_RATE}. */
  rate: number;
  /**
   * How many requests are sent together, every `burst / rate` seconds: a production back end that
   * bursts. An integer from 1 (evenly spaced, the default) to {@link MAX_BACKGROUND_BURST}.
   */
  burst?: number | undefined;
}

/** Background load settings with the burst filled in. */
export interface ResolvedBackgroundLoad {
  /** Requests a second. */
  rate: number;
  /** Requests sent together. */
  burst: number;
}

/**
 * The largest rate accepted: far above any tenant's limit (the bucket is empty long before), and it
 * keeps the work of one timer tick bounded (at most {@link CATCH_UP_MS} of bursts).
 */
export const MAX_BACKGROUND_RATE = 10_000;
/** The largest burst accepted, for the same reason as {@link MAX_BACKGROUND_RATE}. */
export const MAX_BACKGROUND_BURST = 10_000;

/**
 * How far behind a tick catches up. Bursts due longer ago than this (the process was stopped in a
 * debugger, the machine slept) are skipped, not sent at once: a back end's request held that long
 * would have timed out, and the loop of one tick stays bounded.
 */
const CATCH_UP_MS = 10_000;

/**
 * Checks background load settings and fills in the default burst. The messages name the option
 * (`backgroundLoad`); the command names its flags itself.
 *
 * @throws {CommandUsageError} for a rate that is not a number in (0, 10000] or a burst that is not
 *   an integer from 1 to 10000, naming the setting.
 */
export function normalizeBackgroundLoad(options: BackgroundLoadOptions): ResolvedBackgroundLoad {
  const name = "backgroundLoad";
  if (typeof options !== "object" || options === null) {
    throw new CommandUsageError(`${name} must be an object { rate, burst }, got ${options}`);
  }
  const { rate } = options;
  if (
    typeof rate !== "number" ||
    !Number.isFinite(rate) ||
    rate <= 0 ||
    rate > MAX_BACKGROUND_RATE
  ) {
    throw new CommandUsageError(
      `${name}: rate must be a number greater than 0 and at most ${MAX_BACKGROUND_RATE} ` +
        `(requests a second), got ${typeof rate === "string" ? JSON.stringify(rate) : rate}`,
    );
  }
  const burst = options.burst ?? 1;
  if (!Number.isInteger(burst) || burst < 1 || burst > MAX_BACKGROUND_BURST) {
    throw new CommandUsageError(
      `${name}: burst must be an integer from 1 to ${MAX_BACKGROUND_BURST}, got ${burst}`,
    );
  }
  return { rate, burst };
}

/** Milliseconds between two bursts. */
function periodMs(load: ResolvedBackgroundLoad): number {
  return (load.burst * 1000) / load.rate;
}

/**
 * When burst number `n` (1 for the first) is due: `n` periods after the start. The first burst comes
 * one period after the start, not at it, so the counters read zero right after a start or a reset.
 */
export function burstDueAt(load: ResolvedBackgroundLoad, startedAt: number, n: number): number {
  return startedAt + n * periodMs(load);
}

/**
 * How many bursts are due by `now` since `startedAt` (0 before the first). A millionth of a burst
 * is forgiven so that a timer fired at the due millisecond is not a rounding error short of it.
 */
export function burstsDueBy(load: ResolvedBackgroundLoad, startedAt: number, now: number): number {
  if (now <= startedAt) return 0;
  return Math.floor((now - startedAt) / periodMs(load) + 1e-6);
}

/** Runs `run` once after `delayMs`; returns what cancels it. */
export type BackgroundTimer = (run: () => void, delayMs: number) => () => void;

/**
 * Node's timer, unref'd so that a background load never keeps a process alive on its own. The
 * global `setTimeout` is looked up at each call, so a test's fake timers take effect.
 */
const nodeTimer: BackgroundTimer = (run, delayMs) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

/** What {@link BackgroundLoad} takes tokens from and counts in. */
export interface BackgroundLoadParts {
  /** The management API's bucket, the one the program's requests take from. */
  bucket: TokenBucket;
  /** Where the background's requests are counted (`background`, apart from the program's). */
  stats: RequestStats;
  /** Milliseconds since the epoch: the bucket's clock. */
  clock: () => number;
  /** Default Node's `setTimeout`, unref'd. */
  timer?: BackgroundTimer | undefined;
  /**
   * The way in of a tenant a network away (`network-delay.ts`): each request reaches the bucket
   * this many ms (one draw per request) after its burst was sent, as the program's requests do;
   * default none, at once.
   */
  delay?: (() => number) | undefined;
}

/**
 * The other callers of the tenant, run by a timer: at each due burst, `burst` requests take a token
 * from the bucket exactly as a read of the management API does, counted in `stats.background`.
 * Constructing it checks the settings and starts nothing; {@link BackgroundLoad.start} starts the
 * schedule, {@link BackgroundLoad.stop} ends it (nothing runs after it returns).
 */
export class BackgroundLoad {
  private settings: ResolvedBackgroundLoad | null;
  private cancel: (() => void) | undefined;
  private startedAt = 0;
  private sent = 0;
  /** Bumped by every stop, so that a timer of an earlier schedule that fires anyway does nothing. */
  private generation = 0;
  private readonly timer: BackgroundTimer;

  /**
   * @throws {CommandUsageError} for invalid settings (see {@link normalizeBackgroundLoad}).
   */
  constructor(
    private readonly parts: BackgroundLoadParts,
    options: BackgroundLoadOptions | null = null,
  ) {
    this.settings = options === null ? null : normalizeBackgroundLoad(options);
    this.timer = parts.timer ?? nodeTimer;
  }

  /** The current settings, or null when there is no background load. */
  current(): ResolvedBackgroundLoad | null {
    return this.settings === null ? null : { ...this.settings };
  }

  /** Starts the schedule from now (again, if it ran): the first burst one period later. */
  start(): void {
    this.stop();
    if (this.settings === null) return;
    this.startedAt = this.parts.clock();
    this.sent = 0;
    this.schedule(this.settings);
  }

  /**
   * Replaces the settings and starts the schedule from now; null ends the background load.
   *
   * @throws {CommandUsageError} for invalid settings, leaving the current ones running.
   */
  configure(options: BackgroundLoadOptions | null): void {
    const settings = options === null ? null : normalizeBackgroundLoad(options);
    this.stop();
    this.settings = settings;
    this.start();
  }

  /** Stops the timer; calling it again, or before `start`, does nothing. */
  stop(): void {
    this.generation += 1;
    this.cancel?.();
    this.cancel = undefined;
  }

  private schedule(settings: ResolvedBackgroundLoad): void {
    const due = burstDueAt(settings, this.startedAt, this.sent + 1);
    const delay = Math.max(0, Math.ceil(due - this.parts.clock()));
    const generation = this.generation;
    this.cancel = this.timer(() => {
      if (generation === this.generation) this.tick(settings);
    }, delay);
  }

  /** Sends every burst due by now (at most {@link CATCH_UP_MS} of them), then waits for the next. */
  private tick(settings: ResolvedBackgroundLoad): void {
    const now = this.parts.clock();
    const due = burstsDueBy(settings, this.startedAt, now);
    const skippedBefore = burstsDueBy(settings, this.startedAt, now - CATCH_UP_MS);
    const first = Math.max(this.sent, skippedBefore);
    for (let burst = first; burst < due; burst += 1) {
      for (let request = 0; request < settings.burst; request += 1) this.send();
    }
    this.sent = Math.max(this.sent, due);
    this.schedule(settings);
  }

  /** One request: it takes its token now, or after its way in when the tenant is a network away. */
  private send(): void {
    const { bucket, stats, delay } = this.parts;
    const take = () => {
      stats.recordBackground(bucket.take().allowed);
      stats.recordLevel(bucket.level());
    };
    const delayMs = delay?.() ?? 0;
    if (delayMs <= 0) {
      take();
      return;
    }
    const generation = this.generation;
    this.timer(() => {
      if (generation === this.generation) take();
    }, delayMs);
  }
}
