/**
 * The pacing budget of a connection (docs/design/decisions.md, "Sharing the rate limit"): how much of
 * the tenant's shared rate limit a run leaves to the tenant's other callers, and the ceiling on its
 * own rate. Given, like the rest of a connection, as stack config (`tenant:rateLimitReserve`), its
 * environment fallback, a resource's `tenant` input, a plugin provider's input, or a command's
 * flag; this module states the rules once for all of them, naming a setting the way its user
 * spells it.
 *
 * @module
 */

import { DEFAULT_PACING_BUDGET, type PacingBudget } from "../api/pacing-budget.js";
import { TenantConfigError } from "../errors.js";
import { isUnknown } from "../unknown.js";
import type { ConnectionNaming, ConnectionProblem, ConnectionValues } from "./values.js";

/** The members of a connection that make its budget. */
const BUDGET_SETTINGS = ["rateLimitReserve", "maxRequestsPerSecond"] as const;

/** One of {@link BUDGET_SETTINGS}. */
type BudgetSetting = (typeof BUDGET_SETTINGS)[number];

/**
 * The smallest ceiling taken: one request every 100 s. A smaller one would hold a request past
 * any operation's deadline (600 s by default) after a handful of calls, so it can only be a
 * mistake (a rate per minute or per hour given as per second); it is refused with a sentence
 * rather than left to fail each operation at its deadline (docs/design/decisions.md, "Pacing and
 * retries").
 */
const MIN_REQUESTS_PER_SECOND = 0.01;

/** What each setting must be, as the end of the sentence that names it. */
const RULES: Readonly<
  Record<BudgetSetting, { readonly holds: (n: number) => boolean; readonly must: string }>
> = {
  rateLimitReserve: {
    holds: (n) => n >= 0 && n < 1,
    must: "must be the share of the tenant's rate limit left to its other callers, from 0 (take everything) to below 1",
  },
  maxRequestsPerSecond: {
    holds: (n) => n >= MIN_REQUESTS_PER_SECOND,
    must: `must be a number of requests per second of at least ${MIN_REQUESTS_PER_SECOND} (one request every ${1 / MIN_REQUESTS_PER_SECOND} s)`,
  },
};

/**
 * A setting's value as a number: numbers as they are, numeric text (stack config, environment,
 * flags) read as a number; undefined when absent, blank or not known yet (a preview); NaN when
 * given but not a number.
 */
function numberOf(value: unknown): number | undefined {
  if (value === undefined || value === null || isUnknown(value)) return undefined;
  if (typeof value === "number") return value;
  if (typeof value !== "string") return Number.NaN;
  const text = value.trim();
  return text === "" ? undefined : Number(text);
}

/**
 * Every rule the budget members of `values` break, one problem per setting, named as `naming`
 * spells it. Never throws; absent settings are no problem (the defaults apply).
 */
export function budgetProblems(
  values: ConnectionValues,
  naming: ConnectionNaming,
): ConnectionProblem[] {
  const problems: ConnectionProblem[] = [];
  for (const setting of BUDGET_SETTINGS) {
    const value = numberOf(values[setting]);
    if (value === undefined) continue;
    const rule = RULES[setting];
    if (!Number.isFinite(value) || !rule.holds(value)) {
      const shown = typeof values[setting] === "string" ? values[setting] : String(values[setting]);
      problems.push({
        setting,
        message: `${naming.names[setting]} ${rule.must} (got "${shown}")`,
      });
    }
  }
  return problems;
}

/**
 * The budget `values` give, each setting taken from `values`, else from `fallback` (the stack
 * config under a `tenant` input), else {@link DEFAULT_PACING_BUDGET}.
 *
 * @throws {TenantConfigError} naming the first setting that breaks its rule ({@link budgetProblems}).
 */
export function resolveBudget(
  values: ConnectionValues,
  naming: ConnectionNaming,
  fallback?: { readonly values: ConnectionValues; readonly naming: ConnectionNaming },
): PacingBudget {
  const given = (setting: BudgetSetting): { value: unknown; naming: ConnectionNaming } =>
    numberOf(values[setting]) !== undefined || fallback === undefined
      ? { value: values[setting], naming }
      : { value: fallback.values[setting], naming: fallback.naming };
  const number = (setting: BudgetSetting): number | undefined => {
    const { value, naming: named } = given(setting);
    const [problem] = budgetProblems({ [setting]: value }, named);
    if (problem !== undefined) throw new TenantConfigError(problem.message);
    return numberOf(value);
  };
  const reserveShare = number("rateLimitReserve");
  const maxRequestsPerSecond = number("maxRequestsPerSecond");
  return {
    reserveShare: reserveShare ?? DEFAULT_PACING_BUDGET.reserveShare,
    maxRequestsPerSecond: maxRequestsPerSecond ?? DEFAULT_PACING_BUDGET.maxRequestsPerSecond,
  };
}
