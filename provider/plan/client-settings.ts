/**
 * The decisions of `ClientSettings`, as pure functions: from the declared fields, the stored state
 * and (when needed) the live client, what to PATCH, what to remember as prior values and what to
 * report. Nothing here calls the API or Pulumi; the provider (`providers/client-settings.ts`) reads
 * and writes through the gateway and hands these results to Pulumi.
 *
 * Inside, everything is in the wire's spelling: the declared inputs and the stored outputs are
 * converted once on the way in ({@link declaredFields}), compared and merged against the API's own
 * answer, prior values are kept as the API gave them, and only the reported outputs are converted
 * back to the user's camelCase. Free-form maps and keys the platform added are never renamed.
 *
 * @module
 */

import { connectionOutput } from "../connection/change.js";
import { ImmutableFieldError, TenantValidationError } from "../errors.js";
import type { Props } from "../json.js";
import { NAME_KEY } from "../resource-name.js";
import {
  isUnknown,
  POST_LOGIN_PROMPT_FIELDS,
  postLoginPromptReason,
  wireName,
} from "../schema/index.js";
import {
  CLIENT_FIELDS,
  type ClientField,
  declaredFields,
  fieldByWireName,
  loadPrior,
  reportedValue,
  storePrior,
  type WireFields,
} from "./client-fields.js";
import { project } from "./compare.js";

/** The fields the platform fixes when a client is created: `x-strategy: fixed` in the schema. */
const FIXED_FIELDS = CLIENT_FIELDS.filter(({ strategy }) => strategy.name === "fixed");
const REQUIRE_BEHAVIOR = wireName(POST_LOGIN_PROMPT_FIELDS.organizationRequireBehavior);
const OIDC_CONFORMANT = wireName(POST_LOGIN_PROMPT_FIELDS.oidcConformant);

/** What `diff` reports. */
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
 * The diff of stored outputs (`olds`) and new inputs (`news`): a new `clientId` replaces; otherwise
 * a declared field whose value differs, or a field that left the program, is a change.
 *
 * @throws {ImmutableFieldError} when `thirdPartySecurityMode` would change on the same client.
 */
export function planDiff(olds: Props, news: Props): ClientSettingsDiff {
  const replaces = olds.clientId !== news.clientId ? ["clientId"] : [];
  const before = declaredFields(olds);
  const wanted = declaredFields(news);
  if (replaces.length === 0) refuseFixedChanges(String(news.clientId), before, wanted);
  const { changed, removed } = compare(before, wanted);
  return { changes: replaces.length > 0 || changed.length > 0 || removed.length > 0, replaces };
}

/** The wire fields to read for `inputs`: the declared ones, and what the live rules look at. */
export function fieldsToRead(inputs: Props): string[] {
  const wanted = declaredFields(inputs);
  const fields = Object.keys(wanted);
  if (wanted[REQUIRE_BEHAVIOR] !== undefined && !fields.includes(OIDC_CONFORMANT)) {
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
export function planCreate(inputs: Props, live: WireFields): ClientSettingsPlan {
  const clientId = String(inputs.clientId);
  const wanted = declaredFields(inputs);
  refuseFixedChanges(clientId, withNone(live), wanted);
  refusePostLoginPrompt(clientId, live, wanted);
  const send: WireFields = {};
  const remember: WireFields = {};
  for (const entry of fieldsOf(wanted)) {
    const { wire, strategy } = entry;
    put(send, wire, strategy.send(live[wire], wanted[wire], undefined, undefined));
    put(
      remember,
      wire,
      strategy.remember(undefined, live[wire], wanted[wire], { added: true, changed: true }),
    );
  }
  return plan(inputs, wanted, send, remember, live);
}

/**
 * Whether an update from `olds` (stored outputs) to `news` needs the live client: to remember the
 * prior value of a newly declared field or map key, to merge a changed object over its live value,
 * or to check a rule that depends on the live client.
 */
export function updateNeedsLive(olds: Props, news: Props): boolean {
  const before = declaredFields(olds);
  const wanted = declaredFields(news);
  const prior = loadPrior(olds.prior);
  const { changed, added } = compare(before, wanted);
  return (
    added.length > 0 ||
    changed.includes(REQUIRE_BEHAVIOR) ||
    fieldsOf(wanted).some(({ wire, strategy }) =>
      strategy.needsLive(changed.includes(wire), wanted[wire], prior[wire]),
    )
  );
}

/**
 * Update: send only what changed, put back what left the program, remember the prior value of
 * what was newly declared. `live` is the client when {@link updateNeedsLive} said so.
 *
 * @throws {ImmutableFieldError}, {@link TenantValidationError} as {@link planCreate}, when `live` is given.
 */
export function planUpdate(olds: Props, news: Props, live?: WireFields): ClientSettingsPlan {
  const clientId = String(news.clientId);
  const before = declaredFields(olds);
  const wanted = declaredFields(news);
  const prior = loadPrior(olds.prior);
  const { changed, removed, added } = compare(before, wanted);
  if (live !== undefined) {
    refuseFixedChanges(clientId, withNone(live), wanted);
    refusePostLoginPrompt(clientId, live, wanted);
  }
  const current = live ?? before;
  const send: WireFields = {};
  for (const wire of changed) {
    const { strategy } = fieldByWireName(wire);
    put(send, wire, strategy.send(current[wire], wanted[wire], before[wire], prior[wire]));
  }
  for (const wire of removed) {
    put(send, wire, fieldByWireName(wire).strategy.restore(prior[wire], before[wire]));
  }
  const remember: WireFields = {};
  for (const { wire, strategy } of fieldsOf(wanted)) {
    const state = { added: added.includes(wire), changed: changed.includes(wire) };
    put(remember, wire, strategy.remember(prior[wire], live?.[wire], wanted[wire], state));
  }
  return plan(news, wanted, send, remember, current);
}

/** Read (refresh): the outputs for the live client; prior values kept as they are. */
export function planRead(props: Props, live: WireFields): Props {
  return outputs(props, declaredFields(props), loadPrior(props.prior), live);
}

/** Delete: the PATCH that puts every remembered value back (empty when there is nothing to do). */
export function planDelete(props: Props): WireFields {
  const prior = loadPrior(props.prior);
  const current = declaredFields(props);
  const send: WireFields = {};
  for (const [wire, value] of Object.entries(prior)) {
    put(send, wire, fieldByWireName(wire).strategy.restore(value, current[wire]));
  }
  return send;
}

function plan(
  props: Props,
  wanted: WireFields,
  send: WireFields,
  remember: WireFields,
  unchanged: WireFields,
): ClientSettingsPlan {
  return {
    send,
    remember,
    report: (answer) => outputs(props, wanted, remember, answer ?? unchanged),
  };
}

/**
 * The outputs: the resource's name, client and connection, the prior values, and each declared
 * field as the client reports it, cut down to the keys the program declares (so that a refresh
 * shows drift only in what the program manages), in the user's spelling.
 */
function outputs(props: Props, wanted: WireFields, prior: WireFields, client: WireFields): Props {
  const outs: Props = {
    [NAME_KEY]: props[NAME_KEY],
    clientId: props.clientId,
    ...connectionOutput(props),
  };
  outs.prior = storePrior(prior);
  for (const { field, wire } of fieldsOf(wanted)) {
    outs[field] = reportedValue(wire, project(client[wire], wanted[wire]));
  }
  return outs;
}

/** Fields declared in `before`, `wanted` or both, and how they moved. */
function compare(before: WireFields, wanted: WireFields) {
  const changed = fieldsOf(wanted)
    .filter(
      ({ wire, strategy }) =>
        !Object.hasOwn(before, wire) || !strategy.same(before[wire], wanted[wire]),
    )
    .map(({ wire }) => wire);
  return {
    changed,
    removed: fieldsOf(before)
      .filter(({ wire }) => !Object.hasOwn(wanted, wire))
      .map(({ wire }) => wire),
    added: Object.keys(wanted).filter((wire) => !Object.hasOwn(before, wire)),
  };
}

function fieldsOf(fields: WireFields): ClientField[] {
  return CLIENT_FIELDS.filter(({ wire }) => Object.hasOwn(fields, wire));
}

function put(target: WireFields, wire: string, value: unknown): void {
  if (value !== undefined) target[wire] = value;
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
function refuseFixedChanges(clientId: string, current: WireFields, wanted: WireFields): void {
  for (const { field, wire } of FIXED_FIELDS) {
    const declared = wanted[wire];
    const live = current[wire];
    if (declared === undefined || isUnknown(declared) || live === undefined || live === declared) {
      continue;
    }
    throw new ImmutableFieldError({ field, clientId, live, declared });
  }
}

/** The cross-field rule `check` cannot decide alone: it depends on the live `oidc_conformant`. */
function refusePostLoginPrompt(clientId: string, live: WireFields, wanted: WireFields): void {
  if (wanted[REQUIRE_BEHAVIOR] !== "post_login_prompt") return;
  const conformant = wanted[OIDC_CONFORMANT] ?? live[OIDC_CONFORMANT];
  if (conformant === true) return;
  const { organizationRequireBehavior, oidcConformant } = POST_LOGIN_PROMPT_FIELDS;
  throw new TenantValidationError({
    subject: organizationRequireBehavior,
    reason: `${postLoginPromptReason(oidcConformant)}, and client ${clientId} is not OIDC conformant`,
    remedy: `declare ${oidcConformant}: true. Nothing was sent.`,
  });
}
