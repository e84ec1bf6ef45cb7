/**
 * `npm run bench`: every benchmark, one after the other (they share the machine's two cores, so
 * never at once), each in its own process; exits non-zero when any of them missed a target or
 * failed, after all have run.
 *   run.ts       200 ClientSettings paced at a 10 req/s tenant (up, preview, refresh, destroy)
 *   reads.ts     client reads through the client directory (list pages or single GETs)
 *   generate.ts  `pulumi-tenant generate` on a 1,000-client tenant at 2 req/s
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const BENCHMARKS = ["run.ts", "reads.ts", "generate.ts"] as const;

const failed = BENCHMARKS.filter((file) => {
  process.stdout.write(`\n=== ${file}\n`);
  const result = spawnSync(process.execPath, ["--import", "tsx", join(__dirname, file)], {
    stdio: "inherit",
  });
  return result.status !== 0;
});
process.stdout.write(
  failed.length === 0 ? "\nall benchmarks met their targets\n" : `\nmissed: ${failed.join(", ")}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
