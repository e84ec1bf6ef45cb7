import { execFile } from "node:child_process";
import http from "node:http";
import https from "node:https";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveSettings } from "../provider/config.js";
import { TenantConfigError } from "../provider/errors.js";
import { ADMIN_SCOPES, startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";
import { PushProviderSelectionProvider } from "../provider/providers/push-provider-selection.js";
import { NAME_KEY } from "../provider/schema/index.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { type Harness, stackConfig, startHarness } from "./support/harness.js";
import { REPO_ROOT } from "./support/installed-package.js";

const SELECTED_PROVIDER = "/guardian/factors/push-notification/selected-provider";

/** The message of a refused plain-http domain (ours, from `originOf`). */
const plainHttpRefused = (domain: string) =>
  `tenant:domain "${domain}" uses plain http:// to a host that is not loopback; the management ` +
  "API must be reached over https:// (http:// is accepted only for 127.0.0.0/8, ::1 and " +
  "localhost, i.e. the local tenant API)";

/** What `fn` threw (it must throw). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("plain http:// to a host that is not loopback", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await h?.stop();
    h = undefined;
  });

  /**
   * Spies on every way axios (and so the provider) opens an HTTP or HTTPS request. Node's fetch
   * goes elsewhere (undici), but nothing in the provider uses it.
   */
  function watchOutgoingRequests() {
    return [
      vi.spyOn(http, "request"),
      vi.spyOn(http, "get"),
      vi.spyOn(https, "request"),
      vi.spyOn(https, "get"),
    ];
  }
  const callsOf = (spies: ReturnType<typeof watchOutgoingRequests>) =>
    spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);

  it.each([
    "http://acme.example",
    "http://acme.example:8080",
    "http://10.0.0.7",
    "http://localhost.evil.example",
    "http://127.0.0.1.nip.io",
    "http://0.0.0.0",
  ])(
    "is refused for %s by resolveSettings with a TenantConfigError naming the problem",
    (domain) => {
      const error = thrownBy(() =>
        resolveSettings(stackConfig({ "tenant:domain": domain, "tenant:apiToken": "t" }), {}),
      );
      expect(error).toBeInstanceOf(TenantConfigError);
      expect((error as Error).message).toBe(plainHttpRefused(domain));
    },
  );

  it("is refused by a provider operation, naming the resource, before any request is sent", async () => {
    const provider = new PushProviderSelectionProvider();
    await provider.configure({
      config: stackConfig({ "tenant:domain": "http://acme.example", "tenant:apiToken": "t" }),
    });
    const spies = watchOutgoingRequests();
    const created = provider.create({ [NAME_KEY]: "sel", provider: "sns" });
    await expect(created).rejects.toBeInstanceOf(TenantConfigError);
    await expect(created).rejects.toThrow(
      `PushProviderSelection "sel": ${plainHttpRefused("http://acme.example")}`,
    );
    expect(callsOf(spies)).toBe(0);
  });

  it("is accepted for the loopback local tenant API, whose requests the same spies see", async () => {
    h = await startHarness();
    const spies = watchOutgoingRequests();
    await h.push.create({ [NAME_KEY]: "sel", provider: "sns" });
    expect(callsOf(spies)).toBeGreaterThan(0);
    expect(h.api.store.getProvider()).toBe("sns");
  });
});

/**
 * A provider operation in a child process: `NODE_EXTRA_CA_CERTS` is read only when a process
 * starts, so trusting (or not trusting) a CA can only be tested in a fresh one. The child loads the
 * built package's provider side by name, as Pulumi's provider host does (`npm run build` first),
 * creates a PushProviderSelection and prints the outcome as JSON.
 *
 * With `keepAlive`, an interval keeps the child alive until the operation settles; without it, the
 * test below shows that the operation alone keeps a standalone process alive (the rate limiter's
 * wait timer once did not, and the process exited mid-operation without a word).
 */
const CHILD_SCRIPT = (keepAlive: boolean) => `
const provider = require("pulumi-tenant/runtime").providers.PushProviderSelection;
const config = JSON.parse(process.env.CHILD_TENANT_CONFIG);
const alive = ${keepAlive} ? setInterval(() => {}, 1000) : undefined;
const print = (outcome) => { clearInterval(alive); process.stdout.write(JSON.stringify(outcome)); };
provider
  .configure({ config: { get: (key) => config[key], require: (key) => config[key] } })
  .then(() => provider.create({ ${JSON.stringify(NAME_KEY)}: "tls", provider: "sns" }))
  .then(
    (result) => print({ ok: true, outs: result.outs }),
    (error) => print({ ok: false, name: error.name, code: error.code, message: error.message }),
  );
`;

/**
 * The bound of one child: a short Node.js process's (test/support/budgets.ts), and a minute more
 * for a failing child's retries, which wait on timers, not on the CPU (under 3 s measured).
 */
const CHILD_BOUND_MS = STEP_BOUNDS_MS.node + 60_000;

/** What a child printed. */
type ChildOutcome =
  | { ok: true; outs: Record<string, unknown> }
  | { ok: false; name: string; code?: string; message: string };

/** Environment variables that would change what the child trusts or where it connects. */
const SCRUBBED = /^(NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED|NODE_OPTIONS|TENANT_.*)$/;

/** Runs the child with `config` as its stack config; resolves with its outcome, never rejects. */
function runChild(
  config: Record<string, string>,
  env: Record<string, string> = {},
  keepAlive = true,
): Promise<ChildOutcome> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SCRUBBED.test(k)));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["-e", CHILD_SCRIPT(keepAlive)],
      {
        cwd: REPO_ROOT,
        env: { ...base, ...env, CHILD_TENANT_CONFIG: JSON.stringify(config) },
        timeout: CHILD_BOUND_MS,
      },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout) as ChildOutcome);
        } catch {
          const why = error?.message ?? "no output";
          resolve({ ok: false, name: "NoOutcome", message: `${why}; stderr: ${stderr}` });
        }
      },
    );
  });
}

describe("TLS certificate verification, in a child process", () => {
  /** Its CA is given to no child (except as the wrong one). */
  let untrusted: TenantApi;
  /** Its CA is given to the child that must succeed. */
  let trusted: TenantApi;
  let withoutCa: Promise<ChildOutcome>;
  let withoutCaByClientCredentials: Promise<ChildOutcome>;
  let withWrongCa: Promise<ChildOutcome>;
  let withCa: Promise<ChildOutcome>;
  let withoutKeepAlive: Promise<ChildOutcome>;
  /**
   * Each test awaits a child started before it (they run at once): the child's bound, and slack
   * (test/support/budgets.ts).
   */
  const CHILD_TIMEOUT_MS = budget({ node: 1 }, { node: CHILD_BOUND_MS });

  /** The outcome of a child whose selection could not reach `untrusted` for `detail`. */
  const unreachable = (detail: string): ChildOutcome => ({
    ok: false,
    name: "TenantNetworkError",
    code: "ERR_TENANT_NETWORK",
    message:
      `PushProviderSelection "tls": GET ${SELECTED_PROVIDER} could not reach ` +
      `${untrusted.domain}: ${detail}`,
  });

  beforeAll(async () => {
    [untrusted, trusted] = await Promise.all([
      startTenantApi({ tls: true }),
      startTenantApi({ tls: true }),
    ]);
    const token = await untrusted.mintToken({ scopes: ADMIN_SCOPES });
    const caOf = (api: TenantApi) => ({ NODE_EXTRA_CA_CERTS: api.caFile ?? "" });
    // Started together and awaited by each test: the failing ones spend ~30 s in retries.
    withoutCa = runChild({ "tenant:domain": untrusted.domain, "tenant:apiToken": token });
    withoutCaByClientCredentials = runChild({
      "tenant:domain": untrusted.domain,
      "tenant:clientId": untrusted.clientId,
      "tenant:clientSecret": untrusted.clientSecret,
    });
    withWrongCa = runChild(
      { "tenant:domain": untrusted.domain, "tenant:apiToken": token },
      caOf(trusted),
    );
    withoutKeepAlive = runChild(
      { "tenant:domain": untrusted.domain, "tenant:apiToken": token },
      {},
      false,
    );
    withCa = runChild(
      {
        "tenant:domain": trusted.domain,
        "tenant:clientId": trusted.clientId,
        "tenant:clientSecret": trusted.clientSecret,
      },
      caOf(trusted),
    );
  });
  afterAll(async () => {
    // The children end by themselves (their outcome or their timeout); wait for them first.
    await Promise.allSettled([
      withoutCa,
      withoutCaByClientCredentials,
      withWrongCa,
      withCa,
      withoutKeepAlive,
    ]);
    await Promise.all([untrusted?.stop(), trusted?.stop()]);
  });

  /** The sentence of a certificate not trusted, with its fix (test/commands-cli.test.ts too). */
  const untrustedCertificate = (code: string) =>
    `its certificate is not trusted (${code}): for a local tenant started with --tls, set ` +
    "NODE_EXTRA_CA_CERTS to the caFile it printed; else check the CA bundle";
  const certificateProblem = "SELF_SIGNED_CERT_IN_CHAIN";

  it(
    "fails without NODE_EXTRA_CA_CERTS with a TenantNetworkError that names the certificate problem",
    async () => {
      expect(await withoutCa).toEqual(unreachable(untrustedCertificate(certificateProblem)));
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "fails without NODE_EXTRA_CA_CERTS at the token endpoint with a TenantAuthError that names the certificate problem",
    async () => {
      expect(await withoutCaByClientCredentials).toEqual({
        ok: false,
        name: "TenantAuthError",
        code: "ERR_TENANT_AUTH",
        message:
          `PushProviderSelection "tls": getting an access token from ${untrusted.domain}/oauth/token ` +
          `failed: ${untrustedCertificate(certificateProblem)}`,
      });
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "fails when NODE_EXTRA_CA_CERTS holds a CA that did not sign the server's certificate",
    async () => {
      // Both CAs have the same name, so Node picks the trusted one and its signature check fails.
      expect(await withWrongCa).toEqual(
        unreachable(untrustedCertificate("CERT_SIGNATURE_FAILURE")),
      );
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "lets no request through to a server whose certificate is not trusted",
    async () => {
      await Promise.all([withoutCa, withoutCaByClientCredentials, withWrongCa, withoutKeepAlive]);
      expect(untrusted.stats().total).toBe(0);
      expect(untrusted.store.getProvider()).toBe("guardian");
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "succeeds with NODE_EXTRA_CA_CERTS naming the local tenant API's CA file",
    async () => {
      expect(await withCa).toEqual({
        ok: true,
        outs: {
          [NAME_KEY]: "tls",
          provider: "sns",
          priorProvider: "guardian",
          // The stack config's connection, kept (as a secret output) so that a later move of
          // the stack to another tenant can put this one back (docs/design/decisions.md).
          stackConfigTenant: {
            domain: trusted.domain,
            clientId: trusted.clientId,
            clientSecret: trusted.clientSecret,
          },
        },
      });
      expect(trusted.store.getProvider()).toBe("sns");
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "reports the failure in a standalone process that nothing else keeps alive",
    async () => {
      expect(await withoutKeepAlive).toMatchObject({ ok: false, name: "TenantNetworkError" });
    },
    CHILD_TIMEOUT_MS,
  );
});
