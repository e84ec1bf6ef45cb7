/**
 * `npm run bench` (second part): what client reads cost through the client read pass
 * (docs/design/client-reads.md), run as a user runs them: the packed package installed in a fresh
 * project, the clients-from-data example, the real `pulumi` CLI (its preview pass first, Check and
 * Diff one registration at a time). A `refresh` reads in two provider hosts (its preview pass, then
 * the refresh), so reads are counted per pass: each tenant request is given to the pass in which it
 * arrived (test/bench/measure.ts).
 *
 * Scenarios and targets:
 *   A. a 210-client tenant at 10 req/s (burst 20), 200 managed clients, each declaring a new
 *      description: `up` creating them makes at most 210 API calls; a no-change preview makes 0;
 *      `refresh` reads at most 4 times per pass.
 *   B. a 5,000-client tenant at 2 req/s (burst 10), 1,000 managed clients declaring what they hold:
 *      `up` adopts them without a write; `refresh` reads at most 101 times per pass.
 *   C. the same tenant, 5 managed clients (a stack of its own): `refresh` reads at most 11 times
 *      per pass.
 * Every scenario: 0 failed operations, 429s at most 5% of calls (reads per pass count the calls a
 * pass chose: a 429 and its retry count once). The floor is the fewest calls the work needs (the
 * reads the bound allows, plus one PATCH per changed client) divided by the rate; at a distance,
 * that or the round trips that cannot overlap (in each pass the token, page 0, then the other
 * pages at once), whichever is longer ({@link floorAt}). BENCH_ONLY=A (or B, C, or a list) runs
 * some of them.
 *
 * Every scenario runs on loopback and with the tenant a 100 ms round trip away (its network delay
 * of 50 ms each way, docs/design/local-tenant.md, "A tenant a network away"), with the same targets: they
 * count calls, which the distance must not change. BENCH_DISTANCES=0 (or 100) runs one distance.
 *
 * Prints the tables, the timelines and the targets; exits non-zero when a target is not met.
 */
import { loadavg } from "node:os";
import { pageCountOf } from "../../provider/api/client-read-policy.js";
import { startTenantApi, type TenantApi } from "../../provider/local-tenant/index.js";
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
  previewPassSeconds,
  programSeconds,
  providerStartSeconds,
  RequestLog,
  startupSeconds,
  table,
  tailSeconds,
  timeline,
} from "./measure.js";
import { type BenchProgram, installBenchProgram } from "./program.js";

const ONLY = new Set((process.env.BENCH_ONLY ?? "A,B,C").split(",").map((s) => s.trim()));

interface Row {
  scenario: string;
  /** {@link Distance.label}. */
  roundTrip: string;
  ok: boolean;
  /** Management API calls (the token endpoint aside). */
  calls: number;
  /** Client reads (pages and single GETs) in each pass, 429s aside. */
  readsPerPass: number[];
  /** Requests the tenant answered 429, in all passes. */
  rateLimited: number;
  /** Calls by `METHOD /route`. */
  byRoute: Record<string, number>;
  floorSeconds: number;
  failed: number;
  measured: Measured;
  loadAverage: number;
  error?: string;
}

interface Target {
  target: string;
  met: boolean;
  detail: string;
}

interface Tenant {
  readonly api: TenantApi;
  readonly requests: RequestLog;
  readonly rate: number;
  readonly distance: Distance;
  /** The ids of the tenant's clients, in its order. */
  readonly ids: string[];
}

async function startTenant(
  clients: number,
  rate: number,
  burst: number,
  distance: Distance,
): Promise<Tenant> {
  const probe = await startTenantApi({});
  const seeded = probe.store.snapshot().clients.length;
  await probe.stop();
  const requests = new RequestLog();
  const api = await startTenantApi({
    extraClients: clients - seeded,
    rateLimit: { rate, burst },
    networkDelay: distance.networkDelay,
    onRequest: requests.record,
    onAnswer: requests.answer,
  });
  return {
    api,
    requests,
    rate,
    distance,
    ids: api.store.snapshot().clients.map((c) => c.client_id),
  };
}

/**
 * Runs one command of `project` against `tenant`, counting calls by route and reads per pass; its
 * floor is `floorCalls` over the rate, or at a distance `roundTrips` that cannot overlap, whichever
 * is longer.
 */
async function measure(
  project: PulumiProject,
  tenant: Tenant,
  scenario: string,
  command: PulumiCommand,
  floorCalls: number,
  roundTrips: number,
): Promise<Row> {
  const { api } = tenant;
  process.stdout.write(`  ${scenario} (${tenant.distance.label})...`);
  api.resetStats();
  const m = await measureRun(project, command, { requests: tenant.requests, timeoutMs: 900_000 });
  const stats = api.stats();
  const row: Row = {
    scenario,
    roundTrip: tenant.distance.label,
    ok: m.result.ok,
    calls: stats.api,
    readsPerPass: m.passes.map((pass) => pass.reads),
    rateLimited: m.passes.reduce((sum, pass) => sum + pass.rateLimited, 0),
    byRoute: stats.byRoute,
    floorSeconds: floorAt(floorCalls / tenant.rate, roundTrips, tenant.distance),
    failed: m.result.steps.filter((step) => !step.ok).length,
    measured: m,
    loadAverage: loadavg()[0] ?? 0,
    ...(m.result.error ? { error: m.result.error } : {}),
  };
  process.stdout.write(
    ` ${row.ok && row.failed === 0 ? "ok" : "FAILED"}, ${m.wallSeconds.toFixed(1)} s, ${row.calls} calls\n`,
  );
  return row;
}

/** The most reads one pass may make for `managed` clients of a `total`-client tenant. */
function readBound(managed: number, total: number): number {
  return 2 * Math.min(managed, pageCountOf(total)) + 1;
}

/**
 * The round trips of a pass that cannot overlap: the token, page 0 (which tells the total), then
 * the other reads at once.
 */
const PASS_ROUND_TRIPS = 3;

async function scenarioA(
  program: BenchProgram,
  distance: Distance,
): Promise<{ rows: Row[]; targets: Target[] }> {
  const tenant = await startTenant(210, 10, 20, distance);
  try {
    const managed = tenant.ids.slice(0, 200);
    await program.declare(managed.map((id) => ({ clientId: id, description: `managed ${id}` })));
    const project = await program.stack(tenant.api, "small");
    const pages = pageCountOf(tenant.ids.length);
    const up = await measure(
      project,
      tenant,
      "A. up: create 200 of 210",
      "up",
      pages + 200,
      PASS_ROUND_TRIPS + 1,
    );
    const preview = await measure(project, tenant, "A. preview: no change", "preview", 0, 0);
    const refresh = await measure(
      project,
      tenant,
      "A. refresh 200 of 210",
      "refresh",
      2 * pages,
      2 * PASS_ROUND_TRIPS,
    );
    return {
      rows: [up, preview, refresh],
      targets: [
        target(`${up.scenario}: at most 210 API calls`, up, up.calls <= 210, `${up.calls}`),
        target(
          `${preview.scenario}: 0 API calls`,
          preview,
          preview.calls === 0,
          `${preview.calls}`,
        ),
        perPassTarget(refresh, 4),
      ],
    };
  } finally {
    await tenant.api.stop();
  }
}

async function scenarioB(
  program: BenchProgram,
  tenant: Tenant,
  managedCount: number,
  bound: number,
): Promise<{ rows: Row[]; targets: Target[] }> {
  const managed = tenant.ids.slice(tenant.ids.length - managedCount);
  // Declaring what the tenant holds: `up` adopts without a write, and refresh finds no drift.
  await program.declare(
    managed.map((id) => ({
      clientId: id,
      description: String(tenant.api.store.getClient(id)?.description),
    })),
  );
  const project = await program.stack(tenant.api, `large-${managedCount}`);
  const pages = pageCountOf(tenant.ids.length);
  const minReads = Math.min(managedCount, pages);
  const name = `${managedCount} of ${tenant.ids.length}`;
  const letter = managedCount >= 100 ? "B" : "C";
  const up = await measure(
    project,
    tenant,
    `${letter}. up: adopt ${name}`,
    "up",
    minReads,
    PASS_ROUND_TRIPS,
  );
  const refresh = await measure(
    project,
    tenant,
    `${letter}. refresh ${name}`,
    "refresh",
    2 * minReads,
    2 * PASS_ROUND_TRIPS,
  );
  return {
    rows: [up, refresh],
    targets: [
      target(`${up.scenario}: 0 writes`, up, !hasWrites(up), JSON.stringify(up.byRoute)),
      perPassTarget(refresh, bound),
      {
        target: `${letter}. ${name}: the bound 2 x min(N, ceil(T/100)) + 1 is within ${bound}`,
        met: readBound(managedCount, tenant.ids.length) <= bound,
        detail: `${readBound(managedCount, tenant.ids.length)}`,
      },
    ],
  };
}

function hasWrites(row: Row): boolean {
  return Object.keys(row.byRoute).some((route) => /^(PUT|PATCH|DELETE) /.test(route));
}

function target(name: string, row: Row, met: boolean, detail: string): Target {
  const failed = !row.ok || row.failed > 0;
  return {
    target: `${name} (${row.roundTrip}), 0 failed operations`,
    met: met && !failed,
    detail: failed ? `${detail}; failed: ${row.failed} ${row.error ?? ""}` : detail,
  };
}

function perPassTarget(row: Row, bound: number): Target {
  return target(
    `${row.scenario}: at most ${bound} client reads per pass`,
    row,
    row.readsPerPass.length === 2 && row.readsPerPass.every((reads) => reads <= bound),
    row.readsPerPass.join(" + "),
  );
}

/** The pacing: a 429 is a call the tenant refused, which the transport then retries. */
function rateLimitTarget(row: Row): Target {
  return target(
    `${row.scenario}: 429s <= 5% of calls`,
    row,
    row.rateLimited <= 0.05 * row.calls,
    `${row.rateLimited} of ${row.calls}`,
  );
}

function printReport(rows: Row[], targets: Target[]): void {
  process.stdout.write(
    `\nclient reads\n${table(
      [
        "scenario",
        "round trip",
        "result",
        "wall s",
        "calls",
        "reads/pass",
        "429s",
        "floor s",
        "wall/floor",
        "over floor s",
        "load",
      ],
      rows.map((row) => [
        row.scenario,
        row.roundTrip,
        row.ok && row.failed === 0 ? "ok" : "FAILED",
        row.measured.wallSeconds.toFixed(1),
        String(row.calls),
        row.readsPerPass.join("+"),
        String(row.rateLimited),
        row.floorSeconds.toFixed(1),
        row.floorSeconds > 0 ? (row.measured.wallSeconds / row.floorSeconds).toFixed(3) : "-",
        (row.measured.wallSeconds - row.floorSeconds).toFixed(1),
        row.loadAverage.toFixed(1),
      ]),
    )}\n`,
  );
  process.stdout.write(`\nwhere the wall time goes (seconds):\n`);
  process.stdout.write(
    `${table(
      [
        "scenario",
        "round trip",
        "wall",
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
      rows.map(({ scenario, roundTrip, measured: m }) => {
        const cd = checkDiff(m);
        return [
          scenario,
          roundTrip,
          m.wallSeconds.toFixed(1),
          cell(startupSeconds(m)),
          cell(previewPassSeconds(m)),
          cell(programSeconds(m)),
          cell(providerStartSeconds(m)),
          cell(firstCallSeconds(m), 2),
          String(cd.count),
          cd.seconds.toFixed(2),
          String(m.saves),
          cell(m.cliCpu?.stateSaveSeconds, 2),
          cell(m.cliCpu?.totalSeconds, 2),
          cell(tailSeconds(m)),
          cell(m.providerPeakRssMiB, 0),
        ];
      }),
    )}\n`,
  );
  process.stdout.write(
    "  program: the program's run up to its first registration, per pass, summed; provider start: the\n" +
      "  provider host's launch to its first answer, per pass, summed; 1st call: each pass's first provider\n" +
      "  operation (loads pulumi-tenant/runtime, compiles the validator), summed; Check+Diff s: durations\n" +
      "  summed (serial in preview and up, parallel inside a refresh's steps); save CPU: the CLI's CPU in\n" +
      "  saving the state (its Go CPU profile)\n",
  );
  process.stdout.write("\ncalls by route:\n");
  for (const row of rows) {
    process.stdout.write(`  ${row.scenario} (${row.roundTrip}): ${JSON.stringify(row.byRoute)}\n`);
  }
  process.stdout.write("\ntimelines (seconds from the CLI's spawn):\n");
  for (const row of rows) {
    process.stdout.write(
      `  ${row.scenario} (${row.roundTrip}): wall ${row.measured.wallSeconds.toFixed(1)} s\n`,
    );
    for (const line of timeline(row.measured)) process.stdout.write(`    ${line}\n`);
  }
  process.stdout.write("\ntargets:\n");
  for (const t of targets) {
    process.stdout.write(`  ${t.met ? "met    " : "NOT MET"}  ${t.target}: ${t.detail}\n`);
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  process.stdout.write(
    "Client reads: packing and installing the package into a fresh project...\n",
  );
  const program = await installBenchProgram();
  const rows: Row[] = [];
  const targets: Target[] = [];
  try {
    for (const distance of DISTANCES) {
      if (ONLY.has("A")) {
        const a = await scenarioA(program, distance);
        rows.push(...a.rows);
        targets.push(...a.targets);
      }
      if (ONLY.has("B") || ONLY.has("C")) {
        const large = await startTenant(5000, 2, 10, distance);
        try {
          for (const [letter, managed, bound] of [
            ["B", 1000, 101],
            ["C", 5, 11],
          ] as const) {
            if (!ONLY.has(letter)) continue;
            const b = await scenarioB(program, large, managed, bound);
            rows.push(...b.rows);
            targets.push(...b.targets);
          }
        } finally {
          await large.api.stop();
        }
      }
    }
  } finally {
    await program.remove();
  }
  targets.push(...rows.map(rateLimitTarget));
  printReport(rows, targets);
  process.stdout.write(`\n(total ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  if (targets.some((t) => !t.met)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
