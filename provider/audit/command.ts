/**
 * `pulumi-tenant audit`: reads the tenant (or a seed), judges every client by the policy pack's
 * rules, writes the report, and exits with a status a pipeline gates on ({@link AUDIT_EXIT}). The
 * decisions are in the pure modules next to this one; this file wires them to the process:
 * arguments, environment, files, stderr, and the exit status.
 *
 * @module
 */

import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { tenantPaceOf } from "../api/tenants.js";
import { checkFileOutput } from "../command/output.js";
import { resolveCommandSettings } from "../config.js";
import { COMMAND_EXIT, CommandUsageError, exitStatusOf, TenantError } from "../errors.js";
import { startProgress } from "../progress.js";
import { type AuditOptions, parseAuditArgs, USAGE } from "./options.js";
import { defaultRuleSettings, readRuleSettings } from "./policy-config.js";
import {
  AUDIT_EXIT,
  type AuditReport,
  auditTenant,
  countsOf,
  exitStatusOfReport,
  renderJson,
} from "./report.js";
import { renderSarif } from "./sarif.js";
import { type ReadClients, readLive, readSeed } from "./source.js";
import { count, renderText } from "./text.js";

/** Where the command writes and what it reads from its process. */
export interface AuditIo {
  /**
   * The report, or with `--out` the path written. May return a promise that settles once the
   * text is written, which the command awaits (a pipe must get a large report whole).
   */
  readonly stdout: (text: string) => void | Promise<void>;
  /** Progress (on a terminal), the summary after `--out`, errors. */
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal: a progress bar there, a line every few seconds elsewhere. */
  readonly stderrIsTerminal: boolean;
  /** The time of a live read; default now. */
  readonly now?: () => Date;
  /**
   * The folder the command runs in, which the SARIF log names a seed file relative to (code
   * scanning takes it for the repository's root); default the process's.
   */
  readonly cwd?: string;
}

/** This package's version, for the SARIF log's tool. */
function ownVersion(): string {
  // By package name: the same file from the sources, the build and an installed copy.
  return (require("pulumi-tenant/package.json") as { version: string }).version;
}

/** The report in the format asked for; a SARIF log's paths are relative to `root`. */
function render(report: AuditReport, format: AuditOptions["format"], root: string): string {
  if (format === "json") return renderJson(report);
  if (format === "sarif") return renderSarif(report, { version: ownVersion(), root });
  return renderText(report);
}

/** Writes the report to `--out`, replacing the file. */
async function writeReport(file: string, text: string): Promise<string> {
  const path = resolve(file);
  try {
    await writeFile(path, text);
  } catch (error) {
    throw new CommandUsageError(
      `--out ${file}: cannot write the report: ${(error as Error).message}`,
    );
  }
  return path;
}

/**
 * Runs the command with the arguments after `audit` and returns its exit status
 * ({@link AUDIT_EXIT}). The config file and the credentials are checked before any request, so a
 * wrong invocation reads nothing. Expected failures (the package's `TenantError`s) are printed as
 * one line without a stack.
 */
export async function runAudit(args: readonly string[], io: AuditIo): Promise<number> {
  const say = (line: string) => io.stderr(`${line}\n`);
  try {
    const options = parseAuditArgs(args);
    if (options === "help") {
      await io.stdout(USAGE);
      return AUDIT_EXIT.passed;
    }
    const settings =
      options.config === undefined ? defaultRuleSettings() : await readRuleSettings(options.config);
    // Before the first request: a wrong --out must not wait for the whole tenant to be read.
    if (options.out !== undefined) await checkFileOutput("--out", options.out, undefined);
    let read: ReadClients;
    if (options.seed !== undefined) {
      read = readSeed(options.seed);
    } else {
      const tenant = resolveCommandSettings(options.connection, io.env);
      const progress = startProgress({
        command: "audit",
        write: io.stderr,
        terminal: io.stderrIsTerminal,
        quiet: options.quiet,
        pace: () => tenantPaceOf(tenant),
      });
      read = await readLive(
        tenant,
        (done, pages, total) => progress.page(done, pages, total),
        io.now ?? (() => new Date()),
      ).finally(() => progress.end());
    }
    const report = auditTenant({
      ...read,
      source: options.seed === undefined ? { kind: "live" } : { kind: "seed", file: options.seed },
      stack: options.stack,
      settings,
    });
    const text = render(report, options.format, io.cwd ?? process.cwd());
    if (options.out === undefined) {
      await io.stdout(text);
    } else {
      const path = await writeReport(options.out, text);
      const { byLevel } = countsOf(report);
      say(
        `audited ${count(report.clientCount, "client")}: ` +
          `${count(byLevel.mandatory, "mandatory finding")} and ` +
          `${count(byLevel.advisory, "advisory finding")}; the ${options.format} report is in ${path}`,
      );
      await io.stdout(`${path}\n`);
    }
    return exitStatusOfReport(report, options.failOn);
  } catch (error) {
    if (error instanceof TenantError) {
      say(`pulumi-tenant audit: ${error.message}`);
      return exitStatusOf(error);
    }
    say(`pulumi-tenant audit: unexpected failure: ${(error as Error)?.stack ?? String(error)}`);
    return COMMAND_EXIT.failed;
  }
}
