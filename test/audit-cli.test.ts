/**
 * `pulumi-tenant audit` against the local tenant (on port 0) and from seed files: the reports of a
 * tenant seeded with known violations of every rule, the same findings as the policy pack's on
 * the program `generate` plans for that tenant, a snapshot judged with no network, the SARIF
 * log checked against the SARIF 2.1.0 JSON schema, and every exit status. The pure parts:
 * test/audit.test.ts.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sarifSchema from "@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json";
import type { ResourceValidationArgs } from "@pulumi/policy";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runAudit } from "../provider/audit/command.js";
import { JUDGED_FIELDS } from "../provider/audit/judge.js";
import { resolveSettings } from "../provider/config.js";
import { planProgram } from "../provider/generate/adopt.js";
import { wireFieldsToRead } from "../provider/generate/fields.js";
import { parseGenerateArgs } from "../provider/generate/options.js";
import { readTenant } from "../provider/generate/reads.js";
import { selectClients } from "../provider/generate/selection.js";
import { startTenantApi } from "../provider/local-tenant/index.js";
import { runSnapshot } from "../provider/local-tenant/snapshot.js";
import { UNSET_ON_THE_TENANT } from "../provider/policy/client-facts.js";
import { RULE_NAMES, tenantPolicies } from "../provider/policy/index.js";
import { resourceType } from "../provider/resources/registration.js";
import { type LocalTenant, startLocalTenant, type TenantSeed } from "../provider/testing.js";

const PORTAL = "P0rta1P0rta1P0rta1P0rta1P0rta1Aa";
const SPA = "Spa5pa5pa5pa5pa5pa5pa5pa5pa5pa5B";
const API = "Api0api0api0api0api0api0api0apiC";
const READER = "Rdr0rdr0rdr0rdr0rdr0rdr0rdr0rdrD";
const BANK = "Bank0bank0bank0bank0bank0bank0bE";
const READER_SECRET = "r".repeat(64);
const READ_AT = "2026-11-24T10:00:00.000Z";

/** A refresh token that rotates and expires: what a client that breaks no rule has. */
const ROTATING = {
  rotation_type: "rotating",
  expiration_type: "expiring",
  leeway: 0,
  token_lifetime: 2592000,
  infinite_token_lifetime: false,
  idle_token_lifetime: 1296000,
  infinite_idle_token_lifetime: false,
};

/**
 * A tenant with known violations of every rule: the portal breaks fifteen (its refresh token is
 * the platform's default, which neither rotates nor expires; its key credentials, null, are shown
 * only to credentials with read:client_keys), the SPA four; the billing API and the local tenant's
 * own machine-to-machine clients only ask for bearer tokens (and the latter keep the default
 * refresh token); the open banking client names a FAPI profile it breaks. A client granted only
 * `read:guardian_factors` cannot read the clients.
 */
const SEED: TenantSeed = {
  tenant: "acme",
  clients: [
    {
      client_id: PORTAL,
      name: "Legacy Portal",
      app_type: "regular_web",
      callbacks: [
        "https://portal.example.com/cb",
        "http://portal.example.com/cb",
        "http://localhost:3000/cb",
      ],
      web_origins: ["https://*.example.com"],
      grant_types: ["authorization_code", "implicit", "password"],
      token_endpoint_auth_method: "client_secret_post",
      oidc_conformant: false,
      jwt_configuration: { alg: "HS256", lifetime_in_seconds: 36000 },
      is_token_endpoint_ip_header_trusted: true,
      initiate_login_uri: "",
      oidc_logout: { backchannel_logout_urls: [] },
      client_authentication_methods: null,
    },
    {
      client_id: SPA,
      name: "Public SPA",
      app_type: "spa",
      callbacks: ["https://spa.example.com/cb"],
      web_origins: ["https://spa.example.com"],
      grant_types: ["authorization_code", "client_credentials"],
      token_endpoint_auth_method: "none",
      cross_origin_authentication: true,
      oidc_conformant: true,
      refresh_token: ROTATING,
      initiate_login_uri: "https://spa.example.com/login",
    },
    {
      client_id: API,
      name: "Billing API",
      app_type: "non_interactive",
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: "client_secret_post",
      oidc_conformant: true,
      refresh_token: ROTATING,
    },
    {
      client_id: READER,
      name: "Guardian reader",
      app_type: "non_interactive",
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: "client_secret_post",
      client_secret: READER_SECRET,
      oidc_conformant: true,
      refresh_token: ROTATING,
    },
    {
      client_id: BANK,
      name: "Open Banking",
      app_type: "regular_web",
      callbacks: ["https://bank.example.com/cb", "https://*.bank.example.com/cb"],
      grant_types: ["authorization_code"],
      client_authentication_methods: { private_key_jwt: { credentials: [{ id: "cred_bank" }] } },
      compliance_level: "fapi1_adv_pkj_par",
      require_proof_of_possession: true,
      signed_request_object: { required: true, credentials: [{ id: "cred_bank" }] },
      oidc_logout: { backchannel_logout_urls: ["https://bank.example.com/backchannel-logout"] },
      initiate_login_uri: "https://bank.example.com/login",
      oidc_conformant: true,
      refresh_token: ROTATING,
    },
  ],
  grants: [{ client_id: READER, scope: ["read:guardian_factors"] }],
};

let dir: string;
const tenants: LocalTenant[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tenant-audit-"));
});

afterEach(async () => {
  await Promise.all(tenants.splice(0).map((tenant) => tenant.stop()));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The local tenant started from {@link SEED}. */
async function seeded(): Promise<LocalTenant> {
  const tenant = await startLocalTenant({ seed: SEED });
  tenants.push(tenant);
  return tenant;
}

/** The environment that points the command at `tenant` with its read-only credentials. */
function readOnlyEnv(tenant: LocalTenant): NodeJS.ProcessEnv {
  return {
    TENANT_DOMAIN: tenant.domain,
    TENANT_CLIENT_ID: tenant.readOnly.clientId,
    TENANT_CLIENT_SECRET: tenant.readOnly.clientSecret,
  };
}

/** `pulumi-tenant audit ARGS` in this process, its stdout and stderr captured. */
async function audit(args: string[], env: NodeJS.ProcessEnv = {}, stderrIsTerminal = false) {
  let stdout = "";
  let stderr = "";
  const code = await runAudit(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    stderrIsTerminal,
    now: () => new Date(READ_AT),
  });
  return { code, stdout, stderr };
}

/** A file in the test's folder holding `content` (JSON unless a string). */
async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

/** The SARIF 2.1.0 JSON schema that @microsoft/jest-sarif ships, compiled by Ajv. */
const validateSarif = (() => {
  // The schema is draft-04; one of its patterns is not valid with the `u` flag Ajv uses by default.
  const ajv = new Ajv({ allErrors: true, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(sarifSchema);
})();

/** A finding as `[rule, client id, what follows the client's name in the message]`. */
type Judged = [string, string, string];

/** The findings of a JSON report, as {@link Judged}, sorted. */
function judgedOf(report: {
  findings: { rule: string; clientId: string; message: string }[];
}): Judged[] {
  return report.findings
    .map((f): Judged => [f.rule, f.clientId, f.message.slice(f.message.indexOf(": ") + 2)])
    .sort((a, b) => a.join().localeCompare(b.join()));
}

/**
 * What the policy pack reports for the program `generate --fields <every judged field>
 * --include-global --include-self` writes for the tenant, with the judged fields the tenant
 * leaves unset declared as unset: the program's declared inputs, as `generate` plans them from
 * its own reads, handed to every CrossGuard policy of `tenantPolicies()` as a `ClientSettings` of
 * that program.
 */
async function packFindings(env: NodeJS.ProcessEnv): Promise<Judged[]> {
  const options = parseGenerateArgs([
    ...["--out", dir, "--fields", JUDGED_FIELDS.join(",")],
    ...["--include-global", "--include-self"],
  ]);
  if (options === "help") throw new Error("help");
  const settings = resolveSettings(options.config, env);
  const reads = await readTenant(settings, options.query, wireFieldsToRead(options.fields));
  const selection = selectClients(reads.clients, {
    includeGlobal: options.includeGlobal,
    includeSelf: options.includeSelf,
    ownClientId: undefined,
  });
  const plan = planProgram({
    clients: selection.clients,
    pushProvider: reads.pushProvider,
    fields: options.fields,
  });
  const type = resourceType("ClientSettings");
  // What the tenant leaves unset, declared as unset: the audit judges it so (docs/design/policy.md).
  const unset = Object.fromEntries(
    JUDGED_FIELDS.flatMap((field) =>
      field in UNSET_ON_THE_TENANT ? [[field, UNSET_ON_THE_TENANT[field]]] : [],
    ),
  );
  const found: Judged[] = [];
  for (const client of plan.clients) {
    const prefix = `ClientSettings "${client.resourceName}": `;
    for (const policy of tenantPolicies()) {
      const args = {
        type,
        name: client.resourceName,
        urn: `urn:pulumi:audit::${options.projectName}::${type}::${client.resourceName}`,
        props: { clientId: client.clientId, ...unset, ...client.values },
        getConfig: () => ({}),
      } as unknown as ResourceValidationArgs;
      for (const validate of [policy.validateResource ?? []].flat()) {
        void validate(args, (message) => {
          expect(message.startsWith(prefix)).toBe(true);
          found.push([policy.name, client.clientId, message.slice(prefix.length)]);
        });
      }
    }
  }
  return found.sort((a, b) => a.join().localeCompare(b.join()));
}

describe("pulumi-tenant audit of the live tenant", () => {
  it("judges every client with read-only credentials, reports them by client, and exits 1 on a mandatory finding", async () => {
    const tenant = await seeded();
    const { code, stdout, stderr } = await audit([], readOnlyEnv(tenant));
    const admin = `client "Tenant API admin (seeded)" (${tenant.clientId})`;
    const readOnly = `client "Tenant API read-only (seeded)" (${tenant.readOnly.clientId})`;
    expect([code, stderr]).toEqual([1, ""]);
    expect(stdout).toBe(
      [
        `Audit of tenant "acme" (${tenant.domain}), read ${READ_AT}`,
        "7 clients judged by 18 rules: 5 mandatory findings and 21 advisory findings, on 7 clients",
        "",
        "  LEVEL      RULE                                  FIELD                               VALUE                                                            WHY",
        `client "Legacy Portal" (${PORTAL})`,
        '  mandatory  tenant-url-plain-http                 callbacks[1]                        "http://portal.example.com/cb"                                   uses plain http to a host that is not loopback; use https',
        '  advisory   tenant-url-loopback                   callbacks[2]                        "http://localhost:3000/cb"                                       points at this machine; fine for a developer\'s stack (name it in allowedStacks), not for production',
        '  advisory   tenant-url-wildcard                   webOrigins[0]                       "https://*.example.com"                                          has a wildcard, which lets any matching host receive codes and tokens; list the URLs',
        '  mandatory  tenant-grant-type-forbidden           grantTypes[1]                       "implicit"                                                       must not be used (RFC 9700); use authorization_code with PKCE',
        '  mandatory  tenant-grant-type-forbidden           grantTypes[2]                       "password"                                                       must not be used (RFC 9700); use authorization_code, or client_credentials for a machine',
        '  advisory   tenant-refresh-token-forever          refreshToken                        {"rotationType":"non-rotating","expirationType":"non-expiring"}  neither rotates nor expires, so a stolen one works forever; rotate it or let it expire',
        '  advisory   tenant-jwt-hs256                      jwtConfiguration.alg                "HS256"                                                          signs with the client secret, so whoever holds it can forge tokens; use RS256',
        "  advisory   tenant-ip-header-trusted              isTokenEndpointIpHeaderTrusted      true                                                             lets any caller choose the address that brute-force protection sees; set it only for a backend behind a proxy you run",
        "  advisory   tenant-oidc-conformant                oidcConformant                      false                                                            keeps legacy flows that OIDC conformance turns off; set it to true",
        "  advisory   tenant-sender-constrained-tokens      requireProofOfPossession            false                                                            leaves the tokens of authorization_code as bearer tokens that work for whoever steals them; set it to true to bind them to the client's key, by DPoP (RFC 9449) or mTLS (RFC 8705)",
        "  advisory   tenant-pushed-authorization-requests  requirePushedAuthorizationRequests  false                                                            lets the authorization request travel through the browser, where it can be read and changed; set it to true so the client pushes it to the tenant first (RFC 9126)",
        "  advisory   tenant-signed-request-object          signedRequestObject.required        false                                                            lets authorization requests go unsigned, so nothing proves they come from the client unchanged; require request objects signed with the client's key (RFC 9101)",
        "  advisory   tenant-backchannel-logout             oidcLogout.backchannelLogoutUrls    []                                                               is empty on a regular web application, so a logout elsewhere leaves its own session open; add the URL where it ends sessions (OpenID Connect Back-Channel Logout 1.0)",
        '  advisory   tenant-initiate-login-uri             initiateLoginUri                    ""                                                               is empty on a regular web application, so a login that starts elsewhere (a bookmarked login page, a password reset) cannot be handed to it; set the https URL of its login route (OpenID Connect Core 1.0, section 4)',
        `client "Public SPA" (${SPA})`,
        '  advisory   tenant-grant-type-app-type            grantTypes[1]                       "client_credentials"                                             does not fit appType "spa", which uses only authorization_code and refresh_token',
        '  mandatory  tenant-public-client-credentials      grantTypes[1]                       "client_credentials"                                             on a client whose tokenEndpointAuthMethod is "none"; a public client cannot keep a secret',
        "  advisory   tenant-cross-origin-authentication    crossOriginAuthentication           true                                                             collects credentials on the application's own page; use the platform's login page",
        "  advisory   tenant-sender-constrained-tokens      requireProofOfPossession            false                                                            leaves the tokens of authorization_code and client_credentials as bearer tokens that work for whoever steals them; set it to true to bind them to the client's key, by DPoP (RFC 9449) or mTLS (RFC 8705)",
        `client "Billing API" (${API})`,
        "  advisory   tenant-sender-constrained-tokens      requireProofOfPossession            false                                                            leaves the tokens of client_credentials as bearer tokens that work for whoever steals them; set it to true to bind them to the client's key, by DPoP (RFC 9449) or mTLS (RFC 8705)",
        `client "Guardian reader" (${READER})`,
        "  advisory   tenant-sender-constrained-tokens      requireProofOfPossession            false                                                            leaves the tokens of client_credentials as bearer tokens that work for whoever steals them; set it to true to bind them to the client's key, by DPoP (RFC 9449) or mTLS (RFC 8705)",
        `client "Open Banking" (${BANK})`,
        '  advisory   tenant-url-wildcard                   callbacks[1]                        "https://*.bank.example.com/cb"                                  has a wildcard, which lets any matching host receive codes and tokens; list the URLs',
        `  mandatory  tenant-compliance-profile             callbacks[1]                        "https://*.bank.example.com/cb"                                  has a wildcard, and complianceLevel "fapi1_adv_pkj_par" (FAPI 1 Advanced with private key JWT and PAR) prevents wildcards in the client's allowed callbacks (the platform's "Configure FAPI Compliance" table), so no authorization can complete; list the URLs`,
        admin,
        '  advisory   tenant-refresh-token-forever          refreshToken                        {"rotationType":"non-rotating","expirationType":"non-expiring"}  neither rotates nor expires, so a stolen one works forever; rotate it or let it expire',
        "  advisory   tenant-sender-constrained-tokens      requireProofOfPossession            false                                                            leaves the tokens of client_credentials as bearer tokens that work for whoever steals them; set it to true to bind them to the client's key, by DPoP (RFC 9449) or mTLS (RFC 8705)",
        readOnly,
        '  advisory   tenant-refresh-token-forever          refreshToken                        {"rotationType":"non-rotating","expirationType":"non-expiring"}  neither rotates nor expires, so a stolen one works forever; rotate it or let it expire',
        "  advisory   tenant-sender-constrained-tokens      requireProofOfPossession            false                                                            leaves the tokens of client_credentials as bearer tokens that work for whoever steals them; set it to true to bind them to the client's key, by DPoP (RFC 9449) or mTLS (RFC 8705)",
        "",
      ].join("\n"),
    );
  });

  it("reads the client list only, one page for seven clients, and writes nothing", async () => {
    const tenant = await seeded();
    await audit([], readOnlyEnv(tenant));
    const { reads, writes } = tenant.requests();
    expect([reads, writes]).toEqual([{ "GET /api/v2/clients": 1 }, {}]);
  });

  it("finds what the policy pack finds on the program generate writes for the same tenant, key credentials included with read:client_keys", async () => {
    const tenant = await seeded();
    const env = {
      TENANT_DOMAIN: tenant.domain,
      TENANT_CLIENT_ID: tenant.clientId,
      TENANT_CLIENT_SECRET: tenant.clientSecret,
    };
    const { stdout } = await audit(["--format", "json"], env);
    const findings = judgedOf(JSON.parse(stdout));
    expect(findings).toEqual(await packFindings(env));
    expect(new Set(findings.map(([rule]) => rule))).toEqual(new Set(RULE_NAMES));
  });

  it("counts the findings by level and by rule in the JSON report, with the tenant and the time read", async () => {
    const tenant = await seeded();
    const { code, stdout } = await audit(["--format", "json"], readOnlyEnv(tenant));
    const report = JSON.parse(stdout);
    expect(code).toBe(1);
    expect([report.tenant, report.readAt, report.source, report.clients]).toEqual([
      { domain: tenant.domain, name: "acme" },
      READ_AT,
      { kind: "live" },
      7,
    ]);
    expect(report.counts).toEqual({
      findings: 26,
      byLevel: { mandatory: 5, advisory: 21 },
      byRule: {
        "tenant-url-plain-http": 1,
        "tenant-url-loopback": 1,
        "tenant-url-wildcard": 2,
        "tenant-grant-type-forbidden": 2,
        "tenant-grant-type-app-type": 1,
        "tenant-public-client-credentials": 1,
        "tenant-refresh-token-forever": 3,
        "tenant-jwt-hs256": 1,
        "tenant-ip-header-trusted": 1,
        "tenant-cross-origin-authentication": 1,
        "tenant-oidc-conformant": 1,
        "tenant-sender-constrained-tokens": 6,
        "tenant-pushed-authorization-requests": 1,
        "tenant-signed-request-object": 1,
        "tenant-private-key-jwt": 0,
        "tenant-backchannel-logout": 1,
        "tenant-initiate-login-uri": 1,
        "tenant-compliance-profile": 1,
      },
    });
  });

  it("writes a SARIF 2.1.0 log to --out, valid against its schema, and prints where", async () => {
    const tenant = await seeded();
    const out = join(dir, "audit.sarif");
    const { code, stdout, stderr } = await audit(
      ["--format", "sarif", "--out", out],
      readOnlyEnv(tenant),
    );
    expect([code, stdout, stderr]).toEqual([
      1,
      `${out}\n`,
      `audited 7 clients: 5 mandatory findings and 21 advisory findings; the sarif report is in ${out}\n`,
    ]);
    const log = JSON.parse(await readFile(out, "utf8"));
    expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(log.runs[0].tool.driver.rules.map((rule: { id: string }) => rule.id)).toEqual([
      ...RULE_NAMES,
    ]);
    expect(log.runs[0].results).toHaveLength(26);
  });

  it("judges by the rules' config: a rule off, a level raised, loopback allowed in the stack named", async () => {
    const tenant = await seeded();
    const config = await file("policy-config.json", {
      "tenant-url-loopback": { allowedStacks: ["dev"] },
      "tenant-grant-type-forbidden": "disabled",
      "tenant-public-client-credentials": "advisory",
      "tenant-url-plain-http": { allowedHosts: ["portal.example.com"] },
      all: "advisory",
    });
    const { code, stdout } = await audit(
      ["--format", "json", "--config", config, "--stack", "dev"],
      readOnlyEnv(tenant),
    );
    const report = JSON.parse(stdout);
    expect(code).toBe(0);
    expect([report.stack, report.counts.byLevel]).toEqual(["dev", { mandatory: 0, advisory: 22 }]);
    expect(report.counts.byRule).toMatchObject({
      "tenant-url-plain-http": 0,
      "tenant-url-loopback": 0,
      "tenant-grant-type-forbidden": 0,
    });
  });

  it("draws a progress bar on a terminal, and says nothing of a short read in a pipe", async () => {
    const api = await startTenantApi({ extraClients: 295 });
    try {
      const env = {
        TENANT_DOMAIN: api.domain,
        TENANT_CLIENT_ID: api.readOnly.clientId,
        TENANT_CLIENT_SECRET: api.readOnly.clientSecret,
      };
      const onTerminal = await audit(["--out", join(dir, "progress.txt")], env, true);
      const inPipeline = await audit(["--out", join(dir, "progress.txt")], env, false);
      // Each drawing replaces the last in place; the bar is cleared before the summary.
      const drawings = (stderr: string) =>
        stderr
          .split("\r\x1b[K")
          .filter((part) => part.startsWith("["))
          .map((part) => part.replace(/; about .*$/, ""));
      expect(drawings(onTerminal.stderr)).toEqual([
        "[########----------------] read 1 of 3 pages (300 clients)",
        "[################--------] read 2 of 3 pages (300 clients)",
        "[########################] read 3 of 3 pages (300 clients)",
      ]);
      expect(inPipeline.stderr).not.toContain("read ");
    } finally {
      await api.stop();
    }
  });

  it("exits 3 naming the status and the scope when the credentials cannot read the clients", async () => {
    const tenant = await seeded();
    const { code, stdout, stderr } = await audit([], {
      TENANT_DOMAIN: tenant.domain,
      TENANT_CLIENT_ID: READER,
      TENANT_CLIENT_SECRET: READER_SECRET,
    });
    expect([code, stdout, stderr]).toEqual([
      3,
      "",
      "pulumi-tenant audit: reading the tenant: GET /clients failed with 403 insufficient_scope: needs read:clients\n",
    ]);
  });

  it("exits 2 naming the settings to set when there are no credentials, sending nothing", async () => {
    const tenant = await seeded();
    const { code, stderr } = await audit([], { TENANT_DOMAIN: tenant.domain });
    expect([code, stderr]).toEqual([
      2,
      "pulumi-tenant audit: pulumi-tenant has no credentials: give --domain (or TENANT_DOMAIN) and " +
        "--client-id (or TENANT_CLIENT_ID) with either --client-assertion-private-key-file (or " +
        "TENANT_CLIENT_ASSERTION_PRIVATE_KEY) or --client-secret (or TENANT_CLIENT_SECRET), or " +
        "--api-token (or TENANT_API_TOKEN) alone (see --help)\n",
    ]);
    expect(tenant.requests().total).toBe(0);
  });

  it("exits 2 naming --config, the file and the rule for a rule the pack does not have, sending nothing", async () => {
    const tenant = await seeded();
    const config = await file("unknown-rule.json", { "tenant-oidc": "disabled" });
    const { code, stderr } = await audit(["--config", config], readOnlyEnv(tenant));
    expect([code, stderr]).toEqual([
      2,
      `pulumi-tenant audit: --config ${config}: tenant-oidc: is not a rule of the pack; did you mean "tenant-oidc-conformant"?\n`,
    ]);
    expect(tenant.requests().total).toBe(0);
  });

  it("exits 2 naming --config and the file when it is not JSON", async () => {
    const config = await file("broken-config.json", "{ all: ");
    const { code, stderr } = await audit(["--config", config, "--seed", "unused.json"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(`^pulumi-tenant audit: --config ${config}: not JSON: .+\\n$`),
    );
  });
});

describe("pulumi-tenant audit --seed", () => {
  it("judges a snapshot with no network, finding what the live audit finds", async () => {
    const tenant = await seeded();
    const seedFile = join(dir, "acme-seed.json");
    const quiet = { stdout: () => undefined, stderr: () => undefined };
    expect(await runSnapshot(["--out", seedFile], { ...quiet, env: readOnlyEnv(tenant) })).toBe(0);
    const live = JSON.parse((await audit(["--format", "json"], readOnlyEnv(tenant))).stdout);
    await tenant.stop();

    const { code, stdout } = await audit(["--seed", seedFile, "--format", "json"]);

    const report = JSON.parse(stdout);
    expect(code).toBe(1);
    expect([report.source, report.tenant.name, report.clients]).toEqual([
      { kind: "seed", file: seedFile },
      "acme",
      7,
    ]);
    expect(report.findings).toEqual(live.findings);
  });

  it("exits 0 with advisory findings only, and 1 when told to fail on them", async () => {
    const seedFile = await file("advisory-seed.json", {
      clients: [{ name: "Old App", app_type: "regular_web", oidc_conformant: false }],
    });
    const passed = await audit(["--seed", seedFile]);
    const failed = await audit(["--seed", seedFile, "--fail-on", "advisory"]);
    expect([passed.code, failed.code]).toEqual([0, 1]);
    expect(passed.stdout).toContain(
      "1 client judged by 18 rules: 0 mandatory findings and 4 advisory findings, on 1 client\n",
    );
  });

  it("judges only the seed's own clients, not the ones the local tenant adds for its credentials", async () => {
    const seedFile = await file("one-client-seed.json", {
      clients: [
        { client_id: API, name: "Billing API", oidc_conformant: true, refresh_token: ROTATING },
      ],
    });
    const { code, stdout } = await audit(["--seed", seedFile]);
    expect([code, stdout]).toEqual([
      0,
      `Audit of the tenant, from the seed ${seedFile}\n1 client judged by 18 rules: no finding\n`,
    ]);
  });

  it("exits 2 naming --seed, the file and the JSON path of a malformed seed", async () => {
    const seedFile = await file("malformed-seed.json", {
      clients: [{ name: "Portal", callbacks: "https://portal.example.com/cb" }],
    });
    const { code, stdout, stderr } = await audit(["--seed", seedFile]);
    expect([code, stdout, stderr]).toEqual([
      2,
      "",
      `pulumi-tenant audit: --seed: invalid seed ${seedFile}: clients[0].callbacks: must be an array or null (got string)\n`,
    ]);
  });

  it("exits 2 naming --out and the file when the report cannot be written", async () => {
    const seedFile = await file("writable-seed.json", { clients: [] });
    const out = join(dir, "no-such-folder", "report.json");
    const { code, stderr } = await audit(["--seed", seedFile, "--out", out]);
    expect([code, stderr]).toEqual([
      2,
      `pulumi-tenant audit: --out ${out}: the folder ${join(dir, "no-such-folder")} does not ` +
        "exist; create it first\n",
    ]);
  });

  it("exits 2 naming --seed and the file when there is no such file", async () => {
    const missing = join(dir, "missing-seed.json");
    const { code, stderr } = await audit(["--seed", missing]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `pulumi-tenant audit: --seed: invalid seed ${missing}: cannot read the file: ENOENT: no such file or directory, open '${missing}'\n`,
    );
  });
});

describe("pulumi-tenant audit --help", () => {
  it("prints the usage and exits 0", async () => {
    const { code, stdout } = await audit(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: pulumi-tenant audit \[options\]\n/);
  });

  it("exits 2 for a wrong command line, naming the option", async () => {
    const { code, stderr } = await audit(["--format", "xml"]);
    expect([code, stderr]).toEqual([
      2,
      'pulumi-tenant audit: --format "xml": accepted: text, json, sarif\n',
    ]);
  });
});
