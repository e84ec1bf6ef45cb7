/**
 * `npm run bench` (after the stack benchmark): `pulumi-tenant generate` on a 1,000-client tenant
 * limited to 2 requests per second, run as a user runs it (the built command in dist, as a child
 * process, with read-only credentials from the environment).
 *
 * Target: wall time at most 1.15 x the floor, the floor being the list pages needed
 * divided by the rate (ceil(clients / 100) / 2 s). Prints one table line and exits 1 when the
 * target is missed or the run fails. Not part of `npm test`: speed is measured here only.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startTenantApi } from "../../provider/local-tenant/index.js";

const run = promisify(execFile);

const EXTRA_CLIENTS = 1000;
const RATE = 2;
const BURST = 2;
const TARGET = 1.15;
const CLI = resolve(__dirname, "..", "..", "dist", "provider", "cli.js");
const LIST_ROUTE = "GET /api/v2/clients";

async function main(): Promise<number> {
  const api = await startTenantApi({
    extraClients: EXTRA_CLIENTS,
    rateLimit: { rate: RATE, burst: BURST },
  });
  const out = await mkdtemp(join(tmpdir(), "tenant-bench-generate-"));
  try {
    const clients = api.store.snapshot().clients.length;
    const pages = Math.ceil(clients / 100);
    const floorSeconds = pages / RATE;
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
    const calls = Object.entries(byRoute)
      .filter(([route]) => route.includes("/api/v2/"))
      .reduce((sum, [, n]) => sum + n, 0);
    const ratio = wallSeconds / floorSeconds;
    const routes = Object.entries(byRoute)
      .map(([route, n]) => `${route} ${n}`)
      .join(", ");
    console.log(
      "| scenario | clients | declared | wall s | API calls | list pages | 429s | floor s | wall/floor |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|");
    console.log(
      `| generate, ${RATE} req/s burst ${BURST} | ${clients} | ${declared} | ${wallSeconds.toFixed(2)} | ` +
        `${calls} | ${byRoute[LIST_ROUTE] ?? 0} | ${byStatus["429"] ?? 0} | ${floorSeconds.toFixed(2)} | ` +
        `${ratio.toFixed(3)} |`,
    );
    console.log(`calls by route: ${routes}`);
    if (error !== undefined) {
      console.log(`FAILED: ${error}`);
      return 1;
    }
    const ok = ratio <= TARGET;
    console.log(
      `${ok ? "ok" : "MISSED"}: generate took ${ratio.toFixed(3)} x the floor (target <= ${TARGET})`,
    );
    return ok ? 0 : 1;
  } finally {
    await api.stop();
    await rm(out, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
