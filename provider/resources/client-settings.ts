import * as pulumi from "@pulumi/pulumi";
import type { OperationContext, TenantApiClient } from "../api/client.js";
import { isPlainObject, matchesDeclared, overlay, project } from "../diff.js";
import { ImmutableFieldError, TenantValidationError } from "../errors.js";
import {
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsField,
  type ClientSettingsInputs,
  fieldFromWire,
  fieldToWire,
  isUnknown,
  SENSITIVE_CLIENT_FIELDS,
  wireName,
} from "../schema/index.js";
import type { TenantProvider } from "../shims/make-shim.js";

import {
  describeResource,
  NAME_KEY,
  runOperation,
  shimFor,
  TenantProviderBase,
  withSecretOutputs,
} from "./operation.js";

const KIND = "ClientSettings";
const MODE: ClientSettingsField = "thirdPartySecurityMode";
const METADATA: ClientSettingsField = "clientMetadata";

/**
 * Lists that may be null but not empty (spec section 8). A client can still hold `[]` in them, and
 * sending that back would be refused: to the platform both mean "none", so `[]` is restored as null.
 */
const NON_EMPTY_LISTS: readonly ClientSettingsField[] = [
  "organizationDiscoveryMethods",
  "asyncApprovalNotificationChannels",
];

/** The inputs of {@link ClientSettings}, each of which may be an Output. */
export type ClientSettingsArgs = {
  [K in keyof ClientSettingsInputs]: pulumi.Input<ClientSettingsInputs[K]>;
};

/**
 * The outputs: each field the program declares, as the tenant last reported it. A field the program
 * does not declare has no output property (undefined): it is not managed, so there is nothing to
 * report, and every output property costs Pulumi's runtime several promises per resource, which
 * adds up to seconds in a stack of hundreds of clients.
 */
export type ClientSettingsOutputs = {
  readonly [K in ClientSettingsField]?: pulumi.Output<ClientSettingsInputs[K]>;
};

type Props = Record<string, unknown>;
type Fields = Partial<Record<ClientSettingsField, unknown>>;

/**
 * Manages some settings of an existing client (application) of the tenant
 * (`PATCH /clients/{id}`). Only the fields the program declares are ever sent.
 *
 * - create: reads the client, remembers the current value of every declared field, and PATCHes
 *   the declared fields whose value differs. It adopts the client: no import is needed.
 * - update: PATCHes only the fields whose value changed; a field removed from the program goes
 *   back to the value it had before this resource managed it.
 * - refresh: reads the live values of the declared fields, so a change made elsewhere shows up as
 *   drift and the next `up` puts the declared value back.
 * - delete: PATCHes every remembered value back. Use Pulumi's `retainOnDelete` to keep the
 *   settings when the resource leaves the program.
 *
 * Declared objects are compared on the keys the program declares (the platform adds defaults
 * inside them) and sent merged over the live object, because the platform replaces a top-level
 * object whole: keys the program does not declare keep their values. `clientMetadata` is merged
 * key by key by the platform, so only the declared keys are sent (null removes a key that did not
 * exist before).
 *
 * `thirdPartySecurityMode` is fixed when a client is created: a change fails the preview (diff),
 * and a declared value that differs from the live one fails create, before anything is sent.
 *
 * Changing `clientId` replaces the resource: the new client is adopted, then the old one restored.
 */
export interface ClientSettings extends ClientSettingsOutputs {}
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above only adds the output properties that the constructor registers (one per client field), typed from the schema instead of restated by hand.
export class ClientSettings extends pulumi.dynamic.Resource {
  /** The id of the managed client. */
  declare readonly clientId: pulumi.Output<string>;

  constructor(name: string, args: ClientSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    const props: Props = { prior: undefined, [NAME_KEY]: name };
    for (const [key, value] of Object.entries(args)) {
      if (value === undefined) continue;
      // Inputs of sensitive fields are secret too, not only the outputs: Pulumi stores inputs in
      // the state as well.
      props[key] =
        SENSITIVE_CLIENT_FIELDS.includes(key as ClientSettingsField) && value !== undefined
          ? pulumi.secret(value)
          : value;
    }
    super(
      shimFor(KIND),
      name,
      props,
      withSecretOutputs(opts, [...SENSITIVE_CLIENT_FIELDS, "prior"]),
      "tenant",
      KIND,
    );
  }
}

/** The implementation behind {@link ClientSettings}; usable directly in tests. */
export class ClientSettingsProvider extends TenantProviderBase implements TenantProvider {
  protected readonly kind = KIND;

  /**
   * Replaces on a new `clientId`; otherwise reports a change when a declared field differs from
   * its last known value or a field left the program.
   *
   * @throws {ImmutableFieldError} when `thirdPartySecurityMode` would change on the same client.
   */
  async diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
    const replaces = olds.clientId !== news.clientId ? ["clientId"] : [];
    if (replaces.length === 0) assertModeUnchanged(news, olds[MODE], news[MODE]);
    const { changed, removed } = compare(declared(olds), declared(news));
    return {
      changes: replaces.length > 0 || changed.length > 0 || removed.length > 0,
      replaces,
      deleteBeforeReplace: false,
    };
  }

  create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
    return runOperation(describeResource(KIND, inputs), async ({ client, context }) => {
      const clientId = String(inputs.clientId);
      const wanted = declared(inputs);
      const live = await getClient(client, context, clientId);
      assertModeUnchanged(inputs, live[MODE] ?? null, wanted[MODE]);
      assertOidcRule(context.resource, clientId, live, wanted);
      const patch: Fields = {};
      for (const field of Object.keys(wanted) as ClientSettingsField[]) {
        const value =
          field === METADATA
            ? metadataChanges(live[field], wanted[field], undefined, undefined)
            : changeOf(field, live[field], wanted[field]);
        if (value !== undefined) patch[field] = value;
      }
      const after = await patchClient(client, context, clientId, patch, live);
      return { id: clientId, outs: outputs(inputs, after, wanted, priorOf(live, wanted)) };
    });
  }

  read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult> {
    return runOperation(describeResource(KIND, props, id), async ({ client, context }) => {
      const live = await getClient(client, context, id, [404]);
      // The client itself is gone: so are its settings. The next `up` fails on the missing client.
      if (live === undefined) return { id: "", props: {} };
      const managed = declared(props);
      return { id, props: outputs(props, live, managed, asFields(props.prior)) };
    });
  }

  update(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
    return runOperation(describeResource(KIND, news, id), async ({ client, context }) => {
      const clientId = String(news.clientId);
      const before = declared(olds);
      const wanted = declared(news);
      const prior = asFields(olds.prior);
      const { changed, removed, added } = compare(before, wanted);

      // The live client is needed only to remember the prior value of newly declared fields, to
      // merge declared objects into their live value, and to check the live-dependent rules.
      const needsLive =
        added.length > 0 ||
        changed.some((field) => isPlainObject(wanted[field]) && field !== METADATA) ||
        newMetadataKeys(prior[METADATA], wanted[METADATA]).length > 0 ||
        changed.includes(MODE) ||
        changed.includes("organizationRequireBehavior");
      const live = needsLive ? await getClient(client, context, clientId) : undefined;
      if (live) {
        assertModeUnchanged(news, live[MODE] ?? null, wanted[MODE]);
        assertOidcRule(context.resource, clientId, live, wanted);
      }

      const patch: Fields = {};
      for (const field of changed) {
        const current = live ? live[field] : before[field];
        const value =
          field === METADATA
            ? metadataChanges(current, wanted[field], before[field], prior[field])
            : changeOf(field, current, wanted[field]);
        if (value !== undefined) patch[field] = value;
      }
      for (const field of removed) {
        const value = restoreOf(field, prior[field], before[field]);
        if (value !== undefined) patch[field] = value;
      }
      const nextPrior: Fields = {
        ...pick(prior, Object.keys(wanted)),
        ...priorOf(live ?? {}, pick(wanted, added)),
      };
      if (changed.includes(METADATA) && isPlainObject(wanted[METADATA])) {
        nextPrior[METADATA] = metadataPrior(prior[METADATA], live?.[METADATA], wanted[METADATA]);
      }
      const after = await patchClient(client, context, clientId, patch, live ?? before);
      return { outs: outputs(news, after, wanted, nextPrior) };
    });
  }

  delete(id: string, props: Props): Promise<void> {
    const prior = asFields(props.prior);
    const patch: Fields = {};
    for (const field of Object.keys(prior) as ClientSettingsField[]) {
      const value = restoreOf(field, prior[field], props[field]);
      if (value !== undefined) patch[field] = value;
    }
    if (Object.keys(patch).length === 0) return Promise.resolve();
    return runOperation(describeResource(KIND, props, id), async ({ client, context }) => {
      // A client deleted meanwhile has no settings left to restore.
      await patchClient(client, context, id, patch, {}, [404]);
    });
  }
}

/** The client fields a set of inputs or outputs declares (reserved keys and `clientId` excluded). */
function declared(props: Props): Fields {
  const fields: Fields = {};
  for (const field of CLIENT_SETTINGS_FIELDS) {
    if (props[field] !== undefined) fields[field] = props[field];
  }
  return fields;
}

function compare(before: Fields, wanted: Fields) {
  const fields = (f: Fields) => Object.keys(f) as ClientSettingsField[];
  return {
    changed: fields(wanted).filter(
      (f) => !Object.hasOwn(before, f) || !sameValue(f, before[f], wanted[f]),
    ),
    removed: fields(before).filter((f) => !Object.hasOwn(wanted, f)),
    added: fields(wanted).filter((f) => !Object.hasOwn(before, f)),
  };
}

function sameValue(field: ClientSettingsField, current: unknown, wanted: unknown): boolean {
  if (field === METADATA && isPlainObject(current) && isPlainObject(wanted)) {
    // Keys that left the metadata map are a change too: they must be restored or removed.
    const left = Object.keys(current).filter((key) => !Object.hasOwn(wanted, key));
    return left.length === 0 && matchesDeclared(current, wanted);
  }
  return matchesDeclared(current, wanted);
}

/**
 * What to send for a declared field, given its current value: undefined when nothing needs
 * sending. Objects go merged over the live value (see {@link overlay}).
 */
function changeOf(field: ClientSettingsField, current: unknown, wanted: unknown): unknown {
  if (field === MODE) return undefined; // never sent: equal (checked) or refused
  if (sameValue(field, current, wanted)) return undefined;
  return overlay(current, wanted);
}

/**
 * The metadata keys to send: declared keys whose value differs from `current`, and keys the
 * program declared `before` but no longer does, with their prior value or null (which removes a
 * key this resource added). Keys the program never declared are never sent: the platform merges
 * metadata key by key, so they stay as they are.
 */
function metadataChanges(
  current: unknown,
  wanted: unknown,
  before: unknown,
  prior: unknown,
): Record<string, unknown> | undefined {
  const from = isPlainObject(current) ? current : {};
  const want = isPlainObject(wanted) ? wanted : {};
  const remembered = isPlainObject(prior) ? prior : {};
  // Entries, own-property checks and fromEntries throughout: metadata keys are the user's, and
  // `__proto__`, `constructor` or `toString` must be plain keys, never the prototype's.
  const changes: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(want)) {
    if (ownValue(from, key) !== value) changes.push([key, value]);
  }
  for (const key of Object.keys(isPlainObject(before) ? before : {})) {
    if (!Object.hasOwn(want, key)) {
      const prior = ownValue(remembered, key);
      changes.push([key, typeof prior === "string" ? prior : null]);
    }
  }
  return changes.length > 0 ? Object.fromEntries(changes) : undefined;
}

/** What to send to put a field that left the program back; undefined when nothing can be sent. */
function restoreOf(field: ClientSettingsField, prior: unknown, current: unknown): unknown {
  if (field === MODE || prior === undefined) return undefined;
  if (field === METADATA && isPlainObject(prior)) {
    // Only the keys this resource managed; null removes a key it added.
    return Object.keys(prior).length > 0 ? { ...prior } : undefined;
  }
  if (matchesDeclared(current, prior) && current !== undefined) return undefined;
  return NON_EMPTY_LISTS.includes(field) && Array.isArray(prior) && prior.length === 0
    ? null
    : prior;
}

/**
 * The values to restore later: each declared field as it is now (whole, not projected, so that a
 * restore is exact). For metadata, only the declared keys, null for the ones that do not exist.
 * A field the platform did not return has no prior value and is left as it is on delete.
 */
function priorOf(live: Fields, wanted: Fields): Fields {
  const prior: Fields = {};
  for (const field of Object.keys(wanted) as ClientSettingsField[]) {
    if (field === METADATA) {
      prior[field] = metadataPrior(undefined, live[field], wanted[field]);
    } else if (live[field] !== undefined) {
      prior[field] = live[field];
    }
  }
  return prior;
}

/** Metadata keys declared now that have no remembered prior value yet. */
function newMetadataKeys(prior: unknown, wanted: unknown): string[] {
  if (!isPlainObject(wanted)) return [];
  const known = isPlainObject(prior) ? prior : {};
  return Object.keys(wanted).filter((key) => !Object.hasOwn(known, key));
}

function metadataPrior(prior: unknown, live: unknown, wanted: unknown): Record<string, unknown> {
  const known = isPlainObject(prior) ? prior : {};
  const current = isPlainObject(live) ? live : {};
  return Object.fromEntries(
    Object.keys(isPlainObject(wanted) ? wanted : {}).map((key) => [
      key,
      Object.hasOwn(known, key) ? known[key] : (ownValue(current, key) ?? null),
    ]),
  );
}

/** The resource's outputs: the declared fields as the tenant reports them, and the prior values. */
function outputs(props: Props, live: Fields, wanted: Fields, prior: Fields): Props {
  const outs: Props = { [NAME_KEY]: props[NAME_KEY], clientId: props.clientId, prior };
  for (const field of Object.keys(wanted) as ClientSettingsField[]) {
    outs[field] = project(live[field], wanted[field]);
  }
  return outs;
}

/**
 * Refuses a change of `thirdPartySecurityMode`. `current` is undefined when it is not known (the
 * field was not declared before, in diff) and null when the live client has no mode at all.
 */
function assertModeUnchanged(props: Props, current: unknown, wanted: unknown): void {
  if (wanted === undefined || isUnknown(wanted) || current === undefined || current === wanted)
    return;
  const subject = `${describeResource(KIND, props)}: thirdPartySecurityMode of client ${String(props.clientId)}`;
  const why = "the platform fixes it when the client is created";
  throw new ImmutableFieldError(
    current === null
      ? `${subject} cannot be set to ${JSON.stringify(wanted)}: the client has none and ${why}. ` +
          "Remove the property; nothing was sent."
      : `${subject} cannot change from ${JSON.stringify(current)} to ${JSON.stringify(wanted)}: ` +
          `${why}. Declare ${JSON.stringify(current)} or remove the property; nothing was sent.`,
  );
}

/** The cross-field rule `check` cannot decide alone: it depends on the live `oidc_conformant`. */
function assertOidcRule(resource: string, clientId: string, live: Fields, wanted: Fields): void {
  if (wanted.organizationRequireBehavior !== "post_login_prompt") return;
  const conformant = wanted.oidcConformant ?? live.oidcConformant;
  if (conformant === true) return;
  throw new TenantValidationError(
    `${resource}: organizationRequireBehavior "post_login_prompt" requires oidcConformant to be ` +
      `true, and client ${clientId} is not OIDC conformant; declare oidcConformant: true. Nothing was sent.`,
  );
}

async function getClient(
  client: TenantApiClient,
  context: OperationContext,
  clientId: string,
): Promise<Fields>;
async function getClient(
  client: TenantApiClient,
  context: OperationContext,
  clientId: string,
  accept: readonly number[],
): Promise<Fields | undefined>;
async function getClient(
  client: TenantApiClient,
  context: OperationContext,
  clientId: string,
  accept: readonly number[] = [],
): Promise<Fields | undefined> {
  const answer = await client.call<Record<string, unknown>>(context, {
    method: "GET",
    path: clientPath(clientId),
    accept,
  });
  return answer.status === 200 ? fieldsFromWire(answer.data) : undefined;
}

/** PATCHes `patch` (nothing is sent when it is empty) and returns the client as answered. */
async function patchClient(
  client: TenantApiClient,
  context: OperationContext,
  clientId: string,
  patch: Fields,
  unchanged: Fields,
  accept: readonly number[] = [],
): Promise<Fields> {
  const fields = Object.keys(patch) as ClientSettingsField[];
  if (fields.length === 0) return unchanged;
  const body = Object.fromEntries(fields.map((f) => [wireName(f), fieldToWire(f, patch[f])]));
  const answer = await client.call<Record<string, unknown>>(context, {
    method: "PATCH",
    path: clientPath(clientId),
    body,
    accept,
  });
  return answer.status === 200 ? fieldsFromWire(answer.data) : unchanged;
}

function clientPath(clientId: string): string {
  return `/clients/${encodeURIComponent(clientId)}`;
}

/** The client fields of an API answer, camelCased; response-only fields are dropped. */
function fieldsFromWire(client: Record<string, unknown>): Fields {
  const fields: Fields = {};
  for (const field of CLIENT_SETTINGS_FIELDS) {
    const value = client[wireName(field)];
    if (value !== undefined) fields[field] = fieldFromWire(field, value);
  }
  return fields;
}

/** `object[key]` when `key` is the object's own property; never a value from the prototype. */
function ownValue(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function asFields(value: unknown): Fields {
  return isPlainObject(value) ? (value as Fields) : {};
}

function pick(fields: Fields, keys: readonly string[]): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => keys.includes(key))) as Fields;
}
