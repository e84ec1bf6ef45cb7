/**
 * `npm run bench -- python.ts`: the whole `up` of 200 `ClientSettings` from a Python program, the
 * same scenario as run.ts's scenario 1 (a tenant of 200 seeded clients limited to 10 requests per
 * second with bursts of 20, one declared description differing on each), through the Python SDK
 * of the release installed from its wheel into a fresh virtual environment, run as an inline
 * program of the Automation API (test/bench/python/bench_up.py), with the plugin's self-contained
 * executable; and beside it, the same `up` from the YAML program of run.ts's plugin face, on a
 * tenant of its own seeded alike. Each runs {@link RUNS} times from an empty state; the target
 * holds the median. As the YAML face's stack is made and configured before its `up` is timed, the
 * Python stack is made and configured by the driver's `init` first, untimed; then the driver's
 * `up` is timed, as each later run of a pipeline is.
 *
 * Target: the whole `up` (the driver's start to its exit: Python's start and imports, the stack's
 * selection, `pulumi up`, and the outputs and summary the Automation API reads after it) within
 * {@link PYTHON_WHOLE_UP_TARGET} x the floor, the floor being the API calls divided by the rate. Not part of `npm test`: speed is measured here, never in timed tests.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import type { TenantApi } from "../../provider/local-tenant/index.js";
import { packageSchema } from "../../provider/plugin/package-schema.js";
import { writePythonSdk } from "../../provider/plugin/release/python-sdk.js";
import { DEFAULT_NODE_LINE, findNodeRuntime } from "../support/node-runtimes.js";
import { selfContainedPlugin } from "../support/plugin-executable.js";
import { isolatedCliEnv, PASSPHRASE } from "../support/pulumi.js";
import { ensurePulumiCli } from "../support/pulumi-cli.js";
import { ensurePythonEnv, freshVirtualEnv } from "../support/python-env.js";
import { isManagement, median, type RequestLog } from "./measure.js";
import { pluginStack, yamlProgram } from "./plugin-stack.js";
import { declaredClients, seedClients, startBenchTenant } from "./program.js";

const CLIENTS = 200;
const RATE = 10;
const BURST = 20;
const RUNS = 3;
/** The whole `up` of 200 from a Python program, at most this many times the floor. */
const PYTHON_WHOLE_UP_TARGET = 1.1;
/** One `up` of 200 at 10 requests per second takes about 21 s; a run that hangs is stopped. */
const RUN_BOUND_MS = 10 * 60_000;

/** Where a Python run's time went, as bench_up.py measures it in the process. */
interface PythonPhases {
  /** Python's start and the imports of Pulumi's SDK and of `pulumi_tenant`. */
  readonly importSeconds: number;
  /** The Automation API's workspace and `pulumi stack select`. */
  readonly stackSeconds: number;
  /** `pulumi up` with the inline program, to the outputs and summary the Automation API reads after it. */
  readonly upSeconds: number;
  /** The program's declarations, from its start to its last `ClientSettings` (within `up`). */
  readonly declareSeconds: number;
}

/** One whole `up`: its wall time, the tenant's calls and 429s, and the floor. */
interface WholeUp {
  readonly face: "python" | "yaml";
  readonly phases?: PythonPhases;
  readonly ok: boolean;
  readonly wallSeconds: number;
  readonly apiCalls: number;
  readonly rateLimited: number;
  readonly floorSeconds: number;
  /** The run's start to the first management request, and the last one to the run's end. */
  readonly beforeSeconds?: number;
  readonly afterSeconds?: number;
}

/**
 * From the run's start to the tenant's first management request, and from its last one to the
 * run's end: what is not the pass that calls the tenant (start-ups, the program's registrations
 * before the first call, the summary after the last).
 */
function aroundThePass(requests: RequestLog, started: number, ended: number) {
  const times = requests.requests.filter(isManagement).map((r) => r.at);
  const first = Math.min(...times);
  const last = Math.max(...times);
  return { beforeSeconds: (first - started) / 1000, afterSeconds: (ended - last) / 1000 };
}

function figures(face: WholeUp["face"], api: TenantApi, ok: boolean, ms: number): WholeUp {
  const stats = api.stats();
  const rateLimited = Object.entries(stats.counts)
    .filter(([key]) => key.endsWith(" 429"))
    .reduce((total, [, n]) => total + n, 0);
  return {
    face,
    ok,
    wallSeconds: ms / 1000,
    apiCalls: stats.api,
    rateLimited,
    floorSeconds: stats.api / RATE,
  };
}

/** Runs `command` to its exit, bounded; resolves whether it exited 0, with its output. */
function runToExit(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_BOUND_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, output });
    });
  });
}

/** The Python face: {@link RUNS} whole `up`s, each on a fresh tenant and an empty state. */
async function pythonUps(work: string): Promise<WholeUp[]> {
  const plugin = await selfContainedPlugin();
  const cli = await ensurePulumiCli();
  const schema = join(work, "schema.json");
  await writeFile(schema, JSON.stringify(packageSchema(plugin.version)));
  const release = await writePythonSdk(schema, join(work, "release"));
  const python = await freshVirtualEnv(await ensurePythonEnv(), join(work, "venv"), [
    release.wheel.path,
  ]);
  const results: WholeUp[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const root = await mkdtemp(join(work, "run-"));
    const seeded = seedClients(CLIENTS);
    const { api, requests } = await startBenchTenant(seeded, { rate: RATE, burst: BURST });
    try {
      const clients = join(root, "clients.json");
      await writeFile(clients, JSON.stringify(declaredClients(seeded)));
      const home = join(root, "home");
      const env = {
        ...isolatedCliEnv(home, findNodeRuntime(DEFAULT_NODE_LINE)),
        PATH: [dirname(cli.path)].join(delimiter),
        PULUMI_BACKEND_URL: `file://${root}`,
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
        BENCH_CLIENTS: clients,
        BENCH_WORK_DIR: await mkdtemp(join(root, "workspace-")),
      };
      const install = ["plugin", "install", "resource", "tenant", plugin.version];
      const installed = await runToExit(cli.path, [...install, "--file", plugin.tarball], env);
      if (!installed.ok) throw new Error(`pulumi plugin install failed: ${installed.output}`);
      const driver = join(__dirname, "python", "bench_up.py");
      // The tenant's settings go into the stack config, and reach the timed run only from there.
      const tenant = {
        TENANT_DOMAIN: api.domain,
        TENANT_CLIENT_ID: api.clientId,
        TENANT_CLIENT_SECRET: api.clientSecret,
      };
      const init = await runToExit(python, [driver, "init"], { ...env, ...tenant });
      if (!init.ok) throw new Error(`bench_up.py init failed: ${init.output}`);
      api.resetStats();
      const started = Date.now();
      const up = await runToExit(python, [driver, "up"], env);
      const ended = Date.now();
      const last = up.output.trim().split("\n").at(-1) ?? "";
      const phases = last.startsWith("{")
        ? (JSON.parse(last) as { phases: PythonPhases }).phases
        : undefined;
      const result = {
        ...figures("python", api, up.ok, ended - started),
        ...aroundThePass(requests, started, ended),
        ...(phases === undefined ? {} : { phases }),
      };
      if (!up.ok) process.stdout.write(`  python up failed:\n${up.output}\n`);
      results.push(result);
      report(result);
    } finally {
      await api.stop();
      await rm(root, { recursive: true, force: true });
    }
  }
  return results;
}

/** The YAML face, the same work through Pulumi's YAML language host: {@link RUNS} whole `up`s. */
async function yamlUps(): Promise<WholeUp[]> {
  const plugin = await selfContainedPlugin();
  const results: WholeUp[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const seeded = seedClients(CLIENTS);
    const { api, requests } = await startBenchTenant(seeded, { rate: RATE, burst: BURST });
    try {
      const program = yamlProgram("tenant-bench-yaml", declaredClients(seeded));
      const project = await pluginStack(api, "bench", program, {
        path: plugin.tarball,
        version: plugin.version,
      });
      try {
        api.resetStats();
        const started = Date.now();
        const up = await project.run("up", undefined, { env: { PULUMI_PARALLEL: undefined } });
        const ended = Date.now();
        const result = {
          ...figures("yaml", api, up.ok, ended - started),
          ...aroundThePass(requests, started, ended),
        };
        results.push(result);
        report(result);
      } finally {
        await project.remove();
      }
    } finally {
      await api.stop();
    }
  }
  return results;
}

function report(f: WholeUp): void {
  process.stdout.write(
    `  ${f.face}: ${f.ok ? "ok" : "FAILED"}, ${f.wallSeconds.toFixed(1)} s for ${f.apiCalls} calls ` +
      `(floor ${f.floorSeconds.toFixed(1)} s, ${(f.wallSeconds / f.floorSeconds).toFixed(3)} x), ` +
      `${f.rateLimited} answered 429, load ${(loadavg()[0] ?? 0).toFixed(2)}; ` +
      `${f.beforeSeconds?.toFixed(1)} s before the first call, ${f.afterSeconds?.toFixed(1)} s after the last` +
      (f.phases === undefined
        ? ""
        : `; Python start and imports ${f.phases.importSeconds.toFixed(1)} s, stack ` +
          `${f.phases.stackSeconds.toFixed(1)} s, up ${f.phases.upSeconds.toFixed(1)} s (the program's ` +
          `declarations ${f.phases.declareSeconds.toFixed(1)} s of it)`) +
      "\n",
  );
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "tenant-bench-python-"));
  try {
    process.stdout.write(`Whole up of ${CLIENTS} ClientSettings, ${RATE}/s, burst ${BURST}:\n`);
    const python = await pythonUps(work);
    // BENCH_FACES=python runs the Python face alone.
    const yaml = process.env.BENCH_FACES === "python" ? [] : await yamlUps();
    const ratio = (runs: WholeUp[]) => median(runs.map((f) => f.wallSeconds / f.floorSeconds));
    process.stdout.write(
      "\n| face | runs | median whole up / floor | 429s |\n|---|---|---|---|\n" +
        [python, yaml]
          .filter((runs) => runs.length > 0)
          .map(
            (runs) =>
              `| ${runs[0]?.face} | ${runs.map((f) => `${f.wallSeconds.toFixed(1)} s`).join(", ")} | ` +
              `${ratio(runs).toFixed(3)} | ${runs.map((f) => f.rateLimited).join(", ")} |`,
          )
          .join("\n") +
        "\n",
    );
    const met = python.every((f) => f.ok) && ratio(python) <= PYTHON_WHOLE_UP_TARGET;
    process.stdout.write(
      `target: the whole up from Python within ${PYTHON_WHOLE_UP_TARGET} x the floor (median): ` +
        `${met ? "met" : "MISSED"} (${ratio(python).toFixed(3)})\n`,
    );
    if (!met) process.exitCode = 1;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
