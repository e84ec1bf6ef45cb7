/**
 * The plugin's self-contained executables (docs/plugin.md, "The self-contained executables"):
 * each platform's release tarball and executable size, and the plugin's start-up, the time from
 * its start until it prints its port (what the engine waits for before its first call), as the
 * linux-amd64 executable against `node main.js` (the same bundle the launcher script runs) under
 * the same Node.js 26.10.0 and under Node.js 22, the tests' line. Each is started
 * {@link ROUNDS} times, one after the other; the medians are reported.
 *
 * Target: the executable starts in at most {@link TARGET_SHARE} times `node main.js`'s time
 * under the same Node.js (the blob is read from the executable, not parsed from a file).
 */
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { PLUGIN_TARGETS } from "../../provider/plugin/release/targets.js";
import { REPO_ROOT } from "../support/installed-package.js";
import { findNodeRuntime } from "../support/node-runtimes.js";
import { selfContainedPlugin } from "../support/plugin-executable.js";
import { median } from "./measure.js";

const ROUNDS = 15;
const TARGET_SHARE = 1.2;
/** A start that has printed no port by then failed. */
const START_BOUND_MS = 30_000;

/** Starts `command`, resolves with the ms until its first line on stdout, then stops it. */
function timeToPort(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "ignore"],
      timeout: START_BOUND_MS,
      env: { PATH: process.env.PATH ?? "" },
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes("\n")) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      child.once("exit", () => resolve(ms));
      child.kill("SIGTERM");
    });
    child.once("exit", (code) => {
      if (!out.includes("\n")) reject(new Error(`${command} exited with ${code} before its port`));
    });
  });
}

async function startups(command: string, args: string[]): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) times.push(await timeToPort(command, args));
  return median(times);
}

async function main(): Promise<void> {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  process.stdout.write("| platform | tarball MB | executable MB | build s |\n|---|---|---|---|\n");
  for (const target of PLUGIN_TARGETS) {
    const started = Date.now();
    const plugin = await selfContainedPlugin(target.platform);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const { size } = await stat(plugin.executable);
    process.stdout.write(
      `| ${target.platform} | ${mb(plugin.bytes)} | ${mb(size)} | ${seconds} (0 when reused) |\n`,
    );
  }
  const linux = await selfContainedPlugin("linux-amd64");
  const mainJs = join(REPO_ROOT, "dist", "provider", "plugin", "bundle", "main.js");
  const node26 = findNodeRuntime(26);
  const node22 = findNodeRuntime(22);
  const executable = await startups(linux.executable, []);
  const on26 = await startups(node26.node, [mainJs]);
  const on22 = await startups(node22.node, [mainJs]);
  process.stdout.write(
    `\nstart-up to the port, median of ${ROUNDS}:\n| way | ms |\n|---|---|\n` +
      `| executable (Node.js 26.10.0 inside) | ${executable.toFixed(0)} |\n` +
      `| node main.js, ${node26.version} | ${on26.toFixed(0)} |\n` +
      `| node main.js, ${node22.version} | ${on22.toFixed(0)} |\n`,
  );
  const share = executable / on26;
  const met = share <= TARGET_SHARE;
  process.stdout.write(
    `\ntargets:\n  ${met ? "met    " : "NOT MET"}  the executable starts in <= ${TARGET_SHARE} x node main.js's time on the same Node.js: ${share.toFixed(2)} x\n`,
  );
  if (!met) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
