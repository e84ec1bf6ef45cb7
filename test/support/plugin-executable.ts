/**
 * The plugin's self-contained executables, as the release builds them (docs/design/plugin.md, "The
 * self-contained executables"), for the tests and the benchmarks: built from the bundle of the
 * last `npm run build` with the release's own code, and kept in `node_modules/.cache/` under a
 * hash of what they are made of, so that a test run after an unchanged build reuses them (a
 * build of one platform takes about 20 s; of all five, a minute and a half). And a loopback
 * server that serves their tarballs as a release page would, for `pulumi plugin install --server`
 * and Pulumi's own download through `pluginDownloadURL`.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { extract } from "tar";
import { writeReleaseTarball } from "../../provider/plugin/release/executable.js";
import {
  PLUGIN_NODE_VERSION,
  type PluginPlatform,
  pluginTarget,
} from "../../provider/plugin/release/targets.js";
import { REPO_ROOT } from "./installed-package.js";

/** The bundle `npm run build` writes, which every executable is made from. */
const BUNDLE = join(REPO_ROOT, "dist", "provider", "plugin", "bundle");
const CACHE = join(REPO_ROOT, "node_modules", ".cache", "pulumi-tenant-plugin-executables");
const RELEASE_SOURCES = join(REPO_ROOT, "provider", "plugin", "release");

/** One platform's release tarball and, unpacked beside it, its executable. */
export interface SelfContainedPlugin {
  readonly platform: PluginPlatform;
  /** The plugin's version, the package's. */
  readonly version: string;
  /** `pulumi-resource-tenant-v<version>-<platform>.tar.gz`. */
  readonly tarball: string;
  readonly bytes: number;
  /** The tarball unpacked: the executable, `schema.json`, the licences. */
  readonly dir: string;
  /** The executable in {@link dir}. */
  readonly executable: string;
}

/** A hash of what `platform`'s executable is made of: the bundle, the release code, Node.js. */
async function buildKey(platform: PluginPlatform): Promise<string> {
  const hash = createHash("sha256").update(`${platform}\0${PLUGIN_NODE_VERSION}\0`);
  const sources = (await readdir(RELEASE_SOURCES)).sort().map((f) => join(RELEASE_SOURCES, f));
  for (const file of [...["main.js", "schema.json"].map((f) => join(BUNDLE, f)), ...sources]) {
    hash.update(await readFile(file));
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * `platform`'s self-contained plugin (by default linux-amd64, this machine's): reused when built
 * from the same bundle and code before, else built now as `npm run plugin-release` builds it
 * (about 20 s). Needs `npm run build` and the Node.js bases `npm ci` fetched; no network. Several
 * test files may ask at once: each builds in a folder of its own and the first to finish wins.
 */
export async function selfContainedPlugin(
  platform: PluginPlatform = "linux-amd64",
): Promise<SelfContainedPlugin> {
  const target = pluginTarget(platform);
  const { version } = JSON.parse(await readFile(join(BUNDLE, "schema.json"), "utf8")) as {
    version: string;
  };
  const key = await buildKey(platform);
  const folder = join(CACHE, `${platform}-${key}`);
  if (!existsSync(folder)) {
    await mkdir(CACHE, { recursive: true });
    const partial = await mkdtemp(join(CACHE, `.${platform}-`));
    try {
      const built = await writeReleaseTarball(target, BUNDLE, partial, version);
      const unpacked = join(partial, "unpacked");
      await mkdir(unpacked);
      await extract({ file: built.path, cwd: unpacked });
      // Older builds of this platform are of another bundle: they go.
      for (const old of await readdir(CACHE)) {
        if (old.startsWith(`${platform}-`) && join(CACHE, old) !== folder) {
          await rm(join(CACHE, old), { recursive: true, force: true });
        }
      }
      await rename(partial, folder).catch((error: NodeJS.ErrnoException) => {
        if (!existsSync(folder)) throw error;
      });
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }
  const name = (await readdir(folder)).find((file) => file.endsWith(".tar.gz")) ?? "";
  const tarball = join(folder, name);
  const dir = join(folder, "unpacked");
  return {
    platform,
    version,
    tarball,
    bytes: (await stat(tarball)).size,
    dir,
    executable: join(dir, target.executable),
  };
}

/** A loopback server of plugin tarballs, as a release page serves them. */
export interface PluginServer {
  /** `http://127.0.0.1:<port>`: what `--server` and `pluginDownloadURL` name. */
  readonly url: string;
  /** The paths asked for, in order, each with the status answered. */
  readonly requests: string[];
  stop(): Promise<void>;
}

/**
 * Serves the tarballs `files` names (each by its own file name, at the root) on 127.0.0.1, on a
 * port of the system's choosing; anything else is a 404.
 */
export async function servePluginTarballs(files: readonly string[]): Promise<PluginServer> {
  const byName = new Map(files.map((file) => [`/${file.split("/").pop() ?? ""}`, file]));
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? "/").split("?")[0] ?? "/");
    const file = byName.get(path);
    requests.push(`${request.method} ${path} ${file ? 200 : 404}`);
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) =>
        response
          .writeHead(200, {
            "content-type": "application/gzip",
            "content-length": body.length,
          })
          .end(body),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
