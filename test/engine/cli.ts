/**
 * Command line of the engine stand-in (`npm run engine -- ...`):
 *
 *   preview|up|refresh|destroy [--cwd DIR] [--stack NAME] [--expect-no-changes] [--preview-only]
 *                              [--skip-preview] [--run-program] [--clear-pending-creates]
 *                              [--parallel N] [--state-dir DIR] [--timeout-ms N] [--verbose]
 *   config set [--secret] KEY VALUE [--cwd DIR] [--stack NAME]
 *   config get KEY [--cwd DIR] [--stack NAME]
 *
 * A relative `--cwd` is taken from where `npm run` was started (INIT_CWD), not the package root.
 * Exit codes as the Pulumi CLI's: 0 success, 1 any failure, 2 a bad invocation (unknown option,
 * options that do not go together), 7 `--expect-no-changes` with changes (after applying them,
 * for up and refresh).
 */
import * as path from "node:path";
import { parseArgs } from "node:util";
import {
  getConfigValue,
  invocationError,
  loadProject,
  runEngine,
  setConfigValue,
} from "./index.js";
import { passphraseFromEnv } from "./secrets.js";
import type { EngineCommand, EngineOptions } from "./types.js";

const USAGE = `usage:
  npm run engine -- preview|up|refresh|destroy [--cwd DIR] [--stack NAME] [--expect-no-changes]
                    [--preview-only] [--skip-preview] [--run-program] [--clear-pending-creates]
                    [--parallel N] [--state-dir DIR] [--timeout-ms N] [--verbose]
  npm run engine -- config set [--secret] KEY VALUE [--cwd DIR] [--stack NAME]
  npm run engine -- config get KEY [--cwd DIR] [--stack NAME]`;

const COMMANDS: readonly EngineCommand[] = ["preview", "up", "refresh", "destroy"];

/** Pulumi's exit code for a bad invocation or configuration. */
const BAD_INVOCATION = 2;

/** A mistake in the command line: the CLI exits with {@link BAD_INVOCATION}. */
class UsageError extends Error {}

function isCommand(s: string | undefined): s is EngineCommand {
  return COMMANDS.includes(s as EngineCommand);
}

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const count = Number(text);
  if (!Number.isInteger(count) || count <= 0) {
    throw new UsageError(`--${name} must be a positive integer`);
  }
  return count;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (err) {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    // parseArgs reports unknown or malformed options with ERR_PARSE_ARGS_* codes.
    const code = String((err as { code?: unknown }).code ?? "");
    return err instanceof UsageError || code.startsWith("ERR_PARSE_ARGS") ? BAD_INVOCATION : 1;
  }
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: "string" },
      stack: { type: "string" },
      "state-dir": { type: "string" },
      "expect-no-changes": { type: "boolean" },
      "preview-only": { type: "boolean" },
      "skip-preview": { type: "boolean" },
      "run-program": { type: "boolean" },
      "clear-pending-creates": { type: "boolean" },
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
    return values.help ? 0 : BAD_INVOCATION;
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
      const found = await getConfigValue(project, stack, key, passphrase);
      if (found === undefined) {
        console.error(`error: configuration key '${key}' not found for stack '${stack}'`);
        return 1;
      }
      console.log(found.value);
      return 0;
    }
    console.error(USAGE);
    return BAD_INVOCATION;
  }
  if (!isCommand(command) || rest.length > 0) {
    console.error(USAGE);
    return BAD_INVOCATION;
  }
  const parallel = positiveInt("parallel", values.parallel);
  const timeoutMs = positiveInt("timeout-ms", values["timeout-ms"]);
  const options: EngineOptions = {
    command,
    cwd,
    stack,
    ...(values["state-dir"] ? { stateDir: path.resolve(base, values["state-dir"]) } : {}),
    ...(values["expect-no-changes"] ? { expectNoChanges: true } : {}),
    ...(values["preview-only"] ? { previewOnly: true } : {}),
    ...(values["skip-preview"] ? { skipPreview: true } : {}),
    ...(values["run-program"] ? { runProgram: true } : {}),
    ...(values["clear-pending-creates"] ? { clearPendingCreates: true } : {}),
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
  };
  const invalid = invocationError(options, process.env);
  if (invalid) throw new UsageError(invalid);
  const result = await runEngine(options);
  process.stdout.write(result.output);
  return result.exitCode;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
