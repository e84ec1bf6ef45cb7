/**
 * What the client rules (`client-rules.ts`, `compliance.ts`) read of a declared client beyond one
 * field: whether it is public or confidential, which credentials it holds, and what a field the
 * tenant's answer leaves out holds on the platform.
 * Why each rule exists: docs/design/policy.md, "The rules".
 *
 * @module
 */

import type { ClientSettingsField } from "../schema/index.js";
import type { Declared } from "./rule-types.js";

/** The members of `clientAuthenticationMethods` that authenticate with mTLS (RFC 8705). */
export const MTLS_METHODS = ["tlsClientAuth", "selfSignedTlsClientAuth"] as const;

/** A member of `clientAuthenticationMethods`. */
export type AuthenticationMethod = "privateKeyJwt" | (typeof MTLS_METHODS)[number];

/** Every member of `clientAuthenticationMethods`, each a way to authenticate without a secret. */
const KEY_METHODS: readonly AuthenticationMethod[] = ["privateKeyJwt", ...MTLS_METHODS];

/**
 * Whether `clientAuthenticationMethods` holds at least one credential for one of `methods`: a
 * method with no credential authenticates nothing.
 */
export function hasCredentials(
  methods: unknown,
  among: readonly AuthenticationMethod[] = KEY_METHODS,
): boolean {
  if (typeof methods !== "object" || methods === null) return false;
  return among.some((method) => {
    const holder = (methods as Record<string, unknown>)[method];
    const credentials =
      typeof holder === "object" && holder !== null
        ? (holder as Record<string, unknown>).credentials
        : undefined;
    return Array.isArray(credentials) && credentials.length > 0;
  });
}

/**
 * Whether the client can keep a credential, as far as the program says: `public` for a
 * single-page or native app, or a client with `tokenEndpointAuthMethod` `none` (or null, which the
 * platform answers as `none`) and no key credentials; `confidential` for a client with key
 * credentials or a client secret method; undefined when the declared fields do not say, so a rule
 * about confidential clients judges nothing.
 */
function clientKind(props: Declared["props"]): "public" | "confidential" | undefined {
  const { appType, tokenEndpointAuthMethod: method } = props;
  if (appType === "spa" || appType === "native") return "public";
  if (hasCredentials(props.clientAuthenticationMethods)) return "confidential";
  if (method === "client_secret_post" || method === "client_secret_basic") return "confidential";
  if (method === "none" || method === null) return "public";
  return undefined;
}

/** Whether the declared client is a confidential one, as far as the program says. */
export const isConfidentialApp = (declared: Declared): boolean =>
  clientKind(declared.props) === "confidential";

/** The declared grant types among `wanted`, in their declared order. */
export function grantsAmong(props: Declared["props"], wanted: readonly string[]): string[] {
  const grants = props.grantTypes;
  return Array.isArray(grants)
    ? grants.filter((grant): grant is string => typeof grant === "string" && wanted.includes(grant))
    : [];
}

/** A declared list's items, or none when it is not a list. */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * What a client holds on the platform in a field its answer leaves out (the tenant answers only
 * what is set): no login URI, no back-channel logout URL, neither PAR nor proof of possession
 * required, no signed request object, no compliance profile. An audit judges the live value, so
 * it judges these; a preview judges only what the program declares.
 *
 * `clientAuthenticationMethods` is not among them: the tenant leaves it out also for credentials
 * without `read:client_keys`, so its absence says nothing, and the rules that need it judge
 * nothing then (docs/design/policy.md).
 */
export const UNSET_ON_THE_TENANT: Readonly<Partial<Record<ClientSettingsField, unknown>>> = {
  oidcLogout: {},
  initiateLoginUri: "",
  requirePushedAuthorizationRequests: false,
  requireProofOfPossession: false,
  signedRequestObject: {},
  complianceLevel: null,
};
