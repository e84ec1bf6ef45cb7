/**
 * The judgement of `pulumi-tenant audit`: every client of a tenant, as the tenant holds it, judged
 * by the policy pack's own rules (`provider/policy/rules.ts`, one definition per rule). A client is
 * turned into what a program adopting it would declare (camelCase through the schema, as
 * `generate` does) and handed to each rule's `judge`, exactly as the pack hands it a
 * `ClientSettings`' inputs. Pure: the reads happen elsewhere (`source.ts`).
 *
 * @module
 */

import type { WireClient } from "../api/client-read-policy.js";
import { wireFieldsToRead } from "../clients/catalogue.js";
import { selectClients } from "../clients/selection.js";
import { UNSET_ON_THE_TENANT } from "../policy/client-facts.js";
import type { RuleName } from "../policy/rule-types.js";
import { TENANT_RULES } from "../policy/rules.js";
import {
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsField,
  fieldFromWire,
  wireName,
} from "../schema/index.js";
import type { FindingLevel, RuleSetting } from "./policy-config.js";

/**
 * Every field some rule judges, in the schema's order: the union of the rules' own `fields`, so
 * a rule added or changed in the pack is read by the audit without a change here, whatever the
 * defaults of `generate --fields` are.
 *
 * @internal
 */
export const JUDGED_FIELDS: readonly ClientSettingsField[] = CLIENT_SETTINGS_FIELDS.filter(
  (field) => TENANT_RULES.some((rule) => rule.fields.includes(field)),
);

/**
 * Each judged field with its wire name and what the client holds when the tenant's answer leaves
 * the field out (`UNSET_ON_THE_TENANT`, if the field has such a value), worked out once rather
 * than once per client.
 */
const JUDGED_WIRE_NAMES: readonly (readonly [ClientSettingsField, string, unknown])[] =
  JUDGED_FIELDS.map((field) => [field, wireName(field), UNSET_ON_THE_TENANT[field]]);

/**
 * The wire fields a live audit asks the client list for: those of {@link JUDGED_FIELDS}, the ones
 * every `generate` read asks for (`client_id`, `name`, ...), and `tenant` for the report's tenant
 * name. No secret is among them, so `read:clients` suffices.
 */
export const AUDIT_WIRE_FIELDS: readonly string[] = [...wireFieldsToRead(JUDGED_FIELDS), "tenant"];

/** One thing a rule found on one client, at the level the audit's config gives the rule. */
export interface Finding {
  readonly rule: RuleName;
  readonly level: FindingLevel;
  readonly clientId: string;
  /** The client's name, when the tenant answered one. */
  readonly clientName: string | undefined;
  /** The field as a program spells it, with its index in a list: `callbacks[1]`. */
  readonly field: string;
  /** The value found there, in a program's spelling. */
  readonly value: unknown;
  /** Why it is a finding and what to do, in the pack's words. */
  readonly reason: string;
  /** The pack's whole sentence: `client "Portal" (abc): callbacks[1] "http://..." uses plain http ...`. */
  readonly message: string;
}

/** The name of a client as the tenant answered it, if it is a non-empty string. */
function clientNameOf(client: WireClient): string | undefined {
  return typeof client.name === "string" && client.name !== "" ? client.name : undefined;
}

/**
 * How an audit's messages name a client, where the pack names a resource: `client "Customer
 * Portal" (OOhOHam9...)`, or `client OOhOHam9...` when it has no name. Both the name (what people
 * know it by) and the id (what is unique) are there.
 */
export function describeClient(clientId: string, name: string | undefined): string {
  return name === undefined ? `client ${clientId}` : `client ${JSON.stringify(name)} (${clientId})`;
}

/**
 * The inputs a program adopting `client` would declare for the judged fields: each field the
 * tenant answered, renamed from the wire by the schema. Unlike `generate`, a value a program could
 * not declare (one `check` refuses) is kept, and a field the tenant leaves out because nothing is
 * set there holds what the platform means by that (`UNSET_ON_THE_TENANT`: no login URI, PAR not
 * required, ...): the audit judges what the tenant holds, where a preview judges only what a
 * program declares.
 *
 * @internal
 */
export function declaredOf(client: WireClient): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const [field, name, unset] of JUDGED_WIRE_NAMES) {
    const wire = client[name];
    if (wire !== undefined) props[field] = fieldFromWire(field, wire);
    else if (unset !== undefined) props[field] = unset;
  }
  return props;
}

/**
 * The findings of every rule that is on, on every client (each id once, in the order given: the
 * tenant's), in the pack's order of rules and each rule's order of fields. `stack` is what the
 * rules' `allowedStacks` are matched against; an audit judges no stack unless told one, so
 * `allowedStacks` then allows nothing.
 */
export function judgeClients(
  clients: readonly WireClient[],
  settings: readonly RuleSetting[],
  stack: string | undefined,
): Finding[] {
  const each = selectClients(clients, {
    includeGlobal: true,
    includeSelf: true,
    ownClientId: undefined,
  }).clients;
  const on = settings.filter(
    (setting): setting is RuleSetting & { level: FindingLevel } => setting.level !== "disabled",
  );
  // Loops rather than flatMap: a 5,000-client tenant is 55,000 judgements.
  const findings: Finding[] = [];
  for (const client of each) {
    const clientName = clientNameOf(client);
    const resource = describeClient(client.client_id, clientName);
    const props = declaredOf(client);
    const global = client.global === true;
    for (const { rule, level, config } of on) {
      for (const violation of rule.judge({ resource, props, stack: stack ?? "", config, global })) {
        findings.push({
          rule: rule.name,
          level,
          clientId: client.client_id,
          clientName,
          field: violation.field,
          value: violation.value,
          reason: violation.reason,
          message: violation.message,
        });
      }
    }
  }
  return findings;
}
