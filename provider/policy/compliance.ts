/**
 * The compliance profiles a client's `complianceLevel` names (FAPI 1 Advanced, FAPI 2 Security
 * Profile), as the platform's "Configure FAPI Compliance" table says it enforces them, and the
 * rule that judges a client by its profile. No other scanner judges a client by what it says it
 * wants; why the rule is mandatory, and which row of the table each check rests on:
 * docs/design/policy.md, "The compliance profile".
 *
 * The table is read two ways. What the platform enforces whatever the client's settings say (PAR
 * at every level, PKCE with S256) is no finding, here or in the advisory rules, which ask
 * {@link profileEnforcesPar} and {@link profileEnforcesJar}. A setting that the profile makes
 * unusable (no credentials of the authentication the level requires, a wildcard callback where
 * the level forbids them) is a finding naming the profile, the setting and the row: no
 * authorization of that client can complete.
 *
 * @module
 */

import { type AuthenticationMethod, hasCredentials, listOf, MTLS_METHODS } from "./client-facts.js";
import { clientRule, member, violation } from "./rule-shapes.js";
import type { Declared, TenantRule, Violation } from "./rule-types.js";
import { urlFindings } from "./urls.js";

/**
 * The rows of the platform's table that a client's own settings can make unusable, in our words
 * (docs/design/policy.md quotes the table). The table's other rows (PAR, PKCE with S256, the checks of a
 * request's own contents) hold whatever the client's settings say.
 */
const ROWS = {
  privateKeyJwt: "requires private key JWT for client authentication",
  mtls: "requires mTLS for client authentication",
  jar: "enforces signed request objects (JAR), signed with PS256",
  wildcards: "prevents wildcards in the client's allowed callbacks",
  oidcConformant: "ensures the client is OIDC conformant",
} as const;

/** What a compliance profile asks of a client's own settings. */
interface Profile {
  /** How a sentence names it: `FAPI 1 Advanced with private key JWT and PAR`. */
  readonly title: string;
  /** The authentication the level requires: of which methods the client needs credentials. */
  readonly authentication: {
    readonly methods: readonly AuthenticationMethod[];
    readonly inWords: string;
    readonly row: string;
  };
  /**
   * Whether it is a FAPI 1 Advanced level, of which the platform also enforces signed request
   * objects, forbids wildcard callbacks and requires OIDC conformance (the table's FAPI 1 rows).
   */
  readonly fapi1: boolean;
}

const PRIVATE_KEY_JWT = {
  methods: ["privateKeyJwt"],
  inWords: "private key JWT credentials (privateKeyJwt)",
  row: ROWS.privateKeyJwt,
} as const;

const MTLS = {
  methods: MTLS_METHODS,
  inWords: "mTLS credentials (tlsClientAuth or selfSignedTlsClientAuth)",
  row: ROWS.mtls,
} as const;

/**
 * The profiles `complianceLevel` names. The platform requires PAR and PKCE with S256 at every one
 * of them; they differ in how the client authenticates and in what FAPI 1 adds.
 */
const PROFILES: Readonly<Record<string, Profile>> = {
  fapi1_adv_pkj_par: {
    title: "FAPI 1 Advanced with private key JWT and PAR",
    authentication: PRIVATE_KEY_JWT,
    fapi1: true,
  },
  fapi1_adv_mtls_par: {
    title: "FAPI 1 Advanced with mTLS and PAR",
    authentication: MTLS,
    fapi1: true,
  },
  fapi2_sp_pkj_mtls: {
    title: "FAPI 2 Security Profile with private key JWT and mTLS-bound tokens",
    authentication: PRIVATE_KEY_JWT,
    fapi1: false,
  },
  fapi2_sp_mtls_mtls: {
    title: "FAPI 2 Security Profile with mTLS",
    authentication: MTLS,
    fapi1: false,
  },
};

/** The profile the declared `complianceLevel` names, if it names one. */
function profileOf(props: Declared["props"]): { level: string; profile: Profile } | undefined {
  const level = props.complianceLevel;
  const profile = typeof level === "string" ? PROFILES[level] : undefined;
  return profile === undefined ? undefined : { level: level as string, profile };
}

/**
 * Whether the declared `complianceLevel` makes the platform require pushed authorization requests
 * whatever `requirePushedAuthorizationRequests` says: every profile does (the table's PAR row).
 */
export const profileEnforcesPar = (props: Declared["props"]): boolean =>
  profileOf(props) !== undefined;

/**
 * Whether the declared `complianceLevel` makes the platform enforce signed request objects
 * whatever `signedRequestObject.required` says: the FAPI 1 levels do (the table's JAR row).
 */
export const profileEnforcesJar = (props: Declared["props"]): boolean =>
  profileOf(props)?.profile.fapi1 === true;

/** The settings of a client that make `profile` unusable or break it, each naming the profile. */
function breaches(declared: Declared, level: string, profile: Profile): Violation[] {
  const { props } = declared;
  const named = `complianceLevel "${level}" (${profile.title})`;
  /** A setting with which no authorization can complete, by `row` of the platform's table. */
  const unusable = (field: string, value: unknown, what: string, row: string, fix: string) =>
    violation(
      declared,
      field,
      value,
      `${what}, and ${named} ${row} (the platform's "Configure FAPI Compliance" table), so no authorization can complete; ${fix}`,
    );
  const found: Violation[] = [];
  const { authentication } = profile;
  const methods = props.clientAuthenticationMethods;
  if (methods !== undefined && !hasCredentials(methods, authentication.methods)) {
    found.push(
      unusable(
        "clientAuthenticationMethods",
        methods,
        `holds no ${authentication.inWords}`,
        authentication.row,
        "add them",
      ),
    );
  }
  if (profile.fapi1) {
    const settings = props.signedRequestObject;
    const credentials = member(props, "signedRequestObject", "credentials");
    if (typeof settings === "object" && settings !== null && listOf(credentials).length === 0) {
      found.push(
        unusable(
          "signedRequestObject.credentials",
          credentials ?? [],
          "holds no key to verify the client's request objects with",
          ROWS.jar,
          "add the client's public RSA key (RFC 9101)",
        ),
      );
    }
    const callbacks = listOf(props.callbacks);
    callbacks.forEach((url, index) => {
      if (typeof url === "string" && urlFindings(url).wildcard) {
        found.push(
          unusable(`callbacks[${index}]`, url, "has a wildcard", ROWS.wildcards, "list the URLs"),
        );
      }
    });
    if (props.oidcConformant === false) {
      found.push(
        unusable(
          "oidcConformant",
          false,
          "turns OIDC conformance off",
          ROWS.oidcConformant,
          "set it to true",
        ),
      );
    }
  }
  // Not a row of the table: the platform binds tokens only when the client asks it to, and the
  // profile's own specification requires sender-constrained tokens (docs/design/policy.md).
  if (props.requireProofOfPossession === false) {
    found.push(
      violation(
        declared,
        "requireProofOfPossession",
        false,
        `breaks ${named}, which requires sender-constrained tokens (RFC 8705, RFC 9449); set it to true`,
      ),
    );
  }
  return found;
}

/** The rule: mandatory, because the client itself names the profile its settings break. */
export const COMPLIANCE_RULE: TenantRule = clientRule({
  name: "tenant-compliance-profile",
  description:
    "A client's settings meet the compliance profile its complianceLevel names (FAPI 1 Advanced, FAPI 2 Security Profile).",
  help: 'complianceLevel names a FAPI profile the client is meant to meet: fapi1_adv_pkj_par (FAPI 1 Advanced, private key JWT and PAR), fapi1_adv_mtls_par (FAPI 1 Advanced, mTLS and PAR), fapi2_sp_pkj_mtls and fapi2_sp_mtls_mtls (FAPI 2 Security Profile, private key JWT or mTLS). The platform then refuses every authorization that does not meet the profile, as its "Configure FAPI Compliance" table says. What it enforces whatever the settings (PAR at every level, whatever requirePushedAuthorizationRequests says; PKCE with S256) is not a finding. A setting the profile makes unusable is, naming the profile, the setting and the row of the table: no credentials of the authentication the level requires (clientAuthenticationMethods, null included), and at the FAPI 1 levels no key for the signed request objects they enforce (signedRequestObject.credentials), a wildcard in callbacks, or oidcConformant false. requireProofOfPossession false breaks the profile too: each requires sender-constrained tokens (RFC 8705). Mandatory: the team asked for the profile, so a client that does not meet it is a mistake, not a choice, and whoever relies on the profile (a regulator, an open banking scheme) is misled.',
  reference: { title: "FAPI specifications", url: "https://openid.net/wg/fapi/specifications/" },
  fields: [
    "callbacks",
    "oidcConformant",
    "clientAuthenticationMethods",
    "requireProofOfPossession",
    "signedRequestObject",
    "complianceLevel",
  ],
  enforcementLevel: "mandatory",
  config: [],
  judge: (declared) => {
    const named = profileOf(declared.props);
    return named === undefined ? [] : breaches(declared, named.level, named.profile);
  },
});
