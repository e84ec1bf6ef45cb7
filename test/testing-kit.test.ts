/**
 * `pulumi-tenant/testing` (`startLocalTenant`), the seed format's version and errors, and
 * `pulumi-tenant snapshot` taken of a local tenant (docs/guides/testing-your-program.md,
 * docs/design/local-tenant.md).
 */

import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CommandUsageError,
  ErrorCodes,
  exitStatusOf,
  LocalTenantError,
  SeedError,
  SnapshotOutputError,
  TenantError,
} from "../provider/errors.js";
import {
  DEFAULT_SEED,
  DEFAULT_SEED_IDS,
  SECRET_PLACEHOLDER,
} from "../provider/local-tenant/index.js";
import { startTenantApi } from "../provider/local-tenant/server.js";
import { runSnapshot } from "../provider/local-tenant/snapshot.js";
import { type LocalTenant, startLocalTenant } from "../provider/testing.js";
import { callApi, fetchToken } from "./support/test-client.js";

const run = promisify(execFile);
const ROOT = join(__dirname, "..");
const tenants: LocalTenant[] = [];
let dir: string;

/** What the test client needs to call a local tenant. */
function apiOf(tenant: LocalTenant) {
  return {
    domain: tenant.domain,
    tokenUrl: `${tenant.domain}/oauth/token`,
    audience: `${tenant.domain}/api/v2/`,
    clientId: tenant.clientId,
    clientSecret: tenant.clientSecret,
  };
}

async function started(options: Parameters<typeof startLocalTenant>[0] = {}): Promise<LocalTenant> {
  const tenant = await startLocalTenant(options);
  tenants.push(tenant);
  return tenant;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tenant-testing-kit-"));
});

afterEach(async () => {
  await Promise.all(tenants.splice(0).map((tenant) => tenant.stop()));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("startLocalTenant", () => {
  it("listens on loopback on a free port with credentials that get a token", async () => {
    const tenant = await started();
    expect(tenant.domain).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const token = await fetchToken(apiOf(tenant));
    expect(token.length).toBeGreaterThan(0);
  });

  it("gives the stack config in the shape setAllConfig takes, the secret marked", async () => {
    const tenant = await started();
    expect(tenant.stackConfig()).toEqual({
      "tenant:domain": { value: tenant.domain },
      "tenant:clientId": { value: tenant.clientId },
      "tenant:clientSecret": { value: tenant.clientSecret, secret: true },
    });
  });

  it("shows what the tenant holds and counts reads and writes apart", async () => {
    const tenant = await started();
    const api = apiOf(tenant);
    const token = await fetchToken(api);
    await callApi(api, "GET", `/api/v2/clients/${DEFAULT_SEED_IDS.spa}`, { token });
    await callApi(api, "PATCH", `/api/v2/clients/${DEFAULT_SEED_IDS.spa}`, {
      token,
      json: { description: "changed" },
    });
    expect(tenant.client(DEFAULT_SEED_IDS.spa)?.description).toBe("changed");
    expect(tenant.requests()).toEqual({
      total: 3,
      reads: { "GET /api/v2/clients/:id": 1 },
      writes: { "PATCH /api/v2/clients/:id": 1 },
      tokens: 1,
      byStatus: { "200": 3 },
    });
  });

  it("goes back to its seed with reset(), counters included", async () => {
    const tenant = await started();
    const api = apiOf(tenant);
    const token = await fetchToken(api);
    await callApi(api, "DELETE", `/api/v2/event-streams/${DEFAULT_SEED_IDS.webhookStream}`, {
      token,
    });
    expect(tenant.eventStream(DEFAULT_SEED_IDS.webhookStream)).toBeUndefined();
    tenant.reset();
    expect(tenant.eventStream(DEFAULT_SEED_IDS.webhookStream)?.id).toBe(
      DEFAULT_SEED_IDS.webhookStream,
    );
    expect(tenant.requests().total).toBe(0);
  });

  it("exports what it holds as a seed that starts the same tenant", async () => {
    const tenant = await started();
    const copy = await started({ seed: tenant.exportSeed() });
    expect(copy.clients()).toEqual(tenant.clients());
    expect(copy.clientId).toBe(tenant.clientId);
  });

  it("stops once however often stop() is called, and through await using", async () => {
    const tenant = await startLocalTenant();
    await Promise.all([tenant.stop(), tenant.stop()]);
    await tenant[Symbol.asyncDispose]();
    await expect(fetch(`${tenant.domain}/.well-known/jwks.json`)).rejects.toThrow("fetch failed");
  });

  it("refuses an unknown option, naming it and the known ones", async () => {
    await expect(startLocalTenant({ sed: "x.json" } as never)).rejects.toThrow(
      new CommandUsageError(
        'startLocalTenant: unknown option "sed"; known: seed, rateLimit, backgroundLoad, networkDelay, faults, quirks, patchModel, tokenTtlSeconds, privateKeyJwt, tls, port, random',
      ),
    );
  });

  it("refuses a background load it cannot use, naming the option", async () => {
    await expect(startLocalTenant({ backgroundLoad: { rate: 3, burst: 0 } })).rejects.toThrow(
      new CommandUsageError("backgroundLoad: burst must be an integer from 1 to 10000, got 0"),
    );
  });

  it("counts no background request without a background load", async () => {
    const tenant = await started();
    expect(tenant.background()).toEqual({ total: 0, allowed: 0, refused: 0 });
  });

  it("refuses a port in use, saying so", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startLocalTenant({ port })).rejects.toThrow(
        new LocalTenantError(
          `port ${port} on 127.0.0.1 is in use; choose another port, or 0 for a free one`,
        ),
      );
    } finally {
      blocker.close();
    }
  });
});

describe("startLocalTenant with a background load", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });

  afterEach(async () => {
    // Stopped while the fake timers are on, so that stop() clears the timer they hold.
    await Promise.all(tenants.splice(0).map((tenant) => tenant.stop()));
    vi.useRealTimers();
  });

  it("counts the background's requests apart from the program's, its 429s under refused", async () => {
    const tenant = await started({
      rateLimit: { rate: 0.1, burst: 2 },
      backgroundLoad: { rate: 1, burst: 3 },
    });
    vi.advanceTimersByTime(3000);
    expect(tenant.background()).toEqual({ total: 3, allowed: 2, refused: 1 });
    expect(tenant.requests()).toEqual({ total: 0, reads: {}, writes: {}, tokens: 0, byStatus: {} });
  });

  it("shows the program the tokens the background took", async () => {
    const tenant = await started({
      rateLimit: { rate: 0.1, burst: 10 },
      backgroundLoad: { rate: 1, burst: 4 },
    });
    const api = apiOf(tenant);
    const token = await fetchToken(api);
    vi.advanceTimersByTime(4000);
    const answer = await callApi(api, "GET", `/api/v2/clients/${DEFAULT_SEED_IDS.spa}`, { token });
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("5");
  });

  it("sets the background's counters and schedule back to their start with reset()", async () => {
    const tenant = await started({ backgroundLoad: { rate: 1, burst: 2 } });
    vi.advanceTimersByTime(3000);
    expect(tenant.background().total).toBe(2);
    tenant.reset();
    expect(tenant.background()).toEqual({ total: 0, allowed: 0, refused: 0 });
    vi.advanceTimersByTime(1999);
    expect(tenant.background().total).toBe(0);
    vi.advanceTimersByTime(1);
    expect(tenant.background().total).toBe(2);
  });

  it("leaves no timer behind once stopped", async () => {
    const tenant = await started({ backgroundLoad: { rate: 1 } });
    expect(vi.getTimerCount()).toBe(1);
    await tenant.stop();
    expect(vi.getTimerCount()).toBe(0);
    tenant.reset();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the seed file", () => {
  it("refuses a client twice, naming the file and both JSON paths", async () => {
    const file = join(dir, "twice.json");
    await writeFile(
      file,
      JSON.stringify({ clients: [DEFAULT_SEED.clients?.[0], DEFAULT_SEED.clients?.[0]] }),
    );
    await expect(startLocalTenant({ seed: file })).rejects.toThrow(
      new SeedError(
        `invalid seed ${file}: clients[1].client_id: "${DEFAULT_SEED_IDS.regularWeb}" is already the id of clients[0]`,
      ),
    );
  });

  it("refuses an event stream id that is not 26 characters", async () => {
    await expect(
      startLocalTenant({ seed: { eventStreams: [{ id: "est_short" }] } }),
    ).rejects.toThrow(
      new SeedError(
        'invalid seed: eventStreams[0].id: must be exactly 26 characters (got 9) ("est_short")',
      ),
    );
  });

  it("refuses a newer format version, saying what to do", async () => {
    const file = join(dir, "newer.json");
    await writeFile(file, JSON.stringify({ version: 2 }));
    await expect(startLocalTenant({ seed: file })).rejects.toThrow(
      new SeedError(
        `invalid seed ${file}: version: 2 is newer than this pulumi-tenant reads (1); upgrade pulumi-tenant to load it`,
      ),
    );
  });

  it("refuses a file that is not JSON, naming the file", async () => {
    const file = join(dir, "broken.json");
    await writeFile(file, "{ clients: [");
    await expect(startLocalTenant({ seed: file })).rejects.toThrow(
      `invalid seed ${file}: not JSON: `,
    );
  });

  it("gives a client whose secret is a placeholder a fresh secret of its own", async () => {
    const tenant = await started({
      seed: {
        clients: [{ name: "m2m", app_type: "non_interactive", client_secret: SECRET_PLACEHOLDER }],
      },
    });
    const secret = tenant.clients()[0]?.client_secret;
    expect(secret).toMatch(/^[A-Za-z0-9]{64}$/);
  });
});

describe("pulumi-tenant snapshot", () => {
  /** `pulumi-tenant snapshot --out <out>` of `tenant`, with its read-only credentials. */
  async function snapshot(tenant: Pick<LocalTenant, "domain" | "readOnly">, out: string) {
    let stdout = "";
    let stderr = "";
    const code = await runSnapshot(["--out", out], {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      env: {
        TENANT_DOMAIN: tenant.domain,
        TENANT_CLIENT_ID: tenant.readOnly.clientId,
        TENANT_CLIENT_SECRET: tenant.readOnly.clientSecret,
      },
      now: () => new Date("2026-11-24T10:00:00.000Z"),
    });
    return { code, stdout, stderr };
  }

  it("writes a seed with read-only credentials, every secret replaced and named", async () => {
    const tenant = await started();
    const out = join(dir, "tenant-seed.json");
    const { code, stdout, stderr } = await snapshot(tenant, out);
    expect(code).toBe(0);
    expect(stdout).toBe(`${out}\n`);
    const seed = JSON.parse(await readFile(out, "utf8"));
    expect(seed).toMatchObject({
      version: 1,
      takenFrom: tenant.domain,
      takenAt: "2026-11-24T10:00:00.000Z",
      tenant: "local-tenant",
      pushProvider: "guardian",
      eventStreams: [DEFAULT_SEED_IDS.webhookStream, DEFAULT_SEED_IDS.eventBridgeStream],
    });
    const text = await readFile(out, "utf8");
    for (const client of tenant.clients()) {
      if (typeof client.client_secret === "string")
        expect(text).not.toContain(client.client_secret);
    }
    expect(seed.replacedFields).toEqual([
      "clients[0].client_secret",
      "clients[2].client_secret",
      "clients[3].client_secret",
      "clients[4].client_secret",
    ]);
    expect(stderr).toContain(
      "replaced 4 secret fields by placeholders: clients[0].client_secret, clients[2].client_secret, clients[3].client_secret, clients[4].client_secret",
    );
    expect(tenant.requests().writes).toEqual({});
  });

  it("writes a seed that starts a tenant holding the same clients", async () => {
    const tenant = await started();
    const out = join(dir, "copy-seed.json");
    expect((await snapshot(tenant, out)).code).toBe(0);
    const copy = await started({ seed: out });
    const withoutSecret = ({ client_secret: _s, ...client }: Record<string, unknown>) => client;
    expect(copy.clients().slice(0, 5).map(withoutSecret)).toEqual(
      tenant.clients().map(withoutSecret),
    );
    expect(copy.eventStreams().map((s) => s.id)).toEqual(tenant.eventStreams().map((s) => s.id));
  });

  it("leaves out a value the platform holds but a PATCH may not set, naming it, so the seed loads", async () => {
    const api = await startTenantApi();
    try {
      const stored = api.store.getClient(DEFAULT_SEED_IDS.spa);
      api.store.putClient({
        ...stored,
        client_id: DEFAULT_SEED_IDS.spa,
        organization_discovery_methods: [],
      });
      const out = join(dir, "refused-seed.json");
      const { code, stderr } = await snapshot(api, out);
      expect(code).toBe(0);
      expect(stderr).toContain(
        "left out clients[1].organization_discovery_methods (must have at least 1 item (got 0)): the local tenant refuses it in a PATCH\n",
      );
      const seed = JSON.parse(await readFile(out, "utf8"));
      expect(seed.clients[1]).not.toHaveProperty("organization_discovery_methods");
    } finally {
      await api.stop();
    }
  });

  it("exits 2 without --out, reading nothing", async () => {
    const tenant = await started();
    let stderr = "";
    const code = await runSnapshot([], {
      stdout: () => undefined,
      stderr: (text) => {
        stderr += text;
      },
      env: { TENANT_DOMAIN: tenant.domain },
    });
    expect([code, stderr]).toEqual([
      2,
      "pulumi-tenant snapshot: --out FILE is required: the seed file to write\n",
    ]);
    expect(tenant.requests().total).toBe(0);
  });

  it("does not overwrite an existing file without --force", async () => {
    const tenant = await started();
    const out = join(dir, "exists.json");
    await writeFile(out, "{}");
    const { code, stderr } = await snapshot(tenant, out);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `pulumi-tenant snapshot: --out ${out}: ${out} already exists; pass --force to overwrite it, ` +
        "or choose another file\n",
    );
    // Checked before the first request.
    expect(tenant.requests().total).toBe(0);
    expect(await readFile(out, "utf8")).toBe("{}");
  });
});

describe("the errors of the test kit", () => {
  it("are TenantErrors of the one registry, with stable codes", () => {
    const errors = [
      new CommandUsageError("--port must be an integer from 0 to 65535"),
      new SeedError("invalid seed: tenant: must be a non-empty string"),
      new LocalTenantError("port 1 on 127.0.0.1 is in use"),
      new SnapshotOutputError("seed.json already exists"),
    ];
    for (const error of errors) expect(error).toBeInstanceOf(TenantError);
    expect(errors.map((e) => [e.name, e.code])).toEqual([
      ["CommandUsageError", ErrorCodes.commandUsage],
      ["SeedError", "ERR_LOCAL_TENANT_SEED"],
      ["LocalTenantError", "ERR_LOCAL_TENANT"],
      ["SnapshotOutputError", "ERR_SNAPSHOT_OUTPUT"],
    ]);
  });

  it("end a command with 2 for a wrong command line, a seed or a port alike", () => {
    expect(
      [new CommandUsageError("x"), new SeedError("x"), new LocalTenantError("x")].map(exitStatusOf),
    ).toEqual([2, 2, 2]);
  });
});

describe("nobody pays for what they do not use", () => {
  it("loads no part of the local tenant with the package, its runtime or its shims", async () => {
    const script = [
      'require("pulumi-tenant");',
      'require("pulumi-tenant/runtime");',
      'require("pulumi-tenant/shims/client-settings");',
      "const loaded = Object.keys(require.cache).filter((f) => /local-tenant|[\\\\/]fastify[\\\\/]|[\\\\/]jose[\\\\/]|selfsigned/.test(f));",
      "process.stdout.write(JSON.stringify(loaded));",
    ].join("\n");
    const { stdout } = await run(process.execPath, ["-e", script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
