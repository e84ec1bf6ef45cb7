import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import {
  asPulumiSdk,
  installOffline,
  type LockPackages,
  lockSubset,
  missingPackage,
  REPO_ROOT,
  resolveInLock,
} from "./support/installed-package.js";

const run = promisify(execFile);

async function repoLock(): Promise<LockPackages> {
  const lock = JSON.parse(await readFile(join(REPO_ROOT, "package-lock.json"), "utf8"));
  return lock.packages as LockPackages;
}

const nested: LockPackages = {
  "node_modules/a": { version: "1.0.0", dependencies: { b: "^1", c: "^2" } },
  "node_modules/a/node_modules/b": { version: "1.5.0" },
  "node_modules/b": { version: "2.0.0" },
  "node_modules/c": {
    version: "2.1.0",
    dev: true,
    peerDependencies: { d: "*", e: "*" },
    peerDependenciesMeta: { e: { optional: true } },
  },
  "node_modules/d": { version: "3.0.0", optionalDependencies: { "d-linux": "*", "d-win32": "*" } },
  "node_modules/d-linux": { version: "3.0.0", optional: true },
  "node_modules/e": { version: "4.0.0" },
};

describe("the user project's lock file", () => {
  it("resolves a dependency in the requiring package's own node_modules first", () => {
    expect(resolveInLock(nested, "node_modules/a", "b")).toBe("node_modules/a/node_modules/b");
  });

  it("resolves a dependency in an enclosing node_modules when the package has no own copy", () => {
    expect(resolveInLock(nested, "node_modules/a/node_modules/b", "c")).toBe("node_modules/c");
  });

  it("takes every package reachable from the roots at its locked path, and nothing else", () => {
    expect(Object.keys(lockSubset(nested, ["a"])).sort()).toEqual([
      "node_modules/a",
      "node_modules/a/node_modules/b",
      "node_modules/c",
      "node_modules/d",
      "node_modules/d-linux",
    ]);
  });

  it("drops the dev flag, because the user project depends on the packages directly", () => {
    expect(lockSubset(nested, ["c"])["node_modules/c"]).toEqual({
      version: "2.1.0",
      peerDependencies: { d: "*", e: "*" },
      peerDependenciesMeta: { e: { optional: true } },
    });
  });

  it("names the package the lock lacks and who needs it", () => {
    expect(() =>
      lockSubset({ "node_modules/a": { version: "1.0.0", dependencies: { z: "1" } } }, ["a"]),
    ).toThrow(
      "package-lock.json has no entry for z, which a needs: run `npm install` in the repository to complete the lock file",
    );
  });

  it("gives a user project the repository's own version of @pulumi/pulumi and none of its dev tools", async () => {
    const packages = await repoLock();
    const subset = lockSubset(packages, ["@pulumi/pulumi"]);
    expect(subset["node_modules/@pulumi/pulumi"]?.version).toBe(
      packages["node_modules/@pulumi/pulumi"]?.version,
    );
    expect(subset["node_modules/vitest"]).toBeUndefined();
    expect(subset["node_modules/fastify"]).toBeUndefined();
  });
});

describe("a user project on another copy of @pulumi/pulumi", () => {
  const twoCopies: LockPackages = {
    "node_modules/@pulumi/pulumi": { version: "3.259.0", dependencies: { x: "^2" } },
    "node_modules/@pulumi/pulumi/node_modules/x": { version: "2.0.0" },
    "node_modules/@pulumi/pulumi-floor": {
      name: "@pulumi/pulumi",
      version: "3.139.0",
      dependencies: { x: "^1", y: "^1" },
    },
    "node_modules/@pulumi/pulumi-floor/node_modules/y": { version: "1.2.0" },
    "node_modules/x": { version: "1.0.0" },
  };

  it("puts the aliased copy, with what npm nested in it, where @pulumi/pulumi goes", () => {
    expect(asPulumiSdk(twoCopies, "@pulumi/pulumi-floor")).toEqual({
      "node_modules/@pulumi/pulumi": { version: "3.139.0", dependencies: { x: "^1", y: "^1" } },
      "node_modules/@pulumi/pulumi/node_modules/y": { version: "1.2.0" },
      "node_modules/x": { version: "1.0.0" },
    });
  });

  it("keeps the lock as it is for the copy the package builds with", () => {
    expect(asPulumiSdk(twoCopies, "@pulumi/pulumi")).toBe(twoCopies);
  });

  it("names an alias the lock does not hold", () => {
    expect(() => asPulumiSdk(twoCopies, "@pulumi/pulumi-next")).toThrow(
      "package-lock.json has no @pulumi/pulumi-next",
    );
  });
});

describe("an offline install that lacks a package", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it(
    "says which package the npm cache lacks and what fills it",
    async () => {
      const [project, cache] = (await Promise.all(
        ["tenant-offline-project-", "tenant-empty-cache-"].map((prefix) =>
          mkdtemp(join(tmpdir(), prefix)),
        ),
      )) as [string, string];
      dirs.push(project, cache);
      const packages = await repoLock();
      const manifest = {
        name: "p",
        version: "1.0.0",
        dependencies: { "fastest-levenshtein": "*" },
      };
      await writeFile(join(project, "package.json"), JSON.stringify(manifest));
      await writeFile(
        join(project, "package-lock.json"),
        JSON.stringify({
          name: "p",
          version: "1.0.0",
          lockfileVersion: 3,
          requires: true,
          packages: { "": manifest, ...lockSubset(packages, ["fastest-levenshtein"]) },
        }),
      );
      await expect(installOffline(project, cache)).rejects.toThrow(
        `cannot install the packed package offline: fastest-levenshtein is not in the npm cache (${cache}). The user project installs the lock file's versions from the cache that \`npm ci\` fills; run \`npm ci\` in the repository with the same npm cache, then the tests.`,
      );
    },
    budget({ installs: 1 }),
  );

  it("reads the package name out of npm's report of a tarball missing from the cache", () => {
    expect(
      missingPackage(
        "npm error code ENOTCACHED\nnpm error request to https://registry.npmjs.org/@grpc/grpc-js/-/grpc-js-1.14.7.tgz failed: cache mode is 'only-if-cached'",
      ),
    ).toBe("@grpc/grpc-js@1.14.7");
  });
});

describe("the packed package, as the registry and a user see it", {
  timeout: budget({ packs: 1 }),
}, () => {
  /** The files `npm pack` puts in the tarball, and the manifest it packs. */
  async function packed(): Promise<{ files: string[]; manifest: Record<string, unknown> }> {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: REPO_ROOT,
      timeout: STEP_BOUNDS_MS.pack,
    });
    const [result] = JSON.parse(stdout) as [{ files: { path: string }[] }];
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8"));
    return { files: result.files.map((file) => file.path).sort(), manifest };
  }

  it("holds the licence, the changelog and the README beside the built package, and nothing else", async () => {
    const { files } = await packed();
    const outside = files.filter((path) => !path.startsWith("dist/provider/"));
    expect(outside).toEqual(["CHANGELOG.md", "LICENSE", "README.md", "package.json"]);
    const launchers = files.filter((path) => path.endsWith("/pulumi-resource-tenant"));
    expect(launchers.sort()).toEqual([
      "dist/provider/plugin/bundle/pulumi-resource-tenant",
      "dist/provider/plugin/pulumi-resource-tenant",
    ]);
    const kinds = new Set(
      files
        .filter((path) => !launchers.includes(path))
        .map((path) => path.replace(/^.*?((\.d)?\.ts|\.js(\.map)?|\.\w+)$/, "$1")),
    );
    // The plugin bundle's licences of what it bundles (esbuild's legal comments) are the .txt.
    expect([...kinds].sort()).toEqual([
      ".d.ts",
      ".js",
      ".js.map",
      ".json",
      ".md",
      ".txt",
      "LICENSE",
    ]);
  });

  it("leaves the plugin's build steps out: the schema's, and the release's executables", async () => {
    const { files } = await packed();
    expect(
      files.filter((path) => path.includes("plugin/assemble") || path.includes("plugin/release/")),
    ).toEqual([]);
  });

  it("holds every module its exports and its command name", async () => {
    const { files, manifest } = await packed();
    const targets = JSON.stringify([manifest.exports, manifest.bin, manifest.main, manifest.types]);
    const named = [...targets.matchAll(/"\.?\/?(dist\/provider\/[^"*]+)"/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(8);
    for (const path of named) expect(files).toContain(path);
  });

  it("says what it is to the registry: MIT, its repository, and the pulumi keyword", async () => {
    const { manifest } = await packed();
    expect(manifest).toMatchObject({
      license: "MIT",
      repository: { type: "git" },
      keywords: expect.arrayContaining(["pulumi"]),
      engines: { node: ">=22" },
    });
  });
});
