/**
 * The tenant's security rules, each a pure function of what one ClientSettings declares: the URL,
 * grant, token and flag rules here, the client rules in `client-rules.ts` and the compliance
 * profile in `compliance.ts`, in one list. Why each rule exists and why it is mandatory or
 * advisory: docs/design/policy.md.
 *
 * A rule judges only what the program declares: a ClientSettings owns some fields of a client, and
 * a field it does not declare is not its business (the platform's value stays whatever it is). A
 * value that is not known yet (an output of another resource, during preview) is not judged either:
 * only strings, booleans and objects that are there are.
 *
 * @module
 */

import { CLIENT_RULES } from "./client-rules.js";
import { COMPLIANCE_RULE } from "./compliance.js";
import {
  declaredGrants,
  flagRule,
  inAllowedStack,
  member,
  urlRule,
  violation,
} from "./rule-shapes.js";
import type { TenantRule } from "./rule-types.js";
import { urlFindings } from "./urls.js";

/** Grant types RFC 9700 rules out: the implicit grant and the resource owner password grant. */
const FORBIDDEN_GRANTS: Readonly<Record<string, string>> = {
  implicit: "must not be used (RFC 9700); use authorization_code with PKCE",
  password:
    "must not be used (RFC 9700); use authorization_code, or client_credentials for a machine",
};

/** The only grant types that fit an application type, for the types that have a fixed set. */
const GRANTS_OF_APP_TYPE: Readonly<Record<string, readonly string[]>> = {
  spa: ["authorization_code", "refresh_token"],
  non_interactive: ["client_credentials"],
};

/** Every rule of the pack, in the order docs/design/policy.md lists them. */
export const TENANT_RULES: readonly TenantRule[] = [
  urlRule(
    {
      name: "tenant-url-plain-http",
      description:
        "Redirect URLs and origins use https, except to loopback: plain http exposes codes and tokens on the way.",
      help: "A redirect URL (callbacks, allowedLogoutUrls, initiateLoginUri) or origin (webOrigins, allowedOrigins) over plain http:// to a host that is not loopback sends authorization codes and tokens in clear to anyone on the path. Loopback is judged by tenant-url-loopback. A host reached over plain http on purpose goes in allowedHosts.",
      enforcementLevel: "mandatory",
      config: ["allowedHosts"],
    },
    (url, { config }) => urlFindings(url, config.allowedHosts).plainHttp,
    "uses plain http to a host that is not loopback; use https",
  ),
  urlRule(
    {
      name: "tenant-url-loopback",
      description:
        "Redirect URLs and origins point at no loopback host outside the stacks where that is fine.",
      help: "localhost, 127.0.0.0/8 or [::1] is right in a developer's stack and a mistake in production: any program on the user's machine could receive the code. The stacks where it is fine go in allowedStacks.",
      enforcementLevel: "advisory",
      config: ["allowedStacks"],
    },
    (url, declared) => urlFindings(url).loopback && !inAllowedStack(declared),
    "points at this machine; fine for a developer's stack (name it in allowedStacks), not for production",
  ),
  urlRule(
    {
      name: "tenant-url-wildcard",
      description:
        "Redirect URLs and origins have no wildcard: the platform advises against them in production.",
      help: "A wildcard lets any matching host (a forgotten subdomain) receive codes and tokens; the platform advises against wildcards in production. The stacks where it is fine go in allowedStacks.",
      enforcementLevel: "advisory",
      config: ["allowedStacks"],
    },
    (url, declared) => urlFindings(url).wildcard && !inAllowedStack(declared),
    "has a wildcard, which lets any matching host receive codes and tokens; list the URLs",
  ),
  {
    name: "tenant-grant-type-forbidden",
    description: "No implicit and no password grant: RFC 9700 says they must not be used.",
    help: "RFC 9700 (the OAuth 2.0 Security Best Current Practice): the implicit grant should not be used (tokens in the URL, no sender constraint) and the resource owner password grant must not be used.",
    reference: {
      title: "RFC 9700 (OAuth 2.0 Security Best Current Practice)",
      url: "https://www.rfc-editor.org/rfc/rfc9700",
    },
    fields: ["grantTypes"],
    enforcementLevel: "mandatory",
    config: [],
    judge: (declared) =>
      declaredGrants(declared.props).flatMap(({ field, grant }) => {
        const wrong = FORBIDDEN_GRANTS[grant];
        return wrong === undefined ? [] : [violation(declared, field, grant, wrong)];
      }),
  },
  {
    name: "tenant-grant-type-app-type",
    description:
      "Grant types fit the declared appType: a single-page app uses authorization_code and refresh_token, a machine client_credentials.",
    help: "A single-page app uses only authorization_code and refresh_token; a machine-to-machine app (non_interactive) only client_credentials. Judged only where appType is known.",
    fields: ["appType", "grantTypes"],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) => {
      const appType = declared.props.appType;
      const fits = typeof appType === "string" ? GRANTS_OF_APP_TYPE[appType] : undefined;
      if (fits === undefined) return [];
      return declaredGrants(declared.props)
        .filter(({ grant }) => !fits.includes(grant))
        .map(({ field, grant }) =>
          violation(
            declared,
            field,
            grant,
            `does not fit appType "${appType}", which uses only ${fits.join(" and ")}`,
          ),
        );
    },
  },
  {
    name: "tenant-public-client-credentials",
    description:
      'No client_credentials grant on a client with tokenEndpointAuthMethod "none": a public client has no secret.',
    help: 'client_credentials on a client with tokenEndpointAuthMethod "none": a public client has no secret to prove who it is.',
    fields: ["tokenEndpointAuthMethod", "grantTypes"],
    enforcementLevel: "mandatory",
    config: [],
    judge: (declared) =>
      declared.props.tokenEndpointAuthMethod !== "none"
        ? []
        : declaredGrants(declared.props)
            .filter(({ grant }) => grant === "client_credentials")
            .map(({ field, grant }) =>
              violation(
                declared,
                field,
                grant,
                'on a client whose tokenEndpointAuthMethod is "none"; a public client cannot keep a secret',
              ),
            ),
  },
  {
    name: "tenant-refresh-token-forever",
    description:
      "Refresh tokens rotate or expire: one that does neither works forever once stolen.",
    help: "A refresh token that neither rotates nor expires works forever once stolen. RFC 9700 requires rotation or sender constraint only for public clients, hence advisory.",
    fields: ["refreshToken"],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) => {
      const rotationType = member(declared.props, "refreshToken", "rotationType");
      const expirationType = member(declared.props, "refreshToken", "expirationType");
      if (rotationType !== "non-rotating" || expirationType !== "non-expiring") return [];
      return [
        violation(
          declared,
          "refreshToken",
          { rotationType, expirationType },
          "neither rotates nor expires, so a stolen one works forever; rotate it or let it expire",
        ),
      ];
    },
  },
  {
    name: "tenant-jwt-hs256",
    description: "ID tokens are not signed with HS256, whose key is the client secret.",
    help: "HS256 signs ID tokens with the client secret: whoever holds the secret can forge tokens. RS256 is the platform's default.",
    fields: ["jwtConfiguration"],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) => {
      const alg = member(declared.props, "jwtConfiguration", "alg");
      return alg === "HS256"
        ? [
            violation(
              declared,
              "jwtConfiguration.alg",
              alg,
              "signs with the client secret, so whoever holds it can forge tokens; use RS256",
            ),
          ]
        : [];
    },
  },
  flagRule(
    {
      name: "tenant-ip-header-trusted",
      description:
        "The token endpoint does not trust the forwarded-for header, which any caller can set.",
      help: "isTokenEndpointIpHeaderTrusted: true lets a caller choose the address brute-force protection sees; right only for a backend behind a proxy the team runs.",
      enforcementLevel: "advisory",
    },
    "isTokenEndpointIpHeaderTrusted",
    true,
    "lets any caller choose the address that brute-force protection sees; set it only for a backend behind a proxy you run",
  ),
  flagRule(
    {
      name: "tenant-cross-origin-authentication",
      description:
        "No cross-origin authentication: it needs third-party cookies and exposes credentials to the page.",
      help: "Cross-origin authentication collects credentials on the application's page and needs third-party cookies; the platform recommends its own login page.",
      enforcementLevel: "advisory",
    },
    "crossOriginAuthentication",
    true,
    "collects credentials on the application's own page; use the platform's login page",
  ),
  flagRule(
    {
      name: "tenant-oidc-conformant",
      description: "Clients are OIDC conformant, which turns legacy, less safe flows off.",
      help: "A client that is not OIDC conformant keeps legacy flows (and organizationRequireBehavior post_login_prompt needs conformance).",
      enforcementLevel: "advisory",
    },
    "oidcConformant",
    false,
    "keeps legacy flows that OIDC conformance turns off; set it to true",
  ),
  ...CLIENT_RULES,
  COMPLIANCE_RULE,
];
