/**
 * A read-only npm registry on loopback that serves exactly the packages of this repository's lock
 * file, taken from the npm cache that `npm ci` filled, plus the packed package itself. npm, pnpm
 * and yarn install a user project from it as they would from the public registry (each with its
 * own resolution, layout and lock file), and no request leaves the machine.
 *
 * Written here rather than taken from Verdaccio: Verdaccio serves from a storage folder of its own
 * that would first have to be filled from npm's cache, and proxies to the public registry for what
 * it lacks; this serves the cache directly, synthesizes each packument from the lock (the only
 * versions a user project can get are the ones this repository was tested with), and answers 404
 * for anything else.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import cacache from "cacache";
import semver from "semver";
import type { LockEntry, LockPackages } from "./installed-package.js";

/** A package the registry serves besides the lock's: the packed package, say. */
export interface ExtraTarball {
  readonly manifest: LockEntry & { readonly name: string; readonly version: string };
  /** The tarball's bytes. */
  readonly bytes: Buffer;
  /** Its `sha512-...` integrity. */
  readonly integrity: string;
}

/** One version of a packument: the manifest fields installers resolve with, and where the tarball is. */
export interface PackumentVersion {
  readonly name: string;
  readonly version: string;
  readonly dist: { readonly tarball: string; readonly integrity: string };
  readonly [field: string]: unknown;
}

/** What `GET /<name>` answers: every version the registry has of one package. */
export interface Packument {
  readonly name: string;
  readonly "dist-tags": { readonly latest: string };
  readonly versions: Readonly<Record<string, PackumentVersion>>;
}

/** The manifest fields of a lock entry that installers resolve with (the rest is the tarball's). */
const MANIFEST_FIELDS = [
  "dependencies",
  "optionalDependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "bin",
  "engines",
  "os",
  "cpu",
  "libc",
  "license",
  "deprecated",
] as const;

/** The package name an install path holds: its lock entry's `name` (an alias), else the path's. */
export function packageNameAt(path: string, entry: LockEntry): string {
  if (typeof entry.name === "string") return entry.name;
  return path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
}

/** The URL path of a package's tarball: `/<name>/-/<name without scope>-<version>.tgz`. */
export function tarballPath(name: string, version: string): string {
  return `/${name}/-/${name.slice(name.lastIndexOf("/") + 1)}-${version}.tgz`;
}

/**
 * The packuments of every package `packages` installs from a registry (entries with an integrity;
 * links and the root are not packages), one version per distinct version, with tarball URLs under
 * `base`. `latest` is the highest release, as npm's own dist-tag would be.
 */
export function packumentsFromLock(
  packages: LockPackages,
  base: string,
  extra: readonly ExtraTarball[] = [],
): Map<string, Packument> {
  const versions = new Map<string, Record<string, PackumentVersion>>();
  const add = (name: string, version: string, entry: LockEntry, integrity: string) => {
    const manifest: Record<string, unknown> = { name, version };
    for (const field of MANIFEST_FIELDS)
      if (entry[field] !== undefined) manifest[field] = entry[field];
    const own = versions.get(name) ?? {};
    own[version] = {
      ...manifest,
      name,
      version,
      dist: { tarball: `${base}${tarballPath(name, version)}`, integrity },
    };
    versions.set(name, own);
  };
  for (const [path, entry] of Object.entries(packages)) {
    if (path === "" || entry.link || entry.version === undefined) continue;
    if (entry.integrity === undefined) continue;
    add(packageNameAt(path, entry), entry.version, entry, entry.integrity);
  }
  for (const { manifest, integrity } of extra) {
    add(manifest.name, manifest.version, manifest, integrity);
  }
  const packuments = new Map<string, Packument>();
  for (const [name, byVersion] of versions) {
    const sorted = Object.keys(byVersion).sort(semver.rcompare);
    const latest = sorted.find((version) => semver.prerelease(version) === null) ?? sorted[0];
    packuments.set(name, {
      name,
      "dist-tags": { latest: latest as string },
      versions: byVersion,
    });
  }
  return packuments;
}

/** A registry started by {@link startLocalRegistry}. */
export interface LocalRegistry {
  /** Its address, `http://127.0.0.1:<port>`, with no trailing slash. */
  readonly url: string;
  /** The packages asked for that it does not have, in the order they were asked for. */
  misses(): string[];
  stop(): Promise<void>;
}

/**
 * Starts the registry on a free loopback port. Tarballs come from the npm cache `cache` (by
 * default the one npm uses: `npm_config_cache`, else `~/.npm`), found by their integrity, so a
 * cache that lacks one answers 404 and the installer names the package.
 */
export async function startLocalRegistry(options: {
  packages: LockPackages;
  extra?: readonly ExtraTarball[];
  cache?: string;
}): Promise<LocalRegistry> {
  const cache = join(
    options.cache ?? process.env.npm_config_cache ?? join(homedir(), ".npm"),
    "_cacache",
  );
  const misses: string[] = [];
  let packuments = new Map<string, Packument>();
  const tarballs = new Map<string, { integrity: string; bytes?: Buffer }>();
  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end(String(error));
    });
  });
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://registry").pathname);
    const tarball = tarballs.get(path);
    if (tarball !== undefined) {
      const bytes =
        tarball.bytes ??
        (await cacache.get.byDigest(cache, tarball.integrity).catch(() => undefined));
      if (bytes === undefined) return notFound(response, misses, path);
      response.writeHead(200, { "content-type": "application/octet-stream" });
      response.end(bytes);
      return;
    }
    const packument = packuments.get(path.slice(1));
    if (packument === undefined) return notFound(response, misses, path.slice(1));
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(packument));
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  packuments = packumentsFromLock(options.packages, url, options.extra);
  for (const packument of packuments.values()) {
    for (const version of Object.values(packument.versions)) {
      tarballs.set(tarballPath(version.name, version.version), {
        integrity: version.dist.integrity,
      });
    }
  }
  for (const { manifest, bytes, integrity } of options.extra ?? []) {
    tarballs.set(tarballPath(manifest.name, manifest.version), { integrity, bytes });
  }
  return {
    url,
    misses: () => [...misses],
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function notFound(response: ServerResponse, misses: string[], what: string): void {
  misses.push(what);
  response.writeHead(404, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: "Not found" }));
}
