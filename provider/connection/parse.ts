/**
 * A connection to one tenant (where, and as whom) and the rules it must follow, whichever way it
 * is given: the stack config and environment (`config.ts`) or a resource's `tenant` input. One
 * function states the rules for both, so both say the same thing, each naming a setting the way
 * its user spells it (`tenant:domain` in stack config, `tenant.domain` in a program).
 *
 * @module
 */

import type { KeyObject } from "node:crypto";
import {
  CLIENT_ASSERTION_ALGS,
  type ClientAssertionAlg,
  DEFAULT_CLIENT_ASSERTION_ALG,
  isClientAssertionAlg,
  readPrivateKey,
} from "../api/client-assertion.js";
import { TenantConfigError } from "../errors.js";
import { isPlainObject } from "../json.js";
import { isUnknown } from "../unknown.js";
// The leaf modules, not the schema's index: `schema/check.ts` imports this module.
import { CONNECTION_SETTINGS, type ConnectionSetting, TENANT_KEY } from "./schema.js";

/** How the provider authenticates to the tenant management API. */
export type Credentials =
  | { readonly kind: "apiToken"; readonly token: string }
  | {
      readonly kind: "clientCredentials";
      readonly clientId: string;
      readonly clientSecret: string;
      readonly audience: string;
      readonly tokenUrl: string;
    }
  | {
      readonly kind: "privateKeyJwt";
      readonly clientId: string;
      /** The private key, read and checked to fit {@link alg}; never printed. */
      readonly privateKey: KeyObject;
      readonly alg: ClientAssertionAlg;
      readonly audience: string;
      readonly tokenUrl: string;
      /** The assertion's `aud`: the tenant, `${origin}/` (docs/design/platform.md, "Client assertions"). */
      readonly assertionAudience: string;
      /** The names of the key and algorithm settings, for the sentence of a refused assertion. */
      readonly settings: { readonly key: string; readonly alg: string };
    };

/** The settings that are each one way of proving who the provider is. */
const AUTH_METHODS = ["apiToken", "clientSecret", "clientAssertionPrivateKey"] as const;

/** Where one tenant's management API is and how to authenticate to it. */
export interface Connection {
  /** `https://host[:port]` (or `http://` for a loopback host). */
  readonly origin: string;
  /** `${origin}/api/v2`: every API path is relative to it. */
  readonly baseUrl: string;
  readonly credentials: Credentials;
}

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

/**
 * The members of a resource's `tenant` input as {@link ConnectionValues}, or undefined when the
 * resource has none (it uses the stack config). A value that is not an object gives no values, so
 * it fails as "not configured".
 */
export function connectionValues(tenant: unknown): ConnectionValues | undefined {
  if (tenant === undefined || tenant === null) return undefined;
  return isPlainObject(tenant) ? (tenant as ConnectionValues) : {};
}

/**
 * Every rule `values` break, in the order the stack config path has always reported them (the
 * domain first), empty when the connection is complete. Empty and blank strings count as not
 * set, so `TENANT_API_TOKEN=` in a CI job does not shadow the client credentials. Never throws.
 */
export function connectionProblems(
  values: ConnectionValues,
  naming: ConnectionNaming,
): ConnectionProblem[] {
  return evaluate(values, naming).problems;
}

/**
 * The connection `values` describe: the domain as an origin, and the API token, else the client
 * credentials (their token URL and default audience derived from the origin).
 *
 * @throws {TenantConfigError} with the message of the first of {@link connectionProblems}.
 */
export function resolveConnection(values: ConnectionValues, naming: ConnectionNaming): Connection {
  const { problems, connection } = evaluate(values, naming);
  const [first] = problems;
  if (first !== undefined) throw new TenantConfigError(first.message);
  if (connection === undefined) {
    // Only unknown values leave no connection and no problem; they never reach an operation.
    throw new TenantConfigError(`${naming.names.domain} is not known yet`);
  }
  return connection;
}

/**
 * The origin `domain` stands for: `acme.tenants.example` means `https://acme.tenants.example`;
 * a value with a scheme is taken as an origin. Paths are refused rather than guessed at:
 * `https://host/api/v2` would otherwise become `https://host/api/v2/api/v2`.
 *
 * @returns the origin, or the message that says why `domain` (called `name`) is not one.
 *
 * @internal
 */
export function originOf(domain: string, name: string): { origin: string } | { message: string } {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(domain) ? domain : `https://${domain}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { message: `${name} "${domain}" is not a host name or an https:// origin` };
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") {
    return {
      message:
        `${name} "${domain}" must be a host (acme.tenants.example) or an origin ` +
        "(https://acme.tenants.example), without a path, query or credentials",
    };
  }
  if (url.protocol === "http:") {
    if (!isLoopbackHost(url.hostname)) {
      return {
        message:
          `${name} "${domain}" uses plain http:// to a host that is not loopback; ` +
          "the management API must be reached over https:// (http:// is accepted only for " +
          "127.0.0.0/8, ::1 and localhost, i.e. the local tenant API)",
      };
    }
  } else if (url.protocol !== "https:") {
    return {
      message: `${name} "${domain}" has the scheme ${url.protocol.slice(0, -1)}; use https://`,
    };
  }
  return { origin: url.origin };
}

/**
 * The origin of the tenant `values` name, or undefined when their domain is absent, not known yet
 * or not valid: the one way a domain becomes an origin, for the connection's parse, for diff's
 * comparison of tenants and for the stack config's tenant.
 */
export function originOfValues(values: ConnectionValues): string | undefined {
  const domain = given(values.domain);
  if (domain.kind !== "text") return undefined;
  const parsed = originOf(domain.text, "domain");
  return "origin" in parsed ? parsed.origin : undefined;
}

/** True for `localhost`, any 127.0.0.0/8 address and `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host === "::1") return true;
  const octets = host.split(".");
  return (
    octets.length === 4 &&
    octets[0] === "127" &&
    octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)
  );
}

/** A value as the rules see it: absent, a usable string, or given but not checkable. */
type Given =
  | { readonly kind: "absent" }
  | { readonly kind: "opaque" }
  | { readonly kind: "text"; readonly text: string };

function given(value: unknown): Given {
  if (value === undefined || value === null) return { kind: "absent" };
  if (typeof value !== "string" || isUnknown(value)) return { kind: "opaque" };
  const text = value.trim();
  return text === "" ? { kind: "absent" } : { kind: "text", text };
}

function evaluate(
  values: ConnectionValues,
  naming: ConnectionNaming,
): { problems: ConnectionProblem[]; connection: Connection | undefined } {
  const problems: ConnectionProblem[] = [];
  const { names, howTo } = naming;
  const domain = given(values.domain);
  let origin: string | undefined;
  if (domain.kind === "absent") {
    problems.push({ setting: "domain", message: `pulumi-tenant is not configured: ${howTo}` });
  } else if (domain.kind === "text") {
    const parsed = originOf(domain.text, names.domain);
    if ("origin" in parsed) origin = parsed.origin;
    else problems.push({ setting: "domain", message: parsed.message });
  }

  const credentialRules = credentialsOf(values, naming);
  problems.push(...credentialRules.missing, ...credentialRules.problems);
  if (problems.length > 0 || origin === undefined) return { problems, connection: undefined };
  const { proof } = credentialRules;

  const baseUrl = `${origin}/api/v2`;
  const clientId = given(values.clientId);
  const audience = given(values.audience);
  const client = {
    audience: audience.kind === "text" ? audience.text : `${baseUrl}/`,
    tokenUrl: `${origin}/oauth/token`,
  };
  let credentials: Credentials | undefined;
  if (proof?.kind === "apiToken") {
    credentials = { kind: "apiToken", token: proof.token };
  } else if (proof !== undefined && clientId.kind === "text") {
    credentials =
      proof.kind === "clientSecret"
        ? {
            kind: "clientCredentials",
            clientId: clientId.text,
            clientSecret: proof.secret,
            ...client,
          }
        : {
            kind: "privateKeyJwt",
            clientId: clientId.text,
            privateKey: proof.key,
            alg: proof.alg,
            ...client,
            assertionAudience: `${origin}/`,
            settings: {
              key: names.clientAssertionPrivateKey,
              alg: names.clientAssertionSigningAlg,
            },
          };
  }
  return {
    problems,
    connection: credentials === undefined ? undefined : { origin, baseUrl, credentials },
  };
}

/** What a connection proves itself with, once its rules hold; undefined while a value is unknown. */
type Proof =
  | { readonly kind: "apiToken"; readonly token: string }
  | { readonly kind: "clientSecret"; readonly secret: string }
  | { readonly kind: "privateKey"; readonly key: KeyObject; readonly alg: ClientAssertionAlg };

/**
 * The rules of the credentials: exactly one way of authenticating (an API token, a client secret
 * or a private key), the client id with the latter two (`missing`: what may yet come from the
 * environment, or be needed only by an operation), a signing algorithm the platform accepts and a
 * private key of that algorithm's type (`problems`). No message quotes a credential.
 */
function credentialsOf(
  values: ConnectionValues,
  naming: ConnectionNaming,
): { missing: ConnectionProblem[]; problems: ConnectionProblem[]; proof: Proof | undefined } {
  const { names, howTo } = naming;
  const missing: ConnectionProblem[] = [];
  const problems: ConnectionProblem[] = [];
  const methods = AUTH_METHODS.filter((method) => given(values[method]).kind !== "absent");
  const hasId = given(values.clientId).kind !== "absent";
  const [method, second] = methods;
  if (second !== undefined) {
    // At a credential, not at the whole connection: a check failure never sits on a value that
    // holds a secret (docs/design/decisions.md).
    problems.push({
      setting: second,
      message:
        `pulumi-tenant has more than one way of authenticating: ` +
        `${methods.map((m) => names[m]).join(" and ")} are ${methods.length === 2 ? "both" : "all"} set; keep exactly one of ` +
        `${names.clientAssertionPrivateKey}, ${names.clientSecret} or ${names.apiToken}`,
    });
  } else if (method === undefined) {
    missing.push(
      hasId
        ? {
            setting: "clientSecret",
            message:
              `pulumi-tenant has incomplete client credentials: ${names.clientAssertionPrivateKey} ` +
              `or ${names.clientSecret} is missing; ${howTo}`,
          }
        : { setting: undefined, message: `pulumi-tenant has no credentials: ${howTo}` },
    );
  } else if (method !== "apiToken" && !hasId) {
    missing.push({
      setting: "clientId",
      message: `pulumi-tenant has incomplete client credentials: ${names.clientId} is missing; ${howTo}`,
    });
  }

  const algGiven = given(values.clientAssertionSigningAlg);
  let alg: ClientAssertionAlg | undefined = DEFAULT_CLIENT_ASSERTION_ALG;
  if (algGiven.kind === "opaque") alg = undefined;
  else if (algGiven.kind === "text") {
    if (isClientAssertionAlg(algGiven.text)) alg = algGiven.text;
    else {
      alg = undefined;
      problems.push({
        setting: "clientAssertionSigningAlg",
        message:
          `${names.clientAssertionSigningAlg} "${algGiven.text}" is not an algorithm the platform ` +
          `accepts for client assertions; use one of ${CLIENT_ASSERTION_ALGS.join(", ")}`,
      });
    }
  }
  const pem = given(values.clientAssertionPrivateKey);
  let key: KeyObject | undefined;
  if (pem.kind === "text" && alg !== undefined) {
    const read = readPrivateKey(pem.text, alg);
    if ("key" in read) key = read.key;
    else {
      problems.push({
        setting: "clientAssertionPrivateKey",
        message: `${names.clientAssertionPrivateKey} ${read.problem}`,
      });
    }
  }
  if (missing.length > 0 || problems.length > 0) return { missing, problems, proof: undefined };
  const apiToken = given(values.apiToken);
  const secret = given(values.clientSecret);
  const proof: Proof | undefined =
    apiToken.kind === "text"
      ? { kind: "apiToken", token: apiToken.text }
      : secret.kind === "text"
        ? { kind: "clientSecret", secret: secret.text }
        : key !== undefined && alg !== undefined
          ? { kind: "privateKey", key, alg }
          : undefined;
  return { missing, problems, proof };
}

/**
 * The problems of the credentials `values` give, leaving out a missing one (a preview needs no
 * credentials, and a missing one may come from the environment): more than one way of
 * authenticating, a signing algorithm the platform does not accept, a private key that does not fit
 * it. What `check` and the plugin's `CheckConfig` report of the stack config, so that these fail at
 * preview, before any request.
 */
export function givenCredentialProblems(
  values: ConnectionValues,
  naming: ConnectionNaming,
): ConnectionProblem[] {
  return credentialsOf(values, naming).problems;
}
