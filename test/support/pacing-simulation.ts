/**
 * A tenant we did not write, simulated event by event around the pure pacing step
 * (`paceStep`), with no timer and no clock but the simulation's: requests queue, the step lets
 * them out, each reaches the tenant half its round trip later and takes a token of the tenant's
 * true bucket (or is refused), and its answer comes back with the figures as the tenant's quirks
 * write them (docs/design/decisions.md, "A tenant we did not write"). For the property-based tests of
 * test/pacing-properties.test.ts.
 *
 * @module
 */

import { type PacingEvent, paceStep } from "../../provider/api/pacing.js";
import type { PacingBudget } from "../../provider/api/pacing-budget.js";
import {
  initialPacingState,
  type PacingState,
  type Ticket,
} from "../../provider/api/pacing-state.js";
import type { RateLimitHeaders } from "../../provider/api/rate-limit-headers.js";

/** What one answer does to the figures. */
export type AnswerQuirk =
  /** The figures as the tenant's bucket has them. */
  | "plain"
  /** No rate-limit header at all (a proxy dropped them). */
  | "noFigures"
  /** A gateway's 502 with an HTML body: the request never reached the tenant. */
  | "gateway"
  /** `x-ratelimit-limit` repeated with different values: read as undefined. */
  | "unequalRepeat"
  /** `x-ratelimit-limit: 1e12`. */
  | "absurdLimit"
  /** `x-ratelimit-limit: 0.5`. */
  | "tinyLimit"
  /** `x-ratelimit-remaining: -3`. */
  | "negativeRemaining"
  /** A reset a day away. */
  | "farReset";

/** The tenant: its true bucket and how it writes its figures. */
export interface SimulatedTenant {
  /** Tokens a second. */
  readonly rate: number;
  /** The bucket's size. */
  readonly burst: number;
  /** The tenant's clock less ours, in ms. */
  readonly clockOffsetMs: number;
  /** Whether its answers carry `Date`. */
  readonly sendsDate: boolean;
  /** Whether `x-ratelimit-reset` is rounded down (else up). */
  readonly roundsDown: boolean;
}

/** One request of the run. */
export interface SimulatedRequest {
  /** When it queues, in ms after the start. */
  readonly queuedAfterMs: number;
  /** How long it may wait in the queue before its operation gives up. */
  readonly deadlineMs: number;
  /** Its round trip, in ms: the tenant counts it halfway. */
  readonly roundTripMs: number;
  readonly quirk: AnswerQuirk;
}

/** What the run did. */
export interface SimulationOutcome {
  /** When each request the step let out left, in order (ms, our clock). */
  readonly sentAt: readonly number[];
  /** When the tenant accepted each request it did not refuse (ms, our clock). */
  readonly acceptedAt: readonly number[];
  /** Requests that reached their deadline in the queue. */
  readonly expired: number;
  /** Requests let out after their deadline (must be none). */
  readonly lateSends: number;
  /** Steps after which requests waited with none in flight and no timer (a stall: must be none). */
  readonly stalls: number;
  /** Every state the step returned. */
  readonly states: readonly PacingState[];
  /** Steps taken, to bound the run. */
  readonly steps: number;
}

/** The start of the simulation's clock: a whole second. */
const T0 = 1_700_000_000_000;

interface Waiter {
  readonly index: number;
  readonly queuedAt: number;
  readonly deadlineAt: number;
}

interface Pending {
  readonly at: number;
  readonly kind: "queue" | "deadline" | "answer" | "timer";
  readonly index: number;
  readonly ticket?: Ticket;
  readonly headers?: RateLimitHeaders | undefined;
  readonly status?: number;
}

/**
 * Runs `requests` against `tenant` through the pure step with `budget`, at most `maxSteps`
 * steps.
 */
export function simulatePacing(
  tenant: SimulatedTenant,
  requests: readonly SimulatedRequest[],
  budget: PacingBudget,
  maxSteps = 20_000,
): SimulationOutcome {
  let state = initialPacingState({
    at: T0,
    budget,
    minimumRate: 2,
    initialConcurrency: 1,
    origin: "https://acme.example",
  });
  let tokens = tenant.burst;
  let bucketAt = T0;
  const events: Pending[] = requests.flatMap((request, index) => [
    { at: T0 + request.queuedAfterMs, kind: "queue" as const, index },
    { at: T0 + request.queuedAfterMs + request.deadlineMs, kind: "deadline" as const, index },
  ]);
  let waiting: Waiter[] = [];
  const settled = new Set<number>();
  let timerAt: number | undefined;
  let inFlight = 0;
  const sentAt: number[] = [];
  const acceptedAt: number[] = [];
  const states: PacingState[] = [];
  let expired = 0;
  let lateSends = 0;
  let stalls = 0;
  let steps = 0;

  const takeToken = (at: number): boolean => {
    tokens = Math.min(tenant.burst, tokens + ((at - bucketAt) / 1000) * tenant.rate);
    bucketAt = at;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  const figuresAt = (at: number, quirk: AnswerQuirk): RateLimitHeaders => {
    const tenantNow = (at + tenant.clockOffsetMs) / 1000;
    const full = tenantNow + (tenant.burst - tokens) / tenant.rate;
    const date = tenant.sendsDate ? Math.floor(tenantNow) * 1000 : undefined;
    const plain = {
      limit: tenant.burst,
      remaining: Math.floor(tokens),
      reset: tenant.roundsDown ? Math.floor(full) : Math.ceil(full),
      date,
    };
    switch (quirk) {
      case "plain":
        return plain;
      case "noFigures":
      case "gateway":
        return {};
      case "unequalRepeat":
        return { ...plain, limit: undefined };
      case "absurdLimit":
        return { ...plain, limit: 1e12, remaining: 1e12 - 1 };
      case "tinyLimit":
        return { ...plain, limit: 0.5 };
      case "negativeRemaining":
        return { ...plain, remaining: -3 };
      case "farReset":
        return { ...plain, reset: tenantNow + 86_400 };
    }
  };

  const step = (event: PacingEvent): void => {
    steps += 1;
    const result = paceStep(state, event);
    state = result.state;
    states.push(state);
    const { send, wakeAt } = result.actions;
    for (const ticket of send) {
      const waiter = waiting.shift();
      if (waiter === undefined) throw new Error("the step let out more requests than wait");
      settled.add(waiter.index);
      if (ticket.sentAt > waiter.deadlineAt) lateSends += 1;
      sentAt.push(ticket.sentAt);
      inFlight += 1;
      const request = requests[waiter.index] as SimulatedRequest;
      const countedAt = ticket.sentAt + request.roundTripMs / 2;
      const answerAt = ticket.sentAt + request.roundTripMs;
      // The tenant counts the request on arrival; a gateway's 502 never reaches it.
      let status = 502;
      if (request.quirk !== "gateway") {
        const accepted = takeToken(countedAt);
        if (accepted) acceptedAt.push(countedAt);
        status = accepted ? 200 : 429;
      }
      const headers = request.quirk === "gateway" ? {} : figuresAt(countedAt, request.quirk);
      events.push({ at: answerAt, kind: "answer", index: waiter.index, ticket, headers, status });
    }
    timerAt = wakeAt;
    if (timerAt !== undefined) events.push({ at: timerAt, kind: "timer", index: -1 });
    if (waiting.length > 0 && inFlight === 0 && send.length === 0) {
      if (wakeAt === undefined || !Number.isFinite(wakeAt) || wakeAt <= event.at) stalls += 1;
    }
  };

  while (events.length > 0 && steps < maxSteps) {
    events.sort((a, b) => a.at - b.at);
    const next = events.shift() as Pending;
    const queued = () => waiting.map((waiter) => waiter.queuedAt);
    if (next.kind === "queue") {
      const request = requests[next.index] as SimulatedRequest;
      waiting.push({
        index: next.index,
        queuedAt: next.at,
        deadlineAt: next.at + request.deadlineMs,
      });
      step({ kind: "queue", at: next.at, waiting: queued() });
    } else if (next.kind === "deadline") {
      if (settled.has(next.index)) continue;
      settled.add(next.index);
      expired += 1;
      waiting = waiting.filter((waiter) => waiter.index !== next.index);
      step({ kind: "queue", at: next.at, waiting: queued() });
    } else if (next.kind === "answer") {
      inFlight -= 1;
      step({
        kind: "answer",
        at: next.at,
        waiting: queued(),
        headers: next.headers,
        status: next.status,
        ticket: next.ticket,
      });
    } else if (next.at === timerAt) {
      step({ kind: "timer", at: next.at, waiting: queued() });
    }
  }
  return { sentAt, acceptedAt, expired, lateSends, stalls, states, steps };
}
