/**
 * The commands as a new user meets them, run as the user runs them (`node dist/provider/cli.js`,
 * so `/tmp/build-lite.sh` or `npm run build` first): a tenant that cannot be reached fails at once
 * in one sentence with its likely fix, messages name the flags and variables typed, one exit status
 * per kind of mistake across the commands (docs/guides/commands.md), outputs checked before the
 * first request, and `local-tenant -- CMD` passing its signals on.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AxiosError } from "axios";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeTransportFailure } from "../provider/api/transport-failures.js";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";

const ROOT = join(__dirname, "..");
const CLI = join(ROOT, "dist", "provider", "cli.js");

/** What a run of the command left. */
interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs `pulumi-tenant ARGS` with only `env` (and PATH) set, bounded by `timeoutMs`. */
function cli(args: readonly string[], env: Record<string, string> = {}, timeoutMs = 30_000) {
  const started = Date.now();
  return new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

/** An address where nothing listens: a port just given up by a server. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Listens on 127.0.0.1, port 0. */
async function listen<T extends Server | TcpServer>(
  server: T,
): Promise<{ server: T; port: number }> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { server, port: (server.address() as { port: number }).port };
}

const READING = ["audit", "generate", "snapshot"] as const;

/** Every child a test spawned: one a failed test left running is killed after the file. */
const spawned = new Set<ChildProcess>();

/** `spawn`, remembered in {@link spawned}. */
function start(...args: Parameters<typeof spawn>): ChildProcess {
  const child = spawn(...args);
  spawned.add(child);
  child.on("exit", () => spawned.delete(child));
  return child;
}

let dir: string;
let tenant: TenantApi;
let tlsTenant: TenantApi;
let plain: { server: Server; port: number };
let silent: { server: TcpServer; port: number };
let flaky: { server: Server; port: number };
let refusedPort: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "commands-cli-"));
  [tenant, tlsTenant] = await Promise.all([startTenantApi(), startTenantApi({ tls: true })]);
  // A plain HTTP server, reached with https:// by a user who left out http://.
  plain = await listen(createServer((_, response) => response.end("{}")));
  // A port that accepts connections and never answers.
  silent = await listen(createTcpServer(() => undefined));
  // The local tenant behind a gateway that answers its first API request 503: a failure that heals.
  let first = true;
  flaky = await listen(
    createServer((incoming, outgoing) => {
      if (first && incoming.url?.startsWith("/api/v2/")) {
        first = false;
        outgoing.writeHead(503, { "content-type": "application/json" });
        outgoing.end('{"statusCode":503,"error":"Service Unavailable"}');
        return;
      }
      const target = new URL(tenant.domain);
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: { ...incoming.headers, host: target.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forward);
    }),
  );
  refusedPort = await closedPort();
});

afterAll(async () => {
  for (const child of spawned) child.kill("SIGKILL");
  await Promise.all([tenant?.stop(), tlsTenant?.stop()]);
  plain?.server.close();
  silent?.server.close();
  flaky?.server.close();
  await rm(dir, { recursive: true, force: true });
});

/** The environment of a user who reads `domain` with the local tenant's read-only client. */
const credentials = (domain: string, api: TenantApi = tenant) => ({
  TENANT_DOMAIN: domain,
  TENANT_CLIENT_ID: api.readOnly.clientId,
  TENANT_CLIENT_SECRET: api.readOnly.clientSecret,
});

/** The arguments of each reading command, writing into `dir` under `name`. */
function argsOf(command: (typeof READING)[number], name: string): string[] {
  if (command === "audit") return ["audit", "--out", join(dir, `${name}.txt`)];
  if (command === "generate") return ["generate", "--out", join(dir, name)];
  return ["snapshot", "--out", join(dir, `${name}.json`)];
}

describe("a tenant that cannot be reached", () => {
  it.each(READING)(
    "fails %s at once on a refused connection, asking whether the tenant runs",
    async (command) => {
      const origin = `http://127.0.0.1:${refusedPort}`;
      const run = await cli(argsOf(command, `refused-${command}`), credentials(origin));
      expect(run.code).toBe(3);
      expect(run.ms).toBeLessThan(10_000);
      expect(run.stderr).toBe(
        `pulumi-tenant ${command}: reading the tenant: ` +
          `getting an access token from ${origin}/oauth/token failed: the connection was refused ` +
          "(ECONNREFUSED): is the tenant running at that address and port?\n",
      );
    },
  );

  it("tells a user who reached a plain http:// tenant with https:// to write http://", async () => {
    const origin = `https://127.0.0.1:${plain.port}`;
    const run = await cli(["audit"], { TENANT_DOMAIN: origin, TENANT_API_TOKEN: "t" });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      `pulumi-tenant audit: reading the tenant: GET /clients could not reach ${origin}: it does ` +
        "not answer in TLS (EPROTO): a local tenant started without --tls is reached with " +
        `http://, e.g. http://127.0.0.1:${plain.port}\n`,
    );
  });

  it("points at NODE_EXTRA_CA_CERTS and the caFile for a TLS local tenant not trusted", async () => {
    const run = await cli(["audit"], credentials(tlsTenant.domain, tlsTenant));
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      `pulumi-tenant audit: reading the tenant: getting an access token from ${tlsTenant.tokenUrl} ` +
        "failed: its certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN): for a local tenant " +
        "started with --tls, set NODE_EXTRA_CA_CERTS to the caFile it printed; else check the CA " +
        "bundle\n",
    );
  });

  it("says to check the secret when the token endpoint answers 401", async () => {
    const run = await cli(["audit"], {
      ...credentials(tenant.domain),
      TENANT_CLIENT_SECRET: "not-the-secret",
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      `pulumi-tenant audit: reading the tenant: getting an access token for client ` +
        `${tenant.readOnly.clientId} from ${tenant.tokenUrl} failed with 401 access_denied: ` +
        `Unauthorized; check the client secret given for client ${tenant.readOnly.clientId}\n`,
    );
  });

  it("gives up on a server that does not answer after the request timeout, saying so", async () => {
    const origin = `http://127.0.0.1:${silent.port}`;
    const run = await cli(["audit"], {
      TENANT_DOMAIN: origin,
      TENANT_API_TOKEN: "t",
      TENANT_REQUEST_TIMEOUT_SECONDS: "1",
    });
    expect(run.code).toBe(3);
    expect(run.ms).toBeLessThan(15_000);
    expect(run.stderr).toBe(
      `pulumi-tenant audit: reading the tenant: GET /clients got no answer from ${origin} within ` +
        "1 s (1 attempt); gave up: is a tenant listening there? " +
        "(TENANT_REQUEST_TIMEOUT_SECONDS sets the wait)\n",
    );
  });

  it("retries a failure that may heal with a line saying so, and goes on", async () => {
    const origin = `http://127.0.0.1:${flaky.port}`;
    const run = await cli(["audit", "--format", "json"], {
      ...credentials(origin),
      TENANT_AUDIENCE: tenant.audience,
    });
    // Read and judged: 0 or 1 (the local tenant's own clients break advisory rules), never 3.
    expect([0, 1]).toContain(run.code);
    expect(run.stderr).toMatch(
      new RegExp(
        `^GET ${origin}/api/v2/clients: answered 503, which may heal; retrying in 1 s \\(retry 1 of 8\\)\n`,
      ),
    );
  });

  it("names an unknown host and says to check the domain's spelling", () => {
    const error = new AxiosError("getaddrinfo ENOTFOUND acme.tenants.exmaple", "ENOTFOUND");
    expect(describeTransportFailure(error, "https://acme.tenants.exmaple")).toBe(
      "no such host (ENOTFOUND): check the spelling of the domain",
    );
  });
});

describe("the settings a command names", () => {
  it.each(READING)(
    "%s names the flags and variables when no credentials are given",
    async (command) => {
      const run = await cli(argsOf(command, `none-${command}`));
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `pulumi-tenant ${command}: pulumi-tenant is not configured: give --domain (or ` +
          "TENANT_DOMAIN) and --client-id (or TENANT_CLIENT_ID) with either " +
          "--client-assertion-private-key-file (or TENANT_CLIENT_ASSERTION_PRIVATE_KEY) or " +
          "--client-secret (or TENANT_CLIENT_SECRET), or --api-token (or TENANT_API_TOKEN) alone " +
          "(see --help)\n",
      );
    },
  );

  it("names --domain for a domain with a path given as a flag", async () => {
    const run = await cli(["audit", "--domain", `${tenant.domain}/api/v2`, "--api-token", "t"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `pulumi-tenant audit: --domain "${tenant.domain}/api/v2" must be a host ` +
        "(acme.tenants.example) or an origin (https://acme.tenants.example), without a path, " +
        "query or credentials\n",
    );
  });

  it("names TENANT_RATE_LIMIT_RESERVE when the environment gives a bad reserve", async () => {
    const run = await cli(["generate", "--out", join(dir, "reserve")], {
      ...credentials(tenant.domain),
      TENANT_RATE_LIMIT_RESERVE: "2",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "pulumi-tenant generate: TENANT_RATE_LIMIT_RESERVE must be the share of the tenant's rate " +
        'limit left to its other callers, from 0 (take everything) to below 1 (got "2")\n',
    );
  });
});

describe("one exit status per kind of mistake", () => {
  const refused = () => credentials(`http://127.0.0.1:${refusedPort}`);
  /** Each mistake, the arguments it adds, its environment and the status every command exits with. */
  const mistakes = [
    { mistake: "a mistyped flag", extra: ["--outt", "x"], env: refused, status: 2 },
    { mistake: "no credentials", extra: [], env: () => ({}), status: 2 },
    {
      mistake: "a bad --rate-limit-reserve",
      extra: ["--rate-limit-reserve", "1.5"],
      env: refused,
      status: 2,
    },
    { mistake: "a tenant that refuses connections", extra: [], env: refused, status: 3 },
  ] as const;

  for (const command of READING) {
    for (const { mistake, extra, env, status } of mistakes) {
      it(`${command} exits ${status} for ${mistake}`, async () => {
        const run = await cli([...argsOf(command, `exit-${command}`), ...extra], env());
        expect({ code: run.code, lines: run.stderr.split("\n").length - 1 }).toEqual({
          code: status,
          lines: 1,
        });
      });
    }
  }

  it.each([
    ["audit", ["audit", "--outt", "r.txt"], "--out"],
    ["generate", ["generate", "--clietns", "a"], "--clients"],
    ["snapshot", ["snapshot", "--forse"], "--force"],
    ["local-tenant", ["local-tenant", "--prot", "0"], "--port"],
    ["plugin", ["plugin", "--outt", "dist"], "--out"],
  ] as const)(
    "%s exits 2 for a mistyped flag, in one line naming the flag meant",
    async (command, args, meant) => {
      const run = await cli(args);
      expect(run).toMatchObject({
        code: 2,
        stderr: `pulumi-tenant ${command}: unknown option ${args[1]}; did you mean ${meant}? (see --help)\n`,
      });
    },
  );

  it("exits 2 for a mistyped command, suggesting the one meant", async () => {
    const run = await cli(["genrate"]);
    expect(run).toMatchObject({
      code: 2,
      stderr:
        'pulumi-tenant: unknown command "genrate"; did you mean generate? (pulumi-tenant --help lists them)\n',
    });
  });

  it("exits 2 for a mistyped local-tenant flag, in one line with the flag meant", async () => {
    const run = await cli(["local-tenant", "--prot", "0"]);
    expect(run).toMatchObject({
      code: 2,
      stderr:
        "pulumi-tenant local-tenant: unknown option --prot; did you mean --port? (see --help)\n",
    });
  });

  it("exits 2 for an invalid seed of local-tenant and of audit alike", async () => {
    const seed = join(dir, "bad-seed.json");
    await writeFile(seed, JSON.stringify({ clients: "none" }));
    const [local, audit] = await Promise.all([
      cli(["local-tenant", "--seed", seed]),
      cli(["audit", "--seed", seed]),
    ]);
    expect([local.code, audit.code]).toEqual([2, 2]);
  });
});

describe("outputs checked before the first request", () => {
  // The tenant refuses connections: a command that checked its output first exits 2, one that
  // sent a request first would exit 3.
  const refused = () => credentials(`http://127.0.0.1:${refusedPort}`);

  it("refuses snapshot --out onto an existing file without --force", async () => {
    const file = join(dir, "existing.json");
    await writeFile(file, "{}\n");
    const run = await cli(["snapshot", "--out", file], refused());
    expect(run).toMatchObject({
      code: 2,
      stderr:
        `pulumi-tenant snapshot: --out ${file}: ${file} already exists; pass --force to ` +
        "overwrite it, or choose another file\n",
    });
    expect(await readFile(file, "utf8")).toBe("{}\n");
  });

  it("refuses audit --out into a folder that does not exist", async () => {
    const file = join(dir, "missing", "report.txt");
    const run = await cli(["audit", "--out", file], refused());
    expect(run).toMatchObject({
      code: 2,
      stderr: `pulumi-tenant audit: --out ${file}: the folder ${join(dir, "missing")} does not exist; create it first\n`,
    });
  });

  it("refuses generate --out onto a file", async () => {
    const file = join(dir, "a-file");
    await writeFile(file, "");
    const run = await cli(["generate", "--out", file], refused());
    expect(run).toMatchObject({
      code: 2,
      stderr: `pulumi-tenant generate: --out ${file}: ${file} is a file, not a folder\n`,
    });
  });

  /** A folder this process cannot write in: sysfs for root (whom permission bits do not stop). */
  async function readOnlyFolder(): Promise<string> {
    if (process.getuid?.() === 0 && existsSync("/sys/kernel")) return "/sys/kernel";
    const { chmod, mkdir } = await import("node:fs/promises");
    const folder = join(dir, "read-only");
    await mkdir(folder, { recursive: true });
    await chmod(folder, 0o555);
    return folder;
  }

  it.each([
    ["audit", (folder: string) => ["audit", "--out", join(folder, "r.txt")]],
    ["snapshot", (folder: string) => ["snapshot", "--out", join(folder, "s.json")]],
    ["generate", (folder: string) => ["generate", "--out", join(folder, "project")]],
    ["plugin", (folder: string) => ["plugin", "--out", join(folder, "plugin")]],
  ] as const)("refuses %s --out in a read-only folder in one line, no stack", async (_, args) => {
    const folder = await readOnlyFolder();
    const run = await cli(args(folder), refused());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        `^pulumi-tenant \\w+: --out \\S+: cannot write in ${folder}: permission denied \\(EACCES\\)\n$`,
      ),
    );
  });
});

describe("progress on a long read", () => {
  /** A tenant of 2,000 clients at 2 requests/s: 21 list pages, about 10 s; `onPage` per page. */
  const slowTenant = (onPage: () => void = () => undefined) =>
    startTenantApi({
      extraClients: 2000,
      rateLimit: { rate: 2, burst: 2 },
      onAnswer: (request, status) => {
        if (request.route === "/api/v2/clients" && status === 200) onPage();
      },
    });

  it("writes a line every few seconds in a pipe, with the time left and what bounds it, and none with --quiet", async () => {
    const [shown, quiet] = await Promise.all([slowTenant(), slowTenant()]);
    try {
      const [piped, quieted] = await Promise.all([
        cli(["generate", "--out", join(dir, "piped")], credentials(shown.domain, shown), 60_000),
        cli(
          ["generate", "--quiet", "--out", join(dir, "quiet")],
          credentials(quiet.domain, quiet),
          60_000,
        ),
      ]);
      expect([piped.code, quieted.code]).toEqual([0, 0]);
      const lines = piped.stderr.split("\n").filter((line) => line.includes(" pages ("));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).toMatch(
          /^pulumi-tenant generate: read \d+ of 21 pages \(2,00\d clients\); about \d+ s left: the tenant allows 2 requests\/s$/,
        );
      }
      expect(quieted.stderr).not.toContain(" pages (");
    } finally {
      await Promise.all([shown.stop(), quiet.stop()]);
    }
  });

  it("names the tenant's rate as what held the pages at 2 requests/s, not the reserve nor a 429, with --rate-limit-reserve 0 and with the default reserve", async () => {
    const [none, kept] = await Promise.all([slowTenant(), slowTenant()]);
    try {
      const runs = await Promise.all([
        cli(
          ["generate", "--rate-limit-reserve", "0", "--out", join(dir, "no-reserve")],
          credentials(none.domain, none),
          60_000,
        ),
        cli(
          ["generate", "--out", join(dir, "default-reserve")],
          credentials(kept.domain, kept),
          60_000,
        ),
      ]);
      // What the reserve adds, said only where there is one: a token of a bucket of 2, at 2 a second.
      const reserveAdds = [
        "",
        "; the reserve of 1 token left to its other callers (--rate-limit-reserve 0.25 of the bucket) adds about 0.5 s",
      ];
      runs.forEach((run, i) => {
        expect(run.code, run.stderr).toBe(0);
        const told = run.stderr.split("\n").filter((line) => line.startsWith("pulumi-tenant: "));
        expect(told.length, run.stderr).toBeGreaterThan(0);
        // 21 pages: the first alone, then the other 20 queued at once; at 2 a second, about 10 s.
        for (const line of told) {
          const [, before, after] =
            /^(pulumi-tenant: \d+ requests? to http:\/\/127\.0\.0\.1:\d+ waited up to \d+\.\d s for their turn: the tenant allows 2 requests\/s, and (?:20|21) requests of this run waiting at once take about (?:10|11) s at that rate)(.*)$/.exec(
              line,
            ) ?? [];
          expect(before, line).toBeDefined();
          expect(after).toMatch(/; the tenant had [01] of its 2 tokens left$/);
          expect(after?.replace(/; the tenant had [01] of its 2 tokens left$/, "")).toBe(
            reserveAdds[i],
          );
        }
      });
    } finally {
      await Promise.all([none.stop(), kept.stop()]);
    }
  });

  it("names the ceiling as the flag or the variable that set it, in the progress and in what held the pages, and no other callers", async () => {
    const [flagged, variable] = await Promise.all([slowTenant(), slowTenant()]);
    try {
      const runs = await Promise.all([
        cli(
          ["generate", "--max-requests-per-second", "1", "--out", join(dir, "ceiling-flag")],
          credentials(flagged.domain, flagged),
          60_000,
        ),
        cli(
          ["generate", "--out", join(dir, "ceiling-variable")],
          { ...credentials(variable.domain, variable), TENANT_MAX_REQUESTS_PER_SECOND: "1" },
          60_000,
        ),
      ]);
      const names = ["--max-requests-per-second", "TENANT_MAX_REQUESTS_PER_SECOND"];
      runs.forEach((run, i) => {
        expect(run.code, run.stderr).toBe(0);
        const name = (names[i] ?? "").replace(/-/g, "\\-");
        const progress = run.stderr.split("\n").filter((line) => line.includes(" pages ("));
        const told = run.stderr.split("\n").filter((line) => line.startsWith("pulumi-tenant: "));
        expect(progress.length, run.stderr).toBeGreaterThan(0);
        expect(told.length, run.stderr).toBeGreaterThan(0);
        for (const line of progress) {
          expect(line).toMatch(
            new RegExp(
              `^pulumi-tenant generate: read \\d+ of 21 pages \\(2,00\\d clients\\); about \\d+ s left: this run's ceiling of 1 requests/s \\(${name}\\)$`,
            ),
          );
        }
        for (const line of told) {
          expect(line).toMatch(
            new RegExp(
              `^pulumi-tenant: \\d+ requests? to http://127\\.0\\.0\\.1:\\d+ waited up to \\d+\\.\\d s under this run's ceiling of 1 requests/s \\(${name}\\); the tenant had 1 of its 2 tokens left$`,
            ),
          );
        }
      });
    } finally {
      await Promise.all([flagged.stop(), variable.stop()]);
    }
  });

  it("says in one line what was left undone when stopped with SIGINT", async () => {
    let pages = 0;
    let child: ChildProcess | undefined;
    const api = await slowTenant(() => {
      pages += 1;
      if (pages === 3) child?.kill("SIGINT");
    });
    try {
      child = start(process.execPath, [CLI, "generate", "--out", join(dir, "interrupted")], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", ...credentials(api.domain, api) },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((done) => child?.on("exit", done));
      expect(code).toBe(130);
      expect(stderr).toMatch(
        /pulumi-tenant generate: interrupted after \d+ of 21 pages \(2,00\d clients\); \d+ pages were not read, and nothing was written\n$/,
      );
      expect(existsSync(join(dir, "interrupted"))).toBe(false);
    } finally {
      await api.stop();
    }
  });
});

describe("the local tenant's ready lines", () => {
  it("prints consoleUrl first, lists 20 client ids with the count, and a line for a person on stderr", async () => {
    const child = start(
      process.execPath,
      [CLI, "local-tenant", "--port", "0", "--clients", "100"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    let stderr = "";
    const stderrLine = new Promise<void>((done) =>
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes("\n")) done();
      }),
    );
    const text = await new Promise<string>((done) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) done(out.split("\n")[0] ?? "");
      });
    });
    await stderrLine;
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const line = JSON.parse(text) as { consoleUrl: string; domain: string; clients: string[] };
    expect(Object.keys(line)[0]).toBe("consoleUrl");
    expect(line).toMatchObject({ clientCount: 105 });
    expect(line.clients).toHaveLength(20);
    expect(stderr).toBe(
      `pulumi-tenant local-tenant: tenant local-tenant at ${line.domain} with 105 clients; ` +
        `console ${line.consoleUrl}; stop with Ctrl-C\n`,
    );
  });
});

describe("the local tenant for a person", () => {
  it("answers its root address with a pointer to the API and the console", async () => {
    const answer = await fetch(`${tenant.domain}/`);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { message: string }).message).toBe(
      "Route GET:/ not found; the management API is under /api/v2, the console at /__tenant-api/console",
    );
  });

  it("says on the console page that nothing is recorded while no page is open", async () => {
    const page = await (await fetch(tenant.consoleUrl)).text();
    expect(page.replace(/\s+/g, " ")).toContain(
      "The charts and the requests start when a console page opens: nothing is recorded while none is open",
    );
  });
});

describe("local-tenant -- CMD", () => {
  /** A command that prints its pid, exits 7 on SIGINT, 8 on SIGTERM, and otherwise waits (bounded). */
  const waiting = [
    // The handlers first: the test sends its signal as soon as it reads the pid.
    'for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => process.exit(s === "SIGINT" ? 7 : 8));',
    "setTimeout(() => process.exit(9), 60000);",
    'process.stdout.write(String(process.pid) + "\\n");',
  ].join("\n");

  /** Whether the process `pid` is still there. */
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  /** Starts the wrapper and resolves with its command's pid, which the command prints first. */
  async function started() {
    const child: ChildProcess = start(
      process.execPath,
      [CLI, "local-tenant", "--", process.execPath, "-e", waiting],
      { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] },
    );
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    const pid = await new Promise<number>((done, fail) => {
      let text = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) done(Number(text.split("\n")[0]));
      });
      void exited.then((code) => fail(new Error(`exited with ${code} before its command ran`)));
    });
    return { child, exited, pid };
  }

  it.each([
    ["SIGINT", 7],
    ["SIGTERM", 8],
  ] as const)(
    "passes %s to the command and exits with its status once it is gone",
    async (signal, status) => {
      const { child, exited, pid } = await started();
      child.kill(signal);
      expect(await exited).toBe(status);
      expect(alive(pid)).toBe(false);
    },
  );

  it("leaves no server running when npm run tenant-api is stopped with SIGTERM", async () => {
    const npm = start("npm", ["run", "--silent", "tenant-api", "--", "--port", "0"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const exited = new Promise<number | null>((done) => npm.on("exit", (code) => done(code)));
    const server = await new Promise<number>((done, fail) => {
      let text = "";
      npm.stdout?.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n"))
          done((JSON.parse(text.split("\n")[0] ?? "") as { pid: number }).pid);
      });
      void exited.then((code) => fail(new Error(`npm exited with ${code} before the JSON line`)));
    });
    npm.kill("SIGTERM");
    await exited;
    // npm ends after its script, and the script (exec'd, no shell between) after the server.
    const left = alive(server);
    if (left) process.kill(server, "SIGKILL");
    expect(left).toBe(false);
  });
});
