/**
 * What the API layer needs to reach one tenant ({@link TenantSettings}): where and as whom
 * ({@link Connection}, {@link Credentials}), the bounds on time, the budget of its rate limit, and
 * how its messages name the settings. The settings layer (`config.ts`, `connection/`) resolves
 * them from the stack config, the environment or a resource's `tenant` input and hands them down:
 * the types both share live here, below both, so the API layer imports nothing above it.
 *
 * @module
 */

import type { KeyObject } from "node:crypto";
import type { ClientAssertionAlg } from "./client-assertion.js";
import type { PacingBudget } from "./pacing-budget.js";
import type { BudgetNames } from "./pacing-report.js";

/** How the provider authenticates to the tenant management API. */
export type Credentials =
  | { readonly kind: "apiToken"; readonly token: string }
  | {
      readonly kind: "clientCredentials";
      readonly clientId: string;
      readonly clientSecret: string;
      readonly audience: string;
      readonly tokenUrl: string;
    }
  | {
      readonly kind: "privateKeyJwt";
      readonly clientId: string;
      /** The private key, read and checked to fit {@link alg}; never printed. */
      readonly privateKey: KeyObject;
      readonly alg: ClientAssertionAlg;
      readonly audience: string;
      readonly tokenUrl: string;
      /** The assertion's `aud`: the tenant, `${origin}/` (docs/design/platform.md, "Client assertions"). */
      readonly assertionAudience: string;
      /** The names of the key and algorithm settings, for the sentence of a refused assertion. */
      readonly settings: { readonly key: string; readonly alg: string };
    };

/** Where one tenant's management API is and how to authenticate to it. */
export interface Connection {
  /** `https://host[:port]` (or `http://` for a loopback host). */
  readonly origin: string;
  /** `${origin}/api/v2`: every API path is relative to it. */
  readonly baseUrl: string;
  readonly credentials: Credentials;
}

/** The bounds on time, which come from the stack config whichever way the tenant is given. */
export interface Timeouts {
  /** Bound on a single HTTP attempt. */
  readonly requestTimeoutMs: number;
  /** Bound on a whole provider operation, retries and rate-limit waits included. */
  readonly operationTimeoutMs: number;
  /**
   * How the user changes each bound, for the messages of a request or operation that ran out of
   * it: `tenant:requestTimeoutSeconds` in a Pulumi program (the default when absent), the
   * environment variable for a command.
   */
  readonly timeoutSettings?: { readonly request: string; readonly operation: string };
}

/** Everything the API client needs to reach one tenant. */
export interface TenantSettings extends Connection, Timeouts {
  /** What the run may take of the tenant's rate limit (docs/design/decisions.md, "Sharing the rate limit"). */
  readonly budget: PacingBudget;
  /**
   * How the limiter's reports name the budget's settings (`budgetNamesOf`, config.ts): absent for the
   * stack config's keys (`tenant:rateLimitReserve`), the limiter's default.
   */
  readonly budgetNames?: BudgetNames;
}

/**
 * The stack config's keys of the settings the API layer names when its caller gives no other
 * spelling (a Pulumi program's: `TenantSettings.timeoutSettings` and `budgetNames` absent), the
 * same that `CONFIG_KEYS` (config.ts) lists with their variables and flags.
 */
export const STACK_KEYS = {
  rateLimitReserve: "tenant:rateLimitReserve",
  maxRequestsPerSecond: "tenant:maxRequestsPerSecond",
  requestTimeout: "tenant:requestTimeoutSeconds",
  operationTimeout: "tenant:operationTimeoutSeconds",
} as const;
