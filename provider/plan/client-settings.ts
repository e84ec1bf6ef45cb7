/**
 * The decisions of `ClientSettings`, as pure functions: from what the program declares, the stored
 * state and (when needed) the live client, what to PATCH, what to remember as prior values and what
 * to report. Nothing here calls the API or Pulumi; the provider (`providers/client-settings.ts`)
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

import { ImmutableFieldError, TenantValidationError } from "../errors.js";
import { isPlainObject, type Props } from "../json.js";
import {
  fieldFromWire,
  fieldToWire,
  isUnknown,
  POST_LOGIN_PROMPT_FIELDS,
  postLoginPromptReason,
  wireName,
} from "../schema/index.js";
import { isUserSpelled } from "../schema/wire.js";
import { project } from "./compare.js";
import {
  CLIENT_FIELDS,
  type ClientField,
  type DeclaredClient,
  declaredClient,
  fieldByWireName,
  type WireFields,
} from "./declared.js";

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
  /** The prior values to keep in the state, by wire name. */
  readonly remember: WireFields;
  /**
   * The outputs, given the client as the PATCH answered it; without an answer (nothing sent), the
   * client as it was read, or as last reported.
   */
  report(answer?: WireFields): Props;
}

/**
 * An update from the stored outputs to what the program now declares, worked out once: what was
 * declared before (as the outputs report it), the prior values, and how each field moved. Whether
 * the live client is needed and the plan ({@link planUpdate}) both take this one comparison, so
 * they cannot disagree on what changed.
 */
export interface ClientUpdate {
  /** What the program declares now. */
  readonly declared: DeclaredClient;
  /** What it declared at the last update, as the stored outputs report it. */
  readonly before: DeclaredClient;
  /** The prior values remembered so far, by wire name. */
  readonly prior: WireFields;
  /** Declared fields, by wire name, that were not declared before or whose value differs. */
  readonly changed: readonly string[];
  /** Fields declared before that left the program. */
  readonly removed: readonly ClientField[];
  /** Declared fields, by wire name, that were not declared before. */
  readonly added: readonly string[];
  /**
   * Whether the update needs the live client: to remember the prior value of a newly declared
   * field or map key, to merge a changed object over its live value, or to check a rule that
   * depends on the live client.
   */
  readonly needsLive: boolean;
}

/**
 * The diff of stored outputs (`olds`) and what the program now declares: a new `clientId`
 * replaces; otherwise a declared field whose value differs, or a field that left the program, is a
 * change.
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
 * The wire fields to read of the live client: the declared ones, and what the live rules look at
 * (`post_login_prompt` needs `oidc_conformant`: docs/platform.md, "Rules across fields"); reading
 * no more keeps the reads cheap.
 */
export function fieldsToRead(declared: DeclaredClient): string[] {
  const fields = declared.fields.map(({ wire }) => wire);
  if (declared.values[REQUIRE_BEHAVIOR] !== undefined && !fields.includes(OIDC_CONFORMANT)) {
    fields.push(OIDC_CONFORMANT);
  }
  return fields;
}

/**
 * Create: adopt the client. Every declared field remembers its live value and is sent when it
 * differs.
 *
 * @throws {ImmutableFieldError} when a declared `thirdPartySecurityMode` differs from the live one.
 * @throws {TenantValidationError} when `post_login_prompt` meets a client that is not OIDC conformant.
 */
export function planCreate(declared: DeclaredClient, live: WireFields): ClientSettingsPlan {
  refuseLiveConflicts(declared, live);
  const send: WireFields = {};
  const remember: WireFields = {};
  const { values } = declared;
  for (const { wire, strategy } of declared.fields) {
    put(send, wire, strategy.send(live[wire], values[wire], undefined, undefined));
    put(
      remember,
      wire,
      strategy.remember(undefined, live[wire], values[wire], { added: true, changed: true }),
    );
  }
  return plan(declared, send, remember, live);
}

/**
 * The update to what the program declares from the stored outputs `olds`: see
 * {@link ClientUpdate}. Each field moves by its strategy (docs/decisions.md, "Field strategies").
 */
export function clientUpdate(declared: DeclaredClient, olds: Props): ClientUpdate {
  const before = declaredClient(olds);
  const prior = loadPrior(olds.prior);
  const { changed, removed, added } = moves(before, declared);
  const needsLive =
    added.length > 0 ||
    changed.includes(REQUIRE_BEHAVIOR) ||
    declared.fields.some(({ wire, strategy }) =>
      strategy.needsLive(changed.includes(wire), declared.values[wire], prior[wire]),
    );
  return { declared, before, prior, changed, removed, added, needsLive };
}

/**
 * Update: send only what changed, put back what left the program, remember the prior value of
 * what was newly declared. `live` is the client when {@link ClientUpdate.needsLive} says so.
 *
 * @throws {ImmutableFieldError}, {@link TenantValidationError} as {@link planCreate}, when `live` is given.
 */
export function planUpdate(update: ClientUpdate, live?: WireFields): ClientSettingsPlan {
  const { declared, prior, changed, added } = update;
  const { values } = declared;
  const before = update.before.values;
  if (live !== undefined) refuseLiveConflicts(declared, live);
  const current = live ?? before;
  const send: WireFields = {};
  for (const { wire, strategy } of declared.fields) {
    if (!changed.includes(wire)) continue;
    put(send, wire, strategy.send(current[wire], values[wire], before[wire], prior[wire]));
  }
  for (const { wire, strategy } of update.removed) {
    put(send, wire, strategy.restore(prior[wire], before[wire]));
  }
  const remember: WireFields = {};
  for (const { wire, strategy } of declared.fields) {
    const state = { added: added.includes(wire), changed: changed.includes(wire) };
    put(remember, wire, strategy.remember(prior[wire], live?.[wire], values[wire], state));
  }
  return plan(declared, send, remember, current);
}

/** Read (refresh): the outputs for the live client; prior values kept as they are. */
export function planRead(props: Props, live: WireFields): Props {
  return outputs(declaredClient(props), loadPrior(props.prior), live);
}

/** Delete: the PATCH that puts every remembered value back (empty when there is nothing to do). */
export function planDelete(props: Props): WireFields {
  const current = declaredClient(props).values;
  const send: WireFields = {};
  for (const [wire, value] of Object.entries(loadPrior(props.prior))) {
    put(send, wire, fieldByWireName(wire).strategy.restore(value, current[wire]));
  }
  return send;
}

function plan(
  declared: DeclaredClient,
  send: WireFields,
  remember: WireFields,
  unchanged: WireFields,
): ClientSettingsPlan {
  return {
    send,
    remember,
    report: (answer) => outputs(declared, remember, answer ?? unchanged),
  };
}

/**
 * The outputs: the resource's name, client and connection, the prior values, and each declared
 * field as `client` reports it, cut down to the keys the program declares (so that a refresh shows
 * drift only in what the program manages), in the user's spelling: the only values converted back.
 */
function outputs(declared: DeclaredClient, prior: WireFields, client: WireFields): Props {
  const outs: Props = { ...declared.identity, prior: storePrior(prior) };
  for (const { field, wire } of declared.fields) {
    const shown = project(client[wire], declared.values[wire]);
    outs[field] = fieldFromWire(field, shown);
  }
  return outs;
}

/**
 * The prior values of a stored state, by wire name. The state keeps them under the user's field
 * names (the `prior` output has kept that shape since 0.1.0) with values in the wire's spelling,
 * so that keys the platform added inside an object are kept exactly. Version 0.1.0 stored the
 * values in the user's spelling: such a value is recognised by a declared member spelled the
 * user's way and converted as 0.1.0 itself did (docs/decisions.md, "Prior values in the state").
 */
function loadPrior(stored: unknown): WireFields {
  const prior: WireFields = {};
  if (!isPlainObject(stored)) return prior;
  for (const { field, wire } of CLIENT_FIELDS) {
    if (!Object.hasOwn(stored, field) || stored[field] === undefined) continue;
    const value = stored[field];
    prior[wire] = isUserSpelled(field, value) ? fieldToWire(field, value) : value;
  }
  return prior;
}

/** The prior values as the state keeps them: see {@link loadPrior}. */
function storePrior(prior: WireFields): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(prior).map(([wire, value]) => [fieldByWireName(wire).field, value]),
  );
}

/** Fields declared in `before`, `declared` or both, and how they moved. */
function moves(before: DeclaredClient, declared: DeclaredClient) {
  const was = before.values;
  const now = declared.values;
  return {
    changed: declared.fields
      .filter(
        ({ wire, strategy }) => !Object.hasOwn(was, wire) || !strategy.same(was[wire], now[wire]),
      )
      .map(({ wire }) => wire),
    removed: before.fields.filter(({ wire }) => !Object.hasOwn(now, wire)),
    added: declared.fields.filter(({ wire }) => !Object.hasOwn(was, wire)).map(({ wire }) => wire),
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
