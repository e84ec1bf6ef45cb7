/**
 * How the release build runs the tools it needs (`node --build-sea`, `osslsigncode`, `npm pack`,
 * the SDK generator, Python's `build`):
 * each bounded, killed past its bound and said so, each failure one sentence naming the step
 * (docs/design/plugin.md, "The self-contained executables").
 *
 * @module
 */

import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { PluginBuildError } from "../../errors.js";

const run = promisify(execFile);

/**
 * A tool's bound: each takes seconds (`node --build-sea`), or tens of seconds for `npm pack` of a
 * 50 MB base; past this it is killed and the step fails.
 */
const TOOL_TIMEOUT_MS = 300_000;

/** How a step reads a tool's failure, beyond the tool's own words. */
export interface ToolOptions {
  readonly maxBuffer?: number;
  /** The folder the tool runs in (Python's `build` runs in the project it builds). */
  readonly cwd?: string;
  /** The bound, {@link TOOL_TIMEOUT_MS} unless a test needs a shorter one. */
  readonly timeoutMs?: number;
  /**
   * What the tool's stderr says went wrong, in the step's words, when the step knows (npm: the
   * registry cannot be reached); undefined leaves the tool's own words.
   */
  readonly cause?: (stderr: string) => string | undefined;
  /** What to do later when the step could not finish now (killed, or a known cause). */
  readonly later?: string;
}

/**
 * Runs `command` with `args` for the step `what` (`the darwin-arm64 executable`), within its
 * bound, and returns its stdout.
 *
 * @throws {PluginBuildError} in one sentence naming `what`: the command missing from PATH, killed
 *   after its bound, or failed (with its cause or its stderr).
 */
export async function tool(
  command: string,
  args: readonly string[],
  what: string,
  options: ToolOptions = {},
): Promise<string> {
  const timeout = options.timeoutMs ?? TOOL_TIMEOUT_MS;
  const then = options.later === undefined ? "" : `; ${options.later}`;
  try {
    const { stdout } = await run(command, [...args], {
      maxBuffer: options.maxBuffer ?? 16 * 1024 * 1024,
      timeout,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    return stdout;
  } catch (error) {
    const { code, stderr, killed } = error as { code?: unknown; stderr?: string; killed?: boolean };
    if (code === "ENOENT") {
      throw new PluginBuildError(`${what} needs ${command}, which is not on PATH`);
    }
    if (killed === true) {
      throw new PluginBuildError(`${what}: ${command} was killed after ${timeout / 1000} s${then}`);
    }
    const output = String(stderr ?? error).trim();
    const cause = options.cause?.(output);
    throw new PluginBuildError(
      cause === undefined ? `${what}: ${command} failed: ${output}` : `${what}: ${cause}${then}`,
    );
  }
}
