/**
 * `pulumi-tenant generate`: reads the live tenant, plans the program, writes the project. The
 * decisions are in the pure modules next to this one; this file wires them to the process:
 * arguments, environment, files, stderr, and the exit status.
 *
 * @module
 */

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { tenantPaceOf } from "../api/tenants.js";
import { wireFieldsToRead } from "../clients/catalogue.js";
import { type ClientDeclaration, declarationOf } from "../clients/declaration.js";
import { readTenant } from "../clients/reads.js";
import { ownClientIdOf, selectClients } from "../clients/selection.js";
import { checkFolderOutput } from "../command/output.js";
import { resolveCommandSettings } from "../config.js";
import { COMMAND_EXIT, exitStatusOf, GenerateOutputError, TenantError } from "../errors.js";
import { typeStrippingSentence } from "../node-support.js";
import { startProgress } from "../progress.js";
import { planProgram } from "./adopt.js";
import { renderImportFile } from "./import-file.js";
import { nextSteps } from "./next-steps.js";
import { parseGenerateArgs, USAGE } from "./options.js";
import { type ProjectVersions, renderProject } from "./project.js";

/** Where the command writes and what it reads from its process. */
export interface CommandIo {
  /** Results: the files written, one path per line. */
  readonly stdout: (text: string) => void;
  /** Progress, notes, next steps and errors. */
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal: a progress bar there, a line every few seconds elsewhere. */
  readonly stderrIsTerminal?: boolean;
  /** The Node.js the project will run on, said when it cannot strip types; default this one's. */
  readonly nodeVersion?: string;
}

/** This package's manifest, for the versions the generated project depends on. */
function ownVersions(): ProjectVersions {
  // By package name: the same file from the sources, the build and an installed copy.
  const manifest = require("pulumi-tenant/package.json") as {
    version: string;
    dependencies?: Record<string, string>;
  };
  return {
    packageVersion: manifest.version,
    pulumi: manifest.dependencies?.["@pulumi/pulumi"] ?? "^3.139.0",
  };
}

/**
 * Writes the files into `dir` (created if missing). A file that exists with other content is
 * replaced only with `force`: it may hold the user's edits. Unchanged files are not rewritten.
 *
 * @throws {GenerateOutputError} naming the files that differ, or the I/O failure.
 */
async function writeProject(
  dir: string,
  files: Readonly<Record<string, string>>,
  force: boolean,
): Promise<string[]> {
  const entries = Object.entries(files).map(([name, text]) => ({ path: join(dir, name), text }));
  const paths = entries.map(({ path }) => path);
  const current = await Promise.all(paths.map((path) => readFile(path, "utf8").catch(() => null)));
  const differing = entries
    .filter(({ text }, i) => current[i] !== null && current[i] !== text)
    .map(({ path }) => path);
  if (differing.length > 0 && !force) {
    throw new GenerateOutputError(
      `${differing.join(", ")} already ${differing.length === 1 ? "exists" : "exist"} with ` +
        "other content; pass --force to overwrite, or choose another --out folder",
    );
  }
  try {
    await mkdir(dir, { recursive: true });
    await Promise.all(
      entries.map(({ path, text }, i) => (current[i] === text ? undefined : writeFile(path, text))),
    );
  } catch (error) {
    throw new GenerateOutputError(
      `cannot write the project to ${dir}: ${(error as Error).message}`,
    );
  }
  return paths;
}

/**
 * Runs the command with the arguments after `generate` and returns the exit status
 * ({@link COMMAND_EXIT}): 0 done, 2 the command line, the settings or the output folder is wrong
 * (the folder checked before the first request), 3 the tenant could not be read. Expected failures (the
 * package's `TenantError`s, its own included) are printed as one line without a stack.
 */
export async function runGenerate(args: readonly string[], io: CommandIo): Promise<number> {
  const say = (line: string) => io.stderr(`${line}\n`);
  try {
    const options = parseGenerateArgs(args);
    if (options === "help") {
      io.stdout(USAGE);
      return 0;
    }
    const settings = resolveCommandSettings(options.config, io.env);
    // Before the first request: a wrong --out must not wait for the whole tenant to be read.
    await checkFolderOutput("--out", options.out);
    // Each page's clients are declared as the page arrives, while the next one waits for the
    // tenant's rate limit: after the last page, only the names and the files are left to make.
    const declared = new Map<string, ClientDeclaration>();
    const progress = startProgress({
      command: "generate",
      write: io.stderr,
      terminal: io.stderrIsTerminal === true,
      quiet: options.quiet,
      pace: () => tenantPaceOf(settings),
    });
    const reads = await readTenant(
      settings,
      options.query,
      wireFieldsToRead(options.fields),
      (done, pages, total, clients) => {
        progress.page(done, pages, total);
        for (const client of clients) {
          declared.set(client.client_id, declarationOf(client, options.fields));
        }
      },
    ).finally(() => progress.end());
    const selection =
      options.query.kind === "ids"
        ? { clients: reads.clients, leftOut: [] }
        : selectClients(reads.clients, {
            includeGlobal: options.includeGlobal,
            includeSelf: options.includeSelf,
            ownClientId: ownClientIdOf(settings.credentials),
          });
    const plan = planProgram({
      clients: selection.clients,
      pushProvider: reads.pushProvider,
      fields: options.fields,
      declared,
    });
    const dir = resolve(options.out);
    const files = {
      ...renderProject(plan, options.projectName, ownVersions()),
      ...(options.importFile
        ? { "import.json": renderImportFile(plan, new URL(settings.origin).host) }
        : {}),
    };
    const written = await writeProject(dir, files, options.force);
    for (const { clientId, why } of selection.leftOut) say(`left out client ${clientId}: ${why}`);
    for (const note of plan.notes) say(`note: ${note}`);
    for (const client of plan.clients) {
      for (const note of client.notes) say(`note: ${client.resourceName}: ${note}`);
    }
    const stripping = typeStrippingSentence(dir, io.nodeVersion ?? process.versions.node);
    if (stripping !== undefined) say(`warning: ${stripping}`);
    say(
      nextSteps({
        dir,
        clients: plan.clients.length,
        pushProvider: plan.pushProvider !== undefined,
        importFile: options.importFile,
      }),
    );
    io.stdout(`${written.join("\n")}\n`);
    return 0;
  } catch (error) {
    if (error instanceof TenantError) {
      say(`pulumi-tenant generate: ${error.message}`);
      return exitStatusOf(error);
    }
    say(`pulumi-tenant generate: unexpected failure: ${(error as Error)?.stack ?? String(error)}`);
    return COMMAND_EXIT.failed;
  }
}
