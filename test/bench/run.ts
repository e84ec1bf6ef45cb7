/**
 * `npm run bench`: how a 200-resource stack behaves against a rate-limited tenant, run by the real
 * `pulumi` CLI (docs/design/pulumi-cli.md) with the package installed from its packed tarball, as a user
 * has it.
 *
 * Scenarios, at the CLI's --parallel 8 (its default on 2 cores: 4 x GOMAXPROCS) and 64
 * (BENCH_PARALLEL=8 for one), against a
 * tenant limited to 10 requests per second with bursts of 20, through the dynamic resources of a
 * TypeScript program (test/bench/program.ts):
 *   1. up creating 200 ClientSettings (one declared field differs on each of 200 seeded clients)
 *   2. preview with nothing changed (and, once, the same preview without any measuring, to show
 *      what the measuring costs)
 *   3. up changing one field on all 200
 *   4. refresh with 10 clients changed out of band (must find exactly those 10)
 *   5. destroy (restores every prior value)
 * and through the provider plugin (its self-contained linux-amd64 executable, as the release builds
 * it, installed from its release tarball with `pulumi plugin install`, docs/design/plugin.md), from a
 * Pulumi YAML program declaring the same 200 clients
 * (test/bench/plugin-stack.ts), at the CLI's default --parallel, on a tenant of its own seeded
 * alike: 1 (up creating 200) and 2 (a preview with nothing changed). BENCH_FACES=plugin (or
 * dynamic) runs one face.
 *
 * Each command runs as a user's does: up, refresh and destroy run a preview pass first (its own
 * program run and provider host), Check and Diff go one registration at a time (the environment's
 * PULUMI_PARALLEL_DIFF is cleared). test/bench/measure.ts says how each phase is measured: the
 * CLI's gRPC log, its CPU profile, /proc, the tenant's request times.
 *
 * Targets: the pacing target, the pass that calls the tenant within 1.05 x its floor, the floor
 * being the command's API calls divided by the rate, and the pass timed from the launch of its
 * provider host to the CLI's exit (the preview pass before it makes no call: it is the engine's and
 * the program's cost, shown apart). Refresh is held to its reads (at most 2 x min(N, ceil(T / 100))
 * + 1 client reads per pass, docs/design/client-reads.md). The wall time of every command is shown with
 * where it goes. The whole `up` of 200 through the plugin (CLI start to exit, its preview pass
 * included) is held to at most {@link PLUGIN_WHOLE_UP_TARGET} x the floor and to no more than the
 * dynamic path's at the same --parallel; the dynamic path's whole `up` at the CLI's default
 * --parallel to at most {@link DYNAMIC_WHOLE_UP_TARGET} x the floor. At that --parallel, scenario 1
 * runs {@link WHOLE_UP_RUNS} times, each from an empty state, and both whole-up targets hold the
 * dynamic path by the median.
 *
 * At a distance: the same targets against the same floors, with the tenant a 100 ms round trip away
 * (its network delay of 50 ms each way, docs/design/local-tenant.md, "A tenant a network away"), shown
 * beside loopback in a `round trip` column. To keep the run short, only scenario 1 runs there:
 * through the plugin once, through the dynamic path at the CLI's default --parallel
 * {@link WHOLE_UP_RUNS} times (each from an empty state); the other scenarios run on loopback only.
 * The floor holds there: at a distance it is the calls over the rate or the round trips that
 * cannot overlap (the token, then each of the --parallel slots' calls one after another),
 * whichever is longer ({@link floorAt}), and the rate's is the longer by far (20.4 s against 2.7 s
 * at --parallel 8). The token's round trip before the first call and the last answer's after it
 * (0.2 s) are not in the floor: the bucket's burst, which the floor counts as paced, leaves 2 s.
 *
 * Pulumi's start-ups, apart: of the whole `up`, the program's run to its first registration and
 * the provider host's start, in each of its two passes, are Pulumi's (Node.js loading
 * `@pulumi/pulumi` and the program, Pulumi's dynamic-provider host; through the plugin, Pulumi's
 * YAML host to its first registration, the plugin's own start being the package's). The whole up
 * is printed as is and less them. Two settings a user controls that shorten them, each a row of
 * the dynamic whole `up` on loopback at the CLI's default --parallel, right after the runs as is
 * (held to each command's targets; the whole-up targets hold the runs as is): Node.js's compile
 * cache (`NODE_COMPILE_CACHE`, Node.js 22.1 or later: the bench's programs and provider hosts run
 * on the Node.js 22 line, test/support/node-runtimes.ts), warmed by a preview before the measured
 * `up`; and `--skip-preview` (one program run and one provider host fewer).
 * BENCH_DISTANCES=0 (or 100) runs one distance.
 *
 * Prints the tables and the timelines, checks the targets, and writes the figures as JSON (the path
 * is printed). Not part of `npm test`: speed is measured here, never asserted in timed tests.
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pageCountOf } from "../../provider/api/client-read-policy.js";
import type { TenantApi } from "../../provider/local-tenant/index.js";
import type { SeedClient } from "../../provider/local-tenant/seed.js";
import { selfContainedPlugin } from "../support/plugin-executable.js";
import type { PulumiCommand, PulumiProject } from "../support/pulumi.js";
import {
  cell,
  checkDiff,
  DISTANCES,
  type Distance,
  firstCallSeconds,
  floorAt,
  type Measured,
  measureRun,
  median,
  onLoopback,
  previewPassSeconds,
  programSeconds,
  providerStartSeconds,
  type RequestLog,
  startupSeconds,
  table,
  tailSeconds,
  tenantPass,
  tenantPassSeconds,
  timeline,
} from "./measure.js";
import { pluginStack, yamlProgram } from "./plugin-stack.js";
import {
  type BenchProgram,
  declaredClients,
  installBenchProgram,
  seedClients,
  startBenchTenant,
} from "./program.js";

const CLIENTS = 200;
const RATE = 10;
const BURST = 20;
const DRIFTED = 10;
/** The --parallel values, one sequence each; BENCH_PARALLEL=8 runs one. */
const PARALLEL: readonly number[] = process.env.BENCH_PARALLEL
  ? process.env.BENCH_PARALLEL.split(",").map(Number)
  : [8, 64];
/** The pass that calls the tenant may take at most this many times its floor. */
const PACING_TARGET = 1.05;
/** The whole `up` of 200 through the plugin, CLI start to exit, at most this many times the floor. */
const PLUGIN_WHOLE_UP_TARGET = 1.1;
/** The whole `up` of 200 through the dynamic path at the CLI's default --parallel. */
const DYNAMIC_WHOLE_UP_TARGET = 1.25;
/**
 * How many times the sequence at the CLI's default --parallel measures scenario 1, each from an
 * empty state after a destroy; the dynamic whole-up target holds their median. About 6 s of that
 * `up` is Pulumi's Node.js start-up (two program runs and two provider hosts before the first
 * call), which varies by half a second from run to run on 2 cores: as much as the target leaves.
 */
const WHOLE_UP_RUNS = 3;
/**
 * The CLI's default --parallel: 4 x GOMAXPROCS (pkg/cmd/pulumi/operations/up.go), GOMAXPROCS being
 * the CPUs Go may use; the plugin path runs without the flag (and without PULUMI_PARALLEL).
 */
const DEFAULT_PARALLEL = 4 * availableParallelism();
/** The faces benchmarked; BENCH_FACES=plugin runs one. */
const FACES = new Set(
  (process.env.BENCH_FACES ?? "dynamic,plugin").split(",").map((f) => f.trim()),
);
const REPO = resolve(__dirname, "..", "..");

/** Which face of the package did the work: dynamic resources, or the provider plugin. */
type Face = "dynamic" | "plugin";

/**
 * How the command ran: as a user runs it by default, with Node.js's compile cache warm, or with
 * `--skip-preview`. The targets hold the runs as is.
 */
type Setting = "as is" | "NODE_COMPILE_CACHE warm" | "--skip-preview";

interface Figures {
  scenario: string;
  face: Face;
  /** {@link Distance.label}. */
  roundTrip: string;
  setting: Setting;
  /**
   * The Node.js on the PATH of the CLI, that runs the TypeScript program and the dynamic-provider
   * host (the plugin's executable carries its own).
   */
  nodeVersion: string;
  parallel: number;
  /** Run without --parallel: the CLI's default (which {@link parallel} then gives). */
  defaultParallel: boolean;
  /** Measured without the gRPC log, the profile or the /proc poll. */
  bare: boolean;
  ok: boolean;
  wallSeconds: number;
  apiCalls: number;
  floorSeconds: number;
  tenantPassSeconds: number | undefined;
  ratio: number | null;
  previewPassSeconds: number | undefined;
  startupSeconds: number | undefined;
  programSeconds: number | undefined;
  providerStartSeconds: number | undefined;
  /**
   * Pulumi's start-ups in the command ({@link pulumiStartSeconds}); the wall time less them is what
   * the package and the tenant take.
   */
  pulumiStartSeconds: number | undefined;
  firstCallSeconds: number | undefined;
  checkDiff: { count: number; seconds: number };
  saves: number;
  stateSaveCpuSeconds: number | undefined;
  cliCpuSeconds: number | undefined;
  shutdownSeconds: number | undefined;
  providerPeakRssMiB: number | undefined;
  readsPerPass: number[];
  readBound: number;
  callsByRoute: Record<string, number>;
  rateLimited: number;
  retried: number;
  failedOperations: number;
  tokenRequests: number;
  changedResources: number;
  timeline: string[];
  loadAverage: number;
  error?: string;
}

interface Extras {
  parallel: number;
  providerBytesPerResource: number;
  stateBytesPerResource: number;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

async function main(): Promise<void> {
  const started = Date.now();
  process.stdout.write("Packing and installing the package into a fresh project...\n");
  const program = await installBenchProgram();
  const all: Figures[] = [];
  const extras: Extras[] = [];
  try {
    for (const distance of DISTANCES) {
      // The plugin path first, so that it runs next to the dynamic path at the default --parallel.
      if (FACES.has("plugin")) all.push(...(await runPluginPath(distance)));
      if (!FACES.has("dynamic")) continue;
      if (!onLoopback(distance)) {
        all.push(...(await runWholeUps(program, distance)));
        continue;
      }
      for (const parallel of PARALLEL) {
        const { figures, extra } = await runSequence(program, parallel, distance);
        all.push(...figures);
        extras.push(extra);
      }
    }
  } finally {
    await program.remove();
  }
  const outDir = join(REPO, ".bench");
  await mkdir(outDir, { recursive: true });
  const outFile = join(outDir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  const targets = checkTargets(all, extras);
  await writeFile(
    outFile,
    JSON.stringify(
      {
        rate: RATE,
        burst: BURST,
        clients: CLIENTS,
        distances: DISTANCES,
        scenarios: all,
        extras,
        targets,
      },
      null,
      2,
    ),
  );
  printReport(all, extras, targets);
  process.stdout.write(
    `\nFigures written to ${outFile} (total ${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
  );
  if (targets.some((t) => !t.met)) process.exitCode = 1;
}

/**
 * Scenarios 1 and 2 through the provider plugin (at a distance, scenario 1 only): a YAML program
 * declaring what the TypeScript program declares, the plugin's self-contained executable installed
 * from its release tarball, as a YAML user's deploy machine gets it, the CLI's default --parallel.
 */
async function runPluginPath(distance: Distance): Promise<Figures[]> {
  const executable = await selfContainedPlugin();
  const tarball = { path: executable.tarball, version: executable.version };
  const seeded = seedClients(CLIENTS);
  const { api, requests } = await startBenchTenant(seeded, { rate: RATE, burst: BURST }, distance);
  const figures: Figures[] = [];
  try {
    const project = await pluginStack(
      api,
      "plugin",
      yamlProgram("tenant-bench-yaml", declaredClients(seeded)),
      tarball,
    );
    try {
      for (const [scenario, command] of [
        ["1. up: create 200", "up"],
        ["2. preview: no change", "preview"],
      ] as const) {
        if (command === "preview" && !onLoopback(distance)) continue;
        figures.push(
          await measureScenario({
            api,
            project,
            requests,
            scenario,
            command,
            face: "plugin",
            parallel: DEFAULT_PARALLEL,
            defaultParallel: true,
            bare: false,
            distance,
          }),
        );
      }
    } finally {
      await project.remove();
    }
    return figures;
  } finally {
    await api.stop();
  }
}

/** How one measured command of the dynamic path runs beside the runs as is. */
interface Variation {
  readonly setting: Setting;
  readonly env?: Record<string, string>;
  readonly skipPreview?: boolean;
}

const AS_IS: Variation = { setting: "as is" };

/**
 * Measures one command of the dynamic path (`project`, on `api`) at `parallel`; the figures are
 * added to `figures`.
 */
function dynamicMeasure(
  s: {
    api: TenantApi;
    project: PulumiProject;
    requests: RequestLog;
    parallel: number;
    distance: Distance;
  },
  figures: Figures[],
) {
  return (scenario: string, command: PulumiCommand, bare = false, variation = AS_IS) =>
    measureScenario({
      ...s,
      scenario,
      command,
      face: "dynamic",
      defaultParallel: false,
      bare,
      variation,
    }).then((f) => {
      figures.push(f);
      return f;
    });
}

/**
 * The whole `up` of 200 again from an empty state (the stack's resources destroyed after it, not
 * measured): fails the figures when the destroy did not put every prior value back.
 */
async function wholeUpAgain(
  measure: ReturnType<typeof dynamicMeasure>,
  project: PulumiProject,
  parallel: number,
  restored: () => boolean,
  scenario: string,
  variation = AS_IS,
): Promise<void> {
  const again = await measure(scenario, "up", false, variation);
  const back = await project.run("destroy", undefined, { parallel });
  if (!back.ok || !restored()) {
    again.ok = false;
    again.error = `the destroy after it failed: ${back.error ?? "not every prior value was restored"}`;
  }
}

/** Whether the tenant holds every seeded client's prior description again. */
const restoredOf = (api: TenantApi, seeded: readonly SeedClient[]) => () =>
  seeded.every(
    (client) => api.store.getClient(String(client.client_id))?.description === client.description,
  );

/**
 * At a distance: scenario 1 through the dynamic path at the CLI's default --parallel,
 * {@link WHOLE_UP_RUNS} times, each from an empty state.
 */
async function runWholeUps(program: BenchProgram, distance: Distance): Promise<Figures[]> {
  const seeded = seedClients(CLIENTS);
  const { api, requests } = await startBenchTenant(seeded, { rate: RATE, burst: BURST }, distance);
  const figures: Figures[] = [];
  try {
    await program.declare(declaredClients(seeded));
    const parallel = DEFAULT_PARALLEL;
    const project = await program.stack(api, `distant-${parallel}`);
    const measure = dynamicMeasure({ api, project, requests, parallel, distance }, figures);
    for (let run = 1; run <= WHOLE_UP_RUNS; run += 1) {
      const scenario = run === 1 ? "1. up: create 200" : `1. up: create 200, run ${run}`;
      await wholeUpAgain(measure, project, parallel, restoredOf(api, seeded), scenario);
    }
    return figures;
  } finally {
    await api.stop();
  }
}

async function runSequence(
  program: BenchProgram,
  parallel: number,
  distance: Distance,
): Promise<{ figures: Figures[]; extra: Extras }> {
  const seeded = seedClients(CLIENTS);
  const { api, requests } = await startBenchTenant(seeded, { rate: RATE, burst: BURST }, distance);
  const figures: Figures[] = [];
  try {
    await program.declare(declaredClients(seeded));
    const project = await program.stack(api, `parallel-${parallel}`);
    const measure = dynamicMeasure({ api, project, requests, parallel, distance }, figures);
    await measure("1. up: create 200", "up");
    await measure("2. preview: no change", "preview");
    if (parallel === PARALLEL[0]) await measure("2. preview: no change", "preview", true);
    await program.declare(declaredClients(seeded, true));
    await measure("3. up: change 200", "up");
    for (const client of seeded.slice(0, DRIFTED)) {
      const live = api.store.getClient(String(client.client_id));
      if (live) api.store.putClient({ ...live, description: "changed out of band" });
    }
    await measure(`4. refresh: ${DRIFTED} drifted`, "refresh");
    const state = await project.exportState();
    const resources = (state.deployment.resources ?? []).filter((r) =>
      r.type.includes("dynamic/tenant:"),
    );
    const providerBytes = resources.map((r) =>
      Buffer.byteLength(String(r.outputs?.__provider ?? "")),
    );
    const stateBytes = (await stat(project.stateFile)).size;
    const destroy = await measure("5. destroy: restore 200", "destroy");
    const restored = restoredOf(api, seeded);
    if (!restored()) {
      destroy.ok = false;
      destroy.error = "not every prior value was restored";
    }
    if (parallel === DEFAULT_PARALLEL) {
      await program.declare(declaredClients(seeded));
      for (let run = 2; run <= WHOLE_UP_RUNS; run += 1) {
        await wholeUpAgain(measure, project, parallel, restored, `1. up: create 200, run ${run}`);
      }
      await settingsRows(measure, project, parallel, restored);
    }
    return {
      figures,
      extra: {
        parallel,
        providerBytesPerResource: providerBytes.length ? Math.max(...providerBytes) : 0,
        stateBytesPerResource: resources.length ? Math.round(stateBytes / resources.length) : 0,
      },
    };
  } finally {
    await api.stop();
  }
}

/**
 * The whole `up` of 200 with a setting a user controls that shortens Pulumi's start-ups, each from
 * an empty state: Node.js's compile cache warm (a preview with it first: the preview runs the
 * program and starts the provider host, which write the cache of the modules they load, as the
 * `up` will load them), and `--skip-preview`.
 */
async function settingsRows(
  measure: ReturnType<typeof dynamicMeasure>,
  project: PulumiProject,
  parallel: number,
  restored: () => boolean,
): Promise<void> {
  const cache = await mkdtemp(join(tmpdir(), "tenant-bench-compile-cache-"));
  try {
    const env = { NODE_COMPILE_CACHE: cache };
    const warm = await project.run("preview", undefined, { parallel, env });
    if (!warm.ok) throw new Error(`the preview that warms the compile cache failed: ${warm.error}`);
    await wholeUpAgain(measure, project, parallel, restored, "1. up: create 200", {
      setting: "NODE_COMPILE_CACHE warm",
      env,
    });
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
  await wholeUpAgain(measure, project, parallel, restored, "1. up: create 200", {
    setting: "--skip-preview",
    skipPreview: true,
  });
}

async function measureScenario(s: {
  api: TenantApi;
  project: PulumiProject;
  requests: RequestLog;
  scenario: string;
  command: PulumiCommand;
  face: Face;
  parallel: number;
  defaultParallel: boolean;
  bare: boolean;
  distance: Distance;
  variation?: Variation;
}): Promise<Figures> {
  const { api, distance } = s;
  const variation = s.variation ?? AS_IS;
  process.stdout.write(
    `  ${s.scenario} (${s.face}, ${distance.label}${variation === AS_IS ? "" : `, ${variation.setting}`})` +
      `${s.bare ? " (not measured)" : ""}, parallel ${parallelText(s)}...`,
  );
  api.resetStats();
  const m: Measured = await measureRun(s.project, s.command, {
    requests: s.requests,
    ...(s.defaultParallel ? {} : { parallel: s.parallel }),
    env: { ...(s.defaultParallel ? { PULUMI_PARALLEL: undefined } : {}), ...variation.env },
    ...(variation.skipPreview ? { skipPreview: true } : {}),
    instrument: !s.bare,
  });
  const stats = api.stats();
  const statusCount = (pattern: RegExp) =>
    sum(
      Object.entries(stats.counts)
        .filter(([key]) => pattern.test(key))
        .map(([, n]) => n),
    );
  const apiCalls = stats.api;
  // The token, then each --parallel slot's calls one after another: the round trips that cannot
  // overlap; the rate's floor is the longer of the two at 100 ms.
  const floorSeconds = floorAt(apiCalls / RATE, 1 + Math.ceil(apiCalls / s.parallel), distance);
  const passSeconds = tenantPassSeconds(m);
  const { result } = m;
  const figures: Figures = {
    scenario: s.scenario,
    face: s.face,
    roundTrip: distance.label,
    setting: variation.setting,
    nodeVersion: s.project.node.version,
    parallel: s.parallel,
    defaultParallel: s.defaultParallel,
    bare: s.bare,
    ok: result.ok,
    wallSeconds: m.wallSeconds,
    apiCalls,
    floorSeconds,
    tenantPassSeconds: passSeconds,
    // The floor holds the pass only when that pass made every call (refresh reads in both).
    ratio:
      apiCalls > 0 && passSeconds !== undefined && tenantPass(m)?.api.length === apiCalls
        ? passSeconds / floorSeconds
        : null,
    previewPassSeconds: previewPassSeconds(m),
    startupSeconds: startupSeconds(m),
    programSeconds: programSeconds(m),
    providerStartSeconds: providerStartSeconds(m),
    pulumiStartSeconds: pulumiStartSeconds(s.face, m),
    firstCallSeconds: firstCallSeconds(m),
    checkDiff: checkDiff(m),
    saves: m.saves,
    stateSaveCpuSeconds: m.cliCpu?.stateSaveSeconds,
    cliCpuSeconds: m.cliCpu?.totalSeconds,
    shutdownSeconds: tailSeconds(m),
    providerPeakRssMiB: m.providerPeakRssMiB,
    readsPerPass: m.passes.map((p) => p.reads),
    readBound: 2 * Math.min(CLIENTS, pageCountOf(api.store.snapshot().clients.length)) + 1,
    callsByRoute: stats.byRoute,
    rateLimited: statusCount(/ 429$/),
    retried: statusCount(/ (429|500|502|503|504|408)$/) + stats.dropped,
    failedOperations: result.steps.filter((step) => !step.ok).length,
    tokenRequests: stats.token,
    changedResources: result.steps.filter((step) => step.op !== "same").length,
    timeline: s.bare ? [] : timeline(m),
    loadAverage: loadavg()[0] ?? 0,
    ...(result.error ? { error: result.error } : {}),
  };
  process.stdout.write(
    ` ${result.ok ? "ok" : "FAILED"}, ${m.wallSeconds.toFixed(1)} s` +
      (tenantPass(m) ? `, tenant pass ${cell(passSeconds)} s for ${apiCalls} calls` : "") +
      `\n`,
  );
  return figures;
}

/**
 * Pulumi's start-ups in a command, summed over its passes: through the dynamic path, the program's
 * run to its first registration (Node.js loading `@pulumi/pulumi` and the program) and the
 * dynamic-provider host's start (Pulumi's launcher and Node.js loading `@pulumi/pulumi`; the
 * package's code is loaded at the first call, which stays the package's); through the plugin, the
 * YAML host's run to its first registration (the plugin's own start is the package's).
 */
function pulumiStartSeconds(face: Face, m: Measured): number | undefined {
  const program = programSeconds(m);
  const host = face === "dynamic" ? providerStartSeconds(m) : 0;
  if (program === undefined && host === undefined) return undefined;
  return (program ?? 0) + (host ?? 0);
}

/** The whole command less Pulumi's start-ups: what the package, the engine and the tenant took. */
function lessStartUps(f: Figures): number | undefined {
  return f.pulumiStartSeconds === undefined ? undefined : f.wallSeconds - f.pulumiStartSeconds;
}

interface Target {
  target: string;
  met: boolean;
  detail: string;
}

/** `8`, or `8 (default)` for a run without --parallel. */
function parallelText(f: { parallel: number; defaultParallel: boolean }): string {
  return f.defaultParallel ? `${f.parallel} (default)` : String(f.parallel);
}

/** The whole command's wall time over the floor, or null without API calls. */
function wholeRatio(f: Figures): number | null {
  return f.apiCalls > 0 ? f.wallSeconds / f.floorSeconds : null;
}

function checkTargets(all: Figures[], extras: Extras[]): Target[] {
  const targets: Target[] = [];
  for (const f of all.filter((x) => !x.bare)) {
    const name = `${f.scenario} (${describe(f)})`;
    if (f.scenario.startsWith("2.")) {
      targets.push({
        target: `${name}: 0 API calls`,
        met: f.ok && f.apiCalls === 0,
        detail: `${f.apiCalls} calls`,
      });
    }
    if (/^(1|3)\./.test(f.scenario)) {
      targets.push({
        target: `${name}: the pass that calls the tenant within ${PACING_TARGET} x its floor`,
        met: f.ratio !== null && f.ratio <= PACING_TARGET,
        detail: `${cell(f.tenantPassSeconds)} s / ${f.floorSeconds.toFixed(1)} s = ${f.ratio?.toFixed(3) ?? "n/a"}`,
      });
    }
    if (f.scenario.startsWith("4.")) {
      targets.push({
        target: `${name}: at most ${f.readBound} client reads per pass`,
        met: f.readsPerPass.length === 2 && f.readsPerPass.every((n) => n <= f.readBound),
        detail: f.readsPerPass.join(" + "),
      });
      targets.push({
        target: `${name}: finds exactly ${DRIFTED} drifted`,
        met: f.changedResources === DRIFTED,
        detail: `${f.changedResources}`,
      });
    }
    if (/^(1|3|4|5)\./.test(f.scenario)) {
      targets.push({
        target: `${name}: succeeds, 0 failed operations`,
        met: f.ok && f.failedOperations === 0,
        detail: `${f.failedOperations}${f.error ? ` (${f.error})` : ""}`,
      });
      targets.push({
        target: `${name}: 429s <= 5% of calls`,
        met: f.rateLimited <= 0.05 * f.apiCalls,
        detail: `${f.rateLimited} of ${f.apiCalls}`,
      });
      // One token per provider host that calls the tenant: refresh's preview pass reads (its own
      // host, its own token); the preview pass of up and destroy makes no API call, so no token.
      const tokens = f.scenario.startsWith("4.") ? 2 : 1;
      targets.push({
        target: `${name}: ${tokens} token request${tokens > 1 ? "s (one per pass)" : ""}`,
        met: f.tokenRequests === tokens,
        detail: `${f.tokenRequests}`,
      });
    }
  }
  targets.push(...wholeUpTargets(all));
  for (const e of extras) {
    targets.push({
      target: `__provider <= 1 KB per resource (parallel ${e.parallel})`,
      met: e.providerBytesPerResource <= 1024,
      detail: `${e.providerBytesPerResource} bytes`,
    });
  }
  return targets;
}

/** `dynamic, parallel 8, 100 ms`, and the setting when not as is. */
function describe(f: Figures): string {
  return (
    `${f.face}, parallel ${parallelText(f)}, ${f.roundTrip}` +
    (f.setting === "as is" ? "" : `, ${f.setting}`)
  );
}

/**
 * The whole `up` of 200 (scenario 1) as is, CLI start to exit, at each distance: through the
 * plugin within {@link PLUGIN_WHOLE_UP_TARGET} x the floor and no slower than the dynamic path at
 * the same --parallel; through the dynamic path at the CLI's default --parallel within
 * {@link DYNAMIC_WHOLE_UP_TARGET} x the floor.
 */
function wholeUpTargets(all: Figures[]): Target[] {
  const targets: Target[] = [];
  for (const distance of DISTANCES) {
    const ups = all.filter(
      (f) =>
        !f.bare &&
        f.setting === "as is" &&
        f.roundTrip === distance.label &&
        f.scenario.startsWith("1."),
    );
    const whole = (f: Figures) =>
      `${f.wallSeconds.toFixed(1)} s / ${f.floorSeconds.toFixed(1)} s = ${wholeRatio(f)?.toFixed(3) ?? "n/a"}`;
    const dynamicAt = (parallel: number) =>
      ups.filter((x) => x.face === "dynamic" && x.parallel === parallel);
    const walls = (runs: Figures[]) => runs.map((x) => `${x.wallSeconds.toFixed(1)} s`).join(", ");
    for (const f of ups.filter((x) => x.face === "plugin")) {
      targets.push({
        target: `1. up: create 200 (plugin, ${distance.label}): the whole up within ${PLUGIN_WHOLE_UP_TARGET} x the floor`,
        met: f.ok && (wholeRatio(f) ?? Number.POSITIVE_INFINITY) <= PLUGIN_WHOLE_UP_TARGET,
        detail: whole(f),
      });
      const dynamic = dynamicAt(f.parallel);
      if (dynamic.length > 0) {
        const wall = median(dynamic.map((x) => x.wallSeconds));
        targets.push({
          target: `1. up: create 200 (plugin, ${distance.label}): the whole up no slower than the dynamic path's (parallel ${f.parallel}, median)`,
          met: f.ok && dynamic.every((x) => x.ok) && f.wallSeconds <= wall,
          detail: `${f.wallSeconds.toFixed(1)} s against ${wall.toFixed(1)} s (${walls(dynamic)})`,
        });
      }
    }
    const dynamic = dynamicAt(DEFAULT_PARALLEL);
    if (dynamic.length > 0) {
      const ratios = dynamic.map((x) => wholeRatio(x) ?? Number.POSITIVE_INFINITY);
      targets.push({
        target: `1. up: create 200 (dynamic, parallel ${DEFAULT_PARALLEL}, the CLI's default, ${distance.label}): the whole up within ${DYNAMIC_WHOLE_UP_TARGET} x the floor, median of ${dynamic.length} runs`,
        met: dynamic.every((x) => x.ok) && median(ratios) <= DYNAMIC_WHOLE_UP_TARGET,
        detail: `${median(ratios).toFixed(3)} (${dynamic.map(whole).join("; ")})`,
      });
    }
  }
  return targets;
}

/**
 * The whole `up` of 200 side by side: a row per face and setting, a column group per distance
 * (the median of the runs where there are several), as is and less Pulumi's start-ups.
 */
function printWholeUps(all: Figures[]): void {
  const ups = all.filter((f) => !f.bare && f.scenario.startsWith("1."));
  const groups = new Map<string, Figures[]>();
  for (const f of ups) {
    const key = `${f.face}, parallel ${parallelText(f)}${f.setting === "as is" ? "" : `, ${f.setting}`}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const mid = (values: (number | undefined)[]) => {
    const known = values.filter((v): v is number => v !== undefined);
    return known.length > 0 ? median(known) : undefined;
  };
  const columns = (runs: Figures[]): string[] => {
    if (runs.length === 0) return ["-", "-", "-", "-", "-"];
    const wall = median(runs.map((f) => f.wallSeconds));
    const floor = median(runs.map((f) => f.floorSeconds));
    const less = mid(runs.map(lessStartUps));
    return [
      `${wall.toFixed(1)}${runs.length > 1 ? ` (${runs.length})` : ""}`,
      (wall / floor).toFixed(3),
      cell(mid(runs.map((f) => f.pulumiStartSeconds))),
      cell(less),
      less === undefined ? "-" : (less / floor).toFixed(3),
    ];
  };
  const nodes = [...new Set(ups.filter((f) => f.face === "dynamic").map((f) => f.nodeVersion))];
  process.stdout.write(
    `\nthe whole up of 200 (CLI start to exit), ${DISTANCES.map((d) => d.label).join(" | ")}; medians of the runs (n);` +
      ` the dynamic path's program and provider host on Node.js ${nodes.join(", ") || "-"}:\n`,
  );
  process.stdout.write(
    `${table(
      [
        "face, setting",
        ...DISTANCES.flatMap((d) => [
          `${d.label}: wall s`,
          "wall/floor",
          "Pulumi's start-ups s",
          "less them s",
          "less/floor",
        ]),
      ],
      [...groups].map(([key, runs]) => [
        key,
        ...DISTANCES.flatMap((d) => columns(runs.filter((f) => f.roundTrip === d.label))),
      ]),
    )}\n`,
  );
}

function printReport(all: Figures[], extras: Extras[], targets: Target[]): void {
  const label = (f: Figures) =>
    `${f.scenario}${f.setting === "as is" ? "" : `, ${f.setting}`}${f.bare ? " (bare)" : ""}`;
  process.stdout.write(
    `\n200 ClientSettings, tenant at ${RATE} req/s (burst ${BURST}); pulumi CLI, file backend; ` +
      `dynamic: the TypeScript program's dynamic resources; plugin: a YAML program through the ` +
      `provider plugin\n\n`,
  );
  process.stdout.write(
    `${table(
      [
        "scenario",
        "face",
        "par",
        "round trip",
        "result",
        "wall s",
        "calls",
        "floor s",
        "tenant pass s",
        "pass/floor",
        "429s",
        "retried",
        "failed",
        "tokens",
        "changed",
        "reads/pass",
        "load",
      ],
      all.map((f) => [
        label(f),
        f.face,
        parallelText(f),
        f.roundTrip,
        f.ok ? "ok" : "FAILED",
        f.wallSeconds.toFixed(1),
        String(f.apiCalls),
        f.floorSeconds.toFixed(1),
        cell(f.tenantPassSeconds),
        f.ratio === null ? "-" : f.ratio.toFixed(3),
        String(f.rateLimited),
        String(f.retried),
        String(f.failedOperations),
        String(f.tokenRequests),
        String(f.changedResources),
        f.readsPerPass.join("+") || "-",
        f.loadAverage.toFixed(1),
      ]),
    )}\n`,
  );
  process.stdout.write("\nwhere the wall time goes (seconds):\n");
  process.stdout.write(
    `${table(
      [
        "scenario",
        "face",
        "par",
        "round trip",
        "wall",
        "floor",
        "wall/floor",
        "over floor",
        "start-up",
        "preview pass",
        "program",
        "provider start",
        "Pulumi's start-ups",
        "wall less them",
        "1st call",
        "Check+Diff n",
        "Check+Diff s",
        "state saves",
        "save CPU s",
        "CLI CPU s",
        "shutdown",
        "host RSS MiB",
      ],
      all
        .filter((f) => !f.bare)
        .map((f) => [
          label(f),
          f.face,
          parallelText(f),
          f.roundTrip,
          f.wallSeconds.toFixed(1),
          f.floorSeconds.toFixed(1),
          wholeRatio(f)?.toFixed(2) ?? "-",
          (f.wallSeconds - f.floorSeconds).toFixed(1),
          cell(f.startupSeconds),
          cell(f.previewPassSeconds),
          cell(f.programSeconds),
          cell(f.providerStartSeconds),
          cell(f.pulumiStartSeconds),
          cell(lessStartUps(f)),
          cell(f.firstCallSeconds, 2),
          String(f.checkDiff.count),
          f.checkDiff.seconds.toFixed(2),
          String(f.saves),
          cell(f.stateSaveCpuSeconds, 2),
          cell(f.cliCpuSeconds, 2),
          cell(f.shutdownSeconds),
          cell(f.providerPeakRssMiB, 0),
        ]),
    )}\n`,
  );
  process.stdout.write(
    "  program: the program's run up to its first registration (the provider host's launch), per pass, summed\n" +
      "  provider start: the provider host's launch (the dynamic-provider host, or the plugin) to its first answer, per pass, summed\n" +
      "  Pulumi's start-ups: dynamic, program + provider start (Node.js loading @pulumi/pulumi and the program, and\n" +
      "  Pulumi's dynamic-provider host); plugin, program (Pulumi's YAML host; the plugin's start is the package's)\n" +
      "  1st call: each pass's first provider operation (the dynamic host loads pulumi-tenant/runtime there), summed\n" +
      "  Check+Diff s: the calls' durations summed; serial in preview and up (one registration at a time),\n" +
      "  but a refresh's Diffs run inside its steps, in parallel\n" +
      "  start-up + preview pass + the last pass's program and provider start come before the pass that calls\n" +
      "  the tenant; state saves run in the CLI while the calls are paced (save CPU: the CLI's Go CPU profile)\n",
  );
  printWholeUps(all);
  process.stdout.write("\ntimelines (seconds from the CLI's spawn):\n");
  for (const f of all.filter((x) => !x.bare)) {
    process.stdout.write(`  ${f.scenario} (${describe(f)}): wall ${f.wallSeconds.toFixed(1)} s\n`);
    for (const line of f.timeline) process.stdout.write(`    ${line}\n`);
  }
  process.stdout.write("\nper resource:\n");
  for (const e of extras) {
    process.stdout.write(
      `  parallel ${e.parallel}: __provider ${e.providerBytesPerResource} B, state ${e.stateBytesPerResource} B\n`,
    );
  }
  const bare = all.find((f) => f.bare);
  const measured = all.find(
    (f) => !f.bare && f.face === bare?.face && f.scenario === bare?.scenario,
  );
  if (bare && measured) {
    process.stdout.write(
      `\nmeasuring's cost: ${bare.scenario} took ${measured.wallSeconds.toFixed(1)} s measured, ` +
        `${bare.wallSeconds.toFixed(1)} s bare\n`,
    );
  }
  process.stdout.write("\ntargets:\n");
  for (const t of targets) {
    process.stdout.write(`  ${t.met ? "met    " : "NOT MET"}  ${t.target}: ${t.detail}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
