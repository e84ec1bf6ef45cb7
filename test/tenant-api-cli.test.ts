/**
 * The local tenant's command line (`pulumi-tenant local-tenant`, `npm run tenant-api`), run as a user runs it: a child
 * process that prints one JSON line, serves, and exits 0 on SIGTERM or SIGINT. Also `--seed`,
 * `--tls` and the refusal of bad arguments.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseCliArgs } from "../provider/local-tenant/command.js";
import {
  backgroundSummary,
  beyondLoopbackWarning,
  type CliReadyLine,
} from "../provider/local-tenant/ready-lines.js";
import { RequestStats } from "../provider/local-tenant/stats.js";
import { callApi, fetchToken } from "./support/test-client.js";

const ROOT = join(__dirname, "..");
const TSX_CLI = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const children = new Set<ChildProcess>();

interface Started {
  child: ChildProcess;
  line: CliReadyLine;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Spawns the CLI and waits (bounded) for its JSON line. */
function startCli(command: string, args: string[]): Promise<Started> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
  }>((resolve) => {
    child.on("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stderr });
    });
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no JSON line within 45 s; stderr: ${stderr}`)),
      45_000,
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const newline = stdout.indexOf("\n");
      if (newline >= 0) {
        clearTimeout(timer);
        try {
          resolve({ child, line: JSON.parse(stdout.slice(0, newline)) as CliReadyLine, exited });
        } catch (error) {
          reject(error);
        }
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before its JSON line; stderr: ${stderr}`));
    });
  });
}

/** Runs the CLI to its end (for arguments it refuses). */
async function runCliToEnd(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [TSX_CLI, "provider/cli.ts", "local-tenant", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.on("exit", (code) => {
      children.delete(child);
      resolve({ code, stderr });
    });
  });
}

function httpsGet(url: string, ca?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, ca === undefined ? {} : { ca }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    req.on("error", reject);
    req.setTimeout(15_000, () => req.destroy(new Error("timeout")));
    req.end();
  });
}

afterEach(() => {
  // A test that failed half-way must not leave a server behind.
  for (const child of children) child.kill("SIGKILL");
});

describe("pulumi-tenant local-tenant (npm run tenant-api)", () => {
  it("prints one JSON line, serves the API with the printed credentials, and exits 0 on SIGTERM", async () => {
    const { line, exited } = await startCli("npx", [
      "tsx",
      "provider/cli.ts",
      "local-tenant",
      "--port",
      "0",
      "--rate-limit",
      "5",
      "--burst",
      "10",
      "--token-ttl",
      "120",
      "--faults",
      "latency=0-1",
    ]);
    expect(line.domain).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line).toMatchObject({
      baseUrl: `${line.domain}/api/v2`,
      tokenUrl: `${line.domain}/oauth/token`,
      audience: `${line.domain}/api/v2/`,
      statsUrl: `${line.domain}/__tenant-api/stats`,
      consoleUrl: `${line.domain}/__tenant-api/console`,
      clientId: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      clientSecret: expect.any(String),
      scopes: expect.arrayContaining(["update:clients", "delete:event_streams"]),
      readOnly: { clientId: expect.any(String), clientSecret: expect.any(String) },
    });
    expect(line.clients).toContain(line.clientId);
    expect(line.eventStreams).toHaveLength(2);
    expect(line).not.toHaveProperty("caFile");

    const api = { ...line };
    const tokenAnswer = await callApi<{ expires_in: number }>(api, "POST", line.tokenUrl, {
      json: {
        grant_type: "client_credentials",
        client_id: line.clientId,
        client_secret: line.clientSecret,
        audience: line.audience,
      },
    });
    expect(tokenAnswer.body.expires_in).toBe(120);
    const token = await fetchToken(api);
    const client = await callApi(api, "GET", `/api/v2/clients/${line.clients[0]}`, { token });
    expect(client.status).toBe(200);
    expect(client.headers.get("x-ratelimit-limit")).toBe("10");
    const stats = await callApi<{ api: number }>(api, "GET", line.statsUrl);
    expect(stats.body.api).toBe(1);

    // npm and npx run the bin through `sh -c`, which does not pass signals on: signal the server.
    process.kill(line.pid, "SIGTERM");
    expect((await exited).code).toBe(0);
  });

  it("exits 0 on SIGINT", async () => {
    const { line, exited } = await startCli(process.execPath, [
      TSX_CLI,
      "provider/cli.ts",
      "local-tenant",
      "--port",
      "0",
    ]);
    // The server itself, not tsx's wrapper: the wrapper waits 30 ms for its child to say it took
    // a signal it relays, and on a busy machine kills it with the signal instead (exit 130).
    process.kill(line.pid, "SIGINT");
    expect((await exited).code).toBe(0);
  });

  describe("--seed FILE", () => {
    let dir: string;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "tenant-api-seed-"));
    });

    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("loads another tenant and adds the machine-to-machine clients it lacks", async () => {
      const seedFile = join(dir, "seed.json");
      await writeFile(
        seedFile,
        JSON.stringify({
          tenant: "acme-dev",
          pushProvider: "sns",
          clients: [
            {
              client_id: "AcmeNativeApp00000000000000000001",
              name: "Acme Native",
              app_type: "native",
            },
          ],
          eventStreams: ["est_AcmeStream000000000001"],
        }),
      );
      const { child, line, exited } = await startCli(process.execPath, [
        TSX_CLI,
        "provider/cli.ts",
        "local-tenant",
        "--port",
        "0",
        "--seed",
        seedFile,
      ]);
      expect(line.tenant).toBe("acme-dev");
      expect(line.clients[0]).toBe("AcmeNativeApp00000000000000000001");
      expect(line.clients).toHaveLength(3);
      expect(line.eventStreams).toEqual(["est_AcmeStream000000000001"]);
      const token = await fetchToken(line);
      const provider = await callApi(
        line,
        "GET",
        "/api/v2/guardian/factors/push-notification/selected-provider",
        { token },
      );
      expect(provider.body).toEqual({ provider: "sns" });
      const native = await callApi(line, "GET", `/api/v2/clients/${line.clients[0]}`, { token });
      expect(native.body).toMatchObject({ tenant: "acme-dev", app_type: "native", global: false });
      child.kill("SIGTERM");
      expect((await exited).code).toBe(0);
    });

    it("exits 2 naming every problem of an invalid seed file", async () => {
      const seedFile = join(dir, "bad.json");
      await writeFile(
        seedFile,
        JSON.stringify({ clients: [{ name: "<bad>" }], eventStreams: ["est_short"] }),
      );
      const { code, stderr } = await runCliToEnd(["--port", "0", "--seed", seedFile]);
      expect(code).toBe(2);
      expect(stderr).toContain(
        `pulumi-tenant local-tenant: invalid seed ${seedFile}: clients[0].name: `,
      );
      expect(stderr).toContain(
        'eventStreams[0]: must be exactly 26 characters (got 9) ("est_short")',
      );
    });
  });

  it("serves HTTPS with --tls, trusted only through the printed CA file, which it deletes on exit", async () => {
    const { child, line, exited } = await startCli(process.execPath, [
      TSX_CLI,
      "provider/cli.ts",
      "local-tenant",
      "--port",
      "0",
      "--tls",
    ]);
    expect(line.domain).toMatch(/^https:\/\/localhost:\d+$/);
    const caFile = line.caFile ?? "";
    expect(existsSync(caFile)).toBe(true);
    const ca = await readFile(caFile, "utf8");
    expect(await httpsGet(`${line.domain}/.well-known/jwks.json`, ca)).toBe(200);
    await expect(httpsGet(`${line.domain}/.well-known/jwks.json`)).rejects.toMatchObject({
      code: "SELF_SIGNED_CERT_IN_CHAIN",
    });
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
    expect(existsSync(caFile)).toBe(false);
  });

  it("exits 2 with one line naming the flag meant for an argument it does not know", async () => {
    const { code, stderr } = await runCliToEnd(["--prot", "0"]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      "pulumi-tenant local-tenant: unknown option --prot; did you mean --port? (see --help)\n",
    );
  });

  it("runs the command after -- with the tenant's TENANT_* variables, and exits with its status", async () => {
    const check =
      "process.exit(/^http:\\/\\/127\\.0\\.0\\.1:\\d+$/.test(process.env.TENANT_DOMAIN) && process.env.TENANT_CLIENT_SECRET.length === 64 ? 7 : 3)";
    const { code } = await runCliToEnd(["--port", "0", "--", process.execPath, "-e", check]);
    expect(code).toBe(7);
  });

  it("exits 2 for -- without a command", async () => {
    const { code, stderr } = await runCliToEnd(["--port", "0", "--"]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      "pulumi-tenant local-tenant: -- must be followed by the command to run against the tenant",
    );
  });

  it("writes the background's counts on stderr at stop with --background-load", async () => {
    const { code, stderr } = await runCliToEnd([
      "--background-load",
      "50",
      "--",
      process.execPath,
      "-e",
      "process.exit(0)",
    ]);
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^pulumi-tenant local-tenant: background load 50\/s: \d+ requests, 0 refused with 429 \(the program's: 0 API requests, 0 refused with 429\)\n$/,
    );
  });

  it("exits 2 for a fault spec it cannot read", async () => {
    const { code, stderr } = await runCliToEnd(["--port", "0", "--faults", "error=2"]);
    expect(code).toBe(2);
    expect(stderr).toContain("faults: error must be a share from 0 to 1, got 2");
  });
});

describe("parseCliArgs", () => {
  it("turns the flags into startTenantApi options", () => {
    expect(
      parseCliArgs([
        "--port",
        "8080",
        "--seed",
        "s.json",
        "--rate-limit",
        "2",
        "--burst",
        "50",
        "--faults",
        "error=0.2,drop=0.05,latency=0-300",
        "--token-ttl",
        "60",
        "--tls",
      ]),
    ).toEqual({
      port: 8080,
      host: undefined,
      seed: "s.json",
      rateLimit: { rate: 2, burst: 50 },
      faults: "error=0.2,drop=0.05,latency=0-300",
      tokenTtlSeconds: 60,
      random: undefined,
      tls: true,
    });
  });

  it("turns --background-load into the backgroundLoad option, evenly spaced by default", () => {
    expect(parseCliArgs(["--background-load", "3"])).toMatchObject({
      backgroundLoad: { rate: 3, burst: 1 },
    });
  });

  it("turns --background-burst into the background load's burst", () => {
    expect(parseCliArgs(["--background-load", "0.5", "--background-burst", "5"])).toMatchObject({
      backgroundLoad: { rate: 0.5, burst: 5 },
    });
  });

  it("sets no background load without --background-load", () => {
    expect(parseCliArgs([])).not.toHaveProperty("backgroundLoad");
  });

  it("refuses --background-burst without --background-load", () => {
    expect(() => parseCliArgs(["--background-burst", "5"])).toThrow(
      "--background-burst needs --background-load",
    );
  });

  it("refuses a background load that is not a number greater than 0, naming the flag", () => {
    expect(() => parseCliArgs(["--background-load", "0"])).toThrow(
      '--background-load must be a number greater than 0 and at most 10000 (requests a second), got "0"',
    );
  });

  it("refuses a background burst that is not a whole number, naming the flag", () => {
    expect(() => parseCliArgs(["--background-load", "3", "--background-burst", "2.5"])).toThrow(
      '--background-burst must be an integer from 1 to 10000, got "2.5"',
    );
  });

  it("refuses --burst without --rate-limit", () => {
    expect(() => parseCliArgs(["--burst", "5"])).toThrow("--burst needs --rate-limit");
  });

  it("refuses a port that is not a number", () => {
    expect(() => parseCliArgs(["--port", "http"])).toThrow(
      '--port must be an integer from 0 to 65535, got "http"',
    );
  });
});

describe("backgroundSummary", () => {
  function apiWith(load: { rate: number; burst: number } | null) {
    const stats = new RequestStats();
    stats.record("PATCH", "/api/v2/clients/:id", 200);
    stats.record("PATCH", "/api/v2/clients/:id", 429);
    stats.recordBackground(true);
    stats.recordBackground(false);
    stats.recordBackground(true);
    return { stats: () => stats.snapshot(), backgroundLoad: () => load };
  }

  it("says what the background met and what the program met, 429s apart", () => {
    expect(backgroundSummary(apiWith({ rate: 3, burst: 1 }))).toBe(
      "pulumi-tenant local-tenant: background load 3/s: 3 requests, 1 refused with 429 " +
        "(the program's: 2 API requests, 1 refused with 429)\n",
    );
  });

  it("names the burst when the background sends several requests together", () => {
    expect(backgroundSummary(apiWith({ rate: 3, burst: 6 }))).toContain(
      "background load 3/s, 6 at a time: 3 requests",
    );
  });

  it("says nothing without a background load", () => {
    expect(backgroundSummary(apiWith(null))).toBeUndefined();
  });
});

describe("beyondLoopbackWarning", () => {
  it("warns in one line when the tenant listens beyond loopback", () => {
    expect(beyondLoopbackWarning("0.0.0.0")).toBe(
      "pulumi-tenant local-tenant: warning: listening on 0.0.0.0, beyond loopback: other machines " +
        "can reach this tenant (its console and management API answer them with a token only)\n",
    );
    expect(beyondLoopbackWarning("devbox.lan")).toContain(
      "listening on devbox.lan, beyond loopback",
    );
  });

  it("says nothing on loopback, by address or by name", () => {
    for (const host of [undefined, "127.0.0.1", "127.0.0.2", "::1", "localhost"]) {
      expect(beyondLoopbackWarning(host)).toBeUndefined();
    }
  });
});
