/**
 * The progress of a command's long read (`generate`, `snapshot`, `audit` list the tenant's clients
 * a page at a time, at the pace the tenant's rate limit allows): on a terminal a bar with the counts
 * and the time left, in a pipe or CI a line every few seconds, with `--quiet` nothing. The time
 * left is computed from the rate the tenant allows as the limiter has learned it, and the line
 * says what bounds it: the tenant's rate, this run's ceiling, or the tenant's other callers
 * (docs/guides/commands.md, "Progress").
 *
 * Written here rather than taken from a progress-bar library: the bar is one line redrawn in place
 * (`\r` and erase-line), which needs no terminal handling a library would add, and the package's
 * users would get the dependency with every install for twenty lines of it.
 *
 * @module
 */

import { OTHERS_SHOWN_SHARE } from "./api/pacing-budget.js";
import { rateText as rate } from "./api/pacing-report.js";
import type { RateLimiterState } from "./api/rate-limiter.js";
import { CONFIG_KEYS } from "./config.js";
import { drawingBar } from "./stderr-lines.js";

/** The pace a read goes at, and what holds it there. */
interface Pace {
  /** Requests (pages) a second. */
  readonly perSecond: number;
  /** What bounds it, as the end of the progress line. */
  readonly bound: string;
}

/** Other callers count as the limiter's reports count them ({@link OTHERS_SHOWN_SHARE}). */
const OTHERS_MATTER = OTHERS_SHOWN_SHARE;

/**
 * The pace the limiter's learned state allows this run, and what bounds it: this run's ceiling
 * when it is below what the tenant leaves free, else the tenant's rate less what its other callers
 * were seen to take. The reserve (`--rate-limit-reserve`) costs a share of the first burst only,
 * not of the rate, so it bounds no long read. Undefined before the limiter has a state.
 *
 * @internal
 */
export function paceOf(state: RateLimiterState | undefined): Pace | undefined {
  if (state === undefined || !(state.rate > 0)) return undefined;
  const others = state.othersSeen >= OTHERS_MATTER * state.rate ? state.othersSeen : 0;
  const free = Math.max(state.rate - others, state.rate * OTHERS_MATTER);
  const ceiling = state.budget.maxRequestsPerSecond;
  if (ceiling !== undefined && ceiling < free) {
    return {
      perSecond: ceiling,
      // The flag or the variable that set it, as the command's settings name it.
      bound: `this run's ceiling of ${rate(ceiling)} requests/s (${state.budgetNames?.maxRequestsPerSecond ?? CONFIG_KEYS.maxRequestsPerSecond.flag})`,
    };
  }
  if (others > 0) {
    return {
      perSecond: free,
      bound: `the tenant allows ${rate(state.rate)} requests/s, of which its other callers take ${rate(others)}`,
    };
  }
  return { perSecond: state.rate, bound: `the tenant allows ${rate(state.rate)} requests/s` };
}

/**
 * Where a read stands.
 *
 * @internal
 */
export interface ReadFigures {
  /** Pages read, of `pages`. */
  readonly done: number;
  readonly pages: number;
  /** The clients in all, as the first page said. */
  readonly clients: number;
  readonly pace: Pace | undefined;
}

/** `1 m 05 s`, `7 s`. */
function duration(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  if (whole < 60) return `${whole} s`;
  return `${Math.floor(whole / 60)} m ${String(whole % 60).padStart(2, "0")} s`;
}

/** `2,000`. */
function count(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * The words of the progress: the counts, then the time left and what bounds it when known.
 *
 * @example `read 7 of 21 pages (2,000 clients); about 7 s left: the tenant allows 2 requests/s`
 *
 * @internal
 */
export function progressText(figures: ReadFigures): string {
  const counts = `read ${figures.done} of ${figures.pages} pages (${count(figures.clients)} clients)`;
  if (figures.pace === undefined || figures.done >= figures.pages) return counts;
  const left = (figures.pages - figures.done) / figures.pace.perSecond;
  return `${counts}; about ${duration(left)} left: ${figures.pace.bound}`;
}

/** The bar's width in cells. */
const BAR_CELLS = 24;

/**
 * The terminal's bar: `[#########---------------] ` before {@link progressText}.
 *
 * @internal
 */
export function progressBar(figures: ReadFigures): string {
  const filled = figures.pages === 0 ? 0 : Math.round((BAR_CELLS * figures.done) / figures.pages);
  return `[${"#".repeat(filled)}${"-".repeat(BAR_CELLS - filled)}] ${progressText(figures)}`;
}

/**
 * The one line said when the user stops a read with Ctrl-C: what was read and what was left
 * undone. Every command writes its output only after the whole read, so nothing was written.
 *
 * @internal
 */
export function interruptedText(command: string, figures: ReadFigures | undefined): string {
  const read =
    figures === undefined
      ? "before the first page arrived"
      : `after ${figures.done} of ${figures.pages} pages (${count(figures.clients)} clients); ` +
        `${figures.pages - figures.done} pages were not read`;
  return `pulumi-tenant ${command}: interrupted ${read}, and nothing was written`;
}

/** How progress is shown. */
export interface ProgressOptions {
  /** The command, for the lines: `generate`. */
  readonly command: string;
  /** Writes to stderr. */
  readonly write: (text: string) => void;
  /** Whether stderr is a terminal: a bar redrawn in place; else a line every {@link everyMs}. */
  readonly terminal: boolean;
  /** `--quiet`: nothing at all. */
  readonly quiet: boolean;
  /** The limiter's state of the tenant read, asked at each page. */
  readonly pace: () => RateLimiterState | undefined;
  /** The interval of the lines in a pipe; default 5 s. */
  readonly everyMs?: number;
}

/** A read's progress, once started. */
export interface ReadProgress {
  /** A page arrived: `done` of `pages`, `clients` in all. */
  page(done: number, pages: number, clients: number): void;
  /** The read is over (done or failed): the bar is cleared, the timer and the handler removed. */
  end(): void;
}

/** Pages from which progress is shown: below this a read takes a second or two. */
const FROM_PAGES = 3;

/**
 * Shows a read's progress as {@link ProgressOptions} says, and says in one line what was left
 * undone when SIGINT stops it ({@link interruptedText}), exiting 130 as a shell reports Ctrl-C.
 */
export function startProgress(options: ProgressOptions): ReadProgress {
  let figures: ReadFigures | undefined;
  let drawn = false;
  const shown = () => figures !== undefined && figures.pages >= FROM_PAGES && !options.quiet;
  const clear = () => {
    if (drawn) options.write("\r\x1b[K");
    drawn = false;
  };
  const draw = () => {
    if (!options.terminal || figures === undefined || !shown()) return;
    options.write(`\r\x1b[K${progressBar(figures)}`);
    drawn = true;
  };
  const timer = options.terminal
    ? undefined
    : setInterval(() => {
        if (figures !== undefined && shown()) {
          options.write(`pulumi-tenant ${options.command}: ${progressText(figures)}\n`);
        }
      }, options.everyMs ?? 5_000);
  timer?.unref();
  const onInterrupt = () => {
    clear();
    options.write(`${interruptedText(options.command, figures)}\n`);
    process.exit(130);
  };
  process.once("SIGINT", onInterrupt);
  if (options.terminal) drawingBar({ clear, redraw: draw });
  return {
    page(done, pages, clients) {
      figures = { done, pages, clients, pace: paceOf(options.pace()) };
      draw();
    },
    end() {
      clear();
      drawingBar(undefined);
      if (timer !== undefined) clearInterval(timer);
      process.off("SIGINT", onInterrupt);
    },
  };
}
