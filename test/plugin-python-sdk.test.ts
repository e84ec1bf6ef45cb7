/**
 * The release's Python SDK (provider/plugin/release/python-sdk.ts, docs/design/plugin.md "Python"): what
 * it says on a checkout where `npm ci` did not make its tools. The wheel itself is built and
 * installed end to end in e2e-python.test.ts.
 */
import { chmod, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PluginBuildError } from "../provider/errors.js";
import { writeReleaseTarball } from "../provider/plugin/release/executable.js";
import { writePythonSdk } from "../provider/plugin/release/python-sdk.js";
import { type ReleaseSteps, writeRelease } from "../provider/plugin/release/release.js";
import { PLUGIN_TARGETS } from "../provider/plugin/release/targets.js";

/** An executable shell script at `path` that runs `body`. */
async function script(path: string, body: string): Promise<string> {
  await writeFile(path, `#!/bin/sh\nset -e\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

describe("the release's Python SDK", () => {
  it("says in one sentence which tool npm ci makes is missing, and writes nothing", async () => {
    const out = await mkdtemp(join(tmpdir(), "python-sdk-test-"));
    try {
      const missing = join(out, "no-such-generator");
      await expect(
        writePythonSdk(join(out, "schema.json"), out, { generator: missing }),
      ).rejects.toThrow(
        `the Python SDK needs the SDK generator that npm ci makes (${missing} is missing): run npm ci`,
      );
      expect(await readdir(out)).toEqual([]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it("removes the wheel it wrote when the source distribution cannot be copied after it", async () => {
    const work = await mkdtemp(join(tmpdir(), "python-sdk-test-"));
    try {
      const out = join(work, "out");
      // A generator that writes the package's README, and a Python whose build writes a wheel and,
      // where the source distribution should be, a folder, which cannot be copied as a file.
      const generator = await script(
        join(work, "generator"),
        'mkdir -p "$4/python/pulumi_tenant" && echo readme > "$4/python/pulumi_tenant/README.md"',
      );
      const python = await script(
        join(work, "python"),
        'out="$7"; mkdir -p "$out" && echo wheel > "$out/pulumi_tenant-0.1.0-py3-none-any.whl" && mkdir "$out/pulumi_tenant-0.1.0.tar.gz"',
      );
      await expect(
        writePythonSdk(join(work, "schema.json"), out, { generator, python }),
      ).rejects.toThrow();
      expect(await readdir(out)).toEqual([]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

describe("a release tarball's version", () => {
  it.each(["../../escape", "1.0", "v1.0.0", "1.0.0/../../x", "1.0.0 ", ""])(
    "refuses %j, which is not a semantic version, before it names or writes anything",
    async (version) => {
      const work = await mkdtemp(join(tmpdir(), "release-version-test-"));
      try {
        const target = PLUGIN_TARGETS[0];
        if (target === undefined) throw new Error("no release target");
        await expect(
          writeReleaseTarball(target, join(work, "bundle"), join(work, "out"), version),
        ).rejects.toThrow(
          `the plugin's version ${JSON.stringify(version)} is not a semantic version (MAJOR.MINOR.PATCH, with an optional -prerelease and +build), so it cannot name a release tarball`,
        );
        expect(await readdir(work)).toEqual([]);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  );
});

describe("a release that fails part-way", () => {
  /** A release of two platforms and the Python SDK into a new folder, with stand-in steps. */
  async function release(failAt: "second tarball" | "python") {
    const out = await mkdtemp(join(tmpdir(), "release-cleanup-test-"));
    const targets = PLUGIN_TARGETS.slice(0, 2);
    const steps: ReleaseSteps = {
      tarball: async (target) => {
        if (failAt === "second tarball" && target === targets[1]) {
          throw new PluginBuildError(`no Node.js base for ${target.platform}`);
        }
        const path = join(out, `pulumi-resource-tenant-v0.1.0-${target.platform}.tar.gz`);
        await writeFile(path, "tarball");
        return { target, path, bytes: 7, executableBytes: 7 };
      },
      pythonSdk: async () => {
        throw new PluginBuildError("the Python environment is missing");
      },
    };
    const plan = { targets, python: true, bundle: out, schemaPath: "", version: "0.1.0", out };
    const error = await writeRelease(plan, steps).catch((e: unknown) => e);
    const left = await readdir(out);
    await rm(out, { recursive: true, force: true });
    return { error, left };
  }

  it("removes the tarball it wrote when the next platform's fails", async () => {
    const { error, left } = await release("second tarball");
    expect(error).toBeInstanceOf(PluginBuildError);
    expect(left).toEqual([]);
  });

  it("removes every tarball it wrote when the Python SDK fails after them", async () => {
    const { error, left } = await release("python");
    expect((error as Error).message).toBe("the Python environment is missing");
    expect(left).toEqual([]);
  });
});
