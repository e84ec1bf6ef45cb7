/**
 * The engine stand-in: runs a Pulumi TypeScript program with Pulumi's own Node.js language runtime
 * against this process's ResourceMonitor and Engine services, and drives Pulumi's own
 * dynamic-provider host, following the real engine's rules (see `steps.ts`). It exists because the
 * Pulumi CLI cannot be installed where these tests run; where it can, the same programs run with
 * `pulumi` and a local file backend.
 */
import * as path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { loadProject, loadStackConfig } from "./config.js";
import { EngineService, engineService } from "./engine-service.js";
import { type RpcServer, startServer } from "./grpc.js";
import { monitorService, ResourceMonitorService } from "./monitor.js";
import { ProgramProcess } from "./program.js";
import { ProviderHost } from "./provider-host.js";
import { passphraseFromEnv } from "./secrets.js";
import { StateStore } from "./state.js";
import { Deployment, displayType, STACK_TYPE } from "./steps.js";
import { countSteps, renderSummary } from "./summary.js";
import type { EngineEvent, EngineOptions, EngineResult, LogSeverity, LogSource } from "./types.js";

export type { ProjectInfo } from "./config.js";
export { getConfigValue, loadProject, setConfigValue } from "./config.js";
export type { StackState, StateResource } from "./state.js";
export { readState } from "./state.js";
export type * from "./types.js";

const ORGANIZATION = "organization";
const HOST_START_TIMEOUT_MS = 60_000;

class Timeout extends Error {}

/** Default state directory for a project directory: `<cwd>/.pulumi-standin`. */
export function defaultStateDir(cwd: string): string {
  return path.join(path.resolve(cwd), ".pulumi-standin");
}

/** Path of a stack's state file. */
export function stateFilePath(stateDir: string, stack: string): string {
  return path.join(stateDir, `${stack}.json`);
}

/**
 * Runs one command (preview, up, refresh, destroy) on one stack and reports what happened. Never
 * throws for a failed run: `ok` is false and `error` says why. Child processes never outlive it.
 */
export async function runEngine(options: EngineOptions): Promise<EngineResult> {
  const { command } = options;
  const stack = options.stack ?? "dev";
  const cwd = path.resolve(options.cwd);
  const stateFile = stateFilePath(options.stateDir ?? defaultStateDir(cwd), stack);
  const parallel = options.parallel ?? 16;
  const dryRun = command === "preview" || (command === "refresh" && options.previewOnly === true);
  const diagnostics: string[] = [];
  const shown: string[] = [];
  const errors: string[] = [];
  let programStderr: string[] = [];
  const emit = (e: EngineEvent): void => {
    try {
      options.onEvent?.(e);
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
  let providerHost: EngineResult["providerHost"];
  let timer: NodeJS.Timeout | undefined;
  const starting = new AbortController();
  const timeout = new Promise<never>((_, reject) => {
    if (options.timeoutMs !== undefined) {
      const ms = options.timeoutMs;
      timer = setTimeout(() => reject(new Timeout(`the ${command} timed out after ${ms} ms`)), ms);
    }
  });
  timeout.catch(() => undefined);
  const bounded = <T>(p: Promise<T>): Promise<T> => Promise.race([p, timeout]);

  try {
    const project = loadProject(cwd);
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    const config = await bounded(
      loadStackConfig(project, stack, passphraseFromEnv(env), options.config),
    );
    const stackName = `${ORGANIZATION}/${project.name}/${stack}`;
    state = await bounded(StateStore.open(stateFile, stackName, config.secrets));
    const sdkDir = path.dirname(
      require.resolve("@pulumi/pulumi/package.json", { paths: [project.programDir] }),
    );
    const plainConfig: Record<string, string> = {};
    for (const [k, v] of Object.entries(config.values)) plainConfig[k] = v.value;

    let onFailure: (err: Error) => void = () => undefined;
    const failed = new Promise<Error>((resolve) => {
      onFailure = resolve;
    });
    const startHost = async (): Promise<ProviderHost> => {
      if (!server) throw new Error("the engine's gRPC server is not running");
      const h = await ProviderHost.start({
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
      host = h;
      emit({ type: "provider-host", pid: h.pid });
      await h.configure(plainConfig);
      return h;
    };
    const d = new Deployment({
      command,
      dryRun,
      project: project.name,
      stack,
      organization: ORGANIZATION,
      parallel,
      expectNoChanges: options.expectNoChanges === true,
      config: config.values,
      state,
      provider: () => {
        hostStart ??= startHost();
        return hostStart;
      },
      emit,
      onFailure: (err) => onFailure(err),
    });
    deployment = d;
    server = await startServer([
      [ResourceMonitorService, monitorService(d)],
      [EngineService, engineService((sev, msg, urn) => log("engine", sev, msg, urn))],
    ]);

    if (command === "preview" || command === "up") {
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
        parallel,
        config: config.values,
        env,
        onLine: (stream, line) => {
          if (stream === "stderr") programStderr = [...programStderr.slice(-19), line];
          log("program", "info", line);
        },
      });
      if (program.pid !== undefined) emit({ type: "program", pid: program.pid });
      const exit = await bounded(Promise.race([program.exited, failed.then(() => undefined)]));
      if (d.failure) {
        await program.kill();
        await bounded(d.idle());
      } else if (exit && exit.code === 0) {
        // Programs that exit without signalling shutdown still get their deletes.
        await bounded(d.runDeletes().catch(() => undefined));
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
      await bounded(d.refresh().catch(() => undefined));
    } else {
      await bounded(d.destroy().catch(() => undefined));
    }
    if (d.failure) error = d.failure.message;
    if (!error && options.expectNoChanges && hasChanges(d.steps)) {
      error = "no changes were expected but changes were proposed";
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
    if (err instanceof Timeout) await host?.stop(0).catch(() => undefined);
  } finally {
    if (timer) clearTimeout(timer);
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

  const steps = deployment?.steps ?? [];
  const output = renderSummary({
    command,
    stack,
    dryRun,
    steps,
    stackOutputs: deployment?.stackOutputs,
    diagnostics: shown,
    error,
  });
  return {
    ok: error === undefined,
    exitCode: error === undefined ? 0 : 1,
    ...(error !== undefined ? { error } : {}),
    steps,
    counts: countSteps(steps),
    changes: hasChanges(steps),
    output,
    diagnostics,
    stateFile,
    ...(providerHost ? { providerHost } : {}),
    timings: deployment?.timings ?? { checkMs: [], diffMs: [] },
  };
}

/** Whether any step changes something (reads of `get` resources do not, as in Pulumi). */
function hasChanges(steps: readonly { op: string }[]): boolean {
  return steps.some((s) => s.op !== "same" && s.op !== "read");
}
