/**
 * Where the release build finds what `npm ci` put in the repository for it (docs/design/plugin.md, "The
 * self-contained executables" and "Python"): the repository's root, the SDK generator
 * (test/sdk-gen, built into `.pulumi-cli/sdk-gen/`) and the Python environment
 * (`.pulumi-cli/python/`). The release is a repository script, not part of the npm package, so
 * these are paths of the checkout it runs in.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

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

/**
 * The Python environment `npm ci` makes from test/python/requirements.txt (git-ignored).
 *
 * @internal
 */
export const PYTHON_ENV_DIR = join(REPOSITORY_ROOT, ".pulumi-cli", "python");

/** The interpreter of the virtual environment of the Python environment in `dir`. */
export function pythonInEnv(dir: string = PYTHON_ENV_DIR): string {
  return process.platform === "win32"
    ? join(dir, "venv", "Scripts", "python.exe")
    : join(dir, "venv", "bin", "python");
}
