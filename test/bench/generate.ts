/**
 * `npm run bench` (after the stack benchmark): `pulumi-tenant generate` on a 1,000-client tenant
 * limited to 2 requests per second, run as a user runs it (the built command in dist, as a child
 * process, with read-only credentials from the environment).
 *
 * It runs on loopback and with the tenant a 100 ms round trip away (its network delay of 50 ms each
 * way, docs/design/local-tenant.md, "A tenant a network away"), a row each, against the same target;
 * BENCH_DISTANCES=0 (or 100) runs one.
 *
 * Target: wall time at most 1.15 x the floor, the floor being the list pages needed divided by
 * the rate (ceil(clients / 100) / 2 s); at a distance, that or its {@link SEQUENTIAL_ROUND_TRIPS}
 * round trips that cannot overlap, whichever is longer (5.5 s against 0.3 s: the rate's). Prints
 * one table line per distance and exits 1 when a target is missed or a run fails. Not part of
 * `npm test`: speed is measured here only.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startTenantApi } from "../../provider/local-tenant/index.js";
import { DISTANCES, type Distance, floorAt } from "./measure.js";

const run = promisify(execFile);

const EXTRA_CLIENTS = 1000;
const RATE = 2;
const BURST = 2;
const TARGET = 1.15;
const CLI = resolve(__dirname, "..", "..", "dist", "provider", "cli.js");
const LIST_ROUTE = "GET /api/v2/clients";
/**
 * generate's round trips that cannot overlap: the token, page 0 (which tells the total), then the
 * other pages and the push provider, in flight together as the rate lets them go.
 */
const SEQUENTIAL_ROUND_TRIPS = 3;

/** One run of generate at one distance. */
interface Row {
  readonly distance: Distance;
  readonly clients: number;
  readonly declared: number;
  readonly wallSeconds: number;
  readonly calls: number;
  readonly listPages: number;
  readonly rateLimited: number;
  readonly floorSeconds: number;
  readonly routes: string;
  readonly error: string | undefined;
}

/** generate on a fresh 1,000-client tenant `distance` away. */
async function generateAt(distance: Distance): Promise<Row> {
  const api = await startTenantApi({
    extraClients: EXTRA_CLIENTS,
    rateLimit: { rate: RATE, burst: BURST },
    networkDelay: distance.networkDelay,
  });
  const out = await mkdtemp(join(tmpdir(), "tenant-bench-generate-"));
  try {
    const clients = api.store.snapshot().clients.length;
    const pages = Math.ceil(clients / 100);
    api.resetStats();
    const started = performance.now();
    let error: string | undefined;
    try {
      await run(process.execPath, [CLI, "generate", "--out", out], {
        timeout: 600_000,
        env: {
          ...process.env,
          TENANT_DOMAIN: api.domain,
          TENANT_CLIENT_ID: api.readOnly.clientId,
          TENANT_CLIENT_SECRET: api.readOnly.clientSecret,
        },
      });
    } catch (failure) {
      error = String((failure as { stderr?: unknown }).stderr ?? failure).trim();
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const { byRoute, byStatus } = api.stats();
    const declared = error
      ? 0
      : ((await readFile(join(out, "index.ts"), "utf8")).match(/new ClientSettings\(/g) ?? [])
          .length;
    return {
      distance,
      clients,
      declared,
      wallSeconds,
      calls: Object.entries(byRoute)
        .filter(([route]) => route.includes("/api/v2/"))
        .reduce((sum, [, n]) => sum + n, 0),
      listPages: byRoute[LIST_ROUTE] ?? 0,
      rateLimited: byStatus["429"] ?? 0,
      floorSeconds: floorAt(pages / RATE, SEQUENTIAL_ROUND_TRIPS, distance),
      routes: Object.entries(byRoute)
        .map(([route, n]) => `${route} ${n}`)
        .join(", "),
      error,
    };
  } finally {
    await api.stop();
    await rm(out, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const rows: Row[] = [];
  for (const distance of DISTANCES) rows.push(await generateAt(distance));
  console.log(
    "| scenario | round trip | clients | declared | wall s | API calls | list pages | 429s | floor s | wall/floor |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) {
    console.log(
      `| generate, ${RATE} req/s burst ${BURST} | ${row.distance.label} | ${row.clients} | ${row.declared} | ` +
        `${row.wallSeconds.toFixed(2)} | ${row.calls} | ${row.listPages} | ${row.rateLimited} | ` +
        `${row.floorSeconds.toFixed(2)} | ${(row.wallSeconds / row.floorSeconds).toFixed(3)} |`,
    );
  }
  console.log(
    `  floor: max(list pages / rate, ${SEQUENTIAL_ROUND_TRIPS} round trips that cannot overlap:` +
      " the token, page 0, the other pages at once)",
  );
  let ok = true;
  for (const row of rows) {
    console.log(`calls by route (${row.distance.label}): ${row.routes}`);
    if (row.error !== undefined) {
      console.log(`FAILED (${row.distance.label}): ${row.error}`);
      ok = false;
      continue;
    }
    const ratio = row.wallSeconds / row.floorSeconds;
    ok &&= ratio <= TARGET;
    console.log(
      `${ratio <= TARGET ? "ok" : "MISSED"}: generate (${row.distance.label}) took ${ratio.toFixed(3)} x ` +
        `the floor (target <= ${TARGET})`,
    );
  }
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
