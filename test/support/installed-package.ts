import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The repository root (this file is test/support/installed-package.ts). */
export const REPO_ROOT = resolve(__dirname, "..", "..");

/** A fresh project outside the repository with the packed package installed from its tarball. */
export interface InstalledProject {
  readonly dir: string;
  readonly tarball: string;
  remove(): Promise<void>;
}

/**
 * Packs the repository (`npm pack`, so exactly the files a user would get) and installs the tarball
 * into a new project in the temp directory, with `npm install --offline`: the dependencies come from
 * the npm cache that `npm ci` filled, so no network is used, and a dependency missing from
 * package.json fails here as it would for a user. The build must be current (`npm test` builds
 * first). `extra` names more packages to install alongside (from the cache too).
 */
export async function installPackedPackage(
  extra: readonly string[] = [],
): Promise<InstalledProject> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-user-project-"));
  const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", dir], {
    cwd: REPO_ROOT,
    timeout: 120_000,
  });
  const tarball = join(dir, stdout.trim().split("\n").pop() ?? "");
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "user-project", private: true }),
  );
  await run(
    "npm",
    [
      "install",
      "--offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      tarball,
      "@pulumi/pulumi",
      ...extra,
    ],
    { cwd: dir, timeout: 180_000 },
  );
  return { dir, tarball, remove: () => rm(dir, { recursive: true, force: true }) };
}
