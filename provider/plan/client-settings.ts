/**
 * The decisions of `ClientSettings`, as pure functions: from what the program declares, the stored
 * state and (when needed) the live client, what to PATCH, what to remember as the prior of each
 * owned path (docs/design/decisions.md, "What a resource owns") and what to report. Nothing here calls the API or Pulumi; the provider (`providers/client-settings.ts`)
 * reads and writes through the gateway and hands these results to Pulumi.
 *
 * Inside, everything is in the wire's spelling: the inputs are turned once into a
 * {@link DeclaredClient} (`plan/declared.ts`), which every decision takes; the stored outputs are
 * read the same way, compared and merged against the API's own answer; prior values are kept as
 * the API gave them, and only the reported outputs are converted back to the user's camelCase.
 * Free-form maps and keys the platform added are never renamed. Each field's strategy is chosen by
 * its schema's annotation (`plan/field-strategies.ts`).
 *
 * @module
 */

import { isDeepStrictEqual } from "node:util";
import {
  ImmutableFieldError,
  PutBackRefusedError,
  type TenantApiError,
  TenantValidationError,
} from "../errors.js";
import { isPlainObject, type Props } from "../json.js";
import {
  fieldFromWire,
  isUnknown,
  POST_LOGIN_PROMPT_FIELDS,
  postLoginPromptReason,
  SENSITIVE_CLIENT_FIELDS,
  wireName,
} from "../schema/index.js";
import { overlay, project } from "./compare.js";
import {
  CLIENT_FIELDS,
  type ClientField,
  type DeclaredClient,
  declaredClient,
  fieldByWireName,
  KEY_MATERIAL,
  type WireFields,
} from "./declared.js";
import { type OwnedPath, ownedPaths } from "./owned-paths.js";
import {
  layPrior,
  loadPriorPaths,
  type PriorEntry,
  pathKey,
  priorOf,
  storePriorPaths,
} from "./prior-paths.js";

/** Key material declared as an object: what the program leaves out of it lives only in the tenant. */
const KEY_OBJECTS = ["encryption_key", "client_authentication_methods"];

/**
 * The scopes that let credentials see {@link KEY_MATERIAL} in an answer (docs/design/platform.md, "Key
 * material in answers"); either one is enough.
 */
const KEY_READ_SCOPES = ["read:client_keys", "read:client_credentials"] as const;

/** The fields the platform fixes when a client is created: `x-strategy: fixed` in the schema. */
const FIXED_FIELDS = CLIENT_FIELDS.filter(({ strategy }) => strategy.name === "fixed");
const REQUIRE_BEHAVIOR = wireName(POST_LOGIN_PROMPT_FIELDS.organizationRequireBehavior);
const OIDC_CONFORMANT = wireName(POST_LOGIN_PROMPT_FIELDS.oidcConformant);

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
 * none there), and every declared field is sent when it differs.
 *
 * @throws {ImmutableFieldError} when a declared `thirdPartySecurityMode` differs from the live one.
 * @throws {TenantValidationError} when `post_login_prompt` meets a client that is not OIDC conformant.
 */
export function planCreate(declared: DeclaredClient, live: WireFields): ClientSettingsPlan {
  refuseLiveConflicts(declared, live);
  refuseHiddenKeys(
    declared,
    live,
    declared.fields.map(({ wire }) => wire),
  );
  const send: WireFields = {};
  const { values } = declared;
  for (const { wire, strategy } of declared.fields) {
    put(send, wire, strategy.send(live[wire], values[wire]));
  }
  const remember = ownedPaths(values).map((path) => priorOf(live, path));
  return plan(declared, send, remember, live, []);
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
  const added = ownedPaths(declared.values).filter((path) => !known.has(pathKey(path)));
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
 * Update: send what changed, put back what left the program, remember the prior of what is
 * newly owned. `live` is the client when {@link ClientUpdate.needsLive} says so.
 *
 * @throws {ImmutableFieldError}, {@link TenantValidationError} as {@link planCreate}, when `live`
 * is given; {@link TenantValidationError} when a put-back would break a rule of the live client.
 */
export function planUpdate(update: ClientUpdate, live?: WireFields): ClientSettingsPlan {
  const { declared, prior, changed } = update;
  const { values } = declared;
  const before = update.before.values;
  if (live !== undefined) refuseLiveConflicts(declared, live);
  const current = live ?? before;
  const send: WireFields = {};
  for (const { wire, strategy } of declared.fields) {
    if (!changed.includes(wire)) continue;
    put(send, wire, strategy.send(current[wire], values[wire]));
  }
  const removed = new Set(update.removed.map(pathKey));
  const putBack = prior.filter(({ path }) => removed.has(pathKey(path)));
  if (live !== undefined) {
    // Only what this update sends or remembers: an unchanged key-material field is not touched.
    const paths = [...update.added, ...putBack.map(({ path }) => path)];
    refuseHiddenKeys(declared, live, [...changed, ...paths.map(([wire = ""]) => wire)]);
  }
  Object.assign(send, putBackBody(putBack, current, values, send));
  if (live !== undefined) refusePutBackConflicts(declared, putBack, live, send);
  const byPath = new Map(prior.map((entry) => [pathKey(entry.path), entry]));
  const remember = ownedPaths(values).map(
    (path) => byPath.get(pathKey(path)) ?? priorOf(live ?? {}, path),
  );
  return plan(declared, send, remember, current, putBack);
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
 * The preview's refusal of key material at stake (`fields`, from {@link keyObjectsAtStake}) that
 * the credentials' token does not let them see: `scopes` are the scopes it grants, and neither
 * `read:client_keys` nor `read:client_credentials` is among them. The refusal `up` makes from the
 * answer (docs/design/decisions.md, "Key material"), made before anything is sent. Undefined when the
 * scopes could not be read (an opaque token, no token): `up` stays the backstop.
 */
export function unscopedKeysError(
  declared: DeclaredClient,
  fields: readonly string[],
  scopes: readonly string[] | undefined,
): TenantValidationError | undefined {
  if (scopes === undefined || KEY_READ_SCOPES.some((scope) => scopes.includes(scope))) {
    return undefined;
  }
  return hiddenKeysError(declared, fields);
}

/**
 * The warnings of putting back `entries` (the priors of paths that left the program, or every
 * prior at delete) on client `clientId`: one sentence per path whose prior is "absent" in a field
 * the API cannot be told has no value (no null, no empty form: `clientSecret`, `appType`,
 * `redirectionPolicy`), which the put-back therefore leaves as it is live (docs/design/decisions.md,
 * "What a resource owns"). Empty when every put-back can be made.
 */
export function absencesLeft(clientId: string, entries: readonly PriorEntry[]): string[] {
  return entries.flatMap((entry) => {
    const field = leftAsItIs(entry);
    return field === undefined
      ? []
      : [
          `${field} of client ${clientId} is left as it is: the client had no ${field} before ` +
            "this resource set it, and the API cannot be told to have none (it takes no null or " +
            "empty value there)",
        ];
  });
}

/**
 * What the preview says of putting back `entries` on client `clientId`: one sentence per path,
 * in the user's spelling, with the prior it goes back to as a refused put-back shows it (never
 * a sensitive one; "none" for absence the API can express), so that the preview shows the value
 * `up` will send (docs/design/decisions.md, "What a resource owns"). A path the put-back leaves as
 * it is ({@link absencesLeft}) is not listed here: it has its own sentence.
 */
export function putBackNotes(clientId: string, entries: readonly PriorEntry[]): string[] {
  return entries.flatMap((entry) => {
    const [wire, ...inside] = entry.path;
    if (wire === undefined || !isPutBack(wire) || leftAsItIs(entry) !== undefined) return [];
    const { field } = fieldByWireName(wire);
    const path = [field, ...inside].join(".");
    return [
      `${path} of client ${clientId} goes back to its prior (${shownPrior(entry, field)}), ` +
        "what the client held before this resource managed it",
    ];
  });
}

/**
 * The field of `entry` when its prior is "absent" in a top-level field the API cannot be told has
 * no value (no null, no empty form), which a put-back therefore leaves as it is live.
 */
function leftAsItIs(entry: PriorEntry): ClientField["field"] | undefined {
  const [wire] = entry.path;
  if (entry.path.length !== 1 || wire === undefined || !isPutBack(wire) || "value" in entry) {
    return undefined;
  }
  const { field, strategy } = fieldByWireName(wire);
  return strategy.name !== "map" && strategy.absent === undefined ? field : undefined;
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
    .filter((wire): wire is string => wire !== undefined && isPutBack(wire));
  // Any key material in the answer shows the credentials may see it all (see refuseHiddenKeys).
  if (fields.some((wire) => KEY_OBJECTS.includes(wire))) fields.push(...KEY_MATERIAL);
  return [...new Set(fields)];
}

/**
 * Delete: the PATCH that lays the prior of every owned path over the live client (empty when the
 * client already holds them). Paths the resource does not own keep their live values.
 */
export function planDelete(props: Props, live: WireFields): WireFields {
  const entries = deletePriors(props);
  const fields = entries.map(({ path }) => path[0]).filter((wire) => wire !== undefined);
  refuseHiddenKeys(declaredClient(props), live, fields);
  return putBackBody(entries, live, {}, {});
}

/** The priors delete puts back: every remembered one. */
export function deletePriors(props: Props): PriorEntry[] {
  return loadPriorPaths(props.prior, declaredClient(props).values);
}

/** How long a prior may be shown in a message before it is shortened. */
const SHOWN_PRIOR = 60;

/**
 * The error for a 400 refusing a PATCH `body` that puts `entries` back: the paths it puts back and
 * their priors (never the prior of a sensitive field), then the tenant's answer. Undefined when the
 * refusal is not a 400 or the body puts nothing back: the error is then the program's own.
 */
export function putBackRefusal(
  entries: readonly PriorEntry[],
  body: WireFields,
  error: TenantApiError,
): PutBackRefusedError | undefined {
  const sent = entries.filter(({ path }) => path[0] !== undefined && Object.hasOwn(body, path[0]));
  if (error.status !== 400 || sent.length === 0) return undefined;
  const paths = sent.map((entry) => {
    const [wire = "", ...inside] = entry.path;
    const { field } = fieldByWireName(wire);
    return { path: [field, ...inside].join("."), prior: shownPrior(entry, field) };
  });
  return new PutBackRefusedError(paths, error);
}

function shownPrior(entry: PriorEntry, field: (typeof SENSITIVE_CLIENT_FIELDS)[number]): string {
  if (SENSITIVE_CLIENT_FIELDS.includes(field)) return "sensitive: not shown";
  if (!("value" in entry)) return "none";
  const { value } = entry;
  const text = JSON.stringify(value) ?? "null";
  if (text.length <= SHOWN_PRIOR) return text;
  if (typeof value === "string") {
    // The opening quote kept, the closing one after the ellipsis: still reads as a string.
    return `${JSON.stringify(value.slice(0, SHOWN_PRIOR)).slice(0, -1)}…", ${value.length} characters`;
  }
  return `${text.slice(0, SHOWN_PRIOR)}…, ${text.length} characters of JSON`;
}

/**
 * The fields of a PATCH that put `entries` back over `current`: per top-level field, the live
 * value with each prior laid over it and what the program still declares there (`declared`) laid
 * on top. `client_metadata` is merged by the platform, so only its keys are sent (with the
 * declared ones `send` already holds), a null removing a key the client did not have. A field whose result is
 * what `current` holds is not sent. Fields fixed at creation are never put back.
 */
function putBackBody(
  entries: readonly PriorEntry[],
  current: WireFields,
  declared: WireFields,
  send: WireFields,
): WireFields {
  const body: WireFields = {};
  const byField = new Map<string, PriorEntry[]>();
  for (const entry of entries) {
    const [wire] = entry.path;
    if (wire === undefined || !isPutBack(wire)) continue;
    byField.set(wire, [...(byField.get(wire) ?? []), entry]);
  }
  for (const [wire, fieldEntries] of byField) {
    const { strategy } = fieldByWireName(wire);
    if (strategy.name === "map") {
      const keys = fieldEntries.filter(({ path }) => path.length === 2);
      if (keys.length === 0) continue;
      const restored = Object.fromEntries(
        keys.map((entry) => [entry.path[1], "value" in entry ? entry.value : null]),
      );
      body[wire] = { ...(isPlainObject(send[wire]) ? send[wire] : {}), ...restored };
      continue;
    }
    let value: unknown = current[wire];
    let whollyAbsent = fieldEntries.length > 0;
    for (const entry of fieldEntries) {
      if (!("absentBelow" in entry) || entry.absentBelow > 0) whollyAbsent = false;
      if (entry.path.length > 1) value = layPrior(value, entry);
      else value = "value" in entry ? strategy.putBack(entry.value) : strategy.absent;
    }
    // What the program still declares in the field goes on top (not `send`, which holds the
    // live value of the very keys being put back).
    const still = declared[wire];
    if (still !== undefined) value = overlay(value, still);
    else if (whollyAbsent && isPlainObject(value) && Object.keys(value).length === 0) {
      // The client had no such field: an emptied object goes back as the field's absence.
      value = strategy.absent ?? value;
    }
    // Absence the API cannot express (undefined) leaves the field as it is live.
    if (value === undefined || isDeepStrictEqual(value, current[wire])) continue;
    body[wire] = value;
  }
  return body;
}

/** Whether a field is ever put back: the fields fixed at creation are not. */
function isPutBack(wire: string): boolean {
  return fieldByWireName(wire).strategy.name !== "fixed";
}

/**
 * Whether putting `path` back needs the live client: a path inside an object does (the platform
 * replaces the object whole, so the rest of it must be sent as it is live); a top-level value or a
 * map key does not.
 */
function needsLiveToPutBack(path: OwnedPath): boolean {
  const [wire] = path;
  if (wire === undefined || !isPutBack(wire)) return false;
  return path.length > 1 && fieldByWireName(wire).strategy.name !== "map";
}

function plan(
  declared: DeclaredClient,
  send: WireFields,
  remember: readonly PriorEntry[],
  unchanged: WireFields,
  putBack: readonly PriorEntry[],
): ClientSettingsPlan {
  return {
    send,
    remember,
    putBack,
    report: (answer) => outputs(declared, remember, answer ?? unchanged),
  };
}

/**
 * The outputs: the resource's name, client and connection, the priors, and each declared
 * field as `client` reports it, cut down to the keys the program declares (so that a refresh shows
 * drift only in what the program manages), in the user's spelling: the only values converted back.
 */
function outputs(
  declared: DeclaredClient,
  prior: readonly PriorEntry[],
  client: WireFields,
): Props {
  const outs: Props = { ...declared.identity, prior: storePriorPaths(prior) };
  for (const { field, wire } of declared.fields) {
    const shown = project(client[wire], declared.values[wire]);
    outs[field] = fieldFromWire(field, shown);
  }
  return outs;
}

/** Fields declared in `before`, `declared` or both, and how they and their paths moved. */
function moves(before: DeclaredClient, declared: DeclaredClient) {
  const was = before.values;
  const now = declared.values;
  const owned = new Set(ownedPaths(now).map(pathKey));
  return {
    changed: declared.fields
      .filter(
        ({ wire, strategy }) => !Object.hasOwn(was, wire) || !strategy.same(was[wire], now[wire]),
      )
      .map(({ wire }) => wire),
    removed: ownedPaths(was).filter((path) => !owned.has(pathKey(path))),
  };
}

function put(target: WireFields, wire: string, value: unknown): void {
  if (value !== undefined) target[wire] = value;
}

/**
 * The rules the live client decides: a field the platform fixed at creation cannot change, and
 * `post_login_prompt` needs an OIDC-conformant client.
 */
function refuseLiveConflicts(declared: DeclaredClient, live: WireFields): void {
  refuseFixedChanges(declared, withNone(live));
  refusePostLoginPrompt(declared, live);
}

/** Whether `live` holds no key material at all: the credentials may not be allowed to see it. */
function keysHidden(live: WireFields): boolean {
  return KEY_MATERIAL.every((wire) => live[wire] === undefined);
}

/**
 * Refuses to send, or put back, a key-material object (`encryption_key`,
 * `client_authentication_methods`) the answer may be hiding: the rest of it would be lost (the
 * platform replaces the object whole) and its prior could not be recorded, so destroy could not
 * repair it. The answer proves nothing is hidden when it holds any key material. `fields` are
 * the wire fields the operation sends, remembers or puts back.
 */
function refuseHiddenKeys(
  declared: DeclaredClient,
  live: WireFields,
  fields: readonly string[],
): void {
  if (!keysHidden(live)) return;
  const error = hiddenKeysError(declared, fields);
  if (error !== undefined) throw error;
}

/**
 * The one refusal of key material the credentials may not see, for the first key-material object
 * among `fields`; undefined when there is none. Raised at `up` by what the answer holds
 * ({@link refuseHiddenKeys}) and at preview by the token's scopes ({@link unscopedKeysError}).
 */
function hiddenKeysError(
  declared: DeclaredClient,
  fields: readonly string[],
): TenantValidationError | undefined {
  const field = CLIENT_FIELDS.find(
    ({ wire }) => KEY_OBJECTS.includes(wire) && fields.includes(wire),
  );
  if (field === undefined) return undefined;
  return new TenantValidationError({
    subject: `${field.field} of client ${declared.clientId}`,
    reason:
      `cannot be seen: the tenant answers it only to credentials with ${KEY_READ_SCOPES[0]} (or ` +
      `${KEY_READ_SCOPES[1]}), and without it what the program does not declare there would be ` +
      "lost and nothing could be put back",
    remedy: `grant ${KEY_READ_SCOPES[0]} to the provider's credentials. Nothing was sent.`,
  });
}

/** The live client, with null for a fixed field it has no value of. */
function withNone(live: WireFields): WireFields {
  const filled = { ...live };
  for (const { wire } of FIXED_FIELDS) filled[wire] ??= null;
  return filled;
}

/**
 * Refuses a change of a field the platform fixes when a client is created. A `current` value is
 * undefined when it is not known (not declared before, in diff) and null when the client has none.
 */
function refuseFixedChanges(declared: DeclaredClient, current: WireFields): void {
  for (const { field, wire } of FIXED_FIELDS) {
    const value = declared.values[wire];
    const live = current[wire];
    if (value === undefined || isUnknown(value) || live === undefined || live === value) continue;
    throw new ImmutableFieldError({
      field,
      clientId: declared.clientId,
      live,
      declared: value,
    });
  }
}

/** The cross-field rule `check` cannot decide alone: it depends on the live `oidc_conformant`. */
function refusePostLoginPrompt(declared: DeclaredClient, live: WireFields): void {
  if (declared.values[REQUIRE_BEHAVIOR] !== "post_login_prompt") return;
  const conformant = declared.values[OIDC_CONFORMANT] ?? live[OIDC_CONFORMANT];
  if (conformant === true) return;
  const { organizationRequireBehavior, oidcConformant } = POST_LOGIN_PROMPT_FIELDS;
  throw new TenantValidationError({
    subject: organizationRequireBehavior,
    reason: `${postLoginPromptReason(oidcConformant)}, and client ${declared.clientId} is not OIDC conformant`,
    remedy: `declare ${oidcConformant}: true. Nothing was sent.`,
  });
}

/**
 * The rule a put-back can break on the live client: putting `oidc_conformant` back to a value
 * other than true while the client keeps `organization_require_behavior: "post_login_prompt"`,
 * which the platform would refuse naming the other field (docs/design/platform.md, "Rules across
 * fields"). Refused before anything is sent, naming the path being put back and its prior.
 */
function refusePutBackConflicts(
  declared: DeclaredClient,
  putBack: readonly PriorEntry[],
  live: WireFields,
  send: WireFields,
): void {
  const entry = putBack.find(({ path }) => path.length === 1 && path[0] === OIDC_CONFORMANT);
  if (entry === undefined || !Object.hasOwn(send, OIDC_CONFORMANT)) return;
  const behavior = send[REQUIRE_BEHAVIOR] ?? live[REQUIRE_BEHAVIOR];
  if (send[OIDC_CONFORMANT] === true || behavior !== "post_login_prompt") return;
  const { organizationRequireBehavior, oidcConformant } = POST_LOGIN_PROMPT_FIELDS;
  const prior = "value" in entry ? JSON.stringify(entry.value) : "no value";
  throw new TenantValidationError({
    subject: `putting ${oidcConformant} back to its prior (${prior}), as it left the program,`,
    reason: `would break a rule of client ${declared.clientId}: ${organizationRequireBehavior} ${postLoginPromptReason(oidcConformant)}`,
    remedy: `keep declaring ${oidcConformant}: true, or change ${organizationRequireBehavior} first. Nothing was sent.`,
  });
}
