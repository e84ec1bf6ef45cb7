/**
 * One self-contained executable of the plugin and its release tarball (docs/design/plugin.md, "The
 * self-contained executables"): the bundle `npm run build` writes (`bundle/main.js`, the same code
 * the launcher script runs) as a Node.js single executable application in the official Node.js
 * binary of the platform, then signed as the platform expects, then packed as Pulumi's plugin
 * installer wants it: `pulumi-resource-tenant-v<version>-<os>-<arch>.tar.gz`.
 *
 * @module
 */

import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { create } from "tar";
import { PluginBuildError } from "../../errors.js";
import { tarballName } from "../tarball.js";
import { adHocSign } from "./macho-sign.js";
import { hostNode, nodeBase, nodeLicense } from "./node-bases.js";
import { EXECUTABLE, type PluginTarget } from "./targets.js";
import { tool } from "./tool.js";

/**
 * The single executable application's settings, the same for every platform (so one blob serves
 * all five: no code cache, no snapshot, which would tie it to one machine):
 * - `execArgvExtension: "none"`: `NODE_OPTIONS` does not reach the plugin, so a user's
 *   `--require` or `--import` for their own program cannot break it;
 * - `disableExperimentalSEAWarning`: the plugin prints nothing of its own on stderr.
 */
const SEA_SETTINGS = {
  disableExperimentalSEAWarning: true,
  useSnapshot: false,
  useCodeCache: false,
  execArgvExtension: "none",
} as const;

/** The files of the bundle folder a tarball carries beside the executable. */
const BUNDLE_EXTRAS = ["schema.json", "main.js.LEGAL.txt"] as const;

/** Node.js's licence, which the executable is built from, under this name in the tarball. */
const NODE_LICENSE = "NODE-LICENSE";

/**
 * A semantic version (semver.org 2.0.0: `MAJOR.MINOR.PATCH`, an optional `-prerelease` and
 * `+build`), which alone may name a tarball: a version is put into a file's name, where a `/` or
 * a `..` would write outside the release folder.
 */
const SEMANTIC_VERSION =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

/**
 * `version`, when it is a semantic version ({@link SEMANTIC_VERSION}).
 *
 * @throws {PluginBuildError} naming it otherwise.
 */
function releaseVersion(version: string): string {
  if (!SEMANTIC_VERSION.test(version)) {
    throw new PluginBuildError(
      `the plugin's version ${JSON.stringify(version)} is not a semantic version (MAJOR.MINOR.PATCH, with an optional -prerelease and +build), so it cannot name a release tarball`,
    );
  }
  return version;
}

/** A release tarball written. */
export interface ReleaseTarball {
  readonly target: PluginTarget;
  readonly path: string;
  readonly bytes: number;
  /** The executable's size before packing. */
  readonly executableBytes: number;
}

/**
 * Builds `target`'s executable into `folder` from the bundle in `bundle`, and returns its path.
 * Windows: Node.js's Authenticode signature is removed first (`osslsigncode remove-signature`),
 * since injecting breaks it and a broken one is worse than none. macOS: injecting removes Node.js's
 * signature, so the result gets an ad-hoc one ({@link adHocSign}).
 *
 * @throws {PluginBuildError} when a base, a tool or a step fails.
 */
async function buildExecutable(
  target: PluginTarget,
  bundle: string,
  folder: string,
): Promise<string> {
  const base = nodeBase(target);
  let binary = base.binary;
  if (target.format === "pe") {
    binary = join(folder, "node-unsigned.exe");
    await tool(
      "osslsigncode",
      ["remove-signature", "-in", base.binary, "-out", binary],
      `the ${target.platform} executable`,
    );
  }
  const output = join(folder, target.executable);
  const config = join(folder, "sea.json");
  await writeFile(
    config,
    JSON.stringify({ main: join(bundle, "main.js"), output, executable: binary, ...SEA_SETTINGS }),
  );
  await tool(hostNode(), ["--build-sea", config], `the ${target.platform} executable`);
  if (target.format === "macho") {
    await writeFile(output, adHocSign(await readFile(output), EXECUTABLE, output));
  }
  await chmod(output, 0o755);
  await rm(config);
  if (binary !== base.binary) await rm(binary);
  return output;
}

/**
 * Builds `target`'s executable and writes its tarball into `out`, named as `pulumi plugin install`
 * expects it: the executable, the schema, the bundle's third-party licences and Node.js's licence.
 * The tarball appears whole or not at all (written beside, then renamed).
 *
 * @throws {PluginBuildError} for a version that is not a semantic version, before anything is
 *   written; when a base, a tool or a step fails.
 */
export async function writeReleaseTarball(
  target: PluginTarget,
  bundle: string,
  out: string,
  version: string,
): Promise<ReleaseTarball> {
  const name = tarballName(releaseVersion(version), target.platform);
  await mkdir(out, { recursive: true });
  const work = await mkdtemp(join(out, `.${target.platform}-`));
  try {
    const executable = await buildExecutable(target, bundle, work);
    for (const file of BUNDLE_EXTRAS) await copyFile(join(bundle, file), join(work, file));
    await copyFile(nodeLicense(), join(work, NODE_LICENSE));
    const path = join(out, name);
    const partial = join(work, "partial.tar.gz");
    await create({ gzip: { level: 6 }, file: partial, cwd: work, portable: true }, [
      target.executable,
      ...BUNDLE_EXTRAS,
      NODE_LICENSE,
    ]);
    await rename(partial, path);
    return {
      target,
      path,
      bytes: (await stat(path)).size,
      executableBytes: (await stat(executable)).size,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
