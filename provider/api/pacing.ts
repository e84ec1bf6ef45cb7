/**
 * The pacing of one process's requests to one tenant's bucket, whole and pure: the one step that
 * turns an event into a new state and what to do, each event with its transition
 * (docs/design/decisions.md, "Sharing the rate limit"). The limiter (`bucket-pacer.ts`) keeps the
 * queue and the timer and calls {@link paceStep} once per event (a request wants to go, an answer
 * came back, the timer it asked for fired, the budget changed, the run ends), the way a
 * resource's plan says what to send, remember and report; nothing here calls back into it.
 *
 * The step's rooms, each one step of it: the state and the refill (`pacing-state.ts`), what an
 * answer teaches (`pacing-answer.ts`, its figures read by `pacing-figures.ts`), whether a request
 * may go (`pacing-start.ts`), the budget shared with the other callers (`pacing-budget.ts`), what
 * a wait tells the user (`pacing-waits.ts`, worded by `pacing-report.ts`).
 *
 * @module
 */

import { type Answer, onAnswer } from "./pacing-answer.js";
import {
  othersInFlight,
  type PacingBudget,
  politest,
  reserveTokens,
  sameBudget,
} from "./pacing-budget.js";
import { decideStart } from "./pacing-start.js";
import { onElapsed, type PacingState, roomOf, type Ticket } from "./pacing-state.js";
import { heldFrom, noteWait, type PacingReport, tellWaits } from "./pacing-waits.js";

/** What happened; `at` is when (ms since the epoch), `waiting` when each waiter queued, in order. */
export type PacingEvent =
  | { readonly kind: "queue"; readonly at: number; readonly waiting: readonly number[] }
  | { readonly kind: "timer"; readonly at: number; readonly waiting: readonly number[] }
  | ({ readonly kind: "answer"; readonly waiting: readonly number[] } & Answer)
  | {
      readonly kind: "budget";
      readonly at: number;
      readonly waiting: readonly number[];
      readonly budget: PacingBudget;
      /** Who asks for it, as the run is told when it gives way (`ClientSettings "web"`). */
      readonly who: string;
    }
  | { readonly kind: "end"; readonly at: number };

/** What the limiter does after a step. */
interface PacingActions {
  /** Tickets for the first `send.length` waiters, in order: they go now. */
  readonly send: readonly Ticket[];
  /** When to step again with a `timer` event; undefined when only an answer can let the next go. */
  readonly wakeAt: number | undefined;
  /** What to tell the run (long waits, a budget that gave way), usually nothing. */
  readonly report: readonly PacingReport[];
}

/**
 * One step: learn from the event, let out what may go, say when to look again and what to tell.
 * Each event has its transition: a waiter that queues or gives up ({@link onQueue}), the timer
 * the last step asked for ({@link onTimer}), an answer (`onAnswer`, pacing-answer.ts), a budget
 * asked for ({@link onBudget}), the end of the run ({@link onEnd}).
 */
export function paceStep(state: PacingState, event: PacingEvent): Step {
  switch (event.kind) {
    case "queue":
      return onQueue(state, event);
    case "timer":
      return onTimer(state, event);
    case "answer":
      return decideReleases(onAnswer(state, event), event.at, event.waiting, undefined);
    case "budget":
      return onBudget(state, event);
    case "end":
      return onEnd(state, event.at);
  }
}

/** The new state and what the limiter does after a step. */
type Step = { state: PacingState; actions: PacingActions };

/** A waiter queued or gave up: the head of the queue may go now. */
function onQueue(state: PacingState, event: Extract<PacingEvent, { kind: "queue" }>): Step {
  return decideReleases(onElapsed(state, event.at), event.at, event.waiting, undefined);
}

/** The timer fired: the moment the last step said the head of the queue may go. */
function onTimer(state: PacingState, event: Extract<PacingEvent, { kind: "timer" }>): Step {
  return decideReleases(onElapsed(state, event.at), event.at, event.waiting, undefined);
}

/** A budget is asked for ({@link decideBudget}): the waiters may go by the budget that holds. */
function onBudget(state: PacingState, event: Extract<PacingEvent, { kind: "budget" }>): Step {
  const { state: kept, told } = decideBudget(onElapsed(state, event.at), event.budget, event.who);
  return decideReleases(kept, event.at, event.waiting, told);
}

/**
 * How many more requests could leave at `at` without waiting, after the `waiting` ones queued
 * before them, at most `upTo`: what a caller that can still choose between calls (the read pass,
 * choosing between single GETs and list pages, docs/design/client-reads.md "Rentals") may send now
 * rather than commit to a wait. The step run on a probe of `upTo` more waiters; the state it would
 * make is dropped.
 */
export function turnsAt(
  state: PacingState,
  at: number,
  waiting: readonly number[],
  upTo: number,
): number {
  const probe = [...waiting, ...Array.from({ length: Math.max(0, upTo) }, () => at)];
  const { actions } = decideReleases(onElapsed(state, at), at, probe, undefined);
  return Math.max(0, actions.send.length - waiting.length);
}

/**
 * Keeps `budget` too ({@link politest}), asked for by `who`, and says, once, when this or an
 * earlier ask gives way to the more polite budget that holds (naming who asked for the budget that
 * gave way): a resource that asks for a reserve of 0 beside resources on the default would
 * otherwise be paced by a budget it never sees. One ask is kept per distinct budget, so a stack of
 * 200 resources on the default keeps one.
 */
function decideBudget(
  state: PacingState,
  budget: PacingBudget,
  who: string,
): { state: PacingState; told?: PacingReport } {
  const next = politest(state.budget, budget);
  const window =
    state.budget.reserveShare === 0 && next.reserveShare > 0
      ? Math.max(1, state.inFlight.length)
      : state.window;
  const kept = { ...state, budget: next, window };
  if (state.toldGivenWay) return { state: kept };
  const asks = state.asks.some((ask) => sameBudget(ask.budget, budget))
    ? state.asks
    : [...state.asks, { budget, who }];
  // The budget that holds is the most polite of all asked: one that differs gave way to it.
  const gaveWay = asks.find((ask) => !sameBudget(ask.budget, next));
  if (gaveWay !== undefined) {
    const givenWay = { who: gaveWay.who, origin: state.origin, asked: gaveWay.budget, holds: next };
    return {
      state: { ...kept, asks: [], toldGivenWay: true },
      told: { kind: "givenWay", givenWay },
    };
  }
  return { state: { ...kept, asks } };
}

/**
 * Lets out every waiter that may go at `at`, in order, and says when to look again; reports `told`
 * (a budget that gave way) first.
 */
function decideReleases(
  state: PacingState,
  at: number,
  waiting: readonly number[],
  told: PacingReport | undefined,
): Step {
  // The queue's peak since it last stood empty with every long wait reported: the waits still to
  // report are those of that peak.
  const fresh = waiting.length === 0 && state.unreported === undefined;
  const mostWaiting = fresh ? 0 : Math.max(state.mostWaiting, waiting.length);
  let s = { ...state, mostWaiting };
  const send: Ticket[] = [];
  const report: PacingReport[] = told === undefined ? [] : [told];
  for (const queuedAt of waiting) {
    const decision = decideStart(
      {
        limit: s.limit,
        reserve: reserveTokens(s.limit, s.budget),
        tokens: s.tokens,
        refillRate: s.rate,
        room: roomOf(s.limit, s, s.inFlight),
        inFlight: s.inFlight.length,
        othersInFlight: othersInFlight(
          {
            others: s.others,
            rate: s.rate,
            roundTripMs: s.roundTripMs,
            inFlight: s.inFlight.length,
          },
          s.limit,
          s.budget,
        ),
        window: s.window,
        lastStartAt: s.lastStartAt,
        othersRate: s.othersSeen,
        rejected: s.rejected,
      },
      s.budget,
      at,
    );
    if (!decision.go) {
      s = { ...s, holds: heldFrom(s.holds, at, decision.heldBy, queuedAt) };
      const wakeAt = Number.isFinite(decision.waitMs) ? at + decision.waitMs : undefined;
      return { state: s, actions: { send, wakeAt, report } };
    }
    const seq = s.started + 1;
    send.push({ sentAt: at, seq });
    s = {
      ...s,
      tokens: s.tokens - 1,
      inFlight: [...s.inFlight, seq],
      started: seq,
      lastStartAt: at,
    };
    const noted = noteWait(s, queuedAt, at);
    s = noted.state;
    if (noted.told !== undefined) report.push(noted.told);
  }
  return { state: { ...s, holds: [] }, actions: { send, wakeAt: undefined, report } };
}

/** The end of the run: the long waits not reported yet are reported now. */
function onEnd(state: PacingState, at: number): Step {
  const { state: s, told } = tellWaits(onElapsed(state, at), at);
  return {
    state: s,
    actions: { send: [], wakeAt: undefined, report: told === undefined ? [] : [told] },
  };
}
