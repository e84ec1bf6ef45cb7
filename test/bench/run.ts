/**
 * `npm run bench`: how a 200-resource stack behaves against a rate-limited tenant, run by the real
 * `pulumi` CLI (docs/pulumi-cli.md) with the package installed from its packed tarball, as a user
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
 * it, installed from its release tarball with `pulumi plugin install`, docs/plugin.md), from a
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
 * + 1 client reads per pass, docs/client-reads.md). The wall time of every command is shown with
 * where it goes. The whole `up` of 200 through the plugin (CLI start to exit, its preview pass
 * included) is held to at most {@link PLUGIN_WHOLE_UP_TARGET} x the floor and to no more than the
 * dynamic path's at the same --parallel; the dynamic path's whole `up` at the CLI's default
 * --parallel to at most {@link DYNAMIC_WHOLE_UP_TARGET} x the floor. At that --parallel, scenario 1
 * runs {@link WHOLE_UP_RUNS} times, each from an empty state, and both whole-up targets hold the
 * dynamic path by the median.
 *
 * Prints the tables and the timelines, checks the targets, and writes the figures as JSON (the path
 * is printed). Not part of `npm test`: speed is measured here, never asserted in timed tests.
 */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { pageCountOf } from "../../provider/api/client-read-policy.js";
import type { TenantApi } from "../../provider/local-tenant/index.js";
import { selfContainedPlugin } from "../support/plugin-executable.js";
import type { PulumiCommand, PulumiProject } from "../support/pulumi.js";
import {
  cell,
  checkDiff,
  firstCallSeconds,
  type Measured,
  measureRun,
  median,
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

interface Figures {
  scenario: string;
  face: Face;
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
    // The plugin path first, so that it runs next to the dynamic path at the default --parallel.
    if (FACES.has("plugin")) all.push(...(await runPluginPath()));
    if (FACES.has("dynamic")) {
      for (const parallel of PARALLEL) {
        const { figures, extra } = await runSequence(program, parallel);
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
      { rate: RATE, burst: BURST, clients: CLIENTS, scenarios: all, extras, targets },
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
 * Scenarios 1 and 2 through the provider plugin: a YAML program declaring what the TypeScript
 * program declares, the plugin's self-contained executable installed from its release tarball, as
 * a YAML user's deploy machine gets it, the CLI's default --parallel.
 */
async function runPluginPath(): Promise<Figures[]> {
  const executable = await selfContainedPlugin();
  const tarball = { path: executable.tarball, version: executable.version };
  const seeded = seedClients(CLIENTS);
  const { api, requests } = await startBenchTenant(seeded, { rate: RATE, burst: BURST });
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

async function runSequence(
  program: BenchProgram,
  parallel: number,
): Promise<{ figures: Figures[]; extra: Extras }> {
  const seeded = seedClients(CLIENTS);
  const { api, requests } = await startBenchTenant(seeded, { rate: RATE, burst: BURST });
  const figures: Figures[] = [];
  try {
    await program.declare(declaredClients(seeded));
    const project = await program.stack(api, `parallel-${parallel}`);
    const measure = (scenario: string, command: PulumiCommand, bare = false) =>
      measureScenario({
        api,
        project,
        requests,
        scenario,
        command,
        face: "dynamic",
        parallel,
        defaultParallel: false,
        bare,
      }).then((f) => {
        figures.push(f);
        return f;
      });
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
    const restored = () =>
      seeded.every(
        (client) =>
          api.store.getClient(String(client.client_id))?.description === client.description,
      );
    if (!restored()) {
      destroy.ok = false;
      destroy.error = "not every prior value was restored";
    }
    if (parallel === DEFAULT_PARALLEL) {
      await program.declare(declaredClients(seeded));
      for (let run = 2; run <= WHOLE_UP_RUNS; run += 1) {
        const again = await measure(`1. up: create 200, run ${run}`, "up");
        const back = await project.run("destroy", undefined, { parallel });
        if (!back.ok || !restored()) {
          again.ok = false;
          again.error = `the destroy after it failed: ${back.error ?? "not every prior value was restored"}`;
        }
      }
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
}): Promise<Figures> {
  const { api } = s;
  process.stdout.write(
    `  ${s.scenario} (${s.face})${s.bare ? " (not measured)" : ""}, parallel ${parallelText(s)}...`,
  );
  api.resetStats();
  const m: Measured = await measureRun(s.project, s.command, {
    requests: s.requests,
    ...(s.defaultParallel ? { env: { PULUMI_PARALLEL: undefined } } : { parallel: s.parallel }),
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
  const floorSeconds = apiCalls / RATE;
  const passSeconds = tenantPassSeconds(m);
  const { result } = m;
  const figures: Figures = {
    scenario: s.scenario,
    face: s.face,
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
    const name = `${f.scenario} (${f.face}, parallel ${parallelText(f)})`;
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

/**
 * The whole `up` of 200 (scenario 1), CLI start to exit: through the plugin within
 * {@link PLUGIN_WHOLE_UP_TARGET} x the floor and no slower than the dynamic path at the same
 * --parallel; through the dynamic path at the CLI's default --parallel within
 * {@link DYNAMIC_WHOLE_UP_TARGET} x the floor.
 */
function wholeUpTargets(all: Figures[]): Target[] {
  const ups = all.filter((f) => !f.bare && f.scenario.startsWith("1."));
  const whole = (f: Figures) =>
    `${f.wallSeconds.toFixed(1)} s / ${f.floorSeconds.toFixed(1)} s = ${wholeRatio(f)?.toFixed(3) ?? "n/a"}`;
  const targets: Target[] = [];
  const dynamicAt = (parallel: number) =>
    ups.filter((x) => x.face === "dynamic" && x.parallel === parallel);
  const walls = (runs: Figures[]) => runs.map((x) => `${x.wallSeconds.toFixed(1)} s`).join(", ");
  for (const f of ups.filter((x) => x.face === "plugin")) {
    targets.push({
      target: `1. up: create 200 (plugin): the whole up within ${PLUGIN_WHOLE_UP_TARGET} x the floor`,
      met: f.ok && (wholeRatio(f) ?? Number.POSITIVE_INFINITY) <= PLUGIN_WHOLE_UP_TARGET,
      detail: whole(f),
    });
    const dynamic = dynamicAt(f.parallel);
    if (dynamic.length > 0) {
      const wall = median(dynamic.map((x) => x.wallSeconds));
      targets.push({
        target: `1. up: create 200 (plugin): the whole up no slower than the dynamic path's (parallel ${f.parallel}, median)`,
        met: f.ok && dynamic.every((x) => x.ok) && f.wallSeconds <= wall,
        detail: `${f.wallSeconds.toFixed(1)} s against ${wall.toFixed(1)} s (${walls(dynamic)})`,
      });
    }
  }
  const dynamic = dynamicAt(DEFAULT_PARALLEL);
  if (dynamic.length > 0) {
    const ratios = dynamic.map((x) => wholeRatio(x) ?? Number.POSITIVE_INFINITY);
    targets.push({
      target: `1. up: create 200 (dynamic, parallel ${DEFAULT_PARALLEL}, the CLI's default): the whole up within ${DYNAMIC_WHOLE_UP_TARGET} x the floor, median of ${dynamic.length} runs`,
      met: dynamic.every((x) => x.ok) && median(ratios) <= DYNAMIC_WHOLE_UP_TARGET,
      detail: `${median(ratios).toFixed(3)} (${dynamic.map(whole).join("; ")})`,
    });
  }
  return targets;
}

function printReport(all: Figures[], extras: Extras[], targets: Target[]): void {
  const label = (f: Figures) => `${f.scenario}${f.bare ? " (bare)" : ""}`;
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
        "wall",
        "floor",
        "wall/floor",
        "over floor",
        "start-up",
        "preview pass",
        "program",
        "provider start",
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
          f.scenario,
          f.face,
          parallelText(f),
          f.wallSeconds.toFixed(1),
          f.floorSeconds.toFixed(1),
          wholeRatio(f)?.toFixed(2) ?? "-",
          (f.wallSeconds - f.floorSeconds).toFixed(1),
          cell(f.startupSeconds),
          cell(f.previewPassSeconds),
          cell(f.programSeconds),
          cell(f.providerStartSeconds),
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
      "  1st call: each pass's first provider operation (the dynamic host loads pulumi-tenant/runtime there), summed\n" +
      "  Check+Diff s: the calls' durations summed; serial in preview and up (one registration at a time),\n" +
      "  but a refresh's Diffs run inside its steps, in parallel\n" +
      "  start-up + preview pass + the last pass's program and provider start come before the pass that calls\n" +
      "  the tenant; state saves run in the CLI while the calls are paced (save CPU: the CLI's Go CPU profile)\n",
  );
  process.stdout.write("\ntimelines (seconds from the CLI's spawn):\n");
  for (const f of all.filter((x) => !x.bare)) {
    process.stdout.write(
      `  ${f.scenario} (${f.face}), parallel ${parallelText(f)}: wall ${f.wallSeconds.toFixed(1)} s\n`,
    );
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
