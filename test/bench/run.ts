/**
 * `npm run bench`: how a 200-resource stack behaves against a rate-limited tenant, through
 * Pulumi's own runtime and dynamic-provider host (the engine stand-in), with the package installed
 * from its packed tarball as a user would have it.
 *
 * Scenarios, each at engine parallelism 16 and 64, against a tenant limited to 10 requests per
 * second with bursts of 20:
 *   1. up creating 200 ClientSettings (one declared field differs on each of 200 seeded clients)
 *   2. preview with nothing changed
 *   3. up changing one field on all 200
 *   4. refresh with 10 clients changed out of band (must find exactly those 10)
 *   5. destroy (restores every prior value)
 *
 * Each command runs as a user's `pulumi` runs it (test/engine/CONFORMANCE.md, rule 8): up, refresh
 * and destroy run a preview pass first, Check and Diff go one resource at a time (the environment's
 * PULUMI_PARALLEL_DIFF is cleared), and only the resource operations use `--parallel`. Compared
 * with figures taken before the stand-in followed those rules: the preview pass of up and destroy
 * makes no API call but adds a program run and a Check (and Diff) per resource, serially; refresh
 * reads every resource twice (its preview pass reads too), so its calls double, and it fetches one
 * token per pass (each pass starts its own provider host, as each Pulumi pass loads its plugins).
 * Client reads go through the client list (docs/client-reads.md), so a refresh of the 200 makes a
 * handful of calls instead of 200 per pass.
 *
 * Targets: the pacing target (wall / floor <= 1.15, the floor being the calls made divided by the
 * rate) is taken on the pass that calls the tenant, from the start of its provider host, because
 * the preview pass before it is the engine's cost (a program run and a serial Check and Diff per
 * resource), the same whatever the provider does; `wall s` shows the whole command. Refresh is held
 * to its calls (at most 2 x min(N, ceil(T / 100)) + 1 client reads per pass), its wall time being
 * the engine's.
 *
 * Prints a table, checks the targets, and writes the figures as JSON (the path is printed).
 * Not part of `npm test`: speed is measured here, never asserted in timed tests.
 */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pageCountOf } from "../../provider/api/client-read-policy.js";
import {
  type EngineCommand,
  type EngineResult,
  readState,
  runEngine,
  stateFilePath,
} from "../engine/index.js";
import { startTenantApi } from "../tenant-api/index.js";
import { newClientId, type SeedClient } from "../tenant-api/seed.js";
import { type BenchProgram, installBenchProgram, PASSPHRASE } from "./program.js";

const CLIENTS = 200;
const RATE = 10;
const BURST = 20;
const DRIFTED = 10;
const REPO = resolve(__dirname, "..", "..");

interface Figures {
  scenario: string;
  parallel: number;
  ok: boolean;
  wallSeconds: number;
  /**
   * Wall time of the last pass alone, from the start of its provider host: the pass that makes
   * the calls of `up` (its preview pass makes none, but runs the program and every Check and Diff
   * once more, which is the engine's cost, not the pacing's).
   */
  lastPassSeconds: number;
  /** The most client reads one pass may make: 2 x min(N, ceil(T / 100)) + 1 (docs/client-reads.md). */
  readBound: number;
  apiCalls: number;
  callsByRoute: Record<string, number>;
  rateLimited: number;
  retried: number;
  failedOperations: number;
  tokenRequests: number;
  floorSeconds: number;
  ratio: number | null;
  changedResources: number;
  error?: string;
}

interface Extras {
  parallel: number;
  providerBytesPerResource: number;
  stateBytesPerResource: number;
  providerHostPeakRssMiB: number | null;
  checkPlusDiffMsPerResource: number | null;
}

function seedClients(): SeedClient[] {
  return Array.from({ length: CLIENTS }, (_, i) => ({
    client_id: newClientId(),
    name: `Application ${i}`,
    app_type: "regular_web",
    description: `seeded application ${i}`,
    callbacks: [`https://app-${i}.example.com/callback`],
  }));
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
    for (const parallel of [16, 64]) {
      const { figures, extra } = await runSequence(program, parallel);
      all.push(...figures);
      extras.push(extra);
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
  printTable(all, extras, targets);
  process.stdout.write(
    `\nFigures written to ${outFile} (total ${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
  );
  if (targets.some((t) => !t.met)) process.exitCode = 1;
}

async function runSequence(
  program: BenchProgram,
  parallel: number,
): Promise<{ figures: Figures[]; extra: Extras }> {
  const seeded = seedClients();
  const api = await startTenantApi({
    seed: { clients: seeded },
    rateLimit: { rate: RATE, burst: BURST },
  });
  const stack = `parallel-${parallel}`;
  const options = program.engineOptions(api, stack);
  const writeData = (description: (i: number) => string) =>
    program.declare(
      seeded.map((client, i) => ({
        clientId: String(client.client_id),
        description: description(i),
      })),
    );
  const figures: Figures[] = [];
  let lastResult: EngineResult | undefined;
  const run = async (scenario: string, command: EngineCommand, previewOnly = false) => {
    api.resetStats();
    const t0 = Date.now();
    let lastHostStart = t0;
    const result = await runEngine({
      ...options,
      command,
      parallel,
      previewOnly,
      onEvent: (event) => {
        if (event.type === "provider-host") lastHostStart = Date.now();
      },
    });
    const end = Date.now();
    const wallSeconds = (end - t0) / 1000;
    const lastPassSeconds = (end - lastHostStart) / 1000;
    const stats = api.stats();
    const apiCalls = stats.api;
    const statusCount = (pattern: RegExp) =>
      sum(
        Object.entries(stats.counts)
          .filter(([key]) => pattern.test(key))
          .map(([, n]) => n),
      );
    const floorSeconds = apiCalls / RATE;
    figures.push({
      scenario,
      parallel,
      ok: result.ok,
      wallSeconds,
      lastPassSeconds,
      readBound: 2 * Math.min(CLIENTS, pageCountOf(api.store.snapshot().clients.length)) + 1,
      apiCalls,
      callsByRoute: stats.byRoute,
      rateLimited: statusCount(/ 429$/),
      retried: statusCount(/ (429|500|502|503|504|408)$/) + stats.dropped,
      failedOperations: result.steps.filter((s) => !s.ok).length,
      tokenRequests: stats.token,
      floorSeconds,
      ratio: apiCalls > 0 ? lastPassSeconds / floorSeconds : null,
      changedResources: result.steps.filter((s) => s.op !== "same").length,
      ...(result.error ? { error: result.error } : {}),
    });
    lastResult = result;
    return result;
  };

  try {
    await writeData((i) => `managed application ${i}`);
    await run("1. up: create 200", "up");
    const afterCreate = lastResult;
    await run("2. preview: no change", "preview");
    await writeData((i) => `managed application ${i}, revised`);
    await run("3. up: change 200", "up");
    for (const client of seeded.slice(0, DRIFTED)) {
      const live = api.store.getClient(String(client.client_id));
      if (live) api.store.putClient({ ...live, description: "changed out of band" });
    }
    await run(`4. refresh: ${DRIFTED} drifted`, "refresh");
    const stateFile = stateFilePath(options.stateDir ?? "", stack);
    const state = await readState(stateFile, { passphrase: PASSPHRASE });
    const resources = state.resources.filter((r) => r.type.includes("dynamic/tenant:"));
    const providerBytes = resources.map((r) =>
      Buffer.byteLength(String(r.outputs.__provider ?? "")),
    );
    const stateBytes = (await stat(stateFile)).size;
    await run("5. destroy: restore 200", "destroy");
    const restored = seeded.every(
      (client) => api.store.getClient(String(client.client_id))?.description === client.description,
    );
    if (!restored)
      figures[figures.length - 1] = {
        ...(figures.at(-1) as Figures),
        ok: false,
        error: "not every prior value was restored",
      };
    const timings = afterCreate?.timings;
    return {
      figures,
      extra: {
        parallel,
        providerBytesPerResource: providerBytes.length ? Math.max(...providerBytes) : 0,
        stateBytesPerResource: resources.length ? Math.round(stateBytes / resources.length) : 0,
        providerHostPeakRssMiB: afterCreate?.providerHost
          ? Math.round((afterCreate.providerHost.peakRssBytes / 2 ** 20) * 10) / 10
          : null,
        checkPlusDiffMsPerResource:
          timings && timings.checkMs.length > 0
            ? (sum(timings.checkMs) + sum(timings.diffMs)) / timings.checkMs.length
            : null,
      },
    };
  } finally {
    await api.stop();
  }
}

interface Target {
  target: string;
  met: boolean;
  detail: string;
}

function checkTargets(all: Figures[], extras: Extras[]): Target[] {
  const targets: Target[] = [];
  for (const f of all) {
    if (f.scenario.startsWith("2.")) {
      targets.push({
        target: `no-change preview makes 0 API calls (parallel ${f.parallel})`,
        met: f.ok && f.apiCalls === 0,
        detail: `${f.apiCalls} calls`,
      });
    }
    if (/^(1|3|4)\./.test(f.scenario)) {
      const name = `${f.scenario} (parallel ${f.parallel})`;
      if (f.scenario.startsWith("4.")) {
        // Read through the client list, a refresh makes a handful of calls; its time is the
        // engine's (two program-free passes), so the target is on its calls.
        targets.push({
          target: `${name}: at most ${2 * f.readBound} client reads (two passes)`,
          met: f.apiCalls <= 2 * f.readBound,
          detail: `${f.apiCalls}`,
        });
      } else {
        targets.push({
          target: `${name}: wall / floor of the pass that calls the tenant <= 1.15`,
          met: f.ratio !== null && f.ratio <= 1.15,
          detail: f.ratio?.toFixed(3) ?? "n/a",
        });
      }
      targets.push({
        target: `${name}: 0 failed operations`,
        met: f.ok && f.failedOperations === 0,
        detail: `${f.failedOperations}${f.error ? ` (${f.error})` : ""}`,
      });
      targets.push({
        target: `${name}: 429s <= 5% of calls`,
        met: f.rateLimited <= 0.05 * f.apiCalls,
        detail: `${f.rateLimited} of ${f.apiCalls}`,
      });
      // One token per provider host: refresh's preview pass reads (its own host, its own
      // token); up's preview pass makes no API call, so it fetches none.
      const tokens = f.scenario.startsWith("4.") ? 2 : 1;
      targets.push({
        target: `${name}: ${tokens} token request${tokens > 1 ? "s (one per pass)" : ""}`,
        met: f.tokenRequests === tokens,
        detail: `${f.tokenRequests}`,
      });
    }
    if (f.scenario.startsWith("4.")) {
      targets.push({
        target: `refresh finds exactly ${DRIFTED} drifted (parallel ${f.parallel})`,
        met: f.changedResources === DRIFTED,
        detail: `${f.changedResources}`,
      });
    }
  }
  for (const e of extras) {
    targets.push({
      target: `__provider <= 1 KB per resource (parallel ${e.parallel})`,
      met: e.providerBytesPerResource <= 1024,
      detail: `${e.providerBytesPerResource} bytes`,
    });
  }
  return targets;
}

function printTable(all: Figures[], extras: Extras[], targets: Target[]): void {
  const rows = all.map((f) => [
    f.scenario,
    String(f.parallel),
    f.ok ? "ok" : "FAILED",
    f.wallSeconds.toFixed(1),
    f.lastPassSeconds.toFixed(1),
    String(f.apiCalls),
    f.floorSeconds.toFixed(1),
    f.ratio === null ? "-" : f.ratio.toFixed(3),
    String(f.rateLimited),
    String(f.retried),
    String(f.failedOperations),
    String(f.tokenRequests),
    String(f.changedResources),
  ]);
  const header = [
    "scenario",
    "par",
    "result",
    "wall s",
    "last pass s",
    "calls",
    "floor s",
    "last pass / floor",
    "429s",
    "retried",
    "failed",
    "tokens",
    "changed",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  process.stdout.write(`\n${line(header)}\n${line(widths.map((w) => "-".repeat(w)))}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
  process.stdout.write("\nper resource:\n");
  for (const e of extras) {
    process.stdout.write(
      `  parallel ${e.parallel}: __provider ${e.providerBytesPerResource} B, state ${e.stateBytesPerResource} B, ` +
        `provider host peak RSS ${e.providerHostPeakRssMiB ?? "?"} MiB, check+diff ${e.checkPlusDiffMsPerResource?.toFixed(2) ?? "?"} ms\n`,
    );
  }
  process.stdout.write("\ntargets:\n");
  for (const t of targets)
    process.stdout.write(`  ${t.met ? "met    " : "NOT MET"}  ${t.target}: ${t.detail}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
