/**
 * What the testing kit does outside the program under test (issue 62): `editClient`, a change made
 * as someone would in the tenant's dashboard, through the console's route and the API's checks;
 * and `stop()`, which ends the Pulumi engine's processes a timed-out or failed test leaves
 * running, and no other process (provider/local-tenant/engine-processes.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalTenantError } from "../provider/errors.js";
import {
  engineProcessesOf,
  isEngineCommand,
  type ProcessRow,
} from "../provider/local-tenant/engine-processes.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/index.js";
import { startLocalTenant } from "../provider/testing.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kit-outside-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("editClient", () => {
  it("changes a client as the dashboard would, outside the program's requests", async () => {
    await using tenant = await startLocalTenant();
    const shown = await tenant.editClient(PORTAL, {
      callbacks: ["https://evil.example.com/callback"],
    });
    expect(shown.callbacks).toEqual(["https://evil.example.com/callback"]);
    expect(tenant.client(PORTAL)?.callbacks).toEqual(["https://evil.example.com/callback"]);
    expect(tenant.requests().writes).toEqual({});
  });

  it("is refused what the dashboard does not edit, naming the client and what it edits", async () => {
    await using tenant = await startLocalTenant();
    const edit = { oidc_conformant: true } as unknown as Parameters<typeof tenant.editClient>[1];
    await expect(tenant.editClient(PORTAL, edit)).rejects.toEqual(
      new LocalTenantError(
        `editClient "${PORTAL}": the dashboard's edit was refused with 400: The console edits a client's name, description, callbacks, allowed_logout_urls only, not oidc_conformant (it edits name, description, callbacks, allowed_logout_urls)`,
      ),
    );
    expect(tenant.client(PORTAL)?.oidc_conformant).toBe(false);
  });

  it("is refused for a client the tenant does not have, with the API's message", async () => {
    await using tenant = await startLocalTenant();
    await expect(tenant.editClient("nobody", { name: "x" })).rejects.toThrow(
      /^editClient "nobody": the dashboard's edit was refused with 404: /,
    );
  });
});

describe("which processes stop() ends", () => {
  const row = (pid: number, ppid: number, command: string): ProcessRow => ({ pid, ppid, command });

  it("names the engine's processes below this one, deepest first, and nothing else", () => {
    const table = [
      row(1, 0, "/sbin/init"),
      row(10, 1, "node vitest worker"),
      row(20, 10, "/home/u/.pulumi/bin/pulumi up --stack test"),
      row(21, 20, "/home/u/.pulumi/bin/pulumi-language-nodejs localhost:1234"),
      row(22, 21, "node /p/node_modules/@pulumi/pulumi/cmd/run/index.js"),
      row(23, 20, "/bin/sh /home/u/.pulumi/bin/pulumi-resource-pulumi-nodejs"),
      row(24, 23, "node /p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js"),
      row(30, 10, "git status"),
      row(40, 1, "/usr/bin/pulumi up"),
    ];
    expect(engineProcessesOf(table, 10)).toEqual([22, 24, 21, 23, 20]);
    expect(engineProcessesOf(table, 30)).toEqual([]);
  });

  it("knows the engine's commands by name, a script's too", () => {
    expect(
      [
        "pulumi preview",
        "/bin/sh /x/pulumi-resource-tenant",
        "C:\\pulumi\\bin\\pulumi.exe up",
        "pulumi-analyzer-policy",
        "node /x/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js",
        "node server.js",
        "pulumi-tenant local-tenant",
      ].map(isEngineCommand),
    ).toEqual([true, true, true, true, true, false, false]);
  });
});

describe("stop()", () => {
  /** A process that holds `child`'s stdout open, ended when every holder is. */
  const closed = (child: ChildProcess) =>
    new Promise<void>((done) => child.stdout?.on("close", () => done()));

  it.runIf(process.platform !== "win32")(
    "ends a pulumi left running with its plugins and the dynamic-provider host, and leaves other children be",
    // Once, under the whole suite's load, this timed out at 60 s with no step run, and passed
    // alone every time since; one more try keeps a rare stall of the machine from failing the
    // run, while a stop() that leaves a process fails both (the closing note of issue 62 says so).
    { retry: 1 },
    async () => {
      // A stand-in for the pulumi CLI a timed-out `up` leaves: it starts the dynamic-provider
      // host and a plugin, each holding its stdout, and waits for them.
      const host = join(dir, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider");
      await mkdir(host, { recursive: true });
      await writeFile(join(host, "index.js"), "setInterval(() => {}, 60_000);\n");
      const pulumi = join(dir, "pulumi");
      await writeFile(
        pulumi,
        `#!/bin/sh\n"${process.execPath}" "${join(host, "index.js")}" &\nsleep 600 &\necho ready\nwait\n`,
      );
      await chmod(pulumi, 0o755);
      const other = spawn("sleep", ["600"], { stdio: ["ignore", "pipe", "ignore"] });
      const tenant = await startLocalTenant();
      const engine = spawn(pulumi, [], { stdio: ["ignore", "pipe", "ignore"] });
      const gone = closed(engine);
      await new Promise<void>((ready) => engine.stdout?.once("data", () => ready()));

      await tenant.stop();

      await gone; // every process holding the pipe has ended: the script, the host, the plugin
      expect(
        engine.signalCode ?? (await new Promise((e) => engine.once("exit", (_c, s) => e(s)))),
      ).toBe("SIGKILL");
      expect(other.exitCode).toBeNull();
      expect(other.signalCode).toBeNull();
      other.kill();
    },
  );
});
