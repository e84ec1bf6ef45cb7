/**
 * The recipe of README "Testing your own program", as a user runs it: `examples/testing/` in a
 * fresh project that installed the packed package (with vitest, TypeScript and the local tenant's
 * optional peers), its own vitest run, the Automation API driving the pinned pulumi CLI through
 * preview, up, the drift gate and destroy against a local tenant seeded from a snapshot.
 */

import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InstalledProject } from "./support/installed-package.js";
import { ensurePulumiCli } from "./support/pulumi-cli.js";
import { automationEnv, installTestingExample } from "./support/testing-kit.js";

const run = promisify(execFile);

let project: InstalledProject;
let home: string;

beforeAll(async () => {
  [project, home] = await Promise.all([
    installTestingExample(),
    mkdtemp(join(tmpdir(), "tenant-testing-home-")),
  ]);
}, 600_000);

afterAll(async () => {
  await Promise.all([project?.remove(), rm(home, { recursive: true, force: true })]);
});

describe("examples/testing, installed from the packed package", () => {
  it("passes its own vitest run: preview, up, the drift gate and destroy against the seeded local tenant", async () => {
    const cli = await ensurePulumiCli();
    const vitest = join(project.dir, "node_modules", "vitest", "vitest.mjs");
    const { stdout } = await run(process.execPath, [vitest, "run", "--reporter=verbose"], {
      cwd: project.dir,
      env: automationEnv(cli, home),
      timeout: 540_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`the example's tests failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    expect(stdout).toMatch(/Tests\s+5 passed \(5\)/);
  }, 600_000);
});
