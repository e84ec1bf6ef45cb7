/**
 * The plugin's self-contained executables (docs/design/plugin.md, "The self-contained executables"):
 * each platform's release tarball and executable size, and the plugin's start-up, the time from
 * its start until it prints its port (what the engine waits for before its first call), as the
 * linux-amd64 executable against `node main.js` (the same bundle the launcher script runs) under
 * the same Node.js 26.10.0 and under Node.js 22, the tests' line, and as the launcher script that
 * `npm install -g` puts on PATH (which runs `node` twice: its version, then the bundle). Each is
 * started {@link ROUNDS} times, the four taking turns in each round; the medians are reported.
 *
 * Target: the executable starts in at most {@link TARGET_SHARE} times `node main.js`'s time
 * under the same Node.js (the blob is read from the executable, not parsed from a file).
 */
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PLUGIN_TARGETS } from "../../provider/plugin/release/targets.js";
import { REPO_ROOT } from "../support/installed-package.js";
import { findNodeRuntime } from "../support/node-runtimes.js";
import { selfContainedPlugin } from "../support/plugin-executable.js";
import { median } from "./measure.js";

const ROUNDS = 21;
const TARGET_SHARE = 1.2;
/** A start that has printed no port by then failed. */
const START_BOUND_MS = 30_000;

/**
 * Starts `command` with `path` as its PATH, resolves with the ms until its first line on stdout,
 * then stops it.
 */
function timeToPort(command: string, args: string[], path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "ignore"],
      timeout: START_BOUND_MS,
      env: { PATH: path },
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

/** One way to start the plugin. */
interface Way {
  readonly label: string;
  readonly command: string;
  readonly args: string[];
  readonly path: string;
}

/**
 * The median start-up of each way, the ways taking turns within each round, so that a change in
 * the machine's load (other jobs share its cores) falls on all of them alike.
 */
async function startups(ways: readonly Way[]): Promise<number[]> {
  const times: number[][] = ways.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, way] of ways.entries()) {
      times[index]?.push(await timeToPort(way.command, way.args, way.path));
    }
  }
  return times.map((series) => median(series));
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
  // What `npm install -g` puts on PATH: the launcher script, which asks `node` its version first.
  const launcher = join(
    REPO_ROOT,
    "dist",
    "provider",
    "plugin",
    "bundle",
    "pulumi-resource-tenant",
  );
  const ways: Way[] = [
    { label: "executable (Node.js 26.10.0 inside)", command: linux.executable, args: [], path: "" },
    { label: `node main.js, ${node26.version}`, command: node26.node, args: [mainJs], path: "" },
    { label: `node main.js, ${node22.version}`, command: node22.node, args: [mainJs], path: "" },
    {
      label: `the launcher script, ${node22.version} on PATH`,
      command: "/bin/sh",
      args: [launcher],
      path: `${dirname(node22.node)}:/usr/bin:/bin`,
    },
  ];
  const medians = await startups(ways);
  process.stdout.write(
    `\nstart-up to the port, median of ${ROUNDS} (the ways taking turns):\n| way | ms |\n|---|---|\n` +
      ways.map((way, index) => `| ${way.label} | ${(medians[index] ?? 0).toFixed(0)} |\n`).join(""),
  );
  const [executable = 0, on26 = 1] = medians;
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
