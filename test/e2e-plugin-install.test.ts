/**
 * How users get the provider plugin (docs/design/plugin.md): `npm install -g pulumi-tenant`, after which
 * the real pulumi CLI finds `pulumi-resource-tenant` on PATH; `pulumi package get-schema` on the
 * installed plugin; and the launcher's one sentence when no Node.js 22 or later is on PATH.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { example, startStack, undoAfterEach } from "./support/e2e.js";
import { REPO_ROOT } from "./support/installed-package.js";
import { DEFAULT_NODE_LINE, findNodeRuntime } from "./support/node-runtimes.js";
import { type GlobalInstall, installGlobally } from "./support/user-project.js";

const run = promisify(execFile);
const undo = undoAfterEach();
const node = findNodeRuntime(DEFAULT_NODE_LINE);
let installed: GlobalInstall;

beforeAll(
  async () => {
    installed = await installGlobally(node);
  },
  budget({ installs: 1 }),
);
afterAll(async () => {
  await installed?.remove();
});

/** PATH as a user's shell has it after the global install: Node.js, npm's bin folder, the rest. */
function userPath(): string {
  return [dirname(node.node), installed.bin, process.env.PATH].join(":");
}

describe("the plugin installed by npm install -g", () => {
  it(
    "is found on PATH by pulumi, which runs the YAML program with it",
    async () => {
      const stack = await startStack(example("yaml"), {
        "tenant-yaml:portalClientId": { value: "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1" },
        "tenant-yaml:dashboardClientId": { value: "T4qndmP50BA6aztVxtRVWGxCwFgWDETX" },
        "tenant-yaml:partnerClientId": { value: "GYbdYoorpmT36DCgXSvFh0bSV7shxf65" },
        "tenant-yaml:staleEventStreamId": { value: "est_O84nSDdMeE4qFON6OlztEs" },
        "tenant-yaml:stagingDomain": { value: "https://staging.tenants.example" },
        "tenant-yaml:stagingClientId": { value: "staging" },
        "tenant-yaml:stagingClientSecret": { value: "staging-secret", secret: true },
        "tenant-yaml:stagingPortalClientId": { value: "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1" },
      });
      undo(() => stack.stop());
      const preview = await stack.run("preview", {
        env: { PATH: userPath(), PULUMI_IGNORE_AMBIENT_PLUGINS: undefined },
      });
      expect(preview.error, preview.output).toBeUndefined();
      expect(preview.counts).toEqual({ create: 6 });
      expect(preview.output).toContain(
        `using pulumi-resource-tenant from $PATH at ${join(installed.bin, "pulumi-resource-tenant")}`,
      );
      expect(stack.api.stats().api).toBe(0);
    },
    budget({ pulumi: 1 }),
  );

  it(
    "serves the schema the build made to pulumi package get-schema",
    async () => {
      const stack = await startStack(example("yaml"), {});
      undo(() => stack.stop());
      await stack.run("preview", { env: { PATH: userPath() } });
      const printed = await stack.project.cliCommand(
        ["package", "get-schema", join(installed.bin, "pulumi-resource-tenant")],
        { PATH: userPath() },
      );
      const built = await readFile(
        join(REPO_ROOT, "dist", "provider", "plugin", "schema.json"),
        "utf8",
      );
      expect(JSON.parse(printed)).toEqual(JSON.parse(built));
    },
    budget({ pulumi: 1, pulumiCommands: 1 }),
  );
});

describe("the plugin's launcher", () => {
  const launcher = join(REPO_ROOT, "dist", "provider", "plugin", "pulumi-resource-tenant");

  async function stderrOf(path: string): Promise<string> {
    try {
      await run("/bin/sh", [launcher], { env: { PATH: path }, timeout: STEP_BOUNDS_MS.node });
    } catch (error) {
      return String((error as { stderr?: unknown }).stderr).trim();
    }
    throw new Error("the launcher started without a Node.js it accepts");
  }

  it("says in one sentence that it needs Node.js when there is none on PATH", async () => {
    expect(await stderrOf("/nonexistent")).toBe(
      "pulumi-resource-tenant needs Node.js 22 or later on PATH, and found no node there: install it from https://nodejs.org/en/download (or run nvm install 22)",
    );
  });

  it("says in one sentence which Node.js it found when it is older than 22", async () => {
    // A stand-in `node` that answers as Node.js 18 does.
    const bin = await mkdtemp(join(tmpdir(), "tenant-old-node-"));
    undo(() => rm(bin, { recursive: true, force: true }));
    await writeFile(
      join(bin, "node"),
      '#!/bin/sh\ncase "$1" in --version) echo v18.20.8 ;; *) echo 18 ;; esac\n',
      { mode: 0o755 },
    );
    expect(await stderrOf(bin)).toBe(
      "pulumi-resource-tenant needs Node.js 22 or later on PATH, and found Node.js v18.20.8: install it from https://nodejs.org/en/download (or run nvm install 22)",
    );
  });
});
