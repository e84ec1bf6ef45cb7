/**
 * The recipe of docs/guides/testing-your-program.md, as a user runs it: `examples/testing/` in a
 * fresh project that installed the packed package (with vitest, TypeScript and the local tenant's
 * optional peers), its own vitest run, the Automation API driving the pinned pulumi CLI through
 * preview, up, the drift gate and destroy against a local tenant seeded from a snapshot; and a
 * test of that project that times out in the middle of `up`, which leaves no process behind.
 */

import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { type InstalledProject, installPackedPackage } from "./support/installed-package.js";
import { DEFAULT_NODE_LINE, findNodeRuntime } from "./support/node-runtimes.js";
import { ensurePulumiCli } from "./support/pulumi-cli.js";
import { automationEnv, installTestingExample } from "./support/testing-kit.js";

const run = promisify(execFile);

let project: InstalledProject;
let home: string;

beforeAll(
  async () => {
    [project, home] = await Promise.all([
      installTestingExample(),
      mkdtemp(join(tmpdir(), "tenant-testing-home-")),
    ]);
  },
  budget({ installs: 1 }),
);

afterAll(async () => {
  await Promise.all([project?.remove(), rm(home, { recursive: true, force: true })]);
});

describe("examples/testing, installed from the packed package", () => {
  it(
    "passes its own vitest run: preview, up, the drift gate and destroy against the seeded local tenant",
    async () => {
      const cli = await ensurePulumiCli();
      const vitest = join(project.dir, "node_modules", "vitest", "vitest.mjs");
      const node = findNodeRuntime(DEFAULT_NODE_LINE).node;
      const { stdout } = await run(node, [vitest, "run", "--reporter=verbose"], {
        cwd: project.dir,
        env: automationEnv(cli, home),
        timeout: STEP_BOUNDS_MS.exampleTests,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(
          `the example's tests failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`,
        );
      });
      expect(stdout).toMatch(/Tests\s+5 passed \(5\)/);
    },
    budget({ exampleTests: 1 }),
  );
});

/** A test of the project's that times out in the middle of `up`, against a tenant that never answers. */
const TIMED_OUT_TEST = `import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { automation } from "@pulumi/pulumi";
import { type LocalTenant, startLocalTenant } from "pulumi-tenant/testing";
import { afterAll, beforeAll, it } from "vitest";

let tenant: LocalTenant;
let stack: automation.Stack;

/** The processes running this project's Pulumi programs and providers. */
function engineProcesses(): number {
  const marker = join(import.meta.dirname, "node_modules", "@pulumi", "pulumi", "cmd");
  return readdirSync("/proc").filter((pid) => {
    try {
      return readFileSync(\`/proc/\${pid}/cmdline\`, "utf8").includes(marker);
    } catch {
      return false;
    }
  }).length;
}

beforeAll(async () => {
  tenant = await startLocalTenant({
    seed: join(import.meta.dirname, "tenant-seed.json"),
    faults: "latency=600000",
  });
  const state = await mkdtemp(join(tmpdir(), "tenant-timeout-state-"));
  stack = await automation.LocalWorkspace.createOrSelectStack(
    { stackName: "timeout", workDir: import.meta.dirname },
    {
      envVars: { PULUMI_BACKEND_URL: \`file://\${state}\`, PULUMI_CONFIG_PASSPHRASE: "test-only" },
      secretsProvider: "passphrase",
    },
  );
  await stack.setAllConfig(tenant.stackConfig());
}, 180_000);

afterAll(async () => {
  process.stdout.write(\`engine processes before stop: \${engineProcesses()}\\n\`);
  await tenant.stop();
}, 60_000);

it("times out in the middle of up", async () => {
  await stack.up();
}, 60_000);
`;

describe.runIf(process.platform === "linux")(
  "a test of the project that times out in the middle of up",
  () => {
    it(
      "leaves no process of Pulumi's behind once vitest is done, the kit's stop() having ended them",
      async () => {
        const cli = await ensurePulumiCli();
        await writeFile(join(project.dir, "timeout.test.ts"), TIMED_OUT_TEST);
        const vitest = join(project.dir, "node_modules", "vitest", "vitest.mjs");
        const node = findNodeRuntime(DEFAULT_NODE_LINE).node;
        const failed = await run(node, [vitest, "run", "timeout.test.ts"], {
          cwd: project.dir,
          env: automationEnv(cli, home),
          timeout: STEP_BOUNDS_MS.exampleTests,
          maxBuffer: 16 * 1024 * 1024,
        }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
        expect(failed).toMatchObject({ code: 1 });
        const { stdout = "", stderr = "" } = failed as { stdout?: string; stderr?: string };
        const output = stdout + stderr;
        expect(output).toContain("Test timed out in 60000ms");
        const before = Number(/engine processes before stop: (\d+)/.exec(output)?.[1]);
        expect(before).toBeGreaterThan(0);
        const marker = join(project.dir, "node_modules", "@pulumi", "pulumi", "cmd");
        expect(await processesNaming(marker)).toEqual([]);
      },
      budget({ exampleTests: 1 }),
    );
  },
);

/** The command lines of the running processes that name `text`. */
async function processesNaming(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir("/proc")) {
    const command = await readFile(join("/proc", pid, "cmdline"), "utf8").catch(() => "");
    if (command.includes(text)) found.push(command.replaceAll("\0", " "));
  }
  return found;
}

describe("a project that installed the package without the local tenant's packages", {
  timeout: budget({ node: 1 }),
}, () => {
  let plain: InstalledProject;
  const MISSING =
    "the local tenant needs fastify, @fastify/formbody, jose, which are not installed: run npm install --save-dev fastify @fastify/formbody jose (optional peer dependencies of pulumi-tenant, which programs that do not test need not install)";

  beforeAll(
    async () => {
      plain = await installPackedPackage();
    },
    budget({ installs: 1 }),
  );

  afterAll(async () => {
    await plain?.remove();
  });

  it("gets from startLocalTenant an error naming the packages to install", async () => {
    const script =
      'require("pulumi-tenant/testing").startLocalTenant().catch((e) => process.stdout.write(e.code + ": " + e.message))';
    const { stdout } = await run(process.execPath, ["-e", script], {
      cwd: plain.dir,
      timeout: STEP_BOUNDS_MS.node,
    });
    expect(stdout).toBe(`ERR_LOCAL_TENANT: ${MISSING}`);
  });

  it("gets the same sentence from pulumi-tenant local-tenant, which exits 4 for a part the installation lacks", async () => {
    const cli = join(plain.dir, "node_modules", "pulumi-tenant", "dist", "provider", "cli.js");
    const failed = await run(process.execPath, [cli, "local-tenant"], {
      cwd: plain.dir,
      timeout: STEP_BOUNDS_MS.node,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 4, stderr: `pulumi-tenant local-tenant: ${MISSING}\n` });
  });

  it("gets pulumi-tenant local-tenant --help all the same, which says what the server needs and where its documentation is", async () => {
    const cli = join(plain.dir, "node_modules", "pulumi-tenant", "dist", "provider", "cli.js");
    const { stdout, stderr } = await run(process.execPath, [cli, "local-tenant", "--help"], {
      cwd: plain.dir,
      timeout: STEP_BOUNDS_MS.node,
    });
    expect(stderr).toBe("");
    expect(stdout).toMatch(
      /^Usage: pulumi-tenant local-tenant \[options\] \[-- COMMAND ARGS\.\.\.\]\n/,
    );
    expect(stdout).toContain(
      "Needs fastify, @fastify/formbody\nand jose (selfsigned for --tls) installed beside pulumi-tenant. Every route, flag and option:\nhttps://github.com/pulumi-tenant/pulumi-tenant/blob/main/docs/design/local-tenant.md\n",
    );
  });
});
