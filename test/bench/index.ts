/**
 * `npm run bench`: every benchmark, one after the other (they share the machine's cores, so never
 * at once), each in its own process; exits non-zero when any of them missed a target or failed,
 * after all have run. The stack benchmarks run the real `pulumi` CLI (docs/design/pulumi-cli.md).
 * The rate-limit scenarios run twice, on loopback and with the tenant a 100 ms round trip away
 * (the local tenant's network delay, 50 ms each way: docs/design/local-tenant.md, "A tenant a network
 * away"), side by side, with the same targets against the same floors (marked "both" below);
 * BENCH_DISTANCES=0 (or 100) runs one distance.
 *   run.ts       200 ClientSettings paced at a 10 req/s tenant (up, preview, refresh, destroy),
 *                with where each command's wall time goes; the up and a preview also through the
 *                provider plugin from a YAML program. Both: the whole up of 200 through both faces
 *                (the rest on loopback only). Pulumi's Node.js start-ups measured apart (the whole
 *                up as is and less them), and the whole up with NODE_COMPILE_CACHE warm and with
 *                --skip-preview
 *   reads.ts     client reads through the read pass (list pages or single GETs), per pass; both
 *   generate.ts  `pulumi-tenant generate` on a 1,000-client tenant at 2 req/s; both
 *   program-start.ts  a TypeScript program's start through Node.js's type stripping and ts-node
 *   audit.ts     `pulumi-tenant audit` of a 5,000-client tenant at 2 req/s (both), and of its seed
 *                offline
 *   adopt.ts     adopting 1,000 of a 5,000-client tenant at 2 req/s as the adoption guide says:
 *                `pulumi import --file` through the plugin, `pulumi up` of the generated program;
 *                both for the guide's commands (the others on loopback only)
 *   sharing.ts   200 updates beside a production back end reading at 3 req/s on the tenant's
 *                bucket, side by side with the platform's Node.js SDK, and three `pulumi up`s at
 *                once: production's 429s and the floor it leaves; both
 *   python.ts    the whole up of 200 ClientSettings from a Python program on the release's wheel,
 *                beside the same up from the YAML program
 * `npm run bench -- audit.ts` runs only the benchmarks named.
 * Timing is sensitive to whatever else runs on the machine: the load average is printed before
 * and after each benchmark.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";

const BENCHMARKS = [
  "run.ts",
  "reads.ts",
  "generate.ts",
  "program-start.ts",
  "audit.ts",
  "adopt.ts",
  "plugin-executable.ts",
  "sharing.ts",
  "python.ts",
] as const;

const named = process.argv.slice(2);
const unknown = named.filter((file) => !(BENCHMARKS as readonly string[]).includes(file));
if (unknown.length > 0) {
  process.stderr.write(`no benchmark ${unknown.join(", ")}; there are ${BENCHMARKS.join(", ")}\n`);
  process.exit(2);
}
const chosen = named.length === 0 ? BENCHMARKS : BENCHMARKS.filter((file) => named.includes(file));

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
const started = Date.now();
const failed = chosen.filter((file) => {
  const begun = Date.now();
  process.stdout.write(`\n=== ${file} (load average ${load()})\n`);
  const result = spawnSync(process.execPath, ["--import", "tsx", join(__dirname, file)], {
    stdio: "inherit",
  });
  process.stdout.write(
    `=== ${file}: ${((Date.now() - begun) / 1000).toFixed(0)} s (load average ${load()})\n`,
  );
  return result.status !== 0;
});
process.stdout.write(
  failed.length === 0 ? "\nall benchmarks met their targets\n" : `\nmissed: ${failed.join(", ")}\n`,
);
process.stdout.write(`total ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exitCode = failed.length === 0 ? 0 : 1;
