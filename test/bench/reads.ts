/**
 * `npm run bench` (second part): what client reads cost through the client directory
 * (docs/client-reads.md), run as a user runs them: the packed package installed in a fresh
 * project, the clients-from-data example, the engine stand-in with Pulumi's preview pass and serial
 * Check/Diff. A `refresh` reads in two provider processes (the preview pass, then the refresh), so
 * reads are counted per pass, split where the second provider host starts.
 *
 * Scenarios and targets:
 *   A. a 210-client tenant at 10 req/s (burst 20), 200 managed clients, each declaring a new
 *      description: `up` creating them makes at most 210 API calls; a no-change preview makes 0;
 *      `refresh` reads at most 4 times per pass.
 *   B. a 5,000-client tenant at 2 req/s (burst 10), 1,000 managed clients declaring what they hold:
 *      `refresh` reads at most 101 times per pass.
 *   C. the same tenant, 5 managed clients: `refresh` reads at most 11 times per pass.
 * Every scenario: 0 failed operations. The floor is the fewest calls the work needs (the reads the
 * bound allows, plus one PATCH per changed client) divided by the rate.
 *
 * Prints a table and the targets; exits non-zero when a target is not met.
 */
import { pageCountOf } from "../../provider/api/client-read-policy.js";
import { type EngineCommand, runEngine } from "../engine/index.js";
import { startTenantApi, type TenantApi } from "../tenant-api/index.js";
import { type BenchProgram, installBenchProgram } from "./program.js";

const LIST = "GET /api/v2/clients";
const GET = "GET /api/v2/clients/:id";

interface Row {
  scenario: string;
  ok: boolean;
  wallSeconds: number;
  /** Management API calls (the token endpoint aside). */
  calls: number;
  /** Client reads (pages and single GETs) in each provider process. */
  readsPerPass: number[];
  /** Calls by `METHOD /route`. */
  byRoute: Record<string, number>;
  floorSeconds: number;
  failed: number;
  error?: string;
}

interface Target {
  target: string;
  met: boolean;
  detail: string;
}

interface Tenant {
  readonly api: TenantApi;
  /** The stack that manages it: a stack per tenant, so no state carries over between them. */
  readonly stack: string;
  readonly rate: number;
  /** The ids of the tenant's clients, in its order. */
  readonly ids: string[];
}

async function startTenant(
  stack: string,
  clients: number,
  rate: number,
  burst: number,
): Promise<Tenant> {
  const probe = await startTenantApi({});
  const seeded = probe.store.snapshot().clients.length;
  await probe.stop();
  const api = await startTenantApi({
    extraClients: clients - seeded,
    rateLimit: { rate, burst },
  });
  return { api, stack, rate, ids: api.store.snapshot().clients.map((c) => c.client_id) };
}

/** Runs one engine command against `tenant`, counting calls by route and reads per pass. */
async function measure(
  program: BenchProgram,
  tenant: Tenant,
  scenario: string,
  command: EngineCommand,
  floorCalls: number,
  options: { previewOnly?: boolean } = {},
): Promise<Row> {
  const { api } = tenant;
  api.resetStats();
  const reads = () => {
    const byRoute = api.stats().byRoute;
    return (byRoute[LIST] ?? 0) + (byRoute[GET] ?? 0);
  };
  const passStarts: number[] = [];
  const started = Date.now();
  const result = await runEngine({
    ...program.engineOptions(api, tenant.stack),
    command,
    ...(options.previewOnly ? { previewOnly: true } : {}),
    onEvent: (event) => {
      if (event.type === "provider-host") passStarts.push(reads());
    },
  });
  const wallSeconds = (Date.now() - started) / 1000;
  const stats = api.stats();
  const marks = [...passStarts, reads()];
  const readsPerPass = marks.slice(1).map((mark, i) => mark - (marks[i] ?? 0));
  return {
    scenario,
    ok: result.ok,
    wallSeconds,
    calls: stats.api,
    readsPerPass,
    byRoute: stats.byRoute,
    floorSeconds: floorCalls / tenant.rate,
    failed: result.steps.filter((step) => !step.ok).length,
    ...(result.error ? { error: result.error } : {}),
  };
}

/** The most reads one pass may make for `managed` clients of a `total`-client tenant. */
function readBound(managed: number, total: number): number {
  return 2 * Math.min(managed, pageCountOf(total)) + 1;
}

async function scenarioA(program: BenchProgram): Promise<{ rows: Row[]; targets: Target[] }> {
  const tenant = await startTenant("small", 210, 10, 20);
  try {
    const managed = tenant.ids.slice(0, 200);
    await program.declare(managed.map((id) => ({ clientId: id, description: `managed ${id}` })));
    const pages = pageCountOf(tenant.ids.length);
    const up = await measure(program, tenant, "A. up: create 200 of 210", "up", pages + 200);
    const preview = await measure(program, tenant, "A. preview: no change", "preview", 0);
    const refresh = await measure(program, tenant, "A. refresh 200 of 210", "refresh", 2 * pages);
    return {
      rows: [up, preview, refresh],
      targets: [
        target(`${up.scenario}: at most 210 API calls`, up, up.calls <= 210, `${up.calls}`),
        target(`${preview.scenario}: 0 API calls`, preview, preview.calls === 0, "0"),
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
  const pages = pageCountOf(tenant.ids.length);
  const minReads = Math.min(managedCount, pages);
  const name = `${managedCount} of ${tenant.ids.length}`;
  const up = await measure(program, tenant, `B. up: adopt ${name}`, "up", minReads);
  const refresh = await measure(program, tenant, `B. refresh ${name}`, "refresh", 2 * minReads);
  await measure(program, tenant, `B. destroy ${name}`, "destroy", 0);
  return {
    rows: [up, refresh],
    targets: [
      target(`${up.scenario}: 0 writes`, up, !hasWrites(up), JSON.stringify(up.byRoute)),
      perPassTarget(refresh, bound),
    ],
  };
}

function hasWrites(row: Row): boolean {
  return Object.keys(row.byRoute).some((route) => /^(PUT|PATCH|DELETE) /.test(route));
}

function target(name: string, row: Row, met: boolean, detail: string): Target {
  const failed = !row.ok || row.failed > 0;
  return {
    target: `${name}, 0 failed operations`,
    met: met && !failed,
    detail: failed ? `${detail}; failed: ${row.failed} ${row.error ?? ""}` : detail,
  };
}

function perPassTarget(row: Row, bound: number): Target {
  return target(
    `${row.scenario}: at most ${bound} client reads per pass`,
    row,
    row.readsPerPass.length > 0 && row.readsPerPass.every((reads) => reads <= bound),
    row.readsPerPass.join(" + "),
  );
}

function printTable(rows: Row[], targets: Target[]): void {
  const header = ["scenario", "result", "wall s", "calls", "reads/pass", "floor s", "wall/floor"];
  const cells = rows.map((row) => [
    row.scenario,
    row.ok && row.failed === 0 ? "ok" : "FAILED",
    row.wallSeconds.toFixed(1),
    String(row.calls),
    row.readsPerPass.join("+"),
    row.floorSeconds.toFixed(1),
    row.floorSeconds > 0 ? (row.wallSeconds / row.floorSeconds).toFixed(3) : "-",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i] ?? 0)).join("  ");
  process.stdout.write(
    `\nclient reads\n${line(header)}\n${line(widths.map((w) => "-".repeat(w)))}\n`,
  );
  for (const row of cells) process.stdout.write(`${line(row)}\n`);
  process.stdout.write("\ncalls by route:\n");
  for (const row of rows)
    process.stdout.write(`  ${row.scenario}: ${JSON.stringify(row.byRoute)}\n`);
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
    const a = await scenarioA(program);
    rows.push(...a.rows);
    targets.push(...a.targets);
    const large = await startTenant("large", 5000, 2, 10);
    try {
      for (const [managed, bound] of [
        [1000, 101],
        [5, 11],
      ] as const) {
        const b = await scenarioB(program, large, managed, bound);
        rows.push(...b.rows);
        targets.push(...b.targets);
        targets.push({
          target: `B. ${managed} of 5000: the issue's bound is 2 x min(N, ceil(T/100)) + 1`,
          met: readBound(managed, 5000) <= bound,
          detail: `${readBound(managed, 5000)}`,
        });
      }
    } finally {
      await large.api.stop();
    }
  } finally {
    await program.remove();
  }
  printTable(rows, targets);
  process.stdout.write(`\n(total ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  if (targets.some((t) => !t.met)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
