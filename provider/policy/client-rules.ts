/**
 * The rules about how a client proves who it is and protects its requests and tokens: sender
 * constraint, pushed and signed authorization requests, private key JWT, back-channel logout and
 * the login URI. Each names its field, why it matters and the specification it rests on; each
 * skips the tenant's global client (`clientRule`) and, where only a confidential client can act,
 * public ones.
 * Why each is advisory: docs/design/policy.md, "The rules".
 *
 * @module
 */

import { grantsAmong, hasCredentials, isConfidentialApp, listOf } from "./client-facts.js";
import { profileEnforcesJar, profileEnforcesPar } from "./compliance.js";
import { clientRule, member, violation } from "./rule-shapes.js";
import type { TenantRule } from "./rule-types.js";

/** The grants whose tokens a sender constraint binds to the client (docs/design/policy.md). */
const TOKEN_GRANTS = [
  "authorization_code",
  "refresh_token",
  "client_credentials",
  "urn:ietf:params:oauth:grant-type:device_code",
];

/** The grants that send an authorization request through the user's browser. */
const FRONT_CHANNEL_GRANTS = ["authorization_code", "implicit"];

/** The application types that sign users in through a login route of their own. */
const LOGIN_APP_TYPES: Readonly<Record<string, string>> = {
  spa: "a single-page app",
  regular_web: "a regular web application",
};

/** How lists of grants read in a sentence: `a, b and c`. */
const inWords = (items: readonly string[]): string =>
  items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;

/** The client rules, in the order docs/design/policy.md lists them. */
export const CLIENT_RULES: readonly TenantRule[] = [
  clientRule({
    name: "tenant-sender-constrained-tokens",
    description:
      "Tokens of the code, refresh, client credentials and device code grants are sender-constrained (requireProofOfPossession).",
    help: "requireProofOfPossession: false leaves access and refresh tokens as bearer tokens: whoever steals one (a log, a proxy, a compromised front end) can use it. Required, every token is bound to a key the client holds, by DPoP (RFC 9449, public clients included) or by the client's TLS certificate (RFC 8705). Advisory: the setting exists only on some plans, and a tenant that cannot change it would see every client flagged.",
    reference: { title: "RFC 9449 (DPoP)", url: "https://www.rfc-editor.org/rfc/rfc9449" },
    fields: ["grantTypes", "requireProofOfPossession"],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) => {
      const grants = grantsAmong(declared.props, TOKEN_GRANTS);
      if (declared.props.requireProofOfPossession !== false || grants.length === 0) return [];
      return [
        violation(
          declared,
          "requireProofOfPossession",
          false,
          `leaves the tokens of ${inWords(grants)} as bearer tokens that work for whoever steals them; set it to true to bind them to the client's key, by DPoP (RFC 9449) or mTLS (RFC 8705)`,
        ),
      ];
    },
  }),
  clientRule({
    name: "tenant-pushed-authorization-requests",
    description:
      "A confidential client with the authorization code grant requires pushed authorization requests (requirePushedAuthorizationRequests).",
    help: "Without PAR the authorization request travels as URL parameters through the user's browser, where it can be read and changed before it reaches the tenant. With requirePushedAuthorizationRequests: true a confidential client sends it to the tenant directly, authenticated, and the browser carries only a reference (RFC 9126). Public clients cannot authenticate the push and are not judged; nor is a client whose complianceLevel names a FAPI profile, of which the platform requires PAR whatever the setting says. Advisory: a plan-gated setting.",
    reference: {
      title: "RFC 9126 (Pushed Authorization Requests)",
      url: "https://www.rfc-editor.org/rfc/rfc9126",
    },
    fields: [
      "appType",
      "tokenEndpointAuthMethod",
      "clientAuthenticationMethods",
      "grantTypes",
      "requirePushedAuthorizationRequests",
      "complianceLevel",
    ],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) =>
      isConfidentialApp(declared) &&
      declared.props.requirePushedAuthorizationRequests === false &&
      !profileEnforcesPar(declared.props) &&
      grantsAmong(declared.props, ["authorization_code"]).length > 0
        ? [
            violation(
              declared,
              "requirePushedAuthorizationRequests",
              false,
              "lets the authorization request travel through the browser, where it can be read and changed; set it to true so the client pushes it to the tenant first (RFC 9126)",
            ),
          ]
        : [],
  }),
  clientRule({
    name: "tenant-signed-request-object",
    description:
      "A confidential client with a grant that goes through the browser requires signed request objects (signedRequestObject), with credentials to verify them.",
    help: "Unsigned, nothing proves an authorization request comes from the client unchanged. signedRequestObject.required: true makes the tenant accept only request objects signed with a key of the client (RFC 9101), and its credentials are the keys it verifies them with: required with none, no request can be verified and every login fails. Public clients cannot keep a signing key and are only judged on the second case. A client whose complianceLevel names a FAPI 1 profile is left to tenant-compliance-profile: the platform enforces signed request objects of it whatever the setting says, and that rule judges its keys. Advisory: a plan-gated setting, and requiring it with no key fails closed (every login is refused, nothing is exposed).",
    reference: {
      title: "RFC 9101 (JWT-Secured Authorization Request)",
      url: "https://www.rfc-editor.org/rfc/rfc9101",
    },
    fields: [
      "appType",
      "tokenEndpointAuthMethod",
      "clientAuthenticationMethods",
      "grantTypes",
      "signedRequestObject",
      "complianceLevel",
    ],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) => {
      const settings = declared.props.signedRequestObject;
      if (typeof settings !== "object" || settings === null) return [];
      if (profileEnforcesJar(declared.props)) return [];
      const required = member(declared.props, "signedRequestObject", "required");
      const credentials = member(declared.props, "signedRequestObject", "credentials");
      if (required === true) {
        return listOf(credentials).length > 0
          ? []
          : [
              violation(
                declared,
                "signedRequestObject.credentials",
                credentials ?? [],
                "holds no key while signedRequestObject.required is true, so no request can be verified and every login fails; add the client's public key, or stop requiring signed requests (RFC 9101)",
              ),
            ];
      }
      if (!isConfidentialApp(declared)) return [];
      if (grantsAmong(declared.props, FRONT_CHANNEL_GRANTS).length === 0) return [];
      return [
        violation(
          declared,
          "signedRequestObject.required",
          required ?? false,
          "lets authorization requests go unsigned, so nothing proves they come from the client unchanged; require request objects signed with the client's key (RFC 9101)",
        ),
      ];
    },
  }),
  clientRule({
    name: "tenant-private-key-jwt",
    description:
      "A confidential client proves who it is with a private key (clientAuthenticationMethods.privateKeyJwt) rather than a shared secret, unless its tokens are sender-constrained.",
    help: "A client secret (tokenEndpointAuthMethod client_secret_post or client_secret_basic) is a shared secret: whoever copies it from a configuration, a log or the tenant can act as the client. With privateKeyJwt credentials the client signs an assertion with a private key that never leaves it (RFC 7523); mTLS credentials (RFC 8705) are another way without a shared secret. A client whose tokens are sender-constrained (requireProofOfPossession) is not judged. Public clients have no secret and are not judged. Advisory: a plan-gated setting.",
    reference: {
      title: "RFC 7523 (JWT client authentication)",
      url: "https://www.rfc-editor.org/rfc/rfc7523",
    },
    fields: [
      "appType",
      "tokenEndpointAuthMethod",
      "clientAuthenticationMethods",
      "requireProofOfPossession",
    ],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) => {
      const { tokenEndpointAuthMethod: method, clientAuthenticationMethods: methods } =
        declared.props;
      if (!isConfidentialApp(declared) || methods === undefined) return [];
      if (hasCredentials(methods) || declared.props.requireProofOfPossession !== false) return [];
      return [
        violation(
          declared,
          "tokenEndpointAuthMethod",
          method,
          "proves who the client is with a shared secret, which works for whoever copies it, and its tokens are not sender-constrained; add privateKeyJwt credentials to clientAuthenticationMethods (RFC 7523), or require proof of possession",
        ),
      ];
    },
  }),
  clientRule({
    name: "tenant-backchannel-logout",
    description:
      "A regular web application has a back-channel logout URL (oidcLogout.backchannelLogoutUrls).",
    help: "A regular web application keeps its own session on its server. Without a back-channel logout URL, a logout that happens elsewhere (at the tenant, in another application, by an administrator ending the user's sessions) leaves that session open; with one, the tenant tells the application to end it (OpenID Connect Back-Channel Logout 1.0). oidcBackchannelLogout, the deprecated field, counts when it holds URLs. Single-page and native apps cannot receive the call and are not judged. Advisory: not every web application keeps sessions worth ending, and the feature is plan-gated.",
    reference: {
      title: "OpenID Connect Back-Channel Logout 1.0",
      url: "https://openid.net/specs/openid-connect-backchannel-1_0.html",
    },
    fields: ["appType", "oidcLogout", "oidcBackchannelLogout"],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) => {
      const { props } = declared;
      if (props.appType !== "regular_web") return [];
      if (typeof props.oidcLogout !== "object" || props.oidcLogout === null) return [];
      const urls = member(props, "oidcLogout", "backchannelLogoutUrls");
      const deprecated = member(props, "oidcBackchannelLogout", "backchannel_logout_urls");
      if (listOf(urls).length > 0 || listOf(deprecated).length > 0) return [];
      return [
        violation(
          declared,
          "oidcLogout.backchannelLogoutUrls",
          urls ?? [],
          "is empty on a regular web application, so a logout elsewhere leaves its own session open; add the URL where it ends sessions (OpenID Connect Back-Channel Logout 1.0)",
        ),
      ];
    },
  }),
  clientRule({
    name: "tenant-initiate-login-uri",
    description:
      "A single-page app or a regular web application has a login URI (initiateLoginUri) for logins that start elsewhere.",
    help: "When a login starts anywhere but the application (a bookmarked login page, a password reset, an invitation, a session that expired on the login page), the tenant sends the user to the application's initiateLoginUri, which starts a proper login (OpenID Connect Core 1.0, section 4, initiating login from a third party). Empty, the user is left on an error page. Its scheme and host are judged by the URL rules. Advisory: a usability and phishing-resistance setting, not an exposure.",
    reference: {
      title: "OpenID Connect Core 1.0, section 4",
      url: "https://openid.net/specs/openid-connect-core-1_0.html#ThirdPartyInitiatedLogin",
    },
    fields: ["appType", "initiateLoginUri"],
    enforcementLevel: "advisory",
    config: [],
    judge: (declared) => {
      const { appType, initiateLoginUri } = declared.props;
      const kind = typeof appType === "string" ? LOGIN_APP_TYPES[appType] : undefined;
      if (kind === undefined || initiateLoginUri !== "") return [];
      return [
        violation(
          declared,
          "initiateLoginUri",
          "",
          `is empty on ${kind}, so a login that starts elsewhere (a bookmarked login page, a password reset) cannot be handed to it; set the https URL of its login route (OpenID Connect Core 1.0, section 4)`,
        ),
      ];
    },
  }),
];
