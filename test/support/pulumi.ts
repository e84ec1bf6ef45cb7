/**
 * Runs Pulumi programs with the real `pulumi` CLI (test/support/pulumi-cli.ts), offline and
 * isolated as Pulumi's own test tools run it (docs/design/pulumi-cli.md): a file backend and a
 * `PULUMI_HOME` of the project's own in a temporary folder, the passphrase secrets manager, no
 * update check, no plugin acquisition, no plugins from PATH. What a run did is read from the CLI's
 * exit code, its output and its engine event log.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { parse, stringify } from "yaml";
import { STEP_BOUNDS_MS } from "./budgets.js";
import {
  DEFAULT_NODE_LINE,
  findNodeRuntime,
  type NodeLine,
  type NodeRuntime,
  withNode,
} from "./node-runtimes.js";
import { ensurePulumiCli, type PulumiCli } from "./pulumi-cli.js";
import { runStep } from "./steps.js";

// The process tree of a CLI run: the tests that kill a run mid-way take them from here.
export { killProcessTree, type ProcessInfo, processTree } from "./steps.js";

/** The passphrase of every test stack's secrets. */
export const PASSPHRASE = "e2e-passphrase";

/** The commands the tests run. */
export type PulumiCommand = "preview" | "up" | "refresh" | "destroy";

/** Stack config: key (`namespace:name`) to value, stored encrypted when `secret`. */
export type ConfigValues = Record<string, { value: string; secret?: boolean }>;

/** Flags of one run; each is the CLI flag of the same name. */
export interface RunOptions {
  /** `--expect-no-changes`: the run does what it does, then exits 7 if anything changed. */
  expectNoChanges?: boolean;
  /** refresh: `--preview-only`. */
  previewOnly?: boolean;
  /** up, refresh, destroy: `--skip-preview`. */
  skipPreview?: boolean;
  /** refresh: `--run-program`. */
  runProgram?: boolean;
  /** refresh: `--clear-pending-creates`. */
  clearPendingCreates?: boolean;
  /** `--parallel`. */
  parallel?: number;
  /** More arguments, e.g. `--policy-pack <dir>`. */
  args?: string[];
  /** Environment over the isolated one (a value of `undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  /** Called with the CLI's process once it started (to kill it mid-run, say). */
  onStart?: (cli: ChildProcess) => void;
  /**
   * Bound for the whole command; past it the CLI and its children are killed and the result's
   * `error` says so. By default `STEP_BOUNDS_MS.pulumiOperation` (test/support/budgets.ts).
   */
  timeoutMs?: number;
}

/** One resource's part in a run, from the engine's events. */
export interface Step {
  urn: string;
  /** The full type token, e.g. `pulumi-nodejs:dynamic/tenant:ClientSettings`. */
  type: string;
  name: string;
  /**
   * Pulumi's step op: `same`, `create`, `update`, `delete`, `replace` (the resource's replacement,
   * whatever its order), `refresh`, `read`...
   */
  op: string;
  /**
   * Top-level properties that differ, as the engine's events name them: an update's and a
   * replacement's. A refresh's events name none (its diff is the provider's Diff of the read
   * outputs against the inputs, shown only in the CLI's display).
   */
  changedProperties: string[];
  ok: boolean;
}

/** One engine event of the event log, debug diagnostics left out (they hold secrets). */
export type EngineEvent = { sequence: number } & Record<string, unknown>;

/** What one CLI command did. */
export interface PulumiResult {
  exitCode: number;
  ok: boolean;
  /**
   * The engine's error diagnostics, then the CLI's own errors, one a line; the CLI's last words
   * when it failed without any.
   */
  error?: string;
  /** Everything the CLI printed, standard output and error in the order they came. */
  output: string;
  /** The resources' steps of the last pass (the update of an `up`), in the order they started. */
  steps: Step[];
  /** The resources' completed steps per op (the stack and its providers are not counted). */
  counts: Record<string, number>;
  /** Whether the engine's summary counts anything other than `same` (as `--expect-no-changes`). */
  changes: boolean;
  /** Messages of the info, warning and error diagnostics. */
  diagnostics: string[];
  /** What the policy packs of the run reported, in the order they did. */
  policyViolations: PolicyViolation[];
  events: EngineEvent[];
}

/** One violation a policy pack reported, from the engine's policy event. */
export interface PolicyViolation {
  /** The rule's name. */
  policy: string;
  /** `mandatory`, `advisory` or `remediate`. */
  level: string;
  /** The name of the resource it concerns (the last part of its URN). */
  resource: string;
  /** The rule's description, then the violation's own message, on the lines after it. */
  message: string;
}

/** Where a program lives and how its project is named, for {@link PulumiProject.create}. */
export interface ProjectOptions {
  /** The program's folder, holding its Pulumi.yaml (an example, a fixture, a user's project). */
  program: string;
  /** The project name; by default the program's Pulumi.yaml's. */
  name?: string;
  stack?: string;
  /** Config of the stack from the start. */
  config?: ConfigValues;
  /** The CLI version; by default the lock's. */
  cliVersion?: string;
  /** The Node.js line the programs and provider hosts run under; by default {@link DEFAULT_NODE_LINE}. */
  nodeLine?: NodeLine;
}

/**
 * A Pulumi project in its own temporary folder, whose `main:` points at a program of this
 * repository (so the program resolves `pulumi-tenant` and `@pulumi/pulumi` as a user's would,
 * through `node_modules`), with its own backend, `PULUMI_HOME` and one stack. Nothing is shared
 * between two projects, and nothing is written into the repository.
 */
export class PulumiProject {
  private config: ConfigValues = {};

  private constructor(
    readonly cli: PulumiCli,
    /** The `node` that the CLI's language host and dynamic-provider hosts find first on PATH. */
    readonly node: NodeRuntime,
    /** The temporary folder: `project/`, `state/`, `home/`, event logs. */
    readonly root: string,
    readonly name: string,
    readonly stack: string,
  ) {}

  /** The folder holding Pulumi.yaml and the stack's config file. */
  get dir(): string {
    return join(this.root, "project");
  }

  /** The stack's state file in the file backend. */
  get stateFile(): string {
    return join(this.root, "state", ".pulumi", "stacks", this.name, `${this.stack}.json`);
  }

  static async create(options: ProjectOptions): Promise<PulumiProject> {
    const cli = await ensurePulumiCli(options.cliVersion);
    const node = findNodeRuntime(options.nodeLine ?? DEFAULT_NODE_LINE);
    const root = await mkdtemp(join(tmpdir(), "tenant-pulumi-"));
    try {
      const own = projectFile(join(options.program, "Pulumi.yaml"));
      const name = options.name ?? String(own.name);
      const project = new PulumiProject(cli, node, root, name, options.stack ?? "e2e");
      await mkdir(project.dir, { recursive: true });
      await mkdir(join(root, "state"));
      await mkdir(join(root, "home"));
      // The program's own `main:` (a file, say) is kept, now relative to the new project, and so
      // are its runtime options (ts-node or Node.js's type stripping).
      const main = relative(project.dir, join(options.program, String(own.main ?? "")));
      // A Pulumi YAML program is its Pulumi.yaml: it is copied whole, renamed.
      await writeFile(
        join(project.dir, "Pulumi.yaml"),
        stringify(
          own.runtime === "yaml"
            ? { ...own, name }
            : { name, runtime: own.runtime ?? "nodejs", main },
        ),
      );
      await project.cliCommand([
        "stack",
        "init",
        project.stack,
        "--secrets-provider",
        "passphrase",
      ]);
      await project.setConfig(options.config ?? {});
      return project;
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * Makes the stack's config exactly `values`: keys not in it (or given as undefined, to take a
   * stack's key out for one run) are removed, changed ones set (secrets encrypted by the CLI with
   * the stack's passphrase). Calls the CLI only for what differs.
   */
  async setConfig(given: ConfigValues): Promise<void> {
    const values: ConfigValues = Object.fromEntries(
      Object.entries(given).filter(([, value]) => value !== undefined),
    );
    const gone = Object.keys(this.config).filter((key) => values[key] === undefined);
    const changed = Object.entries(values).filter(([key, v]) => {
      const old = this.config[key];
      return old?.value !== v.value || !!old.secret !== !!v.secret;
    });
    if (gone.length > 0) await this.cliCommand(["config", "rm-all", ...gone]);
    if (changed.length > 0) {
      const args = changed.flatMap(([key, v]) => [
        v.secret ? "--secret" : "--plaintext",
        `${key}=${v.value}`,
      ]);
      await this.cliCommand(["config", "set-all", ...args]);
    }
    this.config = structuredClone(values);
  }

  /** The environment every command of this project runs with. */
  env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...isolatedCliEnv(join(this.root, "home"), this.node),
      PULUMI_BACKEND_URL: `file://${join(this.root, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      // The event log is a debug command's flag.
      PULUMI_DEBUG_COMMANDS: "true",
    };
    for (const [name, value] of Object.entries(extra)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    return env;
  }

  /**
   * Runs `pulumi <args>` in the project (not an operation: stack, config, export), as a step
   * bounded by `STEP_BOUNDS_MS.pulumiCommand`; throws on failure, naming the command (its first two
   * words: the rest may be config values, secrets among them).
   */
  async cliCommand(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
    const label = `pulumi ${args.slice(0, 2).join(" ")}`;
    const result = await runStep(this.cli.path, [...args, "--non-interactive"], {
      cwd: this.dir,
      env: this.env(env),
      boundMs: STEP_BOUNDS_MS.pulumiCommand,
      label,
    });
    if (result.killed !== undefined) throw new Error(result.killed);
    if (result.exitCode !== 0) {
      throw new Error(`${label} failed: ${(result.stderr || result.stdout).trim()}`);
    }
    return result.stdout;
  }

  /** Rewrites the project's Pulumi.yaml with `edit` (a YAML program changed between runs). */
  async editProgram(edit: (text: string) => string): Promise<void> {
    const file = join(this.dir, "Pulumi.yaml");
    await writeFile(file, edit(await readFile(file, "utf8")));
  }

  /** The stack's state as `pulumi stack export` gives it (secrets decrypted when asked). */
  async exportState(options: { showSecrets?: boolean } = {}): Promise<ExportedState> {
    const args = ["stack", "export", ...(options.showSecrets ? ["--show-secrets"] : [])];
    return JSON.parse(await this.cliCommand(args)) as ExportedState;
  }

  /** The state file's text ("" before the first update), for searching it. */
  async stateText(): Promise<string> {
    return readFile(this.stateFile, "utf8").catch(() => "");
  }

  /**
   * Runs one operation (preview, up, refresh, destroy) with `--yes --non-interactive`. Never
   * throws for a failed run: `ok` is false, `exitCode` and `error` say why.
   */
  async run(
    command: PulumiCommand,
    config: ConfigValues | undefined,
    options: RunOptions = {},
  ): Promise<PulumiResult> {
    if (config !== undefined) await this.setConfig(config);
    const eventLog = join(this.root, `events-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    const args = [
      command,
      "--non-interactive",
      "--color",
      "never",
      "--event-log",
      eventLog,
      ...(command === "preview" || options.previewOnly ? [] : ["--yes"]),
      ...(options.expectNoChanges ? ["--expect-no-changes"] : []),
      ...(options.previewOnly ? ["--preview-only"] : []),
      ...(options.skipPreview ? ["--skip-preview"] : []),
      ...(options.runProgram ? ["--run-program"] : []),
      ...(options.clearPendingCreates ? ["--clear-pending-creates"] : []),
      ...(options.parallel !== undefined ? ["--parallel", String(options.parallel)] : []),
      ...(options.args ?? []),
    ];
    return runCli(this.cli.path, args, {
      cwd: this.dir,
      env: this.env(options.env),
      boundMs: options.timeoutMs ?? STEP_BOUNDS_MS.pulumiOperation,
      label: operationLabel(command, options),
      eventLog,
      ...(options.onStart ? { onStart: options.onStart } : {}),
    });
  }

  async remove(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

/**
 * The environment in which the pulumi CLI runs here offline and isolated, as Pulumi's own test
 * tools run it (docs/design/pulumi-cli.md): `node`'s folder first on PATH (where the language host and
 * the dynamic-provider launcher find `node`), `PULUMI_HOME` at `home`, no update check, no plugin
 * download, no plugins from PATH, no Pulumi Cloud token and no backend or passphrase from the
 * machine (each run names its own).
 */
export function isolatedCliEnv(home: string, node: NodeRuntime): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...withNode(node),
    PULUMI_HOME: home,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
    // `npm test` type-checks the programs with tsc already; ts-node need not do it again.
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    NO_COLOR: "1",
  };
  for (const name of [
    "PULUMI_ACCESS_TOKEN",
    "PULUMI_BACKEND_URL",
    "PULUMI_CONFIG_PASSPHRASE",
    "PULUMI_CONFIG_PASSPHRASE_FILE",
    "PULUMI_SKIP_CONFIRMATIONS",
  ]) {
    delete env[name];
  }
  return env;
}

/** What `pulumi stack export` writes, as far as the tests read it. */
export interface ExportedState {
  deployment: {
    resources?: Array<{
      urn: string;
      type: string;
      id?: string;
      inputs?: Record<string, unknown>;
      outputs?: Record<string, unknown>;
      /** What a create or update that failed after the resource existed reported. */
      initErrors?: string[];
      protect?: boolean;
      retainOnDelete?: boolean;
    }>;
    pending_operations?: Array<{ type: string; resource: { urn: string } }>;
  };
}

/** Pulumi's mark of a secret value in a state file or an export (its "secret signature"). */
const SECRET_SIGNATURE = "4dabf18193072939515e22adb298388d";

/** Whether a value of a state file or an export is a secret (encrypted, or shown with its mark). */
export function isSecretValue(value: unknown): boolean {
  return typeof value === "object" && value !== null && SECRET_SIGNATURE in value;
}

/** A value of `pulumi stack export --show-secrets` with each secret replaced by its plaintext. */
export function revealed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revealed);
  if (typeof value !== "object" || value === null) return value;
  if (isSecretValue(value)) {
    const { plaintext } = value as { plaintext?: string };
    if (plaintext === undefined) throw new Error("the export holds a secret still encrypted");
    return revealed(JSON.parse(plaintext));
  }
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, revealed(v)]));
}

function projectFile(path: string): Record<string, unknown> {
  return (parse(readFileSync(path, "utf8")) ?? {}) as Record<string, unknown>;
}

/**
 * How a timeout message or a killed run names an operation: the command and the flags that say
 * what it does (`pulumi refresh --preview-only --expect-no-changes`), without those of every run.
 */
function operationLabel(command: PulumiCommand, options: RunOptions): string {
  return [
    "pulumi",
    command,
    ...(options.expectNoChanges ? ["--expect-no-changes"] : []),
    ...(options.previewOnly ? ["--preview-only"] : []),
    ...(options.skipPreview ? ["--skip-preview"] : []),
    ...(options.runProgram ? ["--run-program"] : []),
    ...(options.clearPendingCreates ? ["--clear-pending-creates"] : []),
    ...(options.parallel !== undefined ? ["--parallel", String(options.parallel)] : []),
    ...(options.args ?? []),
  ].join(" ");
}

/** How {@link runCli} runs the CLI. */
export interface CliRunOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Past this the CLI and every process it started are killed, and `error` says so. */
  readonly boundMs: number;
  /** How messages name the run: `pulumi up --skip-preview`. */
  readonly label: string;
  /** The file the run's `--event-log` names: read, then removed. */
  readonly eventLog?: string;
  readonly onStart?: (cli: ChildProcess) => void;
}

/**
 * Runs the CLI as a step (test/support/steps.ts: in a process group of its own, recorded while it
 * runs, killed with every process descended from it past its bound, so no child outlives the run)
 * and reads what it did from its exit code, its output and its event log. A run killed by its bound
 * fails with an `error` that starts by saying so (`pulumi up was killed after 180 s, its bound`),
 * whatever else the run reported. Exported so that this is tested with a stand-in command.
 */
export async function runCli(
  cli: string,
  args: readonly string[],
  options: CliRunOptions,
): Promise<PulumiResult> {
  const step = await runStep(cli, args, {
    cwd: options.cwd,
    env: options.env,
    boundMs: options.boundMs,
    label: options.label,
    ...(options.onStart ? { onStart: options.onStart } : {}),
  });
  const events = options.eventLog === undefined ? [] : await readEvents(options.eventLog);
  if (options.eventLog !== undefined) await rm(options.eventLog, { force: true });
  const output = stripVTControlCharacters(
    step.killed === undefined ? step.output : `${step.output}\n(${step.killed})\n`,
  );
  return resultOf(step.exitCode, output, events, step.killed);
}

async function readEvents(path: string): Promise<EngineEvent[]> {
  const text = await readFile(path, "utf8").catch(() => "");
  const events: EngineEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let event: EngineEvent;
    try {
      event = JSON.parse(line) as EngineEvent;
    } catch {
      continue; // the last line of a killed run may be cut
    }
    const diagnostic = event.diagnosticEvent as { severity?: string } | undefined;
    if (diagnostic?.severity === "debug") continue;
    events.push(event);
  }
  return events;
}

interface StepMetadata {
  op: string;
  urn: string;
  type: string;
  diffs?: string[];
}

const REPLACEMENT_OPS = new Set(["replace", "create-replacement", "delete-replaced"]);

/** Steps, counts and errors of a run from its engine events; `killed`, when its bound killed it. */
function resultOf(
  exitCode: number,
  output: string,
  events: EngineEvent[],
  killed?: string,
): PulumiResult {
  const steps = new Map<string, Step>();
  const diagnostics: string[] = [];
  const errors: string[] = [];
  const policyViolations: PolicyViolation[] = [];
  let summary: Record<string, number> = {};
  for (const event of events) {
    const pre = (event.resourcePreEvent as { metadata?: StepMetadata } | undefined)?.metadata;
    const done = (event.resOutputsEvent as { metadata?: StepMetadata } | undefined)?.metadata;
    const failed = (event.resOpFailedEvent as { metadata?: StepMetadata } | undefined)?.metadata;
    const metadata = pre ?? done ?? failed;
    if (metadata && !isInternal(metadata.type)) {
      const known = steps.get(metadata.urn);
      const op = REPLACEMENT_OPS.has(metadata.op) ? "replace" : metadata.op;
      steps.set(metadata.urn, {
        urn: metadata.urn,
        type: metadata.type,
        name: metadata.urn.slice(metadata.urn.lastIndexOf("::") + 2),
        // A refresh's step starts as `refresh` and ends as what it found.
        op: known?.op === "replace" ? "replace" : op,
        changedProperties: metadata.diffs ?? known?.changedProperties ?? [],
        ok: failed === undefined && (known?.ok ?? true),
      });
    }
    const diagnostic = event.diagnosticEvent as
      | { severity: string; message: string; urn?: string }
      | undefined;
    if (diagnostic) {
      const message = stripVTControlCharacters(diagnostic.message).trim();
      diagnostics.push(message);
      if (diagnostic.severity === "error") errors.push(message);
    }
    const policy = event.policyEvent as
      | { policyName: string; enforcementLevel: string; resourceUrn?: string; message: string }
      | undefined;
    if (policy) {
      const urn = policy.resourceUrn ?? "";
      policyViolations.push({
        policy: policy.policyName,
        level: policy.enforcementLevel,
        resource: urn.slice(urn.lastIndexOf("::") + 2),
        message: stripVTControlCharacters(policy.message).trim(),
      });
    }
    const end = event.summaryEvent as { resourceChanges?: Record<string, number> } | undefined;
    if (end) summary = { ...end.resourceChanges };
  }
  const counts: Record<string, number> = {};
  for (const step of steps.values()) if (step.ok) counts[step.op] = (counts[step.op] ?? 0) + 1;
  const changes = Object.entries(summary).some(([op, n]) => op !== "same" && n > 0);
  // The CLI's own errors (a flag, the secrets manager, --expect-no-changes) are not engine events:
  // it prints them unindented, after the run.
  for (const line of output.split("\n")) {
    if (line.startsWith("error: ")) errors.push(line.slice("error: ".length).trim());
  }
  if (killed !== undefined) errors.unshift(killed);
  const lastWords = output.trim().split("\n").slice(-3).join("\n");
  const error =
    errors.length > 0 ? errors.join("\n") : exitCode !== 0 ? lastWords || undefined : undefined;
  return {
    exitCode,
    ok: exitCode === 0,
    ...(error !== undefined ? { error } : {}),
    output,
    steps: [...steps.values()],
    counts,
    changes,
    diagnostics,
    policyViolations,
    events,
  };
}

function isInternal(type: string): boolean {
  return type === "pulumi:pulumi:Stack" || type.startsWith("pulumi:providers:");
}
