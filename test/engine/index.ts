/**
 * The engine stand-in: runs a Pulumi TypeScript program with Pulumi's own Node.js language runtime
 * against this process's ResourceMonitor and Engine services, and drives Pulumi's own
 * dynamic-provider host, following the real engine's rules (CONFORMANCE.md lists them, with
 * where Pulumi 3.248 implements each and the test that shows it). It exists because the Pulumi
 * CLI cannot be installed where these tests run; where it can, the same programs run with
 * `pulumi` and a local file backend.
 */
import * as os from "node:os";
import * as path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { loadProject, loadStackConfig, type ProjectInfo, type StackConfig } from "./config.js";
import { EngineService, engineService } from "./engine-service.js";
import { type RpcServer, startServer } from "./grpc.js";
import { monitorService, ResourceMonitorService } from "./monitor.js";
import { ProgramProcess } from "./program.js";
import { ProviderHost } from "./provider-host.js";
import { type ProviderUse, providerConfigFor } from "./providers.js";
import { passphraseFromEnv } from "./secrets.js";
import { StateStore } from "./state.js";
import { Deployment, displayType, STACK_TYPE } from "./steps.js";
import { countSteps, renderSummary } from "./summary.js";
import type {
  EngineCommand,
  EngineEvent,
  EngineOptions,
  EngineResult,
  ExitCode,
  LogSeverity,
  LogSource,
  StepResult,
} from "./types.js";
import type { PropertyMap } from "./values.js";

export type { ProjectInfo } from "./config.js";
export { getConfigValue, loadProject, setConfigValue } from "./config.js";
export type { StackState, StateResource } from "./state.js";
export { readState } from "./state.js";
export type * from "./types.js";

const ORGANIZATION = "organization";
const HOST_START_TIMEOUT_MS = 60_000;

/** Default state directory for a project directory: `<cwd>/.pulumi-standin`. */
export function defaultStateDir(cwd: string): string {
  return path.join(path.resolve(cwd), ".pulumi-standin");
}

/** Path of a stack's state file. */
export function stateFilePath(stateDir: string, stack: string): string {
  return path.join(stateDir, `${stack}.json`);
}

/** True for the values Pulumi's boolean environment variables accept as true. */
function truthy(value: string | undefined): boolean {
  return value !== undefined && ["1", "true", "yes"].includes(value.toLowerCase());
}

/**
 * The default `--parallel`, as Pulumi's `up` computes it: `PULUMI_PARALLEL` when it is a positive
 * integer, else four operations per CPU.
 */
export function defaultParallel(env: NodeJS.ProcessEnv, cpus = os.availableParallelism()): number {
  const n = Number(env.PULUMI_PARALLEL);
  return Number.isInteger(n) && n > 0 ? n : 4 * cpus;
}

/** The operation named in Pulumi's `--expect-no-changes` error. */
const OPERATION: Record<EngineCommand, string> = {
  preview: "preview",
  up: "update",
  refresh: "refresh",
  destroy: "destroy",
};

/** Pulumi's error when `--expect-no-changes` meets changes (exit code 7). */
export function noChangesExpectedMessage(command: EngineCommand): string {
  return `no changes were expected for ${OPERATION[command]} but changes were proposed`;
}

/**
 * Options the Pulumi CLI does not accept together (or at all, for the stand-in): the reason, or
 * undefined. Such a run fails before anything starts, with exit code 2 from the CLI.
 */
export function invocationError(
  options: EngineOptions,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const { command } = options;
  if (options.previewOnly && command !== "refresh") {
    return "--preview-only is supported here for refresh only";
  }
  if (options.runProgram && command !== "refresh") {
    return "--run-program is supported by the engine stand-in for refresh only";
  }
  if (command === "destroy" && truthy(env.PULUMI_RUN_PROGRAM) && options.runProgram !== false) {
    return "destroy --run-program (PULUMI_RUN_PROGRAM) is not supported by the engine stand-in";
  }
  if (options.expectNoChanges && command === "destroy") {
    return "destroy has no --expect-no-changes";
  }
  if (options.clearPendingCreates && command !== "refresh") {
    return "--clear-pending-creates is a refresh option";
  }
  if (options.skipPreview && (command === "preview" || options.previewOnly)) {
    return "--skip-preview makes no sense for a preview";
  }
  return undefined;
}

/** Whether any step changes something (Pulumi's HasChanges: reads and sames do not). */
function hasChanges(steps: readonly { op: string }[]): boolean {
  return steps.some((s) => s.op !== "same" && s.op !== "read");
}

/** What one pass (a preview, or the update after it) produced. */
interface Pass {
  dryRun: boolean;
  error: string | undefined;
  steps: StepResult[];
  stackOutputs: PropertyMap | undefined;
  /** Warnings and errors of the engine, for the summary. */
  shown: string[];
  diagnostics: string[];
  providerHost: EngineResult["providerHost"];
  timings: EngineResult["timings"];
}

/** Everything a pass needs that does not change between the preview pass and the update. */
interface RunContext {
  options: EngineOptions;
  command: EngineCommand;
  stack: string;
  project: ProjectInfo;
  config: StackConfig;
  env: NodeJS.ProcessEnv;
  stateFile: string;
  parallel: number;
  runProgram: boolean;
  /** Aborted when the run times out or is killed; its reason is the error to report. */
  stop: AbortSignal;
}

/**
 * Runs one command (preview, up, refresh, destroy) on one stack and reports what happened. As the
 * Pulumi CLI does, up, refresh and destroy first run a preview pass (unless `skipPreview`), and
 * apply only if it succeeds. Never throws for a failed run: `ok` is false and `error` says why.
 * Child processes never outlive it.
 */
export async function runEngine(options: EngineOptions): Promise<EngineResult> {
  const { command } = options;
  const stack = options.stack ?? "dev";
  const cwd = path.resolve(options.cwd);
  const stateFile = stateFilePath(options.stateDir ?? defaultStateDir(cwd), stack);
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  const failed = (error: string): EngineResult => ({
    ok: false,
    exitCode: 1,
    error,
    steps: [],
    counts: {},
    changes: false,
    output: renderSummary({ command, stack, dryRun: false, steps: [], diagnostics: [], error }),
    diagnostics: [],
    stateFile,
    timings: { checkMs: [], diffMs: [] },
  });
  const invalid = invocationError(options, env);
  if (invalid) return { ...failed(invalid), exitCode: 2 };

  const stopper = new AbortController();
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => stopper.abort(new Error(`the ${command} timed out after ${options.timeoutMs} ms`)),
          options.timeoutMs,
        );
  const onAbort = () => stopper.abort(new Error(`the ${command} was killed`));
  options.signal?.addEventListener("abort", onAbort);
  if (options.signal?.aborted) onAbort();
  try {
    let project: ProjectInfo;
    let config: StackConfig;
    try {
      project = loadProject(cwd);
      config = await loadStackConfig(project, stack, passphraseFromEnv(env), options.config);
      // A stack file without a salt (deleted, say) reuses the state's, so its secrets stay readable.
      const stateSalt = StateStore.salt(stateFile);
      if (stateSalt) config.secrets.adoptSalt(stateSalt);
      // As Pulumi: the stack's secrets manager is ready before anything runs, so a missing
      // passphrase fails here, never halfway through an update.
      await config.secrets.get();
    } catch (err) {
      return failed(err instanceof Error ? err.message : String(err));
    }
    const context: RunContext = {
      options,
      command,
      stack,
      project,
      config,
      env,
      stateFile,
      parallel: options.parallel ?? defaultParallel(env),
      runProgram: command === "refresh" && (options.runProgram ?? truthy(env.PULUMI_RUN_PROGRAM)),
      stop: stopper.signal,
    };
    const previewOnly = command === "preview" || (command === "refresh" && !!options.previewOnly);
    const preview = previewOnly || options.skipPreview ? undefined : await runPass(context, true);
    const last = preview?.error !== undefined ? preview : await runPass(context, previewOnly);
    return result(context, preview === last ? undefined : preview, last);
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** The result of a run from its passes: `preview` (if one ran before) and the last one. */
function result(context: RunContext, preview: Pass | undefined, last: Pass): EngineResult {
  const { command, stack, options } = context;
  let error = last.error;
  let exitCode: ExitCode = error === undefined ? 0 : 1;
  if (error === undefined && options.expectNoChanges && hasChanges(last.steps)) {
    error = noChangesExpectedMessage(command);
    exitCode = 7;
  }
  const summary = (pass: Pass, err: string | undefined) =>
    renderSummary({
      command,
      stack,
      dryRun: pass.dryRun,
      steps: pass.steps,
      stackOutputs: pass.stackOutputs,
      diagnostics: pass.shown,
      error: err,
    });
  const output = [...(preview ? [summary(preview, undefined)] : []), summary(last, error)].join(
    "\n",
  );
  return {
    ok: error === undefined,
    exitCode,
    ...(error !== undefined ? { error } : {}),
    steps: last.steps,
    ...(preview ? { previewSteps: preview.steps } : {}),
    counts: countSteps(last.steps),
    changes: hasChanges(last.steps),
    output,
    diagnostics: [...(preview?.diagnostics ?? []), ...last.diagnostics],
    stateFile: context.stateFile,
    ...(last.providerHost ? { providerHost: last.providerHost } : {}),
    timings: {
      checkMs: [...(preview?.timings.checkMs ?? []), ...last.timings.checkMs],
      diffMs: [...(preview?.timings.diffMs ?? []), ...last.timings.diffMs],
    },
  };
}

/** The warning an update gives when the previous run left operations pending. */
export function pendingOperationsWarning(
  operations: ReadonlyArray<{ urn: string; type: string }>,
): string {
  return [
    `Attempting to deploy or update resources with ${operations.length} pending operations from previous deployment.`,
    ...operations.map((op) => `  * ${op.urn}, interrupted while ${op.type}`),
    "A run stopped while the provider was changing these resources, so their state is unknown: " +
      "check them in the tenant, then run refresh, which records what they are and clears the " +
      "pending operations (a pending create stays until refresh --clear-pending-creates).",
  ].join("\n");
}

/** One pass over the stack: a preview (`dryRun`) or the update itself. */
async function runPass(context: RunContext, dryRun: boolean): Promise<Pass> {
  const { command, stack, project, config, env, stop } = context;
  const diagnostics: string[] = [];
  const shown: string[] = [];
  const errors: string[] = [];
  let programStderr: string[] = [];
  const emit = (e: EngineEvent): void => {
    try {
      context.options.onEvent?.(e);
    } catch {
      // A listener's bug must not break the run.
    }
  };
  const log = (source: LogSource, severity: LogSeverity, text: string, urn?: string): void => {
    // The SDK's debug lines carry every serialized provider and every RPC answer, secrets in
    // plaintext included: they are dropped, not stored nor reported.
    if (severity === "debug") return;
    // The SDK colours stack traces even into a pipe; escape codes make assertions and logs noisy.
    const message = stripVTControlCharacters(text);
    const where =
      urn && !urn.includes(`::${STACK_TYPE}::`)
        ? `${displayType(urn.split("::")[2] ?? "")} (${urn.slice(urn.lastIndexOf("::") + 2)}): `
        : "";
    const line = source === "engine" ? `${severity}: ${where}${message}` : `${source}: ${message}`;
    diagnostics.push(line);
    if (source === "engine" && (severity === "warning" || severity === "error")) shown.push(line);
    if (source === "engine" && severity === "error") errors.push(message);
    emit({ type: "log", severity, message, source, ...(urn ? { urn } : {}) });
  };

  let server: RpcServer | undefined;
  let program: ProgramProcess | undefined;
  let host: ProviderHost | undefined;
  let hostStart: Promise<ProviderHost> | undefined;
  let deployment: Deployment | undefined;
  let state: StateStore | undefined;
  let error: string | undefined;
  let providerHost: Pass["providerHost"];
  const starting = new AbortController();
  const stopped = new Promise<never>((_, reject) => {
    const abort = () => reject(stop.reason);
    if (stop.aborted) abort();
    else stop.addEventListener("abort", abort, { once: true });
  });
  stopped.catch(() => undefined);
  const bounded = <T>(p: Promise<T>): Promise<T> => Promise.race([p, stopped]);

  try {
    const stackName = `${ORGANIZATION}/${project.name}/${stack}`;
    state = await bounded(StateStore.open(context.stateFile, stackName, config.secrets));
    if (!dryRun && command === "refresh" && context.options.clearPendingCreates) {
      state.clearInterruptedCreates();
    }
    if (!dryRun && (command === "up" || command === "destroy") && state.interrupted.length > 0) {
      log(
        "engine",
        "warning",
        pendingOperationsWarning(
          state.interrupted.map((op) => ({ urn: op.resource.urn, type: op.type })),
        ),
      );
    }
    const sdkDir = path.dirname(
      require.resolve("@pulumi/pulumi/package.json", { paths: [project.programDir] }),
    );
    const recorded = state.defaultProvider();

    let onFailure: (err: Error) => void = () => undefined;
    const failed = new Promise<Error>((resolve) => {
      onFailure = resolve;
    });
    const startHost = async (): Promise<ProviderHost> => {
      if (!server) throw new Error("the engine's gRPC server is not running");
      const started = await ProviderHost.start({
        sdkDir,
        cwd: project.programDir,
        env: {
          ...env,
          PULUMI_NODEJS_PROJECT: project.name,
          PULUMI_NODEJS_STACK: stack,
          PULUMI_NODEJS_ORGANIZATION: ORGANIZATION,
          PULUMI_NODEJS_ROOT_DIRECTORY: project.dir,
          PULUMI_NODEJS_DRY_RUN: String(dryRun),
        },
        engineAddress: server.address,
        onLine: (_stream, line) => log("provider-host", "info", line),
        startTimeoutMs: HOST_START_TIMEOUT_MS,
        signal: starting.signal,
      });
      host = started;
      emit({ type: "provider-host", pid: started.pid });
      return started;
    };
    // The host starts early (while the program compiles), but is configured at its first use,
    // which decides with which config (see providerConfigFor).
    let configured: Promise<ProviderHost> | undefined;
    const provider = (use: ProviderUse): Promise<ProviderHost> => {
      configured ??= (async () => {
        hostStart ??= startHost();
        const started = await hostStart;
        await started.configure(
          providerConfigFor(command, context.runProgram, recorded, config.values, use),
        );
        return started;
      })();
      return configured;
    };
    const current = new Deployment({
      command,
      dryRun,
      runProgram: context.runProgram,
      project: project.name,
      stack,
      organization: ORGANIZATION,
      parallel: context.parallel,
      parallelDiff: truthy(env.PULUMI_PARALLEL_DIFF),
      legacyRefreshDiff: truthy(env.PULUMI_ENABLE_LEGACY_REFRESH_DIFF),
      config: config.values,
      state,
      provider,
      emit,
      onFailure: (err) => onFailure(err),
    });
    deployment = current;
    server = await startServer([
      [ResourceMonitorService, monitorService(current)],
      [EngineService, engineService((sev, msg, urn) => log("engine", sev, msg, urn))],
    ]);

    if (command === "preview" || command === "up" || context.runProgram) {
      // Start the host while the program compiles; a start failure surfaces at the first step.
      hostStart = startHost();
      hostStart.catch(() => undefined);
      program = ProgramProcess.start({
        sdkDir,
        project,
        stack,
        organization: ORGANIZATION,
        monitorAddress: server.address,
        engineAddress: server.address,
        dryRun,
        parallel: context.parallel,
        config: config.values,
        env,
        onLine: (stream, line) => {
          if (stream === "stderr") programStderr = [...programStderr.slice(-19), line];
          log("program", "info", line);
        },
      });
      if (program.pid !== undefined) emit({ type: "program", pid: program.pid });
      const exit = await bounded(Promise.race([program.exited, failed.then(() => undefined)]));
      if (current.failure) {
        await program.kill();
        await bounded(current.idle());
      } else if (exit && exit.code === 0) {
        // Programs that exit without signalling shutdown still get their deletes.
        await bounded(current.runDeletes().catch(() => undefined));
      } else if (exit) {
        error =
          errors.length > 0
            ? errors.join("\n")
            : [
                `the program exited with ${exit.signal ?? `code ${exit.code}`}`,
                ...programStderr.map(stripVTControlCharacters),
              ].join("\n");
      }
    } else if (command === "refresh") {
      await bounded(current.refresh().catch(() => undefined));
    } else {
      await bounded(current.destroy().catch(() => undefined));
    }
    const failure = current.failure ?? current.previewFailure;
    if (failure) error = failure.message;
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
    if (stop.aborted) {
      // Killed: nothing a killed engine would not have written reaches the state.
      state?.freeze();
      await host?.stop(0).catch(() => undefined);
    }
  } finally {
    await program?.kill().catch(() => undefined);
    if (host) {
      providerHost = { pid: host.pid, peakRssBytes: host.peakRssBytes() ?? 0 };
      await host.stop().catch(() => undefined);
    } else if (hostStart) {
      // A host still starting: abort its start (which kills it) and wait for that.
      starting.abort();
      await hostStart.catch(() => undefined);
    }
    server?.close();
  }
  if (state && !dryRun) {
    try {
      await state.checkpoint();
    } catch (err) {
      error ??= `writing the state failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return {
    dryRun,
    error,
    steps: deployment?.steps ?? [],
    stackOutputs: deployment?.stackOutputs,
    shown,
    diagnostics,
    providerHost,
    timings: deployment?.timings ?? { checkMs: [], diffMs: [] },
  };
}
