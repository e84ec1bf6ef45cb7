/**
 * `npm run plugin-release -- --out DIR [--platform linux-amd64 ...] [--no-python]`: the plugin's
 * release assets, one self-contained executable per platform, each in the tarball Pulumi downloads
 * (`pulumi-resource-tenant-v<version>-<os>-<arch>.tar.gz`), from the bundle and schema `npm run
 * build` just wrote (docs/design/plugin.md, "The self-contained executables"), and beside them the
 * Python SDK's wheel and source distribution (docs/design/plugin.md, "Python"); a release that fails
 * part-way removes what it wrote (`release.ts`). A repository script, not
 * part of the npm package: it needs the Node.js binaries, the SDK generator and the Python
 * environment `npm ci` made. Exits 2 for a wrong command line, 1 when the build cannot go on.
 *
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CommandUsageError, exitStatusOf, PluginBuildError, TenantError } from "../../errors.js";
import { writeReleaseTarball } from "./executable.js";
import { writePythonSdk } from "./python-sdk.js";
import { writeRelease } from "./release.js";
import { PLUGIN_TARGETS, type PluginPlatform, type PluginTarget } from "./targets.js";

const USAGE = "usage: npm run plugin-release -- --out DIR [--platform PLATFORM]... [--no-python]";

function parse(argv: readonly string[]): { out: string; targets: PluginTarget[]; python: boolean } {
  let out: string | undefined;
  let python = true;
  const platforms: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? "";
    if (arg === "--out") out = argv[++index];
    else if (arg === "--platform") platforms.push(argv[++index] ?? "");
    else if (arg === "--no-python") python = false;
    else throw new CommandUsageError(`unknown option ${JSON.stringify(arg)}; ${USAGE}`);
  }
  if (out === undefined || out === "")
    throw new CommandUsageError(`--out needs a folder; ${USAGE}`);
  const unknown = platforms.filter((p) => !PLUGIN_TARGETS.some((t) => t.platform === p));
  if (unknown.length > 0) {
    throw new CommandUsageError(
      `no platform ${unknown.join(", ")}; the platforms are ${PLUGIN_TARGETS.map((t) => t.platform).join(", ")}`,
    );
  }
  const targets = PLUGIN_TARGETS.filter(
    (t) => platforms.length === 0 || platforms.includes(t.platform as PluginPlatform),
  );
  return { out, targets, python };
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    const { out, targets, python } = parse(argv);
    const bundle = join(__dirname, "..", "bundle");
    if (!existsSync(join(bundle, "main.js")) || !existsSync(join(bundle, "schema.json"))) {
      throw new PluginBuildError(`no plugin bundle in ${bundle}: run npm run build first`);
    }
    const schema = JSON.parse(readFileSync(join(bundle, "schema.json"), "utf8")) as {
      version: string;
      pluginDownloadURL?: string;
    };
    process.stdout.write(
      `pluginDownloadURL: ${schema.pluginDownloadURL ?? "(none: set PULUMI_TENANT_PLUGIN_DOWNLOAD_URL at npm run build)"}\n`,
    );
    await writeRelease(
      {
        targets,
        python,
        bundle,
        schemaPath: join(bundle, "schema.json"),
        version: schema.version,
        out,
      },
      { tarball: writeReleaseTarball, pythonSdk: writePythonSdk },
      (file) => process.stdout.write(`${file.line}\n`),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof TenantError)) throw error;
    process.stderr.write(`plugin-release: ${error.message}\n`);
    return exitStatusOf(error);
  }
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(
      `plugin-release: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
