/**
 * What a rule of the policy pack is, what it judges and what it finds: the types every module of
 * `provider/policy/` shares, below all of them, so that the rules (`rules.ts`, `client-rules.ts`,
 * `compliance.ts`), the shapes they are built from (`rule-shapes.ts`) and the facts they read
 * (`client-facts.ts`) import from here and never from one another in a circle.
 *
 * @module
 */

import type { ClientSettingsField } from "../schema/index.js";

/** The stable names of the rules: what a policy config file and a violation name them by. */
export const RULE_NAMES = [
  "tenant-url-plain-http",
  "tenant-url-loopback",
  "tenant-url-wildcard",
  "tenant-grant-type-forbidden",
  "tenant-grant-type-app-type",
  "tenant-public-client-credentials",
  "tenant-refresh-token-forever",
  "tenant-jwt-hs256",
  "tenant-ip-header-trusted",
  "tenant-cross-origin-authentication",
  "tenant-oidc-conformant",
  "tenant-sender-constrained-tokens",
  "tenant-pushed-authorization-requests",
  "tenant-signed-request-object",
  "tenant-private-key-jwt",
  "tenant-backchannel-logout",
  "tenant-initiate-login-uri",
  "tenant-compliance-profile",
] as const;

/** One of {@link RULE_NAMES}. */
export type RuleName = (typeof RULE_NAMES)[number];

/** What a team may configure for a rule (in the policy config file, under the rule's name). */
export interface RuleConfig {
  /** Stacks where what the rule reports is fine (a developer's stack pointing at localhost). */
  readonly allowedStacks?: readonly string[];
  /** Hosts reached over plain http on purpose (an internal network the team vouches for). */
  readonly allowedHosts?: readonly string[];
}

/** The config members a rule takes, by name. */
export type RuleConfigMember = keyof RuleConfig;

/** What a rule judges: one ClientSettings as the program declares it. */
export interface Declared {
  /** How errors name it: `ClientSettings "web"`. */
  readonly resource: string;
  /** The declared inputs, in the user's spelling (`grantTypes`, `refreshToken`). */
  readonly props: Readonly<Record<string, unknown>>;
  /** The stack being previewed or updated. */
  readonly stack: string;
  /** The rule's config; empty when the team gave none. */
  readonly config: RuleConfig;
  /**
   * Whether the client is the tenant's global client (the legacy all-applications client): known
   * to an audit from the tenant's answer, never at preview, where a program names a client by its
   * id only. The client rules skip it, as auth0-checkmate does (`clientRule` in
   * `rule-shapes.ts`, docs/design/policy.md).
   */
  readonly global?: boolean;
}

/** One thing a rule found: the field (with its index in a list), its value, and the sentence. */
export interface Violation {
  /** `callbacks[1]`, `refreshToken`, `jwtConfiguration.alg`. */
  readonly field: string;
  readonly value: unknown;
  /** What is wrong with the value and what to do: `uses plain http to a host that is not loopback; use https`. */
  readonly reason: string;
  /** `ClientSettings "web": callbacks[1] "http://app.example.com/cb" uses plain http ...`. */
  readonly message: string;
}

/** A rule: its name, its one-line description, its default level, its config, its judgement. */
export interface TenantRule {
  readonly name: RuleName;
  readonly description: string;
  /**
   * Why the rule exists and why it has its level, in a few sentences (docs/design/policy.md, "The
   * rules"): the help a report shows next to a finding, e.g. a code-scanning dashboard's.
   */
  readonly help: string;
  /**
   * The specification the rule rests on, which its help names too: a report links to it (the
   * SARIF log's `helpUri`). Rules that rest on the platform's own advice have none.
   */
  readonly reference?: { readonly title: string; readonly url: string };
  /** The level a pack takes unless its config says otherwise. */
  readonly enforcementLevel: "mandatory" | "advisory";
  /** The config members it reads, if any. */
  readonly config: readonly RuleConfigMember[];
  /**
   * Every declared field its judgement reads: a reader of the live tenant (`pulumi-tenant audit`)
   * asks for these, so a rule sees the same inputs whichever way it is run. A rule that reads a
   * field not listed here would judge a live client on less than a program declares.
   */
  readonly fields: readonly ClientSettingsField[];
  judge(declared: Declared): Violation[];
}
