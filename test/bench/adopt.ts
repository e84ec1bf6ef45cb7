/**
 * `npm run bench -- adopt.ts`: adopting 1,000 clients of a 5,000-client tenant limited to 2
 * requests per second (bursts of 10) the way the adoption guide (docs/guides/adopting-a-tenant.md)
 * tells users to, through both faces, from
 * one run of the installed `pulumi-tenant generate --out DIR --import-file --clients ...` (read-only
 * credentials):
 *   P1. the plugin: in a YAML project that declares
 *       nothing, with the plugin installed from the packed package's tarball,
 *       `PULUMI_SKIP_CHECKPOINTS=true pulumi import --file DIR/import.json --yes --out FILE`;
 *   P2. the guide's command ("Import"): the same with `--skip-preview`
 *       (the import's preview pass reads every resource as the import does, for a run that `--yes`
 *       approves anyway) and `--parallel` with no limit ({@link ADOPTION_PARALLEL}: every read
 *       arrives at once, so the read pass sees that most of the tenant is wanted, lists its pages,
 *       and answers each read as its page comes in; docs/design/client-reads.md);
 *   D1. the dynamic resources: the TypeScript program generate wrote, installed in a user project,
 *       `PULUMI_SKIP_CHECKPOINTS=true pulumi up` (its preview pass first, as a user runs it);
 *   D2. the guide's command ("Adopt an existing tenant"): the same with `--skip-preview` (after
 *       the `pulumi preview` it asks for first, the up's own preview pass would run the program and
 *       check every resource again) and `--parallel` as P2. The program runs on Node.js's type
 *       stripping, so there is no type-check to skip.
 * `PULUMI_SKIP_CHECKPOINTS=true` makes Pulumi's file backend save the state once, at the end,
 * instead of its whole checkpoint twice per resource (1,001 resources: about 2,000 saves of a
 * growing file, which took 6 x the read floor); safe here because adoption writes nothing to the
 * tenant, so a run cut short leaves nothing a later run could not read again. BENCH_ADOPT_CHECKPOINTS=1
 * also runs both without it, for comparison.
 *
 * Targets: the guide's commands (P2 and D2, also what generate's closing line gives), CLI start
 * to exit, at most {@link TARGET} x the read floor, the floor being the fewest reads adoption
 * needs (the list pages that hold the clients, min(N, ceil(T/100)), and the push provider's one
 * read) divided by the rate; for every run, no write to the tenant, every resource adopted, and
 * 429s at most 5% of calls. The time is also shown against the reads a pass may make
 * (the read policy's bound, 2 x min(N, ceil(T/100)) + 1 client reads, and the push provider's,
 * docs/design/client-reads.md). Each command starts with the tenant's bucket full, as a user's adoption
 * would. generate's own time is shown, not held to a target here (generate.ts has its own).
 * BENCH_ONLY=P1,D1 (any of P1, P2, D1, D2) runs some of them.
 *
 * At a distance: P2 and D2, the guide's commands held to the target, run again against a tenant
 * a 100 ms round trip away (its network delay of 50 ms each way, docs/design/local-tenant.md, "A tenant a
 * network away"), beside loopback in a `round trip` column, with the same target against the same
 * floor: at a distance the floor is the reads over the rate or its {@link ROUND_TRIPS} round trips
 * that cannot overlap, whichever is longer (25.5 s against 0.3 s: the rate's). P1 and D1, shown
 * and not held, run on loopback only, to keep the run short; generate runs once, against the
 * first tenant (every tenant holds the same clients). BENCH_DISTANCES=0 (or 100) runs one
 * distance.
 *
 * Prints the tables, the timelines and the targets; exits non-zero when a target is not met.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { pageCountOf } from "../../provider/api/client-read-policy.js";
import { ADOPTION_PARALLEL } from "../../provider/generate/next-steps.js";
import { startTenantApi, type TenantApi } from "../../provider/local-tenant/index.js";
import { type InstalledProject, installPackedPackage } from "../support/installed-package.js";
import { type PluginTarball, pluginTarballOf } from "../support/plugin.js";
import { PulumiProject } from "../support/pulumi.js";
import { tenantConfig } from "../support/stack-config.js";
import {
  cell,
  DISTANCES,
  type Distance,
  floorAt,
  type Measured,
  measureCommand,
  measureRun,
  onLoopback,
  previewPassSeconds,
  programSeconds,
  providerStartSeconds,
  RequestLog,
  startupSeconds,
  table,
  tailSeconds,
  tenantPassSeconds,
  timeline,
} from "./measure.js";
import { pluginStack, yamlProgram } from "./plugin-stack.js";

const run = promisify(execFile);

const CLIENTS = 5000;
const MANAGED = 1000;
const RATE = 2;
const BURST = 10;
/** Each adoption, CLI start to exit, at most this many times the read floor. */
const TARGET = 1.5;
const WITH_CHECKPOINTS = process.env.BENCH_ADOPT_CHECKPOINTS === "1";
/**
 * Adoption's round trips that cannot overlap: the token, the first reads (which tell the read pass
 * how much of the tenant is wanted), then the pages at once.
 */
const ROUND_TRIPS = 3;
const ONLY = new Set((process.env.BENCH_ONLY ?? "P1,P2,D1,D2").split(",").map((s) => s.trim()));

interface Row {
  scenario: string;
  /** {@link Distance.label}. */
  roundTrip: string;
  ok: boolean;
  measured: Measured;
  calls: number;
  writes: number;
  rateLimited: number;
  byRoute: Record<string, number>;
  /** Resources adopted: imported into the state, or created by up. */
  adopted: number;
  floorSeconds: number;
  /** The read policy's bound per pass, over the rate: what one pass may take reading. */
  boundSeconds: number;
  /** Held to {@link TARGET}: the guide's commands ({@link isGuideCommand}). */
  held: boolean;
  loadAverage: number;
  error?: string;
}

interface Target {
  target: string;
  met: boolean;
  detail: string;
}

/** The generated project: its folder (index.ts, Pulumi.yaml, package.json, import.json). */
interface Generated {
  dir: string;
  seconds: number;
  calls: number;
  /** Resources in import.json: the push provider and the clients. */
  resources: number;
  hasPushProvider: boolean;
  /** The host of the tenant it was generated from: the push provider's import id. */
  host: string;
}

/**
 * A 5,000-client tenant `distance` away. Its clients are the same at every distance (the
 * generated clients are derived from their number), so one generated program adopts any of them.
 */
async function startTenant(
  distance: Distance,
): Promise<{ api: TenantApi; requests: RequestLog; ids: string[] }> {
  const probe = await startTenantApi({});
  const seeded = probe.store.snapshot().clients.length;
  await probe.stop();
  const requests = new RequestLog();
  const api = await startTenantApi({
    extraClients: CLIENTS - seeded,
    rateLimit: { rate: RATE, burst: BURST },
    networkDelay: distance.networkDelay,
    onRequest: requests.record,
    onAnswer: requests.answer,
  });
  return { api, requests, ids: api.store.snapshot().clients.map((c) => c.client_id) };
}

/** Runs the installed `pulumi-tenant generate` for `ids` with the read-only credentials. */
async function generate(
  installed: InstalledProject,
  api: TenantApi,
  ids: readonly string[],
): Promise<Generated> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-bench-adopt-"));
  const cli = join(installed.dir, "node_modules", "pulumi-tenant", "dist", "provider", "cli.js");
  api.resetStats();
  const started = performance.now();
  await run(
    process.execPath,
    [cli, "generate", "--out", dir, "--import-file", "--clients", ids.join(",")],
    {
      cwd: installed.dir,
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        TENANT_DOMAIN: api.domain,
        TENANT_CLIENT_ID: api.readOnly.clientId,
        TENANT_CLIENT_SECRET: api.readOnly.clientSecret,
      },
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const { resources } = JSON.parse(await readFile(join(dir, "import.json"), "utf8")) as {
    resources: { type: string }[];
  };
  return {
    dir,
    seconds,
    calls: api.stats().api,
    resources: resources.length,
    hasPushProvider: resources.some((r) => r.type.endsWith(":PushProviderSelection")),
    host: new URL(api.domain).host,
  };
}

/**
 * The generated import file for `api`, written into `dir`: the same clients (every tenant of the
 * benchmark holds the same), and the push provider's id, which is the tenant's host, made this
 * tenant's.
 */
async function importFileFor(generated: Generated, api: TenantApi, dir: string): Promise<string> {
  const text = await readFile(join(generated.dir, "import.json"), "utf8");
  const file = join(dir, "import.json");
  await writeFile(
    file,
    text.replaceAll(JSON.stringify(generated.host), JSON.stringify(new URL(api.domain).host)),
  );
  return file;
}

/**
 * Puts the generated TypeScript program into the installed project (a folder of its own, whose
 * `node_modules` is one level up), its package.json keeping the installed dependencies (the
 * generated ranges would ask a registry), as test/e2e-generate.test.ts does.
 */
async function installGenerated(installed: InstalledProject, generated: Generated) {
  const dir = join(installed.dir, "adopt");
  await mkdir(dir, { recursive: true });
  for (const file of ["index.ts", "Pulumi.yaml"]) {
    await writeFile(join(dir, file), await readFile(join(generated.dir, file)));
  }
  const manifest = JSON.parse(await readFile(join(generated.dir, "package.json"), "utf8"));
  const own = JSON.parse(await readFile(join(installed.dir, "package.json"), "utf8"));
  const { devDependencies: _dev, ...kept } = manifest;
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ ...kept, dependencies: own.dependencies }, null, 2),
  );
  return dir;
}

/** The tenant's bucket refills: each command starts as a user's would, with it full. */
const refill = () => sleep((BURST / RATE) * 1000 + 500);

/**
 * How a scenario runs: which face, with or without its preview pass and checkpoints, and where the
 * tenant is.
 */
interface Variant {
  readonly id: string;
  readonly distance: Distance;
  readonly skipPreview: boolean;
  readonly skipCheckpoints: boolean;
  /** `--parallel`, when not the CLI's default (4 per CPU). */
  readonly parallel?: number;
}

/** The floors of the adoption: the fewest reads, and the read policy's bound per pass. */
interface Floors {
  readonly floorSeconds: number;
  readonly boundSeconds: number;
}

function scenarioName(variant: Variant, what: string): string {
  return (
    `${variant.id}. ${what}${variant.skipPreview ? " --skip-preview" : ""}` +
    (variant.parallel === undefined ? "" : ` --parallel ${variant.parallel}`) +
    (variant.skipCheckpoints ? "" : ", every checkpoint")
  );
}

function rowOf(
  scenario: string,
  m: Measured,
  api: TenantApi,
  adopted: number,
  floors: Floors,
  variant: Variant,
): Row {
  const stats = api.stats();
  const writes = Object.entries(stats.byRoute)
    .filter(([route]) => /^(PUT|PATCH|POST|DELETE) \/api\//.test(route))
    .reduce((sum, [, n]) => sum + n, 0);
  const row: Row = {
    scenario,
    roundTrip: variant.distance.label,
    ok: m.result.ok,
    measured: m,
    calls: stats.api,
    writes,
    rateLimited: stats.byStatus["429"] ?? 0,
    byRoute: stats.byRoute,
    adopted,
    ...floors,
    held: isGuideCommand(variant),
    loadAverage: loadavg()[0] ?? 0,
    ...(m.result.error ? { error: m.result.error } : {}),
  };
  process.stdout.write(
    ` ${row.ok ? "ok" : "FAILED"}, ${m.wallSeconds.toFixed(1)} s, ${row.calls} calls, ${adopted} adopted\n`,
  );
  return row;
}

/** P: `pulumi import --file import.json --yes --out FILE` in a YAML project with the plugin. */
async function importThroughPlugin(
  api: TenantApi,
  requests: RequestLog,
  tarball: PluginTarball,
  generated: Generated,
  floors: Floors,
  variant: Variant,
): Promise<Row> {
  const scenario = scenarioName(variant, "pulumi import --file --yes (plugin)");
  const project = await pluginStack(
    api,
    `adopt-${variant.id}`,
    yamlProgram("tenant-adopt", []),
    tarball,
  );
  try {
    const out = join(project.dir, "imported.yaml");
    await refill();
    process.stdout.write(`  ${scenario} (${variant.distance.label})...`);
    api.resetStats();
    const m = await measureCommand(
      project,
      [
        "import",
        "--file",
        await importFileFor(generated, api, project.dir),
        "--yes",
        ...(variant.skipPreview ? ["--skip-preview"] : []),
        ...(variant.parallel === undefined ? [] : ["--parallel", String(variant.parallel)]),
        "--out",
        out,
      ],
      {
        requests,
        env: { PULUMI_SKIP_CHECKPOINTS: variant.skipCheckpoints ? "true" : undefined },
      },
    );
    const state = await project.exportState().catch(() => ({ deployment: { resources: [] } }));
    const adopted = (state.deployment.resources ?? []).filter((r) =>
      r.type.startsWith("tenant:index:"),
    ).length;
    return rowOf(scenario, m, api, adopted, floors, variant);
  } finally {
    await project.remove();
  }
}

/** D: `pulumi up` of the generated TypeScript program. */
async function upGeneratedProgram(
  api: TenantApi,
  requests: RequestLog,
  programDir: string,
  floors: Floors,
  variant: Variant,
): Promise<Row> {
  const scenario = scenarioName(variant, "pulumi up, generated program (dynamic)");
  const project = await PulumiProject.create({
    program: programDir,
    stack: `adopt-${variant.id}`,
    config: tenantConfig(api),
  });
  try {
    await refill();
    process.stdout.write(`  ${scenario} (${variant.distance.label})...`);
    api.resetStats();
    const m = await measureRun(project, "up", {
      requests,
      skipPreview: variant.skipPreview,
      ...(variant.parallel === undefined ? {} : { parallel: variant.parallel }),
      env: {
        PULUMI_SKIP_CHECKPOINTS: variant.skipCheckpoints ? "true" : undefined,
      },
    });
    const adopted = m.result.counts.create ?? 0;
    return rowOf(scenario, m, api, adopted, floors, variant);
  } finally {
    await project.remove();
  }
}

/**
 * Whether `variant` is the command the adoption guide and generate give (P2 and D2):
 * `PULUMI_SKIP_CHECKPOINTS=true` and `--skip-preview` (the dynamic path after its own
 * `pulumi preview`). P1 and D1 are shown beside them, not held.
 */
function isGuideCommand(variant: Variant): boolean {
  return variant.skipCheckpoints && variant.skipPreview && variant.parallel === ADOPTION_PARALLEL;
}

/** The clients a row read one by one (`GET /api/v2/clients/:id`), beside the pages. */
function singleReads(row: Row): number {
  return row.byRoute["GET /api/v2/clients/:id"] ?? 0;
}

function checkTargets(rows: Row[], resources: number): Target[] {
  const targets: Target[] = [];
  for (const row of rows) {
    const failed = row.ok ? "" : `; failed: ${row.error ?? "exit code"}`;
    const name = `${row.scenario} (${row.roundTrip})`;
    if (row.held) {
      const ratio = row.measured.wallSeconds / row.floorSeconds;
      targets.push({
        target: `${name}: within ${TARGET} x the read floor`,
        met: row.ok && ratio <= TARGET,
        detail: `${row.measured.wallSeconds.toFixed(1)} s / ${row.floorSeconds.toFixed(1)} s = ${ratio.toFixed(3)}${failed}`,
      });
    }
    targets.push({
      target: `${name}: adopts all ${resources} resources with no write`,
      met: row.ok && row.adopted === resources && row.writes === 0,
      detail: `${row.adopted} adopted, ${row.writes} writes${failed}`,
    });
    targets.push({
      target: `${name}: 429s <= 5% of calls`,
      met: row.rateLimited <= 0.05 * row.calls,
      detail: `${row.rateLimited} of ${row.calls}`,
    });
  }
  return targets;
}

function printReport(rows: Row[], generated: Generated, targets: Target[]): void {
  process.stdout.write(
    `\nadoption of ${MANAGED} of ${CLIENTS} clients, tenant at ${RATE} req/s (burst ${BURST}); ` +
      `pulumi CLI, file backend\n` +
      `generate --import-file: ${generated.seconds.toFixed(1)} s, ${generated.calls} calls, ` +
      `${generated.resources} resources in import.json\n\n`,
  );
  process.stdout.write(
    `${table(
      [
        "scenario",
        "round trip",
        "result",
        "wall s",
        "calls",
        "writes",
        "429s",
        "adopted",
        "floor s",
        "wall/floor",
        "bound s",
        "wall/bound",
        "single GETs",
        "their s",
        "state saves",
        "load",
      ],
      rows.map((row) => [
        row.scenario,
        row.roundTrip,
        row.ok ? "ok" : "FAILED",
        row.measured.wallSeconds.toFixed(1),
        String(row.calls),
        String(row.writes),
        String(row.rateLimited),
        String(row.adopted),
        row.floorSeconds.toFixed(1),
        (row.measured.wallSeconds / row.floorSeconds).toFixed(3),
        row.boundSeconds.toFixed(1),
        (row.measured.wallSeconds / row.boundSeconds).toFixed(3),
        String(singleReads(row)),
        (singleReads(row) / RATE).toFixed(1),
        String(row.measured.saves),
        row.loadAverage.toFixed(1),
      ]),
    )}\n` +
      "  floor: the fewest reads (list pages holding the clients, the push provider) over the rate, or at a\n" +
      `  distance ${ROUND_TRIPS} round trips that cannot overlap (the token, the first reads, the pages at once) if longer;\n` +
      "  bound: the reads one pass may make (2 x min(N, ceil(T/100)) + 1, the push provider) over the rate;\n" +
      "  single GETs: clients read one by one before the read pass turned to the pages, each a call of the\n" +
      "  rate over the floor (their s); at a distance the pass turns later: what the floor does not hold\n",
  );
  process.stdout.write("\nwhere the wall time goes (seconds):\n");
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
        "tenant pass",
        "save CPU s",
        "CLI CPU s",
        "shutdown",
      ],
      rows.map(({ scenario, roundTrip, measured: m }) => [
        scenario,
        roundTrip,
        m.wallSeconds.toFixed(1),
        cell(startupSeconds(m)),
        cell(previewPassSeconds(m)),
        cell(programSeconds(m)),
        cell(providerStartSeconds(m)),
        cell(tenantPassSeconds(m)),
        cell(m.cliCpu?.stateSaveSeconds, 2),
        cell(m.cliCpu?.totalSeconds, 2),
        cell(tailSeconds(m)),
      ]),
    )}\n`,
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
    if (!row.ok) process.stdout.write(`${row.measured.result.output.slice(-3000)}\n`);
  }
  process.stdout.write("\ntargets:\n");
  for (const t of targets) {
    process.stdout.write(`  ${t.met ? "met    " : "NOT MET"}  ${t.target}: ${t.detail}\n`);
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  process.stdout.write("Adoption: packing and installing the package into a fresh project...\n");
  const installed = await installPackedPackage(["typescript", "ts-node"]);
  let tarball: PluginTarball | undefined;
  let generated: Generated | undefined;
  const rows: Row[] = [];
  try {
    tarball = await pluginTarballOf(installed.dir);
    let programDir: string | undefined;
    for (const distance of DISTANCES) {
      const tenant = await startTenant(distance);
      try {
        if (generated === undefined) {
          const managed = tenant.ids.slice(tenant.ids.length - MANAGED);
          process.stdout.write(
            `  generate --import-file --clients (${MANAGED} ids, ${distance.label})...`,
          );
          generated = await generate(installed, tenant.api, managed);
          process.stdout.write(` ${generated.seconds.toFixed(1)} s\n`);
          programDir = await installGenerated(installed, generated);
        }
        const pages = Math.min(MANAGED, pageCountOf(tenant.ids.length));
        const push = generated.hasPushProvider ? 1 : 0;
        const floors: Floors = {
          floorSeconds: floorAt((pages + push) / RATE, ROUND_TRIPS, distance),
          boundSeconds: floorAt((2 * pages + 1 + push) / RATE, ROUND_TRIPS, distance),
        };
        for (const skipCheckpoints of WITH_CHECKPOINTS ? [true, false] : [true]) {
          for (const [id, readme] of [
            ["P1", false],
            ["P2", true],
            ["D1", false],
            ["D2", true],
          ] as const) {
            // At a distance, the guide's commands only: they are the ones held to the target.
            if (!ONLY.has(id) || (!readme && !onLoopback(distance))) continue;
            const variant: Variant = readme
              ? { id, distance, skipPreview: true, skipCheckpoints, parallel: ADOPTION_PARALLEL }
              : { id, distance, skipPreview: false, skipCheckpoints };
            rows.push(
              id.startsWith("P")
                ? await importThroughPlugin(
                    tenant.api,
                    tenant.requests,
                    tarball,
                    generated,
                    floors,
                    variant,
                  )
                : await upGeneratedProgram(
                    tenant.api,
                    tenant.requests,
                    programDir as string,
                    floors,
                    variant,
                  ),
            );
          }
        }
      } finally {
        await tenant.api.stop();
      }
    }
    if (generated === undefined) return;
    const targets = checkTargets(rows, generated.resources);
    printReport(rows, generated, targets);
    process.stdout.write(`\n(total ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    if (targets.some((t) => !t.met)) process.exitCode = 1;
  } finally {
    await tarball?.remove();
    if (generated) await rm(generated.dir, { recursive: true, force: true });
    await installed.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
