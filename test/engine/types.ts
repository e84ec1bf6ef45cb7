/**
 * The engine stand-in's public types: what {@link runEngine} takes and returns, and the events it
 * reports while it runs.
 */

/** The commands of the stand-in, named after Pulumi's. */
export type EngineCommand = "preview" | "up" | "refresh" | "destroy";

/**
 * What happened (or would happen) to one resource:
 * - `same`: nothing to do (refresh: no drift);
 * - `create` / `update` / `replace` / `delete`: as in Pulumi (refresh: `update` is drift,
 *   `delete` a resource that is gone);
 * - `read`: a resource read with `get` (ReadResource);
 * - `refresh`: reserved for a resource being refreshed while the run is in progress (events only).
 */
export type StepOp = "same" | "create" | "update" | "replace" | "delete" | "read" | "refresh";

/** Options of {@link runEngine}. */
export interface EngineOptions {
  command: EngineCommand;
  /** Directory holding `Pulumi.yaml` (its `main:` may point elsewhere, relative or absolute). */
  cwd: string;
  /** Stack name; default "dev". */
  stack?: string;
  /** Where the state file lives; default `<cwd>/.pulumi-standin` (gitignored). */
  stateDir?: string;
  /** Config merged over `Pulumi.<stack>.yaml`; keys without a namespace get the project's. */
  config?: Record<string, { value: string; secret?: boolean }>;
  /** Maximum concurrent resource operations; default 16. */
  parallel?: number;
  /** Fail when any step would change something (refresh included: the drift gate). */
  expectNoChanges?: boolean;
  /** refresh only: report drift without writing state (`pulumi refresh --preview-only`). */
  previewOnly?: boolean;
  /** Extra environment for the program and the provider host (over this process's). */
  env?: Record<string, string>;
  /** Called as steps start and finish, when child processes start, and for every log line. */
  onEvent?: (e: EngineEvent) => void;
  /** Bound for the whole run; past it the children are killed and the run fails. */
  timeoutMs?: number;
}

/** One resource's step in the result. */
export interface StepResult {
  urn: string;
  /** The full type token, e.g. `pulumi-nodejs:dynamic/tenant:ClientSettings`. */
  type: string;
  name: string;
  op: StepOp;
  /** Top-level properties that change (for a replace, those that force it come first). */
  changedProperties: string[];
  ok: boolean;
  error?: string;
}

/** What {@link runEngine} returns. */
export interface EngineResult {
  ok: boolean;
  /** What the CLI exits with: 0 on success, 1 otherwise. */
  exitCode: number;
  error?: string;
  /** Steps in the order they started (deletes of resources that left the program come last). */
  steps: StepResult[];
  /** Number of completed steps per op (failed steps are not counted). */
  counts: Record<string, number>;
  /** True when any step is other than `same`. */
  changes: boolean;
  /** The printed summary (what the CLI prints). */
  output: string;
  /** Engine.Log lines, provider host stderr/stdout and program stderr/stdout, for assertions. */
  diagnostics: string[];
  stateFile: string;
  /** The provider host's pid and peak resident set size (VmHWM), when one was started. */
  providerHost?: { pid: number; peakRssBytes: number };
  /** Milliseconds of each Check and Diff call, for benchmarks. */
  timings: { checkMs: number[]; diffMs: number[] };
}

/** Log severities, as the Engine.Log RPC names them. */
export type LogSeverity = "debug" | "info" | "warning" | "error";

/** Progress reported to {@link EngineOptions.onEvent}. */
export type EngineEvent =
  /** A step's operation is decided and it starts (refresh: its read starts, op `refresh`). */
  | { type: "step-start"; urn: string; op: StepOp }
  | { type: "step-end"; step: StepResult }
  | { type: "provider-host"; pid: number }
  | { type: "program"; pid: number }
  /** A log line (the SDK's debug lines are dropped: they can hold secrets in plaintext). */
  | { type: "log"; severity: LogSeverity; message: string; urn?: string; source: LogSource };

/** Where a log line came from. */
export type LogSource = "engine" | "program" | "provider-host";
