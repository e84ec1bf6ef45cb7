import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/installed-package.js";
import {
  CLI_MODULES,
  ensurePulumiCli,
  findPulumiCli,
  lockedPulumiVersion,
  pinnedCliVersions,
} from "./support/pulumi-cli.js";

const run = promisify(execFile);
const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A folder holding only a `pulumi` script that answers `pulumi version` with `answer`. */
async function fakePulumiOnPath(answer: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-fake-pulumi-"));
  temps.push(dir);
  const script = join(dir, "pulumi");
  await writeFile(script, `#!/bin/sh\necho ${answer}\n`);
  await chmod(script, 0o755);
  return dir;
}

/** The `require` lines of a go.mod, module to version. */
async function goRequires(version: string): Promise<Record<string, string>> {
  const text = await readFile(join(CLI_MODULES, `v${version}`, "go.mod"), "utf8");
  return Object.fromEntries(
    [...text.matchAll(/^\s*(github\.com\/pulumi\/pulumi\/\S+)\s+(v\S+)/gm)].map((m) => [
      m[1],
      m[2],
    ]),
  );
}

describe("the pinned pulumi CLI", () => {
  it("is built from a Go module pinned at the @pulumi/pulumi version that the lock installs", async () => {
    const locked = lockedPulumiVersion();
    expect(await pinnedCliVersions()).toContain(locked);
    expect(await goRequires(locked)).toEqual({
      "github.com/pulumi/pulumi/pkg/v3": `v${locked}`,
      "github.com/pulumi/pulumi/sdk/v3": `v${locked}`,
    });
  });

  it("pins pkg and sdk at its folder's version in every Go module", async () => {
    for (const version of await pinnedCliVersions()) {
      const requires = await goRequires(version);
      expect(requires["github.com/pulumi/pulumi/pkg/v3"]).toBe(`v${version}`);
      expect(requires["github.com/pulumi/pulumi/sdk/v3"]).toBe(`v${version}`);
    }
  });

  it("answers its pinned version, as the tests find it", async () => {
    const cli = await ensurePulumiCli();
    const { stdout } = await run(cli.path, ["version"], {
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
    expect(stdout.trim()).toBe(`v${lockedPulumiVersion()}`);
  });
});

describe("finding the pulumi CLI", () => {
  it("takes PULUMI_CLI first, whatever is on PATH", async () => {
    const onPath = await fakePulumiOnPath(`v${lockedPulumiVersion()}`);
    const chosen = await fakePulumiOnPath("v3.1.0");
    const cli = await findPulumiCli(lockedPulumiVersion(), {
      PATH: onPath,
      PULUMI_CLI: join(chosen, "pulumi"),
    });
    expect(cli).toEqual({ path: join(chosen, "pulumi"), version: "v3.1.0", source: "PULUMI_CLI" });
  });

  it("takes a pulumi on PATH that reports the pinned version", async () => {
    const dir = await fakePulumiOnPath("v3.0.1");
    const cli = await findPulumiCli("3.0.1", { PATH: dir });
    expect(cli).toEqual({ path: join(dir, "pulumi"), version: "v3.0.1", source: "PATH" });
  });

  it("passes over a pulumi on PATH of another version", async () => {
    const dir = await fakePulumiOnPath("v3.0.2");
    expect(await findPulumiCli("3.0.1", { PATH: dir })).toBeUndefined();
  });

  it("takes the one built from the Go module when nothing else is given", async () => {
    const cli = await findPulumiCli(lockedPulumiVersion(), { PATH: "" });
    expect(cli).toEqual({
      path: join(REPO_ROOT, ".pulumi-cli", `v${lockedPulumiVersion()}`, "pulumi"),
      version: `v${lockedPulumiVersion()}`,
      source: "built",
    });
  });

  it("names both ways to get one on a machine with neither Go nor such a pulumi", async () => {
    const dir = await fakePulumiOnPath("v3.0.2");
    await expect(ensurePulumiCli("3.0.1", { PATH: dir })).rejects.toThrow(
      "no pulumi CLI v3.0.1 here: set PULUMI_CLI to a pulumi v3.0.1 (or put one on PATH), " +
        "or install Go 1.26 and run `npm ci`, which builds it from test/pulumi-cli/v3.0.1.",
    );
  });
});

describe("npm run build", () => {
  it("leaves the package's command executable", async () => {
    const cli = join(REPO_ROOT, "dist", "provider", "cli.js");
    expect((await stat(cli)).mode & 0o111).toBe(0o111);
    const { stdout } = await run(cli, ["--help"]);
    expect(stdout).toContain("generate");
  });
});
