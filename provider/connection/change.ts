/**
 * The `tenant` input's part in every resource's decisions, as pure functions: what a change of
 * the connection means for diff, and how the outputs carry it. The reasons are in
 * docs/design/decisions.md, "Several tenants".
 *
 * @module
 */

import { isDeepStrictEqual } from "node:util";
import type { Props } from "../json.js";
import { isPlainObject } from "../json.js";
import { isUnknown } from "../unknown.js";
import { originOfValues } from "./origin.js";
import { connectionValues } from "./parse.js";
import { STACK_TENANT_KEY, TENANT_KEY } from "./schema.js";
import type { ConnectionValues } from "./values.js";

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
 * Compares the connections of `olds` (stored outputs) and `news` (new inputs). A new input without
 * `tenant` is in the stack config's tenant, `configuredOrigin` (undefined when the stack config
 * has no valid domain); a stored one in the tenant its {@link STACK_TENANT_KEY} output names, or,
 * for a state written before that output, the stack config's. Tenants are compared by origin, so
 * `acme.tenants.example` and `https://acme.tenants.example` are one tenant. A move of the stack
 * config's tenant replaces, as a move of the `tenant` input does; new stack config credentials for
 * the same tenant change nothing (the engine stores the stack config itself).
 */
export function connectionChange(
  olds: Props,
  news: Props,
  configuredOrigin: string | undefined,
): ConnectionChange {
  const before = olds[TENANT_KEY];
  const after = news[TENANT_KEY];
  if (before !== undefined && isDeepStrictEqual(before, after)) return "same";
  const from =
    before === undefined
      ? (storedStackOrigin(olds) ?? configuredOrigin)
      : tenantOrigin(before, configuredOrigin);
  const to = tenantOrigin(after, configuredOrigin);
  if (before === undefined && after === undefined) return from === to ? "same" : "replace";
  return from !== undefined && from === to ? "update" : "replace";
}

/** The origin of the stack config's tenant recorded in `props`, if any (and valid). */
function storedStackOrigin(props: Props): string | undefined {
  const stored = props[STACK_TENANT_KEY];
  return isPlainObject(stored) ? originOfValues(stored as ConnectionValues) : undefined;
}

/**
 * The connection an operation on `props` uses, as `settingsFor` takes it: the `tenant` input or
 * output; else, for stored outputs whose recorded stack config tenant is not the one configured
 * now (`configuredOrigin`: the resource is being moved, and delete puts the old tenant back), the
 * recorded connection; else undefined, the stack config.
 */
export function operationConnection(props: Props, configuredOrigin: string | undefined): unknown {
  const tenant = props[TENANT_KEY];
  if (tenant !== undefined) return tenant;
  const stored = storedStackOrigin(props);
  return stored !== undefined && stored !== configuredOrigin ? props[STACK_TENANT_KEY] : undefined;
}

/**
 * The output that records the stack config's connection (`configured`, its members as a `tenant`
 * input spells them) for a resource of `props` without a `tenant` input; nothing for one with
 * it, or when there is no stack config connection to record.
 */
export function stackTenantOutput(props: Props, configured: Props | undefined): Props {
  if (props[TENANT_KEY] !== undefined || configured === undefined) return {};
  return { [STACK_TENANT_KEY]: configured };
}

/** The recorded stack config connection of stored outputs `props`, kept as it is (read). */
export function keptStackTenant(props: Props): Props {
  const stored = props[STACK_TENANT_KEY];
  return stored === undefined ? {} : { [STACK_TENANT_KEY]: stored };
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
 * (docs/design/decisions.md, "Several tenants"):
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
