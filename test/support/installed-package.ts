import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { STEP_BOUNDS_MS } from "./budgets.js";
import { runStep, runStepOrThrow } from "./steps.js";

/** The repository root (this file is test/support/installed-package.ts). */
export const REPO_ROOT = resolve(__dirname, "..", "..");

/** A fresh project outside the repository with the packed package installed from its tarball. */
export interface InstalledProject {
  readonly dir: string;
  readonly tarball: string;
  remove(): Promise<void>;
}

/** One entry of a lock file's `packages` map (lockfileVersion 3), as far as this file reads it. */
export interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly link?: boolean;
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly optional?: boolean;
  readonly peer?: boolean;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { optional?: boolean }>>;
  readonly [key: string]: unknown;
}

/** The `packages` map of a lock file: install path (`node_modules/a/node_modules/b`) to entry. */
export type LockPackages = Readonly<Record<string, LockEntry>>;

/** The packages of this repository's package-lock.json, what user projects install from. */
export async function lockPackages(): Promise<LockPackages> {
  const lock = JSON.parse(await readFile(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
    packages: LockPackages;
  };
  return lock.packages;
}

/**
 * Where Node (and so npm's lock layout) finds `name` when required from the package installed at
 * `from`: its own `node_modules` first, then each enclosing one up to the root. Undefined when the
 * lock holds no such package on that path.
 */
export function resolveInLock(
  packages: LockPackages,
  from: string,
  name: string,
): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base === "" ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === "") return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut === -1 ? "" : base.slice(0, cut);
  }
}

/**
 * The part of the repository's lock file that a user project depending on `roots` installs: every
 * package reachable from them through dependencies, optional dependencies and non-optional peers,
 * at the same install paths and versions. Dev flags are dropped, because in the user project these
 * are plain dependencies. Throws, naming the package and who needs it, when the lock lacks one.
 */
export function lockSubset(packages: LockPackages, roots: readonly string[]): LockPackages {
  const subset: Record<string, LockEntry> = {};
  const pending: { from: string; name: string; neededBy: string }[] = roots.map((name) => ({
    from: "",
    name,
    neededBy: "the user project",
  }));
  // Each install path is visited once, so the walk ends after at most every lock entry.
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const path = resolveInLock(packages, next.from, next.name);
    if (path === undefined) {
      throw new Error(
        `package-lock.json has no entry for ${next.name}, which ${next.neededBy} needs: run \`npm install\` in the repository to complete the lock file`,
      );
    }
    if (subset[path] !== undefined) continue;
    const { dev: _dev, devOptional: _devOptional, ...entry } = packages[path] as LockEntry;
    subset[path] = entry;
    const optionalPeers = entry.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((peer) => !optionalPeers[peer]?.optional),
    ];
    for (const name of names) {
      // An optional dependency for another platform may be absent from the lock: npm skips it too.
      if (
        entry.optionalDependencies?.[name] !== undefined &&
        !resolveInLock(packages, path, name)
      ) {
        continue;
      }
      pending.push({ from: path, name, neededBy: `${path.replace(/^.*node_modules\//, "")}` });
    }
  }
  return subset;
}

/**
 * Packs the repository (`npm pack`, so exactly the files a user would get) and installs the tarball
 * into a new project in the temp directory, offline. The project's lock file is cut from this
 * repository's own (`lockSubset`), so it gets exactly the versions this repository was tested with,
 * and `npm ci --offline` takes every tarball from the npm cache that the repository's `npm ci`
 * filled: no registry is asked, not even for metadata. A dependency missing from the package's
 * `dependencies` fails here as it would for a user. The build must be current (`npm test` builds
 * first). `extra` names more packages of the repository's lock (e.g. `typescript`) to install too.
 * `pulumi` names the lock's copy of `@pulumi/pulumi` that the user project has: the one the
 * package builds with, or an aliased dev dependency (`@pulumi/pulumi-floor`) installed as
 * `@pulumi/pulumi` (see {@link asPulumiSdk}).
 */
export async function installPackedPackage(
  extra: readonly string[] = [],
  pulumi = "@pulumi/pulumi",
): Promise<InstalledProject> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-user-project-"));
  try {
    const tarball = await pack(dir);
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
      name: string;
      version: string;
      license?: string;
      bin?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    const lock = { packages: asPulumiSdk(await lockPackages(), pulumi) };
    const roots = ["@pulumi/pulumi", ...extra];
    const packageDeps = Object.keys(manifest.dependencies ?? {});
    const dependencies: Record<string, string> = {
      [manifest.name]: `file:${basename(tarball)}`,
    };
    for (const name of roots) dependencies[name] = versionOf(lock.packages, name);
    const userManifest = { name: "user-project", version: "1.0.0", private: true, dependencies };
    const userLock = {
      name: "user-project",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": userManifest,
        [`node_modules/${manifest.name}`]: {
          version: manifest.version,
          resolved: `file:${basename(tarball)}`,
          integrity: `sha512-${createHash("sha512")
            .update(await readFile(tarball))
            .digest("base64")}`,
          ...(manifest.license ? { license: manifest.license } : {}),
          // npm ci links a package's commands from its lock entry, as npm install records them.
          ...(manifest.bin ? { bin: manifest.bin } : {}),
          dependencies: manifest.dependencies ?? {},
        },
        ...lockSubset(lock.packages, [...new Set([...roots, ...packageDeps])]),
      },
    };
    await writeFile(join(dir, "package.json"), `${JSON.stringify(userManifest, null, 2)}\n`);
    await writeFile(join(dir, "package-lock.json"), `${JSON.stringify(userLock, null, 2)}\n`);
    await installOffline(dir);
    return { dir, tarball, remove: () => rm(dir, { recursive: true, force: true }) };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The lock's packages as a project would have them whose `@pulumi/pulumi` is the lock's copy at
 * `node_modules/<alias>` (an aliased dev dependency such as `@pulumi/pulumi-floor`): that folder,
 * with what npm nested inside it, moves to `node_modules/@pulumi/pulumi`, and the copy that was
 * there goes, with what was nested inside it. Every other entry stays where it is, so each package
 * still resolves what it resolved in the repository (npm placed the alias's nested dependencies
 * exactly where its own resolution needs them).
 */
export function asPulumiSdk(packages: LockPackages, alias: string): LockPackages {
  const sdk = "node_modules/@pulumi/pulumi";
  if (alias === "@pulumi/pulumi") return packages;
  const from = `node_modules/${alias}`;
  if (packages[from] === undefined) throw new Error(`package-lock.json has no ${alias}`);
  const moved: Record<string, LockEntry> = {};
  for (const [path, entry] of Object.entries(packages)) {
    if (path === sdk || path.startsWith(`${sdk}/`)) continue;
    if (path === from) {
      const { name: _name, ...own } = entry;
      moved[sdk] = own;
    } else if (path.startsWith(`${from}/`)) {
      moved[`${sdk}${path.slice(from.length)}`] = entry;
    } else moved[path] = entry;
  }
  return moved;
}

function versionOf(packages: LockPackages, name: string): string {
  const version = packages[`node_modules/${name}`]?.version;
  if (version === undefined) {
    throw new Error(
      `package-lock.json has no top-level ${name}: the user project can only get packages this repository installs`,
    );
  }
  return version;
}

/**
 * Packs the repository into `dir` (`npm pack`, a step bounded by `STEP_BOUNDS_MS.pack`); returns
 * the tarball's path.
 */
export async function pack(dir: string): Promise<string> {
  // The build is current (`npm test` builds first): packing must not rebuild dist/ under the feet
  // of the tests that run meanwhile, nor look for a pulumi CLI.
  const { stdout } = await runStepOrThrow(
    "npm",
    ["pack", "--silent", "--ignore-scripts", "--pack-destination", dir],
    { cwd: REPO_ROOT, boundMs: STEP_BOUNDS_MS.pack, label: "npm pack" },
  );
  return join(dir, stdout.trim().split("\n").pop() ?? "");
}

/**
 * `npm ci --offline` in `dir` (which holds a package.json and its lock), with the npm cache given
 * or the environment's, as a step bounded by `STEP_BOUNDS_MS.install`; and npm's failure turned
 * into one sentence: which package the cache lacks and what fills it, instead of npm's stack trace.
 */
export async function installOffline(dir: string, npmCache?: string): Promise<void> {
  const result = await runStep(
    "npm",
    ["ci", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"],
    {
      cwd: dir,
      boundMs: STEP_BOUNDS_MS.install,
      label: "npm ci --offline",
      env: npmCache === undefined ? process.env : { ...process.env, npm_config_cache: npmCache },
    },
  );
  if (result.killed !== undefined) throw new Error(`${result.killed}, in ${dir}`);
  if (result.exitCode !== 0) {
    const stderr = result.stderr;
    const missing = missingPackage(stderr);
    const cache = npmCache ?? process.env.npm_config_cache ?? "npm's default cache (~/.npm)";
    throw new Error(
      missing
        ? `cannot install the packed package offline: ${missing} is not in the npm cache (${cache}). The user project installs the lock file's versions from the cache that \`npm ci\` fills; run \`npm ci\` in the repository with the same npm cache, then the tests.`
        : `cannot install the packed package offline in ${dir}: npm ci failed: ${stderr.trim().split("\n").slice(-3).join(" ")}`,
    );
  }
}

/**
 * The package named by npm's "request to <registry>/<name>[/-/<file>.tgz] failed" line, which is
 * how `npm ci --offline` reports a cache miss (ENOTCACHED); undefined for any other failure.
 */
export function missingPackage(npmStderr: string): string | undefined {
  if (!npmStderr.includes("ENOTCACHED")) return undefined;
  const url = /request to (\S+) failed/.exec(npmStderr)?.[1];
  if (url === undefined) return "a package";
  const path = decodeURIComponent(new URL(url).pathname).replace(/^\//, "");
  const tarball = /^(.+)\/-\/(.+)\.tgz$/.exec(path);
  if (!tarball) return path;
  const name = tarball[1] as string;
  const version = (tarball[2] as string).slice(basename(name).length + 1);
  return `${name}@${version}`;
}
