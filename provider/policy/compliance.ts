/**
 * The compliance-profile rule: a client whose `complianceLevel` names a FAPI profile, and whose
 * other settings break that profile. No other scanner judges a client by what it says it wants;
 * why this one is mandatory: docs/policy.md, "The rules".
 *
 * @module
 */

import { type AuthenticationMethod, hasCredentials, MTLS_METHODS } from "./client-facts.js";
import { violation } from "./rule-shapes.js";
import type { Declared, TenantRule, Violation } from "./rules.js";

/** What a compliance profile requires of a client's own settings. */
interface Profile {
  /** How a sentence names it: `FAPI 1 Advanced with private key JWT and PAR`. */
  readonly title: string;
  /** The authentication methods of which the client needs credentials, and how to say so. */
  readonly methods: readonly AuthenticationMethod[];
  readonly methodsInWords: string;
}

const PRIVATE_KEY_JWT = {
  methods: ["privateKeyJwt"],
  methodsInWords: "private key JWT credentials (privateKeyJwt)",
} as const;

const MTLS = {
  methods: MTLS_METHODS,
  methodsInWords: "mTLS credentials (tlsClientAuth or selfSignedTlsClientAuth)",
} as const;

/**
 * The profiles `complianceLevel` names. Every one requires pushed authorization requests and
 * sender-constrained tokens; they differ in how the client authenticates.
 */
const PROFILES: Readonly<Record<string, Profile>> = {
  fapi1_adv_pkj_par: { title: "FAPI 1 Advanced with private key JWT and PAR", ...PRIVATE_KEY_JWT },
  fapi1_adv_mtls_par: { title: "FAPI 1 Advanced with mTLS and PAR", ...MTLS },
  fapi2_sp_pkj_mtls: {
    title: "FAPI 2 Security Profile with private key JWT and mTLS-bound tokens",
    ...PRIVATE_KEY_JWT,
  },
  fapi2_sp_mtls_mtls: { title: "FAPI 2 Security Profile with mTLS", ...MTLS },
};

/** The settings of a client that break `profile`, each a violation naming the profile. */
function breaches(declared: Declared, level: string, profile: Profile): Violation[] {
  const { props } = declared;
  const breaks = (field: string, value: unknown, needs: string, fix: string) =>
    violation(
      declared,
      field,
      value,
      `breaks complianceLevel "${level}" (${profile.title}), which requires ${needs}; ${fix}`,
    );
  const found: Violation[] = [];
  if (props.requirePushedAuthorizationRequests === false) {
    found.push(
      breaks(
        "requirePushedAuthorizationRequests",
        false,
        "pushed authorization requests (RFC 9126)",
        "set it to true",
      ),
    );
  }
  const methods = props.clientAuthenticationMethods;
  if (methods !== undefined && !hasCredentials(methods, profile.methods)) {
    found.push(
      breaks(
        "clientAuthenticationMethods",
        methods,
        `the client to authenticate with ${profile.methodsInWords}`,
        "add them",
      ),
    );
  }
  if (props.requireProofOfPossession === false) {
    found.push(
      breaks(
        "requireProofOfPossession",
        false,
        "sender-constrained tokens (RFC 8705, RFC 9449)",
        "set it to true",
      ),
    );
  }
  return found;
}

/** The rule: mandatory, because the client itself names the profile its settings break. */
export const COMPLIANCE_RULE: TenantRule = {
  name: "tenant-compliance-profile",
  description:
    "A client's settings meet the compliance profile its complianceLevel names (FAPI 1 Advanced, FAPI 2 Security Profile).",
  help: "complianceLevel names a FAPI profile the client is meant to meet: fapi1_adv_pkj_par (FAPI 1 Advanced, private key JWT and PAR), fapi1_adv_mtls_par (FAPI 1 Advanced, mTLS and PAR), fapi2_sp_pkj_mtls and fapi2_sp_mtls_mtls (FAPI 2 Security Profile, private key JWT or mTLS). Each requires pushed authorization requests (requirePushedAuthorizationRequests, RFC 9126), sender-constrained tokens (requireProofOfPossession, RFC 8705) and credentials of its authentication method (clientAuthenticationMethods). A setting that breaks the profile is a finding naming the profile and the setting. Mandatory: the team asked for the profile, so a client that does not meet it is a mistake, not a choice, and whoever relies on the profile (a regulator, an open banking scheme) is misled.",
  reference: { title: "FAPI specifications", url: "https://openid.net/wg/fapi/specifications/" },
  fields: [
    "clientAuthenticationMethods",
    "requirePushedAuthorizationRequests",
    "requireProofOfPossession",
    "complianceLevel",
  ],
  enforcementLevel: "mandatory",
  config: [],
  judge: (declared) => {
    const level = declared.props.complianceLevel;
    const profile = typeof level === "string" ? PROFILES[level] : undefined;
    if (declared.global === true || profile === undefined) return [];
    return breaches(declared, level as string, profile);
  },
};
