/**
 * The `tenant` input's part in every resource's decisions, as pure functions: what a change of
 * the connection means for diff, and how the outputs carry it. The reasons are in
 * docs/decisions.md, "Several tenants".
 *
 * @module
 */

import { isDeepStrictEqual } from "node:util";
import type { Props } from "../json.js";
import { isUnknown } from "../schema/unknown.js";
import { connectionValues, originOfValues } from "./parse.js";
import { TENANT_KEY } from "./schema.js";

/**
 * What a change of the connection between the stored outputs and the new inputs means:
 * - `same`: nothing changed;
 * - `update`: the same tenant, reached another way (new credentials, another spelling of the
 *   domain, or the stack config's tenant given as a `tenant` input, or back): an update that sends
 *   nothing to the tenant, only records the new connection;
 * - `replace`: another tenant, or one that cannot be told yet (a domain unknown during a preview,
 *   or the stack config's domain missing): the resource's object lives in another tenant.
 */
export type ConnectionChange = "same" | "update" | "replace";

/**
 * Compares the connections of `olds` (stored outputs) and `news` (new inputs). A resource without
 * a `tenant` input is in the stack config's tenant, `configuredOrigin` (undefined when the stack
 * config has no valid domain). Tenants are compared by origin, so `acme.tenants.example` and
 * `https://acme.tenants.example` are one tenant.
 */
export function connectionChange(
  olds: Props,
  news: Props,
  configuredOrigin: string | undefined,
): ConnectionChange {
  const before = olds[TENANT_KEY];
  const after = news[TENANT_KEY];
  if (isDeepStrictEqual(before, after)) return "same";
  const from = tenantOrigin(before, configuredOrigin);
  const to = tenantOrigin(after, configuredOrigin);
  return from !== undefined && from === to ? "update" : "replace";
}

function tenantOrigin(tenant: unknown, configuredOrigin: string | undefined): string | undefined {
  if (isUnknown(tenant)) return undefined;
  const values = connectionValues(tenant);
  return values === undefined ? configuredOrigin : originOfValues(values);
}

/** A resource's own diff, before its connection is taken into account. */
export interface OwnDiff {
  readonly changes: boolean;
  readonly replaces: readonly string[];
  /** For the resource's own replacements; default false (create the new one first). */
  readonly deleteBeforeReplace?: boolean;
}

/**
 * The order in which a resource that moves to another tenant is replaced, each resource's choice
 * (docs/decisions.md, "Several tenants"):
 * - `restore-old-first`: the old tenant's object is put back (delete) before the new tenant's is
 *   changed (create), for resources whose delete restores what they changed;
 * - `create-new-first`: Pulumi's default, for a resource whose delete only deletes.
 */
export type MoveOrder = "restore-old-first" | "create-new-first";

/**
 * Pulumi's diff result: the resource's own diff combined with the change of its connection. A
 * move to another tenant replaces the resource (the replaced key is `tenant`), in the resource's
 * `onMove` order.
 */
export function withConnectionChange(
  own: OwnDiff,
  change: ConnectionChange,
  onMove: MoveOrder,
): { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean } {
  const moves = change === "replace";
  return {
    changes: own.changes || change !== "same",
    replaces: moves ? [...own.replaces, TENANT_KEY] : [...own.replaces],
    deleteBeforeReplace: moves
      ? onMove === "restore-old-first"
      : (own.deleteBeforeReplace ?? false),
  };
}

/**
 * The outputs that carry the connection: `{ tenant }` as given in `props`, or nothing for a
 * resource that uses the stack config. Refresh and destroy do not run the program, so they reach
 * the tenant with this stored copy; the engine keeps its credentials secret (see
 * `resources/registration.ts`).
 */
export function connectionOutput(props: Props): Props {
  const tenant = props[TENANT_KEY];
  return tenant === undefined ? {} : { [TENANT_KEY]: tenant };
}
