/**
 * The budget the resources of one tenant share in a run (docs/decisions.md, "Sharing the rate
 * limit"): they share one limiter, which keeps the most polite of the budgets they ask for
 * (`politest`: the larger reserve, the lower ceiling). A resource that asks for less, say a reserve
 * of 0 beside resources on the default quarter, would otherwise be paced by a budget it never
 * sees; {@link SharedBudget} says so, once per tenant, in the sentence of {@link describeGivenWay}.
 *
 * Kept out of `pacing.ts`, whose functions decide the pace: this decides nothing, it only tells
 * the user what was asked and what holds.
 *
 * @module
 */

import { type PacingBudget, politest } from "./pacing.js";

/** The budget's settings, as the `tenant` input and the limiter's reports of long waits name them. */
const RESERVE = "rateLimitReserve";
const CEILING = "maxRequestsPerSecond";

/** A budget one resource asked for, and who asked it first. */
interface Ask {
  readonly budget: PacingBudget;
  readonly who: string;
}

/**
 * The settings in which `asked` takes more of the tenant than `holds` lets it: a smaller reserve;
 * a higher ceiling, or none where `holds` has one. Each as what was asked and what holds.
 */
function givenWay(
  asked: PacingBudget,
  holds: PacingBudget,
): { readonly asked: string; readonly holds: string }[] {
  const parts: { asked: string; holds: string }[] = [];
  if (asked.reserveShare < holds.reserveShare) {
    parts.push({ asked: `${RESERVE} ${asked.reserveShare}`, holds: `${holds.reserveShare}` });
  }
  const ceiling = holds.maxRequestsPerSecond;
  if (
    ceiling !== undefined &&
    (asked.maxRequestsPerSecond === undefined || asked.maxRequestsPerSecond > ceiling)
  ) {
    parts.push({
      asked:
        asked.maxRequestsPerSecond === undefined
          ? `no ${CEILING}`
          : `${CEILING} ${asked.maxRequestsPerSecond}`,
      holds: `${ceiling}`,
    });
  }
  return parts;
}

/**
 * The info line that tells `who` (`ClientSettings "web"`, or `a resource`) that the budget it asked
 * of `origin` gave way to the more polite one of its siblings, `holds`; undefined when `asked` is
 * as polite as `holds` in both settings, so there is nothing to tell. Written in the words of the
 * limiter's reports of long waits (`describeHolds`), the settings named as the `tenant` input
 * spells them.
 */
function describeGivenWay(
  who: string,
  origin: string,
  asked: PacingBudget,
  holds: PacingBudget,
): string | undefined {
  const parts = givenWay(asked, holds);
  if (parts.length === 0) return undefined;
  return (
    `pulumi-tenant: ${who} asks ${origin} for ${parts.map((part) => part.asked).join(" and ")}, ` +
    `but others of this run keep ${parts.map((part) => part.holds).join(" and ")}; ` +
    "the more polite budget holds for all of them"
  );
}

/** Two budgets that ask for the same. */
function same(a: PacingBudget, b: PacingBudget): boolean {
  return a.reserveShare === b.reserveShare && a.maxRequestsPerSecond === b.maxRequestsPerSecond;
}

/**
 * The budgets the resources of one tenant ask for in this run, to tell once when one of them gives
 * way: the limiter keeps the most polite of them for all, as {@link ask} works it out too. Keeps one
 * ask per distinct budget (a stack of 200 resources on the default holds one), none once it has told.
 */
export class SharedBudget {
  readonly #origin: string;
  #asks: Ask[] = [];
  #holds: PacingBudget | undefined;
  #told = false;

  constructor(origin: string) {
    this.#origin = origin;
  }

  /**
   * `who` asks for `budget`: the sentence to say when this or an earlier ask now gives way to a
   * more polite one (naming the first resource that asked for the budget that gave way), once;
   * undefined otherwise, and always after that once.
   */
  ask(budget: PacingBudget, who = "a resource"): string | undefined {
    if (this.#told) return undefined;
    if (!this.#asks.some((ask) => same(ask.budget, budget))) this.#asks.push({ budget, who });
    const holds = this.#holds === undefined ? budget : politest(this.#holds, budget);
    this.#holds = holds;
    for (const ask of this.#asks) {
      const sentence = describeGivenWay(ask.who, this.#origin, ask.budget, holds);
      if (sentence !== undefined) {
        this.#told = true;
        this.#asks = [];
        return sentence;
      }
    }
    return undefined;
  }
}
