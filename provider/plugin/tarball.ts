/**
 * `pulumi-tenant plugin --out DIR`: packs the plugin for machines without npm, as
 * `pulumi-resource-tenant-v<version>-<os>-<arch>.tar.gz`, which `pulumi plugin install resource
 * tenant <version> --file <tarball>` installs (docs/design/plugin.md, "How users get the plugin"). The
 * tarball holds the launcher, one bundled JavaScript file and the schema: it needs only `node` 22
 * or later, no `node_modules` (the engine copies a plugin folder, and a link into another
 * `node_modules` does not survive that).
 *
 * @module
 */

import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { create } from "tar";
import { unknownOptionProblem } from "../command/line.js";
import { checkFolderOutput, makeFolder } from "../command/output.js";
import { docAddress } from "../docs-address.js";
import { COMMAND_EXIT, CommandUsageError, exitStatusOf, TenantError } from "../errors.js";

/** The files of the bundle folder the build writes (`npm run build`), in the tarball's order. */
const BUNDLE_FILES = ["pulumi-resource-tenant", "main.js", "main.js.LEGAL.txt", "schema.json"];

/**
 * Pulumi's names for the machine the tarball is for (`linux-amd64`, `darwin-arm64`, ...).
 *
 * @internal
 */
export function pluginPlatform(platform: string, arch: string): string {
  const os = platform === "win32" ? "windows" : platform;
  const cpu = arch === "x64" ? "amd64" : arch;
  return `${os}-${cpu}`;
}

/**
 * The tarball's file name, as `pulumi plugin install` expects it.
 *
 * @internal
 */
export function tarballName(version: string, platform: string): string {
  return `pulumi-resource-tenant-v${version}-${platform}.tar.gz`;
}

/** `--help`. */
const USAGE = `Usage: pulumi-tenant plugin --out DIR

Writes the provider plugin as DIR/pulumi-resource-tenant-v<version>-<os>-<arch>.tar.gz (DIR
created if missing), which \`pulumi plugin install resource tenant <version> --file <tarball>\`
installs on a machine without npm:
${docAddress("docs/design/plugin.md", "how-users-get-the-plugin")}

Options:
  --out DIR               the folder to write the tarball to
  -h, --help              this text
`;

/** Parses `--out DIR` (or `--out=DIR`); `"help"` for `-h`/`--help`. */
function parseOut(argv: readonly string[]): string | "help" {
  let out: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? "";
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--out") out = argv[++index];
    else if (arg.startsWith("--out=")) out = arg.slice("--out=".length);
    else throw new CommandUsageError(unknownOptionProblem(arg, USAGE));
  }
  if (out === undefined || out === "") {
    throw new CommandUsageError("--out needs a folder; usage: pulumi-tenant plugin --out DIR");
  }
  return out;
}

/**
 * Writes the tarball into the folder `--out` names (created if needed) and prints its path and
 * size; the exit status is every command's ({@link COMMAND_EXIT}): 2 for a wrong command line or
 * an output folder that cannot be written (checked first, one line, no stack), 4 when the bundle
 * is missing (a checkout not built).
 */
export async function runPlugin(
  argv: readonly string[],
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
): Promise<number> {
  try {
    const out = parseOut(argv);
    if (out === "help") {
      io.stdout(USAGE);
      return COMMAND_EXIT.done;
    }
    const bundle = join(__dirname, "bundle");
    const missing = BUNDLE_FILES.filter((file) => !existsSync(join(bundle, file)));
    if (missing.length > 0) {
      io.stderr(
        `pulumi-tenant plugin: the plugin bundle is missing ${missing.join(", ")} in ${bundle}; run npm run build\n`,
      );
      return COMMAND_EXIT.failed;
    }
    const version = (require("../../../package.json") as { version: string }).version;
    await checkFolderOutput("--out", out);
    await makeFolder("--out", out);
    const file = join(out, tarballName(version, pluginPlatform(process.platform, process.arch)));
    try {
      await create({ gzip: { level: 9 }, file, cwd: bundle, portable: true }, BUNDLE_FILES);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new CommandUsageError(`--out ${out}: cannot write ${file} (${code})`);
    }
    io.stdout(`${file} (${statSync(file).size} bytes)\n`);
    return COMMAND_EXIT.done;
  } catch (error) {
    if (!(error instanceof TenantError)) {
      io.stderr(`pulumi-tenant plugin: unexpected failure: ${(error as Error)?.stack ?? error}\n`);
      return COMMAND_EXIT.failed;
    }
    io.stderr(`pulumi-tenant plugin: ${error.message}\n`);
    return exitStatusOf(error);
  }
}
