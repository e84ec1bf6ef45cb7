/**
 * `npm run bench`: `pulumi-tenant audit` on a 5,000-client tenant limited to 2 requests per
 * second, run as a user runs it (the built command, as a child process, with read-only
 * credentials from the environment); then the same tenant's snapshot judged offline with
 * `--seed`.
 *
 * The live audit runs on loopback and with the tenant a 100 ms round trip away (its network delay
 * of 50 ms each way, docs/design/local-tenant.md, "A tenant a network away"), a row each, against the same
 * target; the offline audit of the seed once (it never reaches the tenant). BENCH_DISTANCES=0 (or
 * 100) runs one distance.
 *
 * Targets (issue #33): the live audit's wall time at most 1.05 x the read floor, the floor being
 * the list pages plus the push provider divided by the rate ((ceil(clients / 100) + 1) / 2 s; the
 * audit reads no push provider, so it is also shown against its own pages alone); at a distance,
 * that or its {@link SEQUENTIAL_ROUND_TRIPS} round trips that cannot overlap, whichever is longer
 * (26 s against 0.3 s: the rate's); the audit of the 5,000-client seed under 2 s, with the
 * findings of every live audit. Prints one table line each and exits 1 when a target is missed
 * or a run fails. Not part of `npm test`: speed is measured here only.
 *
 * `PULUMI_TENANT_CLI` runs another build of the command than `dist/provider/cli.js`.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startTenantApi } from "../../provider/local-tenant/index.js";
import { DISTANCES, type Distance, floorAt } from "./measure.js";

const run = promisify(execFile);

const CLIENTS = 5000;
const RATE = 2;
const BURST = 2;
const LIVE_TARGET = 1.05;
const SEED_TARGET_SECONDS = 2;
/**
 * The live audit's round trips that cannot overlap: the token, page 0 (which tells the total),
 * then the other pages, in flight together as the rate lets them go.
 */
const SEQUENTIAL_ROUND_TRIPS = 3;
const CLI =
  process.env.PULUMI_TENANT_CLI ?? resolve(__dirname, "..", "..", "dist", "provider", "cli.js");

/** Runs the command; its wall seconds, and its failure (stderr) when it exited with 2 or more. */
async function timed(args: string[], env: NodeJS.ProcessEnv) {
  const started = performance.now();
  let error: string | undefined;
  try {
    await run(process.execPath, [CLI, ...args], {
      timeout: 600_000,
      env: { ...process.env, ...env },
    });
  } catch (failure) {
    // Exit status 1 is an audit that found a mandatory finding: the run itself went well.
    const { code, stderr } = failure as { code?: unknown; stderr?: unknown };
    if (code !== 1) error = String(stderr ?? failure).trim();
  }
  return { seconds: (performance.now() - started) / 1000, error };
}

/** The findings counted in a JSON report. */
async function findingsIn(path: string): Promise<{ clients: number; findings: number }> {
  const report = JSON.parse(await readFile(path, "utf8"));
  return { clients: report.clients, findings: report.counts.findings };
}

/** The live audit at one distance. */
interface Live {
  readonly distance: Distance;
  readonly seconds: number;
  readonly error: string | undefined;
  readonly clients: number;
  readonly findings: number;
  readonly pages: number;
  readonly calls: number;
  readonly writes: number;
  readonly rateLimited: number;
  /** The rate's floor: the list pages and the push provider over the rate. */
  readonly rateFloor: number;
  /** The floor at this distance ({@link floorAt}): here the rate's, by far. */
  readonly floor: number;
}

/** The seed's offline audit: the snapshot taken unpaced, then judged without the tenant. */
interface Offline {
  readonly seconds: number;
  readonly error: string | undefined;
  readonly findings: number;
  readonly clients: number;
}

/**
 * The live audit of a fresh tenant `distance` away, and, when `offline` is asked, its snapshot
 * judged offline.
 */
async function auditAt(
  distance: Distance,
  dir: string,
  offline: boolean,
): Promise<{ live: Live; seed?: Offline }> {
  const api = await startTenantApi({
    // The default tenant's five clients and the generated ones: 5,000 in all.
    extraClients: CLIENTS - 5,
    rateLimit: { rate: RATE, burst: BURST },
    networkDelay: distance.networkDelay,
  });
  try {
    const clients = api.store.snapshot().clients.length;
    const pages = Math.ceil(clients / 100);
    const rateFloor = (pages + 1) / RATE;
    const env = {
      TENANT_DOMAIN: api.domain,
      TENANT_CLIENT_ID: api.readOnly.clientId,
      TENANT_CLIENT_SECRET: api.readOnly.clientSecret,
    };

    api.resetStats();
    const liveReport = join(dir, `live-${distance.roundTripSeconds}.json`);
    const run = await timed(["audit", "--format", "json", "--out", liveReport], env);
    const { byRoute, byStatus } = api.stats();
    const calls = Object.entries(byRoute)
      .filter(([route]) => route.includes("/api/v2/"))
      .reduce((sum, [, n]) => sum + n, 0);
    const writes = Object.entries(byRoute)
      .filter(([route]) => route.includes("/api/v2/") && !route.startsWith("GET "))
      .reduce((sum, [, n]) => sum + n, 0);
    const found = run.error ? { clients: 0, findings: 0 } : await findingsIn(liveReport);
    const live: Live = {
      distance,
      seconds: run.seconds,
      error: run.error,
      ...found,
      pages,
      calls,
      writes,
      rateLimited: byStatus["429"] ?? 0,
      rateFloor,
      floor: floorAt(rateFloor, SEQUENTIAL_ROUND_TRIPS, distance),
    };
    if (!offline) return { live };

    // The snapshot is taken unpaced: only the audit of it is measured.
    api.setRateLimit(null);
    const seedFile = join(dir, "seed.json");
    const snapshot = await timed(["snapshot", "--out", seedFile], env);
    const seedReport = join(dir, "seed-report.json");
    const judged = snapshot.error
      ? snapshot
      : await timed(["audit", "--seed", seedFile, "--format", "json", "--out", seedReport], {
          TENANT_DOMAIN: "",
          TENANT_CLIENT_ID: "",
          TENANT_CLIENT_SECRET: "",
        });
    const seedFound = judged.error ? { clients: 0, findings: 0 } : await findingsIn(seedReport);
    return { live, seed: { seconds: judged.seconds, error: judged.error, ...seedFound } };
  } finally {
    await api.stop();
  }
}

async function main(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-bench-audit-"));
  try {
    const lives: Live[] = [];
    let seed: Offline | undefined;
    for (const distance of DISTANCES) {
      // The offline audit does not depend on the distance: it runs once, with the first.
      const result = await auditAt(distance, dir, seed === undefined);
      lives.push(result.live);
      seed ??= result.seed;
    }
    console.log(
      "| scenario | round trip | clients | findings | wall s | API calls | writes | 429s | floor s | wall/floor | wall/pages floor |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|");
    for (const live of lives) {
      console.log(
        `| audit, live, ${RATE} req/s burst ${BURST} | ${live.distance.label} | ${live.clients} | ` +
          `${live.findings} | ${live.seconds.toFixed(2)} | ${live.calls} | ${live.writes} | ` +
          `${live.rateLimited} | ${live.floor.toFixed(2)} | ${(live.seconds / live.floor).toFixed(3)} | ` +
          `${(live.seconds / (live.pages / RATE)).toFixed(3)} |`,
      );
    }
    if (seed !== undefined) {
      console.log(
        `| audit --seed, offline | - | ${seed.clients} | ${seed.findings} | ` +
          `${seed.seconds.toFixed(2)} | 0 | 0 | 0 | - | - | - |`,
      );
    }
    console.log(
      `  floor: max((pages + push provider) / rate, ${SEQUENTIAL_ROUND_TRIPS} round trips that cannot overlap:` +
        " the token, page 0, the other pages at once)",
    );
    let failed = false;
    for (const run of [...lives, ...(seed ? [seed] : [])]) {
      if (run.error !== undefined) {
        console.log(`FAILED: ${run.error}`);
        failed = true;
      }
    }
    if (failed) return 1;
    let ok = true;
    for (const live of lives) {
      const ratio = live.seconds / live.floor;
      const liveOk = ratio <= LIVE_TARGET && live.writes === 0 && live.clients === CLIENTS;
      ok &&= liveOk;
      console.log(
        `${liveOk ? "ok" : "MISSED"}: the live audit (${live.distance.label}) took ${ratio.toFixed(3)} x ` +
          `the floor (target <= ${LIVE_TARGET}), ${live.writes} writes`,
      );
    }
    if (seed !== undefined) {
      const found = lives.map((live) => live.findings);
      const seedOk =
        seed.seconds < SEED_TARGET_SECONDS && found.every((findings) => findings === seed.findings);
      ok &&= seedOk;
      console.log(
        `${seedOk ? "ok" : "MISSED"}: the seed audit took ${seed.seconds.toFixed(2)} s ` +
          `(target < ${SEED_TARGET_SECONDS} s), ${seed.findings} findings, live ${found.join(" and ")}`,
      );
    }
    return ok ? 0 : 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
