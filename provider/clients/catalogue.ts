/**
 * The catalogue of a client's fields as the package reads and declares them: the default set for
 * web and single-page applications, the fields whose values are never written because they are
 * secret, the add-on key material left out, and the wire names a read asks for. `generate`,
 * `pulumi import`, the audit and the local tenant's snapshot read clients through it alike.
 *
 * @module
 */

import {
  addonsSchema,
  type ClientSettingsField,
  SENSITIVE_CLIENT_FIELDS,
  secretDescription,
  sensitiveMemberNames,
  wireName,
} from "../schema/index.js";
import { clientFieldSchema } from "../schema/wire.js";

/**
 * The fields declared when `--fields` is not given: what a team changes on web and single-page
 * applications (where users are sent, which origins and grants are allowed, token lifetimes,
 * organizations, metadata). Listed in docs/guides/adopting-a-tenant.md; keep the two in step.
 */
export const DEFAULT_FIELDS: readonly ClientSettingsField[] = [
  "name",
  "description",
  "callbacks",
  "allowedLogoutUrls",
  "allowedOrigins",
  "webOrigins",
  "initiateLoginUri",
  "grantTypes",
  "tokenEndpointAuthMethod",
  "oidcConformant",
  "crossOriginAuthentication",
  "jwtConfiguration",
  "refreshToken",
  "organizationUsage",
  "organizationRequireBehavior",
  "clientMetadata",
];

/**
 * Fields whose value is never written into a program, with what is secret in them and how a
 * program reads such a value instead: the sensitive fields of the schema that are secret whole
 * (`clientSecret`, `encryptionKey`). A program holding them would put a secret into a repository;
 * the generator does not even read them (so read scopes suffice). `addons` is sensitive for the
 * key material inside it ({@link ADDON_KEY_MATERIAL}), and is written without it.
 */
export const SECRET_FIELDS: Readonly<
  Partial<Record<ClientSettingsField, { readonly what: string; readonly read: string }>>
> = Object.fromEntries(
  SENSITIVE_CLIENT_FIELDS.filter(
    (field) => sensitiveMemberNames(clientFieldSchema(field)).size === 0,
  ).map((field) => [
    field,
    {
      what: secretDescription(field) ?? `the value of ${field}`,
      read: [clientFieldSchema(field).type].flat().includes("object")
        ? "config.requireSecretObject"
        : "config.requireSecret",
    },
  ]),
);

/**
 * Add-on members' fields that hold key material, as the schema annotates them. They are left out
 * of the declared add-on: the resource compares a declared object on the keys it declares, and
 * sends a changed object merged over the live one, so a key left out keeps its value.
 */
export const ADDON_KEY_MATERIAL: ReadonlySet<string> = sensitiveMemberNames(addonsSchema);

/** Wire fields every read asks for besides the declared ones: the id, the name (for the
 * resource name), `global` and `app_type` (for the selection). */
const ALWAYS_READ = ["client_id", "name", "global", "app_type"];

/** The declared fields whose values the generator writes (the secret ones taken out). */
export function writableFields(fields: readonly ClientSettingsField[]): ClientSettingsField[] {
  return fields.filter((field) => SECRET_FIELDS[field] === undefined);
}

/**
 * The wire names to read for `fields`: the ones always read, then the writable fields' wire names,
 * sorted, so the same flags always send the same query.
 */
export function wireFieldsToRead(fields: readonly ClientSettingsField[]): string[] {
  const names = new Set([
    ...ALWAYS_READ,
    ...writableFields(fields).map((field) => wireName(field)),
  ]);
  return ["client_id", ...[...names].filter((name) => name !== "client_id").sort()];
}
