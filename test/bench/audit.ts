/**
 * `npm run bench`: `pulumi-tenant audit` on a 5,000-client tenant limited to 2 requests per
 * second, run as a user runs it (the built command, as a child process, with read-only
 * credentials from the environment); then the same tenant's snapshot judged offline with
 * `--seed`.
 *
 * Targets (issue #33): the live audit's wall time at most 1.05 x the read floor, the floor being
 * the list pages plus the push provider divided by the rate ((ceil(clients / 100) + 1) / 2 s; the
 * audit reads no push provider, so it is also shown against its own pages alone); the audit of
 * the 5,000-client seed under 2 s. Prints one table line each and exits 1 when a target is missed
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

const run = promisify(execFile);

const CLIENTS = 5000;
const RATE = 2;
const BURST = 2;
const LIVE_TARGET = 1.05;
const SEED_TARGET_SECONDS = 2;
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

async function main(): Promise<number> {
  const api = await startTenantApi({
    // The default tenant's five clients and the generated ones: 5,000 in all.
    extraClients: CLIENTS - 5,
    rateLimit: { rate: RATE, burst: BURST },
  });
  const dir = await mkdtemp(join(tmpdir(), "tenant-bench-audit-"));
  try {
    const clients = api.store.snapshot().clients.length;
    const pages = Math.ceil(clients / 100);
    const floorSeconds = (pages + 1) / RATE;
    const env = {
      TENANT_DOMAIN: api.domain,
      TENANT_CLIENT_ID: api.readOnly.clientId,
      TENANT_CLIENT_SECRET: api.readOnly.clientSecret,
    };

    api.resetStats();
    const liveReport = join(dir, "live.json");
    const live = await timed(["audit", "--format", "json", "--out", liveReport], env);
    const { byRoute, byStatus } = api.stats();
    const calls = Object.entries(byRoute)
      .filter(([route]) => route.includes("/api/v2/"))
      .reduce((sum, [, n]) => sum + n, 0);
    const writes = Object.entries(byRoute)
      .filter(([route]) => route.includes("/api/v2/") && !route.startsWith("GET "))
      .reduce((sum, [, n]) => sum + n, 0);
    const liveFound = live.error ? { clients: 0, findings: 0 } : await findingsIn(liveReport);

    // The snapshot is taken unpaced: only the audit of it is measured.
    api.setRateLimit(null);
    const seedFile = join(dir, "seed.json");
    const snapshot = await timed(["snapshot", "--out", seedFile], env);
    const seedReport = join(dir, "seed-report.json");
    const offline = snapshot.error
      ? snapshot
      : await timed(["audit", "--seed", seedFile, "--format", "json", "--out", seedReport], {
          TENANT_DOMAIN: "",
          TENANT_CLIENT_ID: "",
          TENANT_CLIENT_SECRET: "",
        });
    const seedFound = offline.error ? { clients: 0, findings: 0 } : await findingsIn(seedReport);

    const ratio = live.seconds / floorSeconds;
    const ownRatio = live.seconds / (pages / RATE);
    console.log(
      "| scenario | clients | findings | wall s | API calls | writes | 429s | floor s | wall/floor | wall/pages floor |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|");
    console.log(
      `| audit, live, ${RATE} req/s burst ${BURST} | ${liveFound.clients} | ${liveFound.findings} | ` +
        `${live.seconds.toFixed(2)} | ${calls} | ${writes} | ${byStatus["429"] ?? 0} | ` +
        `${floorSeconds.toFixed(2)} | ${ratio.toFixed(3)} | ${ownRatio.toFixed(3)} |`,
    );
    console.log(
      `| audit --seed, offline | ${seedFound.clients} | ${seedFound.findings} | ` +
        `${offline.seconds.toFixed(2)} | 0 | 0 | 0 | - | - | - |`,
    );
    for (const failed of [live, snapshot, offline]) {
      if (failed.error !== undefined) {
        console.log(`FAILED: ${failed.error}`);
        return 1;
      }
    }
    const liveOk = ratio <= LIVE_TARGET && writes === 0 && liveFound.clients === clients;
    const seedOk =
      offline.seconds < SEED_TARGET_SECONDS && seedFound.findings === liveFound.findings;
    console.log(
      `${liveOk ? "ok" : "MISSED"}: the live audit took ${ratio.toFixed(3)} x the floor ` +
        `(target <= ${LIVE_TARGET}), ${writes} writes`,
    );
    console.log(
      `${seedOk ? "ok" : "MISSED"}: the seed audit took ${offline.seconds.toFixed(2)} s ` +
        `(target < ${SEED_TARGET_SECONDS} s), the same ${seedFound.findings} findings as live`,
    );
    return liveOk && seedOk ? 0 : 1;
  } finally {
    await api.stop();
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
