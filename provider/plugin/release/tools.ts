/**
 * Where the release build finds what `npm ci` put in the repository for it (docs/plugin.md, "The
 * self-contained executables" and "Python"): the repository's root, the SDK generator
 * (test/sdk-gen, built into `.pulumi-cli/sdk-gen/`) and the Python environment
 * (`.pulumi-cli/python/`). The release is a repository script, not part of the npm package, so
 * these are paths of the checkout it runs in.
 *
 * @module
 */

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { PluginBuildError } from "../../errors.js";

/**
 * The repository's root: the nearest folder above this file with a package-lock.json (this runs
 * from `dist/provider/plugin/release/` and, in the tests, from `provider/plugin/release/`).
 */
function repositoryRoot(): string {
  let folder = __dirname;
  for (let up = 0; up < 8 && !existsSync(join(folder, "package-lock.json")); up += 1) {
    folder = dirname(folder);
  }
  return folder;
}

/** The root of the checkout the release build runs in. */
export const REPOSITORY_ROOT = repositoryRoot();

/** Our SDK generator on Pulumi's code generators (test/sdk-gen), as `npm ci` builds it. */
export const SDK_GENERATOR = join(REPOSITORY_ROOT, ".pulumi-cli", "sdk-gen", "sdk-gen");

/** The Python environment `npm ci` makes from test/python/requirements.txt (git-ignored). */
export const PYTHON_ENV_DIR = join(REPOSITORY_ROOT, ".pulumi-cli", "python");

/** The interpreter of the virtual environment of the Python environment in `dir`. */
export function pythonInEnv(dir: string = PYTHON_ENV_DIR): string {
  return process.platform === "win32"
    ? join(dir, "venv", "Scripts", "python.exe")
    : join(dir, "venv", "bin", "python");
}

/** A tool's bound: each step of the release takes seconds; past this it is killed and fails. */
const TOOL_TIMEOUT_MS = 300_000;

const run = promisify(execFile);

/**
 * Runs one tool of the release build (`node --build-sea`, `osslsigncode`, the SDK generator, Python's
 * `build`) with `args`, bounded, and returns its stdout. `what` names the step in the error.
 *
 * @throws {PluginBuildError} in one sentence: the tool is missing, was killed after 300 s, or
 *   failed (with its stderr).
 */
export async function runTool(
  command: string,
  args: readonly string[],
  what: string,
  options: { cwd?: string } = {},
): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      maxBuffer: 16 * 1024 * 1024,
      timeout: TOOL_TIMEOUT_MS,
      ...options,
    });
    return stdout;
  } catch (error) {
    const { code, stderr, killed } = error as { code?: unknown; stderr?: string; killed?: boolean };
    if (code === "ENOENT") {
      throw new PluginBuildError(`${what} needs ${command}, which is not on PATH`);
    }
    if (killed === true) {
      throw new PluginBuildError(
        `${what}: ${command} was killed after ${TOOL_TIMEOUT_MS / 1000} s`,
      );
    }
    throw new PluginBuildError(`${what}: ${command} failed: ${String(stderr ?? error).trim()}`);
  }
}
