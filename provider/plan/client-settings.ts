/**
 * The decisions of `ClientSettings`, as pure functions: from what the program declares, the stored
 * state and (when needed) the live client, what to PATCH, what to remember as the prior of each
 * owned path (docs/design/decisions.md, "What a resource owns") and what to report. Nothing here
 * calls the API or Pulumi; the provider (`providers/client-settings.ts`) reads and writes through
 * the gateway and hands these results to Pulumi.
 *
 * Inside, everything is in the wire's spelling: the inputs are turned once into a
 * {@link DeclaredClient} (`plan/declared.ts`), which every decision takes. Each decision beside
 * the operations is a module of its own: the writes of an operation (`plan/writes.ts`), the body
 * that holds under each way the platform may apply it (`plan/patch-body.ts`, by the schema's rule
 * per path, `plan/patch-rules.ts`), the check of the answer (`plan/answer-check.ts`), the rules of
 * the live client (`plan/live-rules.ts`), key material (`plan/key-material.ts`), what is said of a
 * put-back (`plan/put-back-messages.ts`) and the outputs (`plan/outputs.ts`).
 *
 * @module
 */

import type { Props } from "../json.js";
import {
  type DeclaredClient,
  declaredClient,
  fieldByWireName,
  KEY_MATERIAL,
  type WireFields,
} from "./declared.js";
import { KEY_OBJECTS, keysHidden, refuseHiddenKeys } from "./key-material.js";
import {
  OIDC_CONFORMANT,
  REQUIRE_BEHAVIOR,
  refuseFixedChanges,
  refuseLiveConflicts,
  refusePutBackConflicts,
} from "./live-rules.js";
import { outputs, reportOf } from "./outputs.js";
import type { OwnedPath } from "./owned-paths.js";
import { patchBody } from "./patch-body.js";
import { loadPriorPaths, type PriorEntry, pathKey, priorOf } from "./prior-paths.js";
import { isWritten, operationWrites, type Write } from "./writes.js";

/** What `diff` reports: whether anything changed, and the inputs whose change replaces. */
export interface ClientSettingsDiff {
  readonly changes: boolean;
  readonly replaces: string[];
}

/** What an operation sends and reports, once the live client (if needed) is known. */
export interface ClientSettingsPlan {
  /** The PATCH body, by wire name; empty when nothing needs sending. */
  readonly send: WireFields;
  /** The prior of each owned path, to keep in the state. */
  readonly remember: readonly PriorEntry[];
  /** The priors this PATCH puts back (paths that left the program). */
  readonly putBack: readonly PriorEntry[];
  /**
   * The outputs, given the client as the PATCH answered it; without an answer (nothing sent), the
   * client as it was read, or as last reported.
   *
   * @throws {WriteNotHeldError} when the answer holds something else at a path the PATCH set or
   * put back (docs/design/decisions.md, "Every write checked by its answer").
   */
  report(answer?: WireFields): Props;
}

/**
 * An update from the stored outputs to what the program now declares, worked out once: what was
 * declared before (as the outputs report it), the prior of each owned path, and how each field and
 * path moved. Whether the live client is needed and the plan ({@link planUpdate}) both take this
 * one comparison, so they cannot disagree on what changed.
 */
export interface ClientUpdate {
  /** What the program declares now. */
  readonly declared: DeclaredClient;
  /** What it declared at the last update, as the stored outputs report it. */
  readonly before: DeclaredClient;
  /** The prior of each path owned so far. */
  readonly prior: readonly PriorEntry[];
  /** Declared fields, by wire name, that were not declared before or whose value differs. */
  readonly changed: readonly string[];
  /** Paths owned before that the program no longer declares: each is put back to its prior. */
  readonly removed: readonly OwnedPath[];
  /** Paths owned now that have no prior yet: the live client tells it. */
  readonly added: readonly OwnedPath[];
  /**
   * Whether the update needs the live client: to remember the prior of a newly owned path, to
   * merge a changed object or a put-back over its live value, or to check a rule that depends on
   * the live client.
   */
  readonly needsLive: boolean;
}

/**
 * The diff of stored outputs (`olds`) and what the program now declares: a new `clientId`
 * replaces; otherwise a declared field whose value differs, or a path that left the program (at
 * any depth), is a change.
 *
 * @throws {ImmutableFieldError} when `thirdPartySecurityMode` would change on the same client.
 */
export function planDiff(declared: DeclaredClient, olds: Props): ClientSettingsDiff {
  const replaces = olds.clientId !== declared.identity.clientId ? ["clientId"] : [];
  const before = declaredClient(olds);
  if (replaces.length === 0) refuseFixedChanges(declared, before.values);
  const { changed, removed } = moves(before, declared);
  return { changes: replaces.length > 0 || changed.length > 0 || removed.length > 0, replaces };
}

/**
 * The wire fields to read of the live client: the declared ones, the fields of paths being put
 * back (`removed`), and what the live rules look at (`post_login_prompt` needs
 * `oidc_conformant`, and putting `oidc_conformant` back needs `organization_require_behavior`:
 * docs/design/platform.md, "Rules across fields"); reading no more keeps the reads cheap.
 */
export function fieldsToRead(
  declared: DeclaredClient,
  removed: readonly OwnedPath[] = [],
): string[] {
  const fields = declared.fields.map(({ wire }) => wire);
  const add = (wire: string) => {
    if (!fields.includes(wire)) fields.push(wire);
  };
  for (const [wire] of removed) if (wire !== undefined) add(wire);
  // Any key material in the answer shows the credentials may see it all (see refuseHiddenKeys).
  if (fields.some((wire) => KEY_OBJECTS.includes(wire))) KEY_MATERIAL.forEach(add);
  if (declared.values[REQUIRE_BEHAVIOR] !== undefined) add(OIDC_CONFORMANT);
  if (fields.includes(OIDC_CONFORMANT) && declared.values[OIDC_CONFORMANT] === undefined) {
    add(REQUIRE_BEHAVIOR);
  }
  return fields;
}

/**
 * Create: adopt the client. Every owned path remembers its live value (or that the client had
 * none there), and every declared path is written where the live client differs.
 *
 * @throws {ImmutableFieldError} when a declared `thirdPartySecurityMode` differs from the live one.
 * @throws {TenantValidationError} when `post_login_prompt` meets a client that is not OIDC conformant.
 */
export function planCreate(declared: DeclaredClient, live: WireFields): ClientSettingsPlan {
  refuseLiveConflicts(declared, live);
  const wires = declared.fields.map(({ wire }) => wire);
  refuseHiddenKeys(declared, live, wires);
  const { owned, values } = declared;
  const writes = operationWrites({ owned, values, changed: wires, putBack: [] }, live);
  const remember = owned.map((path) => priorOf(live, path));
  const send = patchBody(writes, live);
  return { send, remember, putBack: [], report: reportOf(declared, writes, remember, live) };
}

/**
 * The update to what the program declares from the stored outputs `olds`: see
 * {@link ClientUpdate} (docs/design/decisions.md, "What a resource owns").
 */
export function clientUpdate(declared: DeclaredClient, olds: Props): ClientUpdate {
  const before = declaredClient(olds);
  const prior = loadPriorPaths(olds.prior, before.values);
  const { changed, removed } = moves(before, declared);
  const known = new Set(prior.map(({ path }) => pathKey(path)));
  const added = declared.owned.filter((path) => !known.has(pathKey(path)));
  const needsLive =
    added.length > 0 ||
    changed.includes(REQUIRE_BEHAVIOR) ||
    removed.some((path) => needsLiveToPutBack(path) || path[0] === OIDC_CONFORMANT) ||
    declared.fields.some(({ wire, strategy }) =>
      strategy.needsLive(changed.includes(wire), declared.values[wire]),
    );
  return { declared, before, prior, changed, removed, added, needsLive };
}

/**
 * Update: write what changed, put back what left the program, remember the prior of what is
 * newly owned. `live` is the client when {@link ClientUpdate.needsLive} says so.
 *
 * @throws {ImmutableFieldError}, {@link TenantValidationError} as {@link planCreate}, when `live`
 * is given; {@link TenantValidationError} when a put-back would break a rule of the live client.
 */
export function planUpdate(update: ClientUpdate, live?: WireFields): ClientSettingsPlan {
  const { declared, prior, changed } = update;
  const { values } = declared;
  if (live !== undefined) refuseLiveConflicts(declared, live);
  const current = live ?? update.before.values;
  const removed = new Set(update.removed.map(pathKey));
  const putBack = prior.filter(({ path }) => removed.has(pathKey(path)));
  if (live !== undefined) {
    // Only what this update sends or remembers: an unchanged key-material field is not touched.
    const paths = [...update.added, ...putBack.map(({ path }) => path)];
    refuseHiddenKeys(declared, live, [...changed, ...paths.map(([wire = ""]) => wire)]);
  }
  const writes = operationWrites({ owned: declared.owned, values, changed, putBack }, current);
  const send = patchBody(writes, current);
  if (live !== undefined) refusePutBackConflicts(declared, putBack, live, send);
  const byPath = new Map(prior.map((entry) => [pathKey(entry.path), entry]));
  const remember = declared.owned.map(
    (path) => byPath.get(pathKey(path)) ?? priorOf(live ?? {}, path),
  );
  return { send, remember, putBack, report: reportOf(declared, writes, remember, current) };
}

/**
 * The key-material objects (`encryption_key`, `client_authentication_methods`) an operation would
 * send, remember or put back, known before it runs, so that a preview can ask whether the
 * credentials may see them: for a create (no stored outputs `olds`, or a replace) every declared
 * one; for an update those that change, are newly owned or are put back, as {@link planUpdate}
 * looks at them. Empty when none is at stake: then the preview needs no token.
 */
export function keyObjectsAtStake(declared: DeclaredClient, olds?: Props): string[] {
  let fields = declared.fields.map(({ wire }) => wire);
  if (olds !== undefined) {
    const { added, changed } = clientUpdate(declared, olds);
    const paths = [...added, ...putBackAtUpdate(declared, olds).map(({ path }) => path)];
    fields = [...changed, ...paths.map(([wire = ""]) => wire)];
  }
  return KEY_OBJECTS.filter((wire) => fields.includes(wire));
}

/**
 * The priors an update from the stored outputs `olds` to `declared` puts back: those of the
 * paths that left the program, known before it runs (what {@link planUpdate} puts back).
 */
export function putBackAtUpdate(declared: DeclaredClient, olds: Props): PriorEntry[] {
  const update = clientUpdate(declared, olds);
  const removed = new Set(update.removed.map(pathKey));
  return update.prior.filter(({ path }) => removed.has(pathKey(path)));
}

/**
 * Read (refresh): the outputs for the live client; priors kept as they are. Declared key material
 * the answer hides (no key material in it at all) keeps the value the state knows: the tenant
 * does not show it to these credentials, which is not drift (docs/design/decisions.md, "Key material").
 */
export function planRead(props: Props, live: WireFields): Props {
  const declared = declaredClient(props);
  const seen = { ...live };
  if (keysHidden(live)) {
    for (const wire of KEY_MATERIAL) {
      if (Object.hasOwn(declared.values, wire)) seen[wire] = declared.values[wire];
    }
  }
  return outputs(declared, loadPriorPaths(props.prior, declared.values), seen);
}

/**
 * The wire fields delete must read of the live client to put the owned paths back: the fields of
 * every remembered prior, none when there is nothing to put back (then delete calls nothing).
 */
export function fieldsToPutBack(props: Props): string[] {
  const declared = declaredClient(props);
  const fields = loadPriorPaths(props.prior, declared.values)
    .map(({ path }) => path[0])
    .filter((wire): wire is string => wire !== undefined && isWritten(wire));
  // Any key material in the answer shows the credentials may see it all (see refuseHiddenKeys).
  if (fields.some((wire) => KEY_OBJECTS.includes(wire))) fields.push(...KEY_MATERIAL);
  return [...new Set(fields)];
}

/**
 * Delete: the writes that lay the prior of every owned path over the live client, and their body
 * (empty when the client already holds them). Paths the resource does not own are not written
 * where the platform merges (docs/design/platform.md, "How a PATCH applies").
 */
export function planDelete(props: Props, live: WireFields): { send: WireFields; writes: Write[] } {
  const entries = deletePriors(props);
  const fields = entries.map(({ path }) => path[0]).filter((wire) => wire !== undefined);
  refuseHiddenKeys(declaredClient(props), live, fields);
  const writes = operationWrites({ owned: [], values: {}, changed: [], putBack: entries }, live);
  return { send: patchBody(writes, live), writes };
}

/** The priors delete puts back: every remembered one. */
export function deletePriors(props: Props): PriorEntry[] {
  return loadPriorPaths(props.prior, declaredClient(props).values);
}

/**
 * Whether putting `path` back needs the live client: a path inside an object does (where the
 * object may be replaced, the rest of it is sent as it is live: `plan/patch-body.ts`); a top-level
 * value or a map key does not.
 */
function needsLiveToPutBack(path: OwnedPath): boolean {
  const [wire] = path;
  if (wire === undefined || !isWritten(wire)) return false;
  return path.length > 1 && fieldByWireName(wire).strategy.name !== "map";
}

/** Fields declared in `before`, `declared` or both, and how they and their paths moved. */
function moves(before: DeclaredClient, declared: DeclaredClient) {
  const was = before.values;
  const now = declared.values;
  const owned = new Set(declared.owned.map(pathKey));
  return {
    changed: declared.fields
      .filter(
        ({ wire, strategy }) => !Object.hasOwn(was, wire) || !strategy.same(was[wire], now[wire]),
      )
      .map(({ wire }) => wire),
    removed: before.owned.filter((path) => !owned.has(pathKey(path))),
  };
}
