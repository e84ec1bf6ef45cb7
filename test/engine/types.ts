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
  /**
   * Most resource operations at once (`--parallel`); default `PULUMI_PARALLEL`, else 4 per CPU
   * as Pulumi's `up` does. Check and Diff run one at a time regardless, unless
   * `PULUMI_PARALLEL_DIFF` is true in the environment.
   */
  parallel?: number;
  /**
   * `--expect-no-changes` (preview, up, refresh): the run does what it does (an up applies, a
   * refresh records the drift), then fails with exit code 7 if anything changed.
   */
  expectNoChanges?: boolean;
  /** refresh only: report drift without writing state (`pulumi refresh --preview-only`). */
  previewOnly?: boolean;
  /**
   * up, refresh, destroy: skip the preview pass that otherwise runs first (`--skip-preview`);
   * a failed preview pass fails the run before anything is applied.
   */
  skipPreview?: boolean;
  /**
   * refresh only (`--run-program`, or PULUMI_RUN_PROGRAM): run the program, so the provider is
   * configured with the current stack config instead of the one recorded at the last `up`.
   */
  runProgram?: boolean;
  /** refresh only (`--clear-pending-creates`): forget the creates an interrupted run left pending. */
  clearPendingCreates?: boolean;
  /** Extra environment for the program and the provider host (over this process's). */
  env?: Record<string, string>;
  /** Called as steps start and finish, when child processes start, and for every log line. */
  onEvent?: (e: EngineEvent) => void;
  /** Bound for the whole run; past it the children are killed and the run fails. */
  timeoutMs?: number;
  /**
   * Aborting kills the run at once, as a killed CI job would be: children killed, nothing more
   * written to the state (operations in flight stay pending in it).
   */
  signal?: AbortSignal;
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

/**
 * Exit codes of the Pulumi CLI that the stand-in uses: 0 success, 1 any failure, 2 a bad
 * invocation (the CLI only), 7 `--expect-no-changes` with changes.
 */
export type ExitCode = 0 | 1 | 2 | 7;

/** What {@link runEngine} returns. */
export interface EngineResult {
  ok: boolean;
  /** What the CLI exits with: 0, 1, or 7 when `--expect-no-changes` saw changes. */
  exitCode: ExitCode;
  error?: string;
  /**
   * Steps of the last pass, in the order they started (deletes of resources that left the
   * program come last): the update, or the preview when only a preview ran or the preview pass
   * failed.
   */
  steps: StepResult[];
  /** Steps of the preview pass that ran before an up, refresh or destroy (none when skipped). */
  previewSteps?: StepResult[];
  /** Number of completed steps per op (failed steps are not counted). */
  counts: Record<string, number>;
  /** True when any step of the last pass is other than `same` or `read`. */
  changes: boolean;
  /** The printed summary (what the CLI prints): the preview pass's, then the update's. */
  output: string;
  /** Engine.Log lines, provider host stderr/stdout and program stderr/stdout, for assertions. */
  diagnostics: string[];
  stateFile: string;
  /** The provider host's pid and peak resident set size (VmHWM), when one was started. */
  providerHost?: { pid: number; peakRssBytes: number };
  /** Milliseconds of each Check and Diff call of both passes, for benchmarks. */
  timings: { checkMs: number[]; diffMs: number[] };
}

/** Log severities, as the Engine.Log RPC names them. */
export type LogSeverity = "debug" | "info" | "warning" | "error";

/** Progress reported to {@link EngineOptions.onEvent}. */
export type EngineEvent =
  /** A step's operation is decided and it starts (refresh: its read starts, op `refresh`). */
  | { type: "step-start"; urn: string; op: StepOp }
  | { type: "step-end"; step: StepResult }
  /** A provider call that changes something is recorded as pending and about to be sent. */
  | {
      type: "operation-start";
      urn: string;
      operation: "creating" | "updating" | "deleting" | "reading";
    }
  | { type: "provider-host"; pid: number }
  | { type: "program"; pid: number }
  /** A log line (the SDK's debug lines are dropped: they can hold secrets in plaintext). */
  | { type: "log"; severity: LogSeverity; message: string; urn?: string; source: LogSource };

/** Where a log line came from. */
export type LogSource = "engine" | "program" | "provider-host";
