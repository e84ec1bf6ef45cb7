/**
 * The policy pack of examples/policy-pack under the real CLI (`pulumi preview --policy-pack`),
 * against the local tenant API: mandatory violations fail the preview before any request, advisory
 * ones are printed and let it pass, a policy config changes what a stack accepts, and the program
 * that `pulumi-tenant generate` writes for the local tenant is audited with no write.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { type Stack, startStack } from "./support/e2e.js";
import type { PulumiResult } from "./support/pulumi.js";

const REPO = resolve(__dirname, "..");
const PACK = join(REPO, "examples", "policy-pack");
const PROGRAM = join(REPO, "test", "fixtures", "rules");
const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const SPA = DEFAULT_SEED_IDS.spa;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A stack of the fixture program declaring these ClientSettings (name and arguments). */
async function declaring(clients: Record<string, Record<string, unknown>>): Promise<Stack> {
  const stack = await startStack(PROGRAM, {
    "rules:resources": {
      value: JSON.stringify(
        Object.entries(clients).map(([name, args]) => ({ kind: "ClientSettings", name, args })),
      ),
    },
  });
  cleanups.push(() => stack.stop());
  return stack;
}

/** `pulumi preview --policy-pack examples/policy-pack`, with a policy config file when given. */
async function previewWithPack(stack: Stack, config?: unknown): Promise<PulumiResult> {
  const args = ["--policy-pack", PACK];
  if (config !== undefined) {
    const dir = await mkdtemp(join(tmpdir(), "tenant-policy-config-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "policy-config.json");
    await writeFile(file, JSON.stringify(config));
    args.push("--policy-pack-config", file);
  }
  return stack.run("preview", { args });
}

/** The violations of a run as `[level, rule, message]`, sorted, the rule's description left out. */
function violations(result: PulumiResult): [string, string, string][] {
  return result.policyViolations
    .map((v): [string, string, string] => [
      v.level,
      v.policy,
      v.message.split("\n").slice(1).join("\n").trim(),
    ])
    .sort((a, b) => a.join().localeCompare(b.join()));
}

/** Every request the tenant API received, by route. */
function requests(stack: Stack): Record<string, number> {
  return stack.api.stats().byRoute;
}

describe("pulumi preview --policy-pack examples/policy-pack", {
  timeout: budget({ pulumi: 1 }),
}, () => {
  it("fails a program that breaks mandatory rules before any request, naming each violation", async () => {
    const stack = await declaring({
      web: {
        clientId: PORTAL,
        callbacks: ["https://portal.example.com/callback", "http://portal.example.com/callback"],
        grantTypes: ["authorization_code", "implicit"],
      },
      spa: { clientId: SPA, tokenEndpointAuthMethod: "none", grantTypes: ["client_credentials"] },
    });

    const preview = await previewWithPack(stack);

    expect(preview.ok, preview.output).toBe(false);
    expect(violations(preview)).toEqual([
      [
        "mandatory",
        "tenant-grant-type-forbidden",
        'ClientSettings "web": grantTypes[1] "implicit" must not be used (RFC 9700); use authorization_code with PKCE',
      ],
      [
        "mandatory",
        "tenant-public-client-credentials",
        'ClientSettings "spa": grantTypes[0] "client_credentials" on a client whose tokenEndpointAuthMethod is "none"; a public client cannot keep a secret',
      ],
      [
        "mandatory",
        "tenant-url-plain-http",
        'ClientSettings "web": callbacks[1] "http://portal.example.com/callback" uses plain http to a host that is not loopback; use https',
      ],
    ]);
    expect(requests(stack)).toEqual({});
  });

  it("fails a program whose client the compliance profile it names makes unusable, naming the profile, the setting and the row, and not for PAR, which the level requires itself", async () => {
    const stack = await declaring({
      bank: {
        clientId: PORTAL,
        complianceLevel: "fapi1_adv_pkj_par",
        clientAuthenticationMethods: { privateKeyJwt: { credentials: [{ id: "cred_bank" }] } },
        callbacks: ["https://bank.example.com/callback", "https://*.bank.example.com/callback"],
        signedRequestObject: { required: true },
        requirePushedAuthorizationRequests: false,
        requireProofOfPossession: true,
      },
    });

    const preview = await previewWithPack(stack);

    const profile =
      'complianceLevel "fapi1_adv_pkj_par" (FAPI 1 Advanced with private key JWT and PAR)';
    const row = `(the platform's "Configure FAPI Compliance" table), so no authorization can complete`;
    expect(preview.ok, preview.output).toBe(false);
    expect(violations(preview)).toEqual([
      [
        "advisory",
        "tenant-url-wildcard",
        'ClientSettings "bank": callbacks[1] "https://*.bank.example.com/callback" has a wildcard, which lets any matching host receive codes and tokens; list the URLs',
      ],
      [
        "mandatory",
        "tenant-compliance-profile",
        `ClientSettings "bank": callbacks[1] "https://*.bank.example.com/callback" has a wildcard, and ${profile} prevents wildcards in the client's allowed callbacks ${row}; list the URLs`,
      ],
      [
        "mandatory",
        "tenant-compliance-profile",
        `ClientSettings "bank": signedRequestObject.credentials [] holds no key to verify the client's request objects with, and ${profile} enforces signed request objects (JAR), signed with PS256 ${row}; add the client's public RSA key (RFC 9101)`,
      ],
    ]);
    // Nothing reaches the management API. The one token is the preview asking which scopes the
    // credentials have, since the program declares key material (clientAuthenticationMethods):
    // docs/design/decisions.md, "Key material".
    expect(requests(stack)).toEqual({ "POST /oauth/token": 1 });
  });

  it("prints advisory violations and lets the preview pass", async () => {
    const stack = await declaring({
      web: {
        clientId: PORTAL,
        callbacks: ["https://*.example.com/callback", "http://localhost:3000/callback"],
        crossOriginAuthentication: true,
      },
    });

    const preview = await previewWithPack(stack);

    expect(preview.error, preview.output).toBeUndefined();
    expect(violations(preview).map(([level, rule]) => [level, rule])).toEqual([
      ["advisory", "tenant-cross-origin-authentication"],
      ["advisory", "tenant-url-loopback"],
      ["advisory", "tenant-url-wildcard"],
    ]);
    expect(preview.output).toContain(
      'ClientSettings "web": callbacks[1] "http://localhost:3000/callback"',
    );
  });

  it("passes a program that follows every rule, with no violation", async () => {
    const stack = await declaring({
      web: {
        clientId: PORTAL,
        callbacks: ["https://portal.example.com/callback"],
        allowedLogoutUrls: ["https://portal.example.com/"],
        webOrigins: ["https://portal.example.com"],
        grantTypes: ["authorization_code", "refresh_token"],
        oidcConformant: true,
        refreshToken: { rotationType: "rotating", expirationType: "expiring" },
        appType: "regular_web",
        initiateLoginUri: "https://portal.example.com/login",
        oidcLogout: { backchannelLogoutUrls: ["https://portal.example.com/backchannel-logout"] },
        clientAuthenticationMethods: { privateKeyJwt: { credentials: [{ id: "cred_portal" }] } },
        requirePushedAuthorizationRequests: true,
        requireProofOfPossession: true,
        signedRequestObject: { required: true, credentials: [{ id: "cred_portal" }] },
        complianceLevel: "fapi2_sp_pkj_mtls",
      },
    });

    const preview = await previewWithPack(stack);

    expect(preview.error, preview.output).toBeUndefined();
    expect(preview.policyViolations).toEqual([]);
  });

  it("accepts loopback URLs in a stack the policy config names, and a rule turned off says nothing", async () => {
    const stack = await declaring({
      web: {
        clientId: PORTAL,
        callbacks: ["http://localhost:3000/callback"],
        crossOriginAuthentication: true,
      },
    });

    const preview = await previewWithPack(stack, {
      "tenant-url-loopback": { allowedStacks: ["e2e"] },
      "tenant-cross-origin-authentication": "disabled",
    });

    expect(preview.error, preview.output).toBeUndefined();
    expect(preview.policyViolations).toEqual([]);
  });
});

describe("an audit of the local tenant: generate, then preview with the pack", {
  timeout: budget({ node: 1, pulumi: 1 }),
}, () => {
  it("reports the violations the seeded clients really have, with no write", async () => {
    const out = await mkdtemp(join(tmpdir(), "tenant-audit-"));
    cleanups.push(() => rm(out, { recursive: true, force: true }));
    const stack = await startStack(out, {});
    cleanups.push(() => stack.stop());
    await generate(stack, out);
    stack.api.resetStats();

    const preview = await previewWithPack(stack);

    expect(preview.ok, preview.output).toBe(false);
    expect(violations(preview)).toEqual(AUDIT_OF_THE_SEED);
    expect(stack.writes()).toBe(0);
  });
});

/** Every field a rule judges: what a generated program must declare for the pack to judge it all. */
const AUDIT_FIELDS =
  "name,callbacks,allowedLogoutUrls,allowedOrigins,webOrigins,initiateLoginUri,grantTypes,appType," +
  "tokenEndpointAuthMethod,oidcConformant,crossOriginAuthentication,isTokenEndpointIpHeaderTrusted," +
  "jwtConfiguration,refreshToken,oidcLogout,oidcBackchannelLogout,clientAuthenticationMethods," +
  "requirePushedAuthorizationRequests,requireProofOfPossession,signedRequestObject,complianceLevel";

/**
 * What the default seed's clients break (provider/local-tenant/seed.ts): the customer portal allows the
 * implicit grant, has a loopback callback and is not OIDC conformant; the dashboard SPA allows
 * cross-origin authentication; three clients keep the platform's default refresh token, which
 * neither rotates nor expires. Their key credentials and what they leave unset are not declared
 * (read-only credentials do not see the former, `generate` writes nothing for the latter): the
 * platform answers no `require_pushed_authorization_requests` or `require_proof_of_possession` on
 * a client created without them (docs/design/local-tenant.md, "How a PATCH applies"), so the PAR
 * and sender-constrained rules say nothing here, where `pulumi-tenant audit` judges what is unset.
 */
const AUDIT_OF_THE_SEED: [string, string, string][] = [
  [
    "advisory",
    "tenant-cross-origin-authentication",
    "ClientSettings \"dashboard-spa\": crossOriginAuthentication true collects credentials on the application's own page; use the platform's login page",
  ],
  [
    "advisory",
    "tenant-oidc-conformant",
    'ClientSettings "customer-portal": oidcConformant false keeps legacy flows that OIDC conformance turns off; set it to true',
  ],
  ...["customer-portal", "partner-integration", "tenant-api-admin-seeded"].map(
    (name): [string, string, string] => [
      "advisory",
      "tenant-refresh-token-forever",
      `ClientSettings "${name}": refreshToken {"rotationType":"non-rotating","expirationType":"non-expiring"} neither rotates nor expires, so a stolen one works forever; rotate it or let it expire`,
    ],
  ),
  [
    "advisory",
    "tenant-url-loopback",
    'ClientSettings "customer-portal": callbacks[1] "http://localhost:3000/callback" points at this machine; fine for a developer\'s stack (name it in allowedStacks), not for production',
  ],
  [
    "mandatory",
    "tenant-grant-type-forbidden",
    'ClientSettings "customer-portal": grantTypes[2] "implicit" must not be used (RFC 9700); use authorization_code with PKCE',
  ],
];

/**
 * Writes into `out` the project `pulumi-tenant generate` makes for the stack's tenant (the built
 * CLI, with the read-only credentials), and links the repository's node_modules in, so that the
 * program runs as it was written.
 */
async function generate(stack: Stack, out: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [join(REPO, "dist", "provider", "cli.js"), "generate", "--out", out, "--fields", AUDIT_FIELDS],
    {
      timeout: STEP_BOUNDS_MS.node,
      env: {
        ...process.env,
        TENANT_DOMAIN: stack.api.domain,
        TENANT_CLIENT_ID: stack.api.readOnly.clientId,
        TENANT_CLIENT_SECRET: stack.api.readOnly.clientSecret,
      },
    },
  );
  await symlink(join(REPO, "node_modules"), join(out, "node_modules"));
}
