/**
 * One owner per path (docs/design/decisions.md, "One owner per path"): two `ClientSettings` of one run
 * that declare the same path of the same client of the same tenant would each remember the other's
 * value as their prior and put back each other's changes, so the second one checked fails. Pure
 * functions: what a resource claims, and whether a claim meets another's.
 *
 * @module
 */

import { originOfValues } from "../connection/origin.js";
import { TENANT_KEY } from "../connection/schema.js";
import { isPlainObject, type Props } from "../json.js";
import { NAME_KEY } from "../schema/index.js";
import { clientFieldSchema, valueFromWire } from "../schema/wire.js";
import { isUnknown } from "../unknown.js";
import { declaredClient, fieldByWireName } from "./declared.js";
import { type OwnedPath, overlaps, ownedPaths } from "./owned-paths.js";

/** What one resource owns of one client: the paths it declares, in the wire's spelling. */
export interface PathClaim {
  /** The origin of the client's tenant. */
  readonly tenant: string;
  readonly clientId: string;
  /** The resource's name (`__resourceName`); `""` when it has none. */
  readonly resource: string;
  readonly paths: readonly OwnedPath[];
}

/**
 * The claim of a `ClientSettings` with inputs `news` (already valid), in the tenant of its `tenant`
 * input or else the stack config's (`configuredOrigin`); undefined when the tenant or the client
 * cannot be told yet (a value unknown during a preview), as nothing can be compared then.
 */
export function claimOf(news: Props, configuredOrigin: string | undefined): PathClaim | undefined {
  const clientId = news.clientId;
  if (typeof clientId !== "string" || isUnknown(clientId)) return undefined;
  const tenantInput = news[TENANT_KEY];
  if (isUnknown(tenantInput)) return undefined;
  const tenant = isPlainObject(tenantInput) ? originOfValues(tenantInput) : configuredOrigin;
  if (tenant === undefined) return undefined;
  const name = news[NAME_KEY];
  return {
    tenant,
    clientId,
    resource: typeof name === "string" ? name : "",
    paths: ownedPaths(declaredClient(news).values),
  };
}

/** How many shared paths a failure lists before it counts the rest. */
const LISTED_PATHS = 3;

/**
 * The check failure of `claim` when another resource's claim among `claims` (the resource's own
 * earlier claim, by name, is not another's) declares a path of the same client of the same tenant,
 * the same path or one inside the other (`jwtConfiguration` declared `{}` and
 * `jwtConfiguration.alg`); undefined when every other claim is disjoint. It names no property and
 * starts with the resource, so that it names both resources, in the user's spelling.
 */
export function ownerConflict(
  claims: Iterable<PathClaim>,
  claim: PathClaim,
): { property: ""; reason: string } | undefined {
  for (const other of claims) {
    if (other.tenant !== claim.tenant || other.clientId !== claim.clientId) continue;
    if (other.resource === claim.resource) continue;
    const shared = overlaps(claim.paths, other.paths).map(([mine]) => userPathText(mine));
    if (shared.length === 0) continue;
    const listed = [...new Set(shared)];
    const more = listed.length > LISTED_PATHS ? ` and ${listed.length - LISTED_PATHS} more` : "";
    return {
      property: "",
      reason:
        `ClientSettings "${claim.resource}" declares ${listed.slice(0, LISTED_PATHS).join(", ")}${more} ` +
        `of client ${claim.clientId}, which ClientSettings "${other.resource}" also declares: ` +
        "a path of a client has one owner, which alone remembers and puts back its value; " +
        "declare each path in one ClientSettings only",
    };
  }
  return undefined;
}

/**
 * A wire path in the user's spelling (`jwt_configuration.lifetime_in_seconds` →
 * `jwtConfiguration.lifetimeInSeconds`; keys of free-form maps as they are): the path as a
 * one-member chain of objects, spelled back by the field's schema.
 */
function userPathText(path: OwnedPath): string {
  const [wire, ...keys] = path;
  if (wire === undefined) return "";
  const { field } = fieldByWireName(wire);
  let chain: unknown = true;
  for (const key of [...keys].reverse()) chain = { [key]: chain };
  const spelled: string[] = [field];
  let value = keys.length === 0 ? undefined : valueFromWire(clientFieldSchema(field), chain);
  for (let depth = 0; depth < keys.length && isPlainObject(value); depth += 1) {
    const [key] = Object.keys(value);
    if (key === undefined) break;
    spelled.push(key);
    value = value[key];
  }
  return spelled.join(".");
}
