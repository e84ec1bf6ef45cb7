/**
 * Where one `pulumi` command of a benchmark spends its time, measured on the real CLI rather than
 * modelled. Each measured run gets:
 * - `PULUMI_DEBUG_GRPC=<file>`: the CLI's JSON-lines log of every gRPC call it makes or serves,
 *   with times to the nanosecond (Pulumi's rpcdebug interceptor). The language host's `Run` marks
 *   each pass that runs the program; the provider's `Handshake` marks its host ready; Check, Diff,
 *   Create, Update, Read and Delete are counted and timed from their client-side entries (the
 *   engine's side). Server-side entries (the program's RegisterResource) carry no start time, so
 *   they are not used. The file holds provider inputs in plaintext: it is deleted after reading.
 * - `--profiling <prefix>`: the CLI's own Go CPU profile, read with `go tool pprof`, for the CPU
 *   the CLI spends saving the state (`SnapshotManager.saveSnapshot`: one full checkpoint of the
 *   file backend per step mutation); the number of saves is counted from the stack file's renames.
 * - the process tree under the CLI, read from /proc every {@link POLL_MS} ms: the start time of each
 *   provider host, the dynamic-provider host or the tenant plugin (its launch by the engine; exact,
 *   from /proc/<pid>/stat), and its peak resident memory (VmHWM).
 * - the tenant API's requests as they arrive ({@link RequestLog}), on the same clock.
 * - the engine's event log (summaryEvent.durationSeconds: the engine's own duration of the last
 *   pass, whole seconds).
 */
import { type ChildProcess, execFile, execFileSync } from "node:child_process";
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import type { TenantApiOptions, TenantApiRequest } from "../../provider/local-tenant/index.js";
import {
  type PulumiCommand,
  type PulumiProject,
  type PulumiResult,
  processTree,
  type RunOptions,
  runCli,
} from "../support/pulumi.js";

const run = promisify(execFile);

/** How often the CLI's process tree is read. Start times come from /proc, not from the poll. */
const POLL_MS = 200;

/**
 * Whether a process is a provider host as the engine launches it: the dynamic-provider launcher
 * that `@pulumi/pulumi` ships, or the tenant plugin, whose launcher (`pulumi-resource-tenant`,
 * from `pulumi plugin install` under `plugins/resource-tenant-v<version>/`) execs `node` on its
 * `main.js` in the same process.
 */
const isProviderLaunch = (args: readonly string[]): boolean =>
  args.some(
    (arg) =>
      arg.endsWith("pulumi-resource-pulumi-nodejs") ||
      arg.endsWith("pulumi-resource-tenant") ||
      arg.includes("/resource-tenant-v"),
  );

/** Whether a process runs a provider's code: the dynamic-provider host, or the tenant plugin. */
const isProviderHost = (args: readonly string[]): boolean =>
  args.some((arg) => arg.includes("dynamic-provider") || arg.includes("/resource-tenant-v"));

/**
 * Where the tenant is: on loopback, or a round trip away through the local tenant's network delay
 * (docs/design/local-tenant.md, "A tenant a network away"), where every answer's headers are a round trip
 * old when the run reads them, as from a pipeline.
 */
export interface Distance {
  /** The round trip, as the tables show it. */
  readonly label: string;
  /** The round trip, seconds. */
  readonly roundTripSeconds: number;
  /** The local tenant's `networkDelay`: half the round trip on each way. */
  readonly networkDelay: TenantApiOptions["networkDelay"];
}

/**
 * The distances a rate-limit benchmark can run at: loopback and 100 ms by default, 300 ms (a tenant
 * on another continent) when `BENCH_DISTANCES` names it.
 */
const KNOWN_DISTANCES: readonly Distance[] = [
  { label: "loopback", roundTripSeconds: 0, networkDelay: undefined },
  { label: "100 ms", roundTripSeconds: 0.1, networkDelay: { minMs: 50 } },
  { label: "300 ms", roundTripSeconds: 0.3, networkDelay: { minMs: 150 } },
];

/** The two columns a benchmark runs unless told otherwise. */
const ALL_DISTANCES: readonly Distance[] = KNOWN_DISTANCES.slice(0, 2);

/**
 * The distances a benchmark runs at: both, or those `BENCH_DISTANCES` names by their round trip in
 * ms (`BENCH_DISTANCES=0` runs on loopback only, `100` at a distance only, `0,100,300` all three).
 */
export const DISTANCES: readonly Distance[] = (() => {
  const named = process.env.BENCH_DISTANCES?.split(",").map((ms) => Number(ms.trim()) / 1000);
  if (named === undefined) return ALL_DISTANCES;
  const chosen = KNOWN_DISTANCES.filter((d) => named.includes(d.roundTripSeconds));
  if (chosen.length === 0) {
    throw new Error(
      `BENCH_DISTANCES=${process.env.BENCH_DISTANCES} names no distance; there are ` +
        KNOWN_DISTANCES.map((d) => d.roundTripSeconds * 1000).join(", "),
    );
  }
  return chosen;
})();

/** Whether `distance` is the tenant on loopback. */
export const onLoopback = (distance: Distance): boolean => distance.roundTripSeconds === 0;

/**
 * The floor of a piece of work at `distance`, from first principles: the calls it needs paced at
 * the rate (`rateSeconds`, the floor on loopback), or its round trips that cannot overlap (each
 * waits for the answer before: the token, a first page before the others...), whichever is longer.
 * A pass of many pages read one after another is bounded by its round trips, not by the rate,
 * once a round trip is longer than the rate's interval.
 */
export function floorAt(
  rateSeconds: number,
  sequentialRoundTrips: number,
  distance: Distance,
): number {
  return Math.max(rateSeconds, sequentialRoundTrips * distance.roundTripSeconds);
}

/** One request to the tenant API, as it arrived. */
export interface ApiRequest {
  /** Milliseconds since the epoch. */
  at: number;
  method: string;
  route: string;
  area: string;
  /** The answer's status, once it has left. */
  status?: number;
}

/**
 * The tenant API's requests with their arrival times and answers: pass {@link record} as its
 * `onRequest` and {@link answer} as its `onAnswer`.
 */
export class RequestLog {
  readonly requests: ApiRequest[] = [];
  private readonly logged = new WeakMap<TenantApiRequest, ApiRequest>();
  readonly record = (request: TenantApiRequest): void => {
    const entry: ApiRequest = {
      at: Date.now(),
      method: request.method,
      route: request.route,
      area: request.area,
    };
    this.logged.set(request, entry);
    this.requests.push(entry);
  };
  readonly answer = (request: TenantApiRequest, status: number): void => {
    const entry = this.logged.get(request);
    if (entry !== undefined) entry.status = status;
  };
}

/** Management API requests (not the token endpoint). */
export const isManagement = (request: ApiRequest): boolean => request.area === "management";
/**
 * Client reads: list pages and single GETs, the tenant's 429s aside (their retries are the
 * transport's, counted as {@link Pass.rateLimited}).
 */
export const isClientRead = (request: ApiRequest): boolean =>
  request.method === "GET" &&
  request.status !== 429 &&
  (request.route === "/api/v2/clients" || request.route === "/api/v2/clients/:id");

/** One call of the gRPC log, from the engine's side (client entries) or served (server entries). */
interface GrpcCall {
  /** `Check`, `Run`, `Handshake`... */
  method: string;
  /** `language`, `resource` (a provider) or `server` (the engine serving the program). */
  kind: string;
  /** Milliseconds since the epoch; a served call's is its end (its start is not logged). */
  start: number;
  end: number;
}

/** A resource operation of the providers, as the engine called it. */
export interface OperationSpan {
  count: number;
  /** Sum of the calls' durations, ms. */
  ms: number;
  first: number;
  last: number;
}

/** One pass of a command (the preview pass, or the pass that does the work). */
export interface Pass {
  label: string;
  /** The pass's start (its program's `Run`, or else its provider's launch), ms since the epoch. */
  start: number;
  /** Its last gRPC call's end. */
  end: number;
  /** The language host's `Run`: the program's whole run, when the pass runs it. */
  run?: { start: number; end: number };
  /** When the engine launched the dynamic-provider host (/proc start time of its launcher). */
  providerLaunch?: number;
  /** When the provider host answered its first call (`Handshake`, else its first call). */
  providerReady?: number;
  /** Check and Diff: serial (one registration at a time), in the engine's step generator. */
  check: OperationSpan | undefined;
  diff: OperationSpan | undefined;
  /** Create, Update, Read, Delete. */
  operations: Record<string, OperationSpan>;
  /**
   * The pass's first provider operation (Check, Diff, Read, Create, Update or Delete) and the median
   * of that method's calls: the first one loads the implementation (`pulumi-tenant/runtime`) and
   * compiles its schema validator in the fresh provider host.
   */
  firstCall?: { method: string; ms: number; medianMs: number };
  /** Management API requests in the pass. */
  api: ApiRequest[];
  /** Of which client reads (answered otherwise than 429). */
  reads: number;
  /** Requests the tenant answered 429 (rate limited). */
  rateLimited: number;
}

/** What one measured command did and where its time went. */
export interface Measured {
  /** The command: `up`, `preview`..., or `import` ({@link measureCommand}). */
  command: string;
  result: PulumiResult;
  /** The CLI's spawn and exit, ms since the epoch. */
  spawned: number;
  exited: number;
  wallSeconds: number;
  passes: Pass[];
  /** Management API requests of the whole command. */
  api: ApiRequest[];
  /** Token requests of the whole command. */
  tokens: number;
  /** State checkpoints written (renames of the stack's state file). */
  saves: number;
  /** The CLI's CPU, from its Go CPU profile: total, and in saving the state. */
  cliCpu?: { totalSeconds: number; stateSaveSeconds: number };
  /** Peak resident memory of the dynamic-provider hosts, MiB. */
  providerPeakRssMiB?: number;
  /** The engine's own duration of the last pass (summaryEvent), whole seconds. */
  engineSeconds?: number;
}

/** Options of {@link measureRun}: the run's flags, and the log the tenant API feeds. */
export interface MeasureOptions extends RunOptions {
  requests: RequestLog;
  /** false: run as a user does, without the gRPC log, the profile and the /proc poll. */
  instrument?: boolean;
}

/**
 * Runs `pulumi <command>` in `project` (its config as it is) and measures it. Check and Diff run
 * one registration at a time, as for a user who has not set PULUMI_PARALLEL_DIFF (the variable is
 * cleared).
 */
export function measureRun(
  project: PulumiProject,
  command: PulumiCommand,
  options: MeasureOptions,
): Promise<Measured> {
  const { requests, instrument = true, ...runOptions } = options;
  return measured(project, command, requests, instrument, (added) =>
    project.run(command, undefined, {
      ...runOptions,
      timeoutMs: runOptions.timeoutMs ?? 900_000,
      args: [...(runOptions.args ?? []), ...added.args],
      env: { PULUMI_PARALLEL_DIFF: undefined, ...runOptions.env, ...added.env },
      onStart: (child: ChildProcess) => {
        added.onStart(child);
        runOptions.onStart?.(child);
      },
    }),
  );
}

/** Options of {@link measureCommand}. */
interface CommandOptions {
  requests: RequestLog;
  /** Environment over the project's (a value of `undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  instrument?: boolean;
}

/**
 * Runs `pulumi <args> --non-interactive --color never` in `project` and measures it as
 * {@link measureRun} does: for the commands {@link PulumiProject.run} does not run, such as
 * `pulumi import --file FILE --yes --out FILE` (which has no event log: its result has no steps,
 * and `ok` is its exit code).
 */
export function measureCommand(
  project: PulumiProject,
  args: readonly string[],
  options: CommandOptions,
): Promise<Measured> {
  const { requests, instrument = true } = options;
  return measured(project, args[0] ?? "pulumi", requests, instrument, (added) =>
    runCli(project.cli.path, [...args, "--non-interactive", "--color", "never", ...added.args], {
      cwd: project.dir,
      env: project.env({ PULUMI_PARALLEL_DIFF: undefined, ...options.env, ...added.env }),
      boundMs: options.timeoutMs ?? 900_000,
      label: `pulumi ${args[0] ?? ""}`,
      onStart: added.onStart,
    }),
  );
}

/** What the measuring adds to a run: flags, environment, and a look at the CLI once it started. */
interface Instrumentation {
  args: string[];
  env: Record<string, string>;
  onStart: (child: ChildProcess) => void;
}

async function measured(
  project: PulumiProject,
  command: string,
  requests: RequestLog,
  instrument: boolean,
  launch: (added: Instrumentation) => Promise<PulumiResult>,
): Promise<Measured> {
  const tag = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const grpcLog = join(project.root, `grpc-${tag}.jsonl`);
  const profile = join(project.root, `cli-${tag}`);
  const stacks = dirname(project.stateFile);
  await mkdir(stacks, { recursive: true });
  let saves = 0;
  const watcher: FSWatcher | undefined = instrument
    ? watch(stacks, (event, file) => {
        if (event === "rename" && file === basename(project.stateFile)) saves += 1;
      })
    : undefined;
  const seen = new Map<number, SeenProcess>();
  let poll: NodeJS.Timeout | undefined;
  let spawned = Date.now();
  let exited: number | undefined;
  const firstRequest = requests.requests.length;
  let result: PulumiResult;
  try {
    result = await launch({
      args: instrument ? ["--profiling", profile] : [],
      env: instrument ? { PULUMI_DEBUG_GRPC: grpcLog } : {},
      onStart: (child: ChildProcess) => {
        spawned = Date.now();
        child.on("exit", () => {
          exited = Date.now();
        });
        if (instrument && child.pid !== undefined) {
          const pid = child.pid;
          const look = () => watchTree(pid, seen);
          look();
          poll = setInterval(look, POLL_MS);
        }
      },
    });
  } finally {
    clearInterval(poll);
    watcher?.close();
  }
  const end = exited ?? Date.now();
  const all = requests.requests.slice(firstRequest);
  const api = all.filter(isManagement);
  const tokens = all.filter((r) => r.route === "/oauth/token").length;
  const calls = instrument ? await readGrpcLog(grpcLog) : [];
  await rm(grpcLog, { force: true });
  const cliCpu = instrument ? await readCpuProfile(project.root, basename(profile)) : undefined;
  const launches = [...seen.values()]
    .filter((p) => isProviderLaunch(p.args))
    .map((p) => p.startedAt)
    .sort((a, b) => a - b);
  const hosts = [...seen.values()].filter((p) => isProviderHost(p.args));
  const peakKiB = Math.max(0, ...hosts.map((p) => p.peakRssKiB));
  const summary = result.events.find((e) => e.summaryEvent !== undefined)?.summaryEvent as
    | { durationSeconds?: number }
    | undefined;
  return {
    command,
    result,
    spawned,
    exited: end,
    wallSeconds: (end - spawned) / 1000,
    passes: instrument ? passesOf(command, calls, launches, api) : [],
    api,
    tokens,
    saves,
    ...(cliCpu ? { cliCpu } : {}),
    ...(peakKiB > 0 ? { providerPeakRssMiB: peakKiB / 1024 } : {}),
    ...(summary?.durationSeconds !== undefined ? { engineSeconds: summary.durationSeconds } : {}),
  };
}

interface SeenProcess {
  args: string[];
  startedAt: number;
  peakRssKiB: number;
}

/** Milliseconds since the epoch at boot, and the kernel's clock ticks per second. */
const BOOT = (() => {
  const uptime = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
  let ticks = 100;
  try {
    ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    // getconf missing: Linux's USER_HZ is 100 on every common architecture.
  }
  return { at: Date.now() - uptime * 1000, ticks };
})();

/** Records every process under `pid` once (with its start time), and provider hosts' peak RSS. */
function watchTree(pid: number, seen: Map<number, SeenProcess>): void {
  for (const p of processTree(pid)) {
    let known = seen.get(p.pid);
    try {
      if (known === undefined) {
        const stat = readFileSync(join("/proc", String(p.pid), "stat"), "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        // Field 22 of stat, starttime, in clock ticks since boot (fields here start at field 3).
        const startedAt = BOOT.at + (Number(fields[19]) / BOOT.ticks) * 1000;
        known = { args: p.args, startedAt, peakRssKiB: 0 };
        seen.set(p.pid, known);
      }
      if (isProviderHost(p.args)) {
        const status = readFileSync(join("/proc", String(p.pid), "status"), "utf8");
        const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
        known.peakRssKiB = Math.max(known.peakRssKiB, hwm);
      }
    } catch {
      // It exited meanwhile.
    }
  }
}

/** RFC 3339 with nanoseconds (Go's time.Time in JSON) to ms since the epoch; NaN for Go's zero time. */
function parseTime(text: string): number {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  if (!match || text.startsWith("0001-")) return Number.NaN;
  const whole = Date.parse(`${match[1]}${match[3]}`);
  return whole + Number(`0.${match[2] ?? "0"}`) * 1000;
}

async function readGrpcLog(path: string): Promise<GrpcCall[]> {
  const text = await readFile(path, "utf8").catch(() => "");
  const calls: GrpcCall[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let entry: {
      method?: string;
      progress?: string;
      timestamp?: string;
      duration?: number;
      metadata?: { kind?: string; mode?: string };
    };
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line cut by a killed run
    }
    if (entry.progress !== "response_completed" || !entry.method || !entry.timestamp) continue;
    const end = parseTime(entry.timestamp);
    if (Number.isNaN(end)) continue;
    const served = entry.metadata?.mode === "server";
    const method = entry.method.slice(entry.method.lastIndexOf("/") + 1);
    calls.push({
      method,
      kind: served ? "server" : (entry.metadata?.kind ?? "other"),
      // A served call's duration is measured from Go's zero time: meaningless.
      start: served ? end : end - (entry.duration ?? 0) / 1e6,
      end,
    });
  }
  return calls.sort((a, b) => a.start - b.start);
}

/**
 * The CLI's CPU from its profile(s) `<root>/<name>.<pid>.cpu`: total samples and the cumulative
 * time of `SnapshotManager.saveSnapshot`. Undefined when `go` is not there to read it. The profile
 * files are deleted.
 */
async function readCpuProfile(
  root: string,
  name: string,
): Promise<{ totalSeconds: number; stateSaveSeconds: number } | undefined> {
  const files = (await readdir(root)).filter((f) => f.startsWith(`${name}.`));
  try {
    const cpu = files.find((f) => f.endsWith(".cpu"));
    if (cpu === undefined) return undefined;
    const { stdout } = await run(
      "go",
      ["tool", "pprof", "-top", "-cum", "-nodefraction=0", "-nodecount=100000", join(root, cpu)],
      {
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, GOTOOLCHAIN: "local" },
      },
    );
    const total = /Total samples = ([\d.]+)(\w+)/.exec(stdout);
    let save = 0;
    for (const line of stdout.split("\n")) {
      if (!/backend\.\(\*SnapshotManager\)\.saveSnapshot$/.test(line.trim())) continue;
      const cum = line.trim().split(/\s+/)[3] ?? "0s";
      const parsed = /^([\d.]+)(\w+)$/.exec(cum);
      if (parsed) save = seconds(Number(parsed[1]), parsed[2] ?? "s");
    }
    return {
      totalSeconds: total ? seconds(Number(total[1]), total[2] ?? "s") : 0,
      stateSaveSeconds: save,
    };
  } catch {
    return undefined;
  } finally {
    await Promise.all(files.map((f) => rm(join(root, f), { force: true })));
  }
}

function seconds(value: number, unit: string): number {
  const scale: Record<string, number> = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1, mins: 60, hrs: 3600 };
  return value * (scale[unit] ?? 1);
}

const OPERATIONS = new Set(["Check", "Diff", "Read", "Create", "Update", "Delete"]);

/**
 * The commands whose passes before the last are their preview pass. Others (`import`: its
 * preview, the import, then a host for the code it writes) are told apart by number.
 */
const PREVIEWING = new Set(["up", "refresh", "destroy"]);

/** The middle value of `values` (the upper one of an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function span(calls: GrpcCall[]): OperationSpan | undefined {
  if (calls.length === 0) return undefined;
  return {
    count: calls.length,
    ms: calls.reduce((sum, c) => sum + (c.end - c.start), 0),
    first: Math.min(...calls.map((c) => c.start)),
    last: Math.max(...calls.map((c) => c.end)),
  };
}

/**
 * The command's passes. A pass that runs the program starts with the language host's `Run`; one
 * that does not (refresh, destroy) with the launch of its provider host (each pass launches its
 * own). Everything logged from a pass's start to the next one's belongs to it.
 */
function passesOf(
  command: string,
  calls: GrpcCall[],
  launches: number[],
  api: ApiRequest[],
): Pass[] {
  const runs = calls.filter((c) => c.kind === "language" && c.method === "Run");
  const starts = runs.length > 0 ? runs.map((r) => r.start) : launches;
  const passes: Pass[] = [];
  starts.forEach((start, i) => {
    const next = starts[i + 1] ?? Number.POSITIVE_INFINITY;
    const inPass = calls.filter((c) => c.start >= start && c.start < next);
    const provider = inPass.filter((c) => c.kind === "resource");
    const operations: Record<string, OperationSpan> = {};
    for (const method of ["Create", "Update", "Read", "Delete"]) {
      const s = span(provider.filter((c) => c.method === method));
      if (s) operations[method] = s;
    }
    const passApi = api.filter((r) => r.at >= start && r.at < next);
    const run = runs[i];
    const launch = launches.find((t) => t >= start && t < next);
    // A host that does not implement Handshake (the plugin) is ready at its first call.
    const ready = (provider.find((c) => c.method === "Handshake") ?? provider[0])?.start;
    const beforeLast = i < starts.length - 1;
    const first = provider.find((c) => OPERATIONS.has(c.method));
    const same = first ? provider.filter((c) => c.method === first.method) : [];
    passes.push({
      label:
        starts.length === 1
          ? command
          : !PREVIEWING.has(command)
            ? `${command} pass ${i + 1}`
            : beforeLast
              ? "preview pass"
              : `${command} pass`,
      start,
      end: Math.max(start, ...inPass.map((c) => c.end)),
      ...(run ? { run: { start: run.start, end: run.end } } : {}),
      ...(launch !== undefined ? { providerLaunch: launch } : {}),
      ...(ready !== undefined ? { providerReady: ready } : {}),
      check: span(provider.filter((c) => c.method === "Check")),
      diff: span(provider.filter((c) => c.method === "Diff")),
      operations,
      ...(first
        ? {
            firstCall: {
              method: first.method,
              ms: first.end - first.start,
              medianMs: median(same.map((c) => c.end - c.start)),
            },
          }
        : {}),
      api: passApi,
      reads: passApi.filter(isClientRead).length,
      rateLimited: passApi.filter((request) => request.status === 429).length,
    });
  });
  return passes;
}

/** The pass that calls the tenant most (the last of equals), if any calls it. */
export function tenantPass(m: Measured): Pass | undefined {
  let best: Pass | undefined;
  for (const pass of m.passes)
    if (pass.api.length > 0 && pass.api.length >= (best?.api.length ?? 0)) best = pass;
  return best;
}

/**
 * Seconds of the pass that calls the tenant, from the launch of its provider host (its start when
 * no launch was seen) to the CLI's exit: the time the pacing floor is held to.
 */
export function tenantPassSeconds(m: Measured): number | undefined {
  const pass = tenantPass(m);
  if (!pass) return undefined;
  return (m.exited - (pass.providerLaunch ?? pass.start)) / 1000;
}

/** Seconds of the passes before the last (the preview pass of up, refresh and destroy). */
export function previewPassSeconds(m: Measured): number | undefined {
  if (m.passes.length < 2 || !PREVIEWING.has(m.command)) return undefined;
  const last = m.passes[m.passes.length - 1] as Pass;
  return (last.start - (m.passes[0] as Pass).start) / 1000;
}

/** Sum over passes of the program's run up to the launch of the provider host (its first registration). */
export function programSeconds(m: Measured): number | undefined {
  const parts = m.passes
    .filter((p) => p.run && p.providerLaunch !== undefined)
    .map((p) => ((p.providerLaunch as number) - (p.run as { start: number }).start) / 1000);
  return parts.length > 0 ? parts.reduce((a, b) => a + b, 0) : undefined;
}

/** Sum over passes of the provider hosts' start: launch to first answer. */
export function providerStartSeconds(m: Measured): number | undefined {
  const parts = m.passes
    .filter((p) => p.providerLaunch !== undefined && p.providerReady !== undefined)
    .map((p) => ((p.providerReady as number) - (p.providerLaunch as number)) / 1000);
  return parts.length > 0 ? parts.reduce((a, b) => a + b, 0) : undefined;
}

/** Check and Diff calls of every pass: count and summed duration. */
export function checkDiff(m: Measured): { count: number; seconds: number } {
  let count = 0;
  let ms = 0;
  for (const p of m.passes) {
    for (const s of [p.check, p.diff]) {
      count += s?.count ?? 0;
      ms += s?.ms ?? 0;
    }
  }
  return { count, seconds: ms / 1000 };
}

/** Sum over passes of the first provider operation's duration (module load, validator compile). */
export function firstCallSeconds(m: Measured): number | undefined {
  const parts = m.passes.flatMap((p) => (p.firstCall ? [p.firstCall.ms / 1000] : []));
  return parts.length > 0 ? parts.reduce((a, b) => a + b, 0) : undefined;
}

/** Seconds from the CLI's spawn to the start of its first pass. */
export function startupSeconds(m: Measured): number | undefined {
  const first = m.passes[0];
  return first ? (first.start - m.spawned) / 1000 : undefined;
}

/** Seconds from the last pass's last gRPC call to the CLI's exit. */
export function tailSeconds(m: Measured): number | undefined {
  const last = m.passes[m.passes.length - 1];
  return last ? (m.exited - last.end) / 1000 : undefined;
}

const f1 = (ms: number) => (ms / 1000).toFixed(1);
const f2 = (ms: number) => (ms / 1000).toFixed(2);

/** The command's timeline, one line a phase, in seconds from the CLI's spawn. */
export function timeline(m: Measured): string[] {
  const at = (t: number) => f1(t - m.spawned).padStart(6);
  const lines: string[] = [];
  const first = m.passes[0];
  if (first)
    lines.push(`${at(m.spawned)} ${at(first.start)}  CLI start-up (state, config, plugins)`);
  for (const p of m.passes) {
    const parts: string[] = [];
    if (p.run && p.providerLaunch !== undefined) {
      parts.push(`program ${f1(p.providerLaunch - p.run.start)} s to its first registration`);
    }
    if (p.providerLaunch !== undefined && p.providerReady !== undefined) {
      parts.push(`provider host up in ${f2(p.providerReady - p.providerLaunch)} s`);
    }
    if (p.firstCall) {
      parts.push(
        `first ${p.firstCall.method} ${f2(p.firstCall.ms)} s (median ${p.firstCall.medianMs.toFixed(1)} ms)`,
      );
    }
    const cd = [p.check, p.diff].filter((s): s is OperationSpan => s !== undefined);
    if (cd.length > 0) {
      const n = cd.map((s, i) => `${s.count} ${i === 0 && p.check ? "Check" : "Diff"}`);
      parts.push(`${n.join(" + ")}: ${f2(cd.reduce((a, s) => a + s.ms, 0))} s of round trips`);
    }
    for (const [method, s] of Object.entries(p.operations)) {
      parts.push(`${s.count} ${method} ${at(s.first).trim()}-${at(s.last).trim()}`);
    }
    if (p.api.length > 0) {
      const firstCall = p.api[0] as ApiRequest;
      const lastCall = p.api[p.api.length - 1] as ApiRequest;
      parts.push(
        `${p.api.length} API calls ${at(firstCall.at).trim()}-${at(lastCall.at).trim()}` +
          (p.reads > 0 ? ` (${p.reads} client reads)` : ""),
      );
    }
    if (p.run) parts.push(`program ends ${at(p.run.end).trim()}`);
    lines.push(`${at(p.start)} ${at(p.end)}  ${p.label}: ${parts.join("; ")}`);
  }
  const last = m.passes[m.passes.length - 1];
  if (last) lines.push(`${at(last.end)} ${at(m.exited)}  shutdown and exit`);
  const state = [`${m.saves} state saves`];
  if (m.cliCpu) {
    state.push(
      `${m.cliCpu.stateSaveSeconds.toFixed(2)} s of the CLI's ${m.cliCpu.totalSeconds.toFixed(2)} s CPU in saving them`,
    );
  }
  if (m.engineSeconds !== undefined) state.push(`engine summary: last pass ${m.engineSeconds} s`);
  lines.push(`                state: ${state.join(", ")}`);
  return lines;
}

/** Rows of text padded to columns. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** A number of seconds for a table cell, `-` when unknown. */
export function cell(value: number | undefined, digits = 1): string {
  return value === undefined ? "-" : value.toFixed(digits);
}
