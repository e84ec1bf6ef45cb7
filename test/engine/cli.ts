/**
 * Command line of the engine stand-in (`npm run engine -- ...`):
 *
 *   preview|up|refresh|destroy [--cwd DIR] [--stack NAME] [--expect-no-changes] [--preview-only]
 *                              [--parallel N] [--state-dir DIR] [--timeout-ms N] [--verbose]
 *   config set [--secret] KEY VALUE [--cwd DIR] [--stack NAME]
 *   config get KEY [--cwd DIR] [--stack NAME]
 *
 * A relative `--cwd` is taken from where `npm run` was started (INIT_CWD), not the package root.
 * Exits 0 on success, 1 on any error, and 1 with `--expect-no-changes` when anything would change.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";
import { getConfigValue, loadProject, runEngine, setConfigValue } from "./index.js";
import { passphraseFromEnv } from "./secrets.js";
import type { EngineCommand } from "./types.js";

const USAGE = `usage:
  npm run engine -- preview|up|refresh|destroy [--cwd DIR] [--stack NAME] [--expect-no-changes]
                    [--preview-only] [--parallel N] [--state-dir DIR] [--timeout-ms N] [--verbose]
  npm run engine -- config set [--secret] KEY VALUE [--cwd DIR] [--stack NAME]
  npm run engine -- config get KEY [--cwd DIR] [--stack NAME]`;

const COMMANDS: readonly EngineCommand[] = ["preview", "up", "refresh", "destroy"];

function isCommand(s: string | undefined): s is EngineCommand {
  return COMMANDS.includes(s as EngineCommand);
}

function positiveInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
  return n;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: "string" },
      stack: { type: "string" },
      "state-dir": { type: "string" },
      "expect-no-changes": { type: "boolean" },
      "preview-only": { type: "boolean" },
      parallel: { type: "string" },
      "timeout-ms": { type: "string" },
      secret: { type: "boolean" },
      verbose: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    console.log(USAGE);
    return values.help ? 0 : 1;
  }
  const base = process.env.INIT_CWD ?? process.cwd();
  const cwd = path.resolve(base, values.cwd ?? ".");
  const stack = values.stack ?? "dev";

  if (command === "config") {
    const [verb, key, value] = rest;
    const project = loadProject(cwd);
    const passphrase = passphraseFromEnv(process.env);
    if (verb === "set" && key !== undefined && value !== undefined && rest.length === 3) {
      const file = await setConfigValue(project, stack, key, value, {
        secret: values.secret === true,
        passphrase,
      });
      const shown = path.relative(base, file);
      console.log(`set ${key} in ${shown.startsWith("..") ? file : shown}`);
      return 0;
    }
    if (verb === "get" && key !== undefined && rest.length === 2) {
      const v = await getConfigValue(project, stack, key, passphrase);
      if (v === undefined) {
        console.error(`error: configuration key '${key}' not found for stack '${stack}'`);
        return 1;
      }
      console.log(v.value);
      return 0;
    }
    console.error(USAGE);
    return 1;
  }
  if (!isCommand(command) || rest.length > 0) {
    console.error(USAGE);
    return 1;
  }
  const parallel = positiveInt("parallel", values.parallel);
  const timeoutMs = positiveInt("timeout-ms", values["timeout-ms"]);
  const result = await runEngine({
    command,
    cwd,
    stack,
    ...(values["state-dir"] ? { stateDir: path.resolve(base, values["state-dir"]) } : {}),
    ...(values["expect-no-changes"] ? { expectNoChanges: true } : {}),
    ...(values["preview-only"] ? { previewOnly: true } : {}),
    ...(parallel !== undefined ? { parallel } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(values.verbose
      ? {
          onEvent: (e) => {
            if (e.type === "log") console.error(`[${e.source}] ${e.severity}: ${e.message}`);
            else if (e.type === "step-end") {
              console.error(`[step] ${e.step.op} ${e.step.urn}${e.step.ok ? "" : " failed"}`);
            }
          },
        }
      : {}),
  });
  process.stdout.write(result.output);
  return result.exitCode;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
