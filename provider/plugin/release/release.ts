/**
 * The release as one sequence of steps (each platform's tarball, then the Python SDK), with one
 * rule across them: a release that fails part-way removes every file it had written, so that a
 * folder of release assets is either whole or holds nothing of this run (a half release uploaded
 * by a script that globbed the folder would serve some platforms a plugin the others never get).
 * Each step's own clean-up (the Python SDK's wheel when its source distribution fails) stays in
 * the step; this removes what finished steps wrote.
 *
 * @module
 */

import { rm } from "node:fs/promises";
import type { writeReleaseTarball } from "./executable.js";
import type { writePythonSdk } from "./python-sdk.js";
import type { PluginTarget } from "./targets.js";

/** What one release writes: the platforms, the Python SDK or not, from which bundle into where. */
export interface ReleasePlan {
  readonly targets: readonly PluginTarget[];
  readonly python: boolean;
  /** The folder holding the plugin's bundle (`main.js`) and `schema.json`. */
  readonly bundle: string;
  readonly schemaPath: string;
  readonly version: string;
  readonly out: string;
}

/** The steps a release runs; the real ones by default, stand-ins in the tests. */
export interface ReleaseSteps {
  readonly tarball: typeof writeReleaseTarball;
  readonly pythonSdk: typeof writePythonSdk;
}

/** One file the release wrote, as the command prints it. */
export interface ReleaseFile {
  readonly path: string;
  readonly line: string;
}

/**
 * Runs every step of `plan` in order, calling `written` with each file as it is written.
 *
 * @throws whatever a step throws, after removing every file the earlier steps had written (a file
 *   that cannot be removed is left, and the step's error is still the one thrown).
 */
export async function writeRelease(
  plan: ReleasePlan,
  steps: ReleaseSteps,
  written: (file: ReleaseFile) => void = () => {},
): Promise<void> {
  const paths: string[] = [];
  const wrote = (file: ReleaseFile) => {
    paths.push(file.path);
    written(file);
  };
  try {
    for (const target of plan.targets) {
      const started = Date.now();
      const tarball = await steps.tarball(target, plan.bundle, plan.out, plan.version);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      wrote({
        path: tarball.path,
        line: `${tarball.path} (${tarball.bytes} bytes; executable ${tarball.executableBytes} bytes; ${seconds} s)`,
      });
    }
    if (plan.python) {
      const started = Date.now();
      const sdk = await steps.pythonSdk(plan.schemaPath, plan.out);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      wrote({ path: sdk.wheel.path, line: `${sdk.wheel.path} (${sdk.wheel.bytes} bytes)` });
      wrote({
        path: sdk.sdist.path,
        line: `${sdk.sdist.path} (${sdk.sdist.bytes} bytes)\nthe Python SDK took ${seconds} s`,
      });
    }
  } catch (error) {
    await Promise.allSettled(paths.map((path) => rm(path, { force: true })));
    throw error;
  }
}
