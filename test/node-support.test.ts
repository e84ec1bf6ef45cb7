/**
 * The Node.js lines said, not crashed into (issue 62): which lines run the package and which strip
 * a TypeScript program's types (provider/node-support.ts); the sentence `pulumi-tenant`, the
 * package's main and `generate` say on a Node.js they cannot use; and, where this machine has a
 * Node.js 20 (PULUMI_TENANT_NODE_20, or a `node` on PATH outside node_modules), the built command
 * and `require("pulumi-tenant")` run by it, which say that sentence and nothing else.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGenerate } from "../provider/generate/command.js";
import {
  runsPackage,
  stripsTypes,
  typeStrippingSentence,
  unsupportedNodeSentence,
} from "../provider/node-support.js";
import { type LocalTenant, startLocalTenant } from "../provider/testing.js";
import { STEP_BOUNDS_MS } from "./support/budgets.js";
import { REPO_ROOT } from "./support/installed-package.js";

const run = promisify(execFile);

const SENTENCE_20 =
  "pulumi-tenant needs Node.js 22 or later (22.18 or later to run a TypeScript program), and this is Node.js 20.20.2: install it from https://nodejs.org/en/download (or run nvm install 22)";

/** A Node.js 20 of this machine, if it has one: the variable's, else the first on PATH. */
function node20(): string | undefined {
  const candidates = [
    process.env.PULUMI_TENANT_NODE_20,
    ...(process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => dir !== "" && !dir.includes("node_modules"))
      .map((dir) => join(dir, "node")),
  ];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    try {
      const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim();
      if (version.startsWith("v20.")) return candidate;
    } catch {
      // Not there, or not a Node.js.
    }
  }
  return undefined;
}

describe("the Node.js lines", () => {
  it("run the package from 22 on", () => {
    expect(
      ["20.20.2", "v21.7.3", "22.0.0", "22.12.0", "24.21.0", "26.10.0"].map(runsPackage),
    ).toEqual([false, false, true, true, true, true]);
  });

  it("strip a TypeScript program's types from 22.18, 23.6 and 24 on", () => {
    expect(
      ["20.20.2", "22.17.1", "22.18.0", "v22.23.3", "23.5.0", "23.6.0", "24.0.0"].map(stripsTypes),
    ).toEqual([false, false, true, true, false, true, true]);
  });

  it("are said in one sentence naming the Node.js needed, the one found and how to get it", () => {
    expect(unsupportedNodeSentence("pulumi-tenant", "v20.20.2")).toBe(SENTENCE_20);
    expect(unsupportedNodeSentence("pulumi-tenant", "22.0.0")).toBeUndefined();
    expect(typeStrippingSentence("adopt", "22.12.0")).toBe(
      'the project in adopt runs index.ts by Node.js\'s type stripping, which needs Node.js 22.18 or later, and this is Node.js 22.12.0: install it from https://nodejs.org/en/download (or run nvm install 22) before pulumi preview, or it fails with Unknown file extension ".ts"',
    );
    expect(typeStrippingSentence("adopt", "22.18.0")).toBeUndefined();
  });
});

describe("generate on a Node.js that cannot run the project it writes", () => {
  let tenant: LocalTenant;
  let dir: string;
  beforeAll(async () => {
    tenant = await startLocalTenant();
    dir = await mkdtemp(join(tmpdir(), "node-support-"));
  });
  afterAll(async () => {
    await tenant?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("writes it and says which Node.js it needs", async () => {
    let stderr = "";
    const out = join(dir, "adopt");
    const code = await runGenerate(["--out", out, "--quiet"], {
      stdout: () => undefined,
      stderr: (text) => {
        stderr += text;
      },
      env: {
        TENANT_DOMAIN: tenant.domain,
        TENANT_CLIENT_ID: tenant.readOnly.clientId,
        TENANT_CLIENT_SECRET: tenant.readOnly.clientSecret,
      },
      nodeVersion: "22.12.0",
    });
    expect(code).toBe(0);
    expect(stderr).toContain(`warning: ${typeStrippingSentence(out, "22.12.0")}\n`);
  });
});

const old = node20();

describe.runIf(old !== undefined)("Node.js 20 running the built package", () => {
  it("gets from pulumi-tenant one sentence and exit status 4", async () => {
    const failed = await run(old ?? "", [join(REPO_ROOT, "dist", "provider", "cli.js"), "--help"], {
      timeout: STEP_BOUNDS_MS.node,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    const version = execFileSync(old ?? "", ["--version"], { encoding: "utf8" })
      .trim()
      .slice(1);
    expect(failed).toMatchObject({
      code: 4,
      stdout: "",
      stderr: `pulumi-tenant: ${unsupportedNodeSentence("pulumi-tenant", version)}\n`,
    });
  });

  it('gets from require("pulumi-tenant") that sentence as a TenantInstallError', async () => {
    const script =
      'try { require("pulumi-tenant") } catch (e) { process.stdout.write(e.name + " " + e.code + ": " + e.message) }';
    const { stdout } = await run(old ?? "", ["-e", script], {
      cwd: REPO_ROOT,
      timeout: STEP_BOUNDS_MS.node,
    });
    const version = execFileSync(old ?? "", ["--version"], { encoding: "utf8" })
      .trim()
      .slice(1);
    expect(stdout).toBe(
      `TenantInstallError ERR_TENANT_INSTALL: ${unsupportedNodeSentence("pulumi-tenant", version)}`,
    );
  });
});
