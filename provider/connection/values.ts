/**
 * How a connection is given, whichever way: its values by member name, how each way of
 * configuring spells the settings for its messages (the stack config's keys, a `tenant` input's
 * members), a rule it breaks, and a value as the rules see it.
 *
 * @module
 */

import { isUnknown } from "../unknown.js";
import { CONNECTION_SETTINGS, type ConnectionSetting, TENANT_KEY } from "./schema.js";

/** How one way of configuring spells the settings, for its messages. */
export interface ConnectionNaming {
  /** What each setting is called there: `tenant:domain`, `tenant.domain`, ... */
  readonly names: Readonly<Record<ConnectionSetting, string>>;
  /** How to give a complete connection: the end of every message about a missing setting. */
  readonly howTo: string;
}

/** The names of the `tenant` input's members, as a program spells them. */
export const TENANT_INPUT_NAMING: ConnectionNaming = {
  names: Object.fromEntries(
    CONNECTION_SETTINGS.map((setting) => [setting, `${TENANT_KEY}.${setting}`]),
  ) as Record<ConnectionSetting, string>,
  howTo:
    "give tenant.domain and tenant.clientId with either tenant.clientAssertionPrivateKey or " +
    "tenant.clientSecret, or tenant.apiToken alone, " +
    'e.g. `tenant: { domain: "acme.tenants.example", clientId: "...", ' +
    'clientAssertionPrivateKey: config.requireSecret("clientAssertionPrivateKey") }`',
};

/**
 * The names of the settings in the stack config (`tenant:domain`, ...), whose environment
 * fallbacks `config.ts` reads (`TENANT_DOMAIN`, ...).
 */
export const STACK_CONFIG_NAMING: ConnectionNaming = {
  names: Object.fromEntries(
    CONNECTION_SETTINGS.map((setting) => [setting, `${TENANT_KEY}:${setting}`]),
  ) as Record<ConnectionSetting, string>,
  howTo:
    "set tenant:domain (or TENANT_DOMAIN) and tenant:clientId (TENANT_CLIENT_ID) with either " +
    "tenant:clientAssertionPrivateKey (TENANT_CLIENT_ASSERTION_PRIVATE_KEY) or " +
    "tenant:clientSecret (TENANT_CLIENT_SECRET), or tenant:apiToken (TENANT_API_TOKEN) alone, " +
    "e.g. `pulumi config set tenant:domain acme.tenants.example` and " +
    "`pulumi config set --secret tenant:clientAssertionPrivateKey < private-key.pem`",
};

/**
 * The settings as given, by member name. A value is a string; Pulumi's unknown placeholder
 * (during a preview), which counts as given and is not checked further; or a value of another
 * type, which counts as given too (the schema reports its type).
 */
export type ConnectionValues = Partial<Record<ConnectionSetting, unknown>>;

/** A rule a connection breaks. */
export interface ConnectionProblem {
  /** The setting it is about; undefined when it is about the credentials as a whole. */
  readonly setting: ConnectionSetting | undefined;
  /** The whole message, naming settings as the naming spells them. */
  readonly message: string;
}

/** A value as the rules see it: absent, a usable string, or given but not checkable. */
type Given =
  | { readonly kind: "absent" }
  | { readonly kind: "opaque" }
  | { readonly kind: "text"; readonly text: string };

/** `value` as the rules see it: blank strings are absent, unknown and non-string values opaque. */
export function given(value: unknown): Given {
  if (value === undefined || value === null) return { kind: "absent" };
  if (typeof value !== "string" || isUnknown(value)) return { kind: "opaque" };
  const text = value.trim();
  return text === "" ? { kind: "absent" } : { kind: "text", text };
}
