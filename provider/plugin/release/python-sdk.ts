/**
 * The Python SDK of the release (docs/design/plugin.md, "Python"): the package Pulumi's own Python code
 * generator makes from the plugin's schema (through our generator on Pulumi's codegen packages,
 * offline), built into a wheel and a source distribution with Python's `build` in the environment
 * `npm ci` made. `pip install` of the wheel is all a Python user does: its `pulumi-plugin.json`
 * names the plugin and the schema's `pluginDownloadURL`, so Pulumi fetches the plugin itself.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { PluginBuildError } from "../../errors.js";
import { PYTHON_PACKAGE_NAME } from "../package-schema.js";
import { pythonInEnv, SDK_GENERATOR } from "./checkout.js";
import { tool } from "./tool.js";

/** One file of the Python SDK's release. */
interface PythonSdkFile {
  readonly path: string;
  readonly bytes: number;
}

/** What {@link writePythonSdk} wrote. */
export interface PythonSdkRelease {
  /** `pulumi_tenant-<version>-py3-none-any.whl`. */
  readonly wheel: PythonSdkFile;
  /** `pulumi_tenant-<version>.tar.gz`. */
  readonly sdist: PythonSdkFile;
}

/** The tools {@link writePythonSdk} runs; by default those `npm ci` put in the checkout. */
export interface PythonSdkTools {
  /** Our SDK generator (test/sdk-gen). */
  readonly generator?: string;
  /** A Python with `build`, `setuptools` and `wheel` (the tests' environment). */
  readonly python?: string;
}

/**
 * Generates the Python SDK of the schema at `schemaPath` and writes its wheel and source
 * distribution into `outDir`. The schema sets the package's name, its version in Python's form and
 * its dependency on Pulumi's Python SDK (provider/plugin/package-schema.ts); nothing is rewritten
 * here. The build runs without isolation (`--no-isolation`): its backend comes from the Python
 * environment, not from the network.
 *
 * @throws {PluginBuildError} when the generator or the Python environment is missing (run `npm ci`),
 *   or a step fails; nothing is left in `outDir` then but what was there.
 */
export async function writePythonSdk(
  schemaPath: string,
  outDir: string,
  tools: PythonSdkTools = {},
): Promise<PythonSdkRelease> {
  const generator = tools.generator ?? SDK_GENERATOR;
  const python = tools.python ?? pythonInEnv();
  for (const [path, what] of [
    [generator, "the SDK generator"],
    [python, "the Python environment"],
  ] as const) {
    if (!existsSync(path)) {
      throw new PluginBuildError(
        `the Python SDK needs ${what} that npm ci makes (${path} is missing): run npm ci`,
      );
    }
  }
  const work = await mkdtemp(join(tmpdir(), "pulumi-tenant-python-sdk-"));
  try {
    const sdks = join(work, "sdks");
    await tool(generator, ["--schema", schemaPath, "--out", sdks], "the Python SDK's code");
    // The project's metadata names README.md beside pyproject.toml, where the generator writes
    // none (Pulumi's own releases copy one in): the package's README, which the generator wrote
    // from the schema's description, is the index page's text.
    const project = join(sdks, "python");
    await copyFile(join(project, PYTHON_PACKAGE_NAME, "README.md"), join(project, "README.md"));
    const built = join(work, "dist");
    await tool(
      python,
      ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", built, "."],
      "the Python SDK's wheel and source distribution",
      { cwd: project },
    );
    const files = await readdir(built);
    const wheel = files.find((file) => file.endsWith(".whl"));
    const sdist = files.find((file) => file.endsWith(".tar.gz"));
    if (wheel === undefined || sdist === undefined) {
      throw new PluginBuildError(
        `the Python SDK's build wrote ${files.join(", ") || "nothing"}, not a wheel and a source distribution`,
      );
    }
    await mkdir(outDir, { recursive: true });
    // Both or neither: a wheel copied before the source distribution failed is removed again.
    const written: string[] = [];
    try {
      const wheelFile = await moveInto(join(built, wheel), outDir, written);
      const sdistFile = await moveInto(join(built, sdist), outDir, written);
      return { wheel: wheelFile, sdist: sdistFile };
    } catch (error) {
      await Promise.all(written.map((path) => rm(path, { force: true })));
      throw error;
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Copies `file` into `dir` under its own name (the temporary folder may be on another device),
 * adding its path to `written` before the copy starts, so that a copy that fails halfway is
 * removed too.
 */
async function moveInto(file: string, dir: string, written: string[]): Promise<PythonSdkFile> {
  const path = join(dir, basename(file));
  written.push(path);
  await copyFile(file, path);
  return { path, bytes: (await stat(path)).size };
}
