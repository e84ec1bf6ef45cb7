/**
 * The steps of the tests (test/support/steps.ts) and their budgets (test/support/budgets.ts): a
 * step past its bound is killed with every process it started and fails naming itself and the
 * bound; a test that times out says which step it was in, for how long, and which steps ran
 * before, in the very message Vitest reports (test/support/step-setup.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { budget, SLACK_MS, STEP_BOUNDS_MS } from "./support/budgets.js";
import { REPO_ROOT } from "./support/installed-package.js";
import { runCli } from "./support/pulumi.js";
import {
  killedSentence,
  killProcessTree,
  runStep,
  runStepOrThrow,
  StepTracker,
  seconds,
  timeoutMessage,
} from "./support/steps.js";

const VITEST_TIMEOUT =
  "Test timed out in 900000ms.\nIf this is a long-running test, pass a timeout value as the " +
  'last argument or configure it globally with "testTimeout".';
const HINT =
  "Each step has its own bound, and a test's budget is more than the sum of its steps' bounds " +
  "(test/support/budgets.ts).";
const T = 1_000_000;

/** A stand-in for a CLI that hangs. */
const HANGING = ["-e", "setTimeout(() => {}, 60000)"];

/** A stand-in for a CLI that starts a plugin: it prints the plugin's pid, then both hang. */
const HANGING_TREE = [
  "-e",
  'const c = require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" }); ' +
    'process.stdout.write(String(c.pid) + "\\n"); setTimeout(() => {}, 60000);',
];

/** Whether `pid` is gone (or a zombie nobody reaped yet, which runs nothing). */
function gone(pid: number): boolean {
  const stat = join("/proc", String(pid), "stat");
  if (!existsSync(stat)) return true;
  try {
    return readFileSync(stat, "utf8").split(") ")[1]?.startsWith("Z") ?? true;
  } catch {
    return true;
  }
}

/**
 * Waits until `pid` is gone. A process that is not our child cannot be awaited: SIGKILL returns
 * before the kernel has torn the process down, which on a loaded machine shows in /proc for a few
 * milliseconds, so this polls /proc, for at most 10 s.
 */
async function expectGone(pid: number): Promise<void> {
  await vi.waitFor(() => expect(gone(pid), `process ${pid} still runs`).toBe(true), {
    timeout: 10_000,
    interval: 20,
  });
}

/** `text` as a regular expression that matches it literally. */
function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("the message of a test that timed out", () => {
  it("names the step it was in, its folder, for how long, and the steps before it", () => {
    const record = [
      { label: "pulumi stack init", cwd: "/tmp/p", startedAt: T, endedAt: T + 400 },
      { label: "pulumi preview", cwd: "/tmp/p", startedAt: T + 500, endedAt: T + 12_500 },
      { label: "pulumi up", cwd: "/tmp/p", startedAt: T + 13_000, endedAt: T + 53_000 },
      { label: "pulumi refresh --preview-only", cwd: "/tmp/p", startedAt: T + 54_000 },
    ];
    expect(timeoutMessage(VITEST_TIMEOUT, record, T + 466_000)).toBe(
      "Test timed out in 900000ms while running `pulumi refresh --preview-only` in /tmp/p " +
        "(for 412 s; steps before it: `pulumi stack init` 0.4 s, `pulumi preview` 12 s, " +
        `\`pulumi up\` 40 s).\n${HINT}`,
    );
  });

  it("takes a step that ended after the timeout as the one running at it", () => {
    const record = [{ label: "npm ci --offline", cwd: "/tmp/u", startedAt: T, endedAt: T + 9000 }];
    expect(timeoutMessage("Hook timed out in 5000ms.", record, T + 5000)).toBe(
      `Hook timed out in 5000ms while running \`npm ci --offline\` in /tmp/u (for 5 s).\n${HINT}`,
    );
  });

  it("names every step running at once", () => {
    const record = [
      { label: "pulumi up", cwd: "/tmp/a", startedAt: T },
      { label: "pulumi up", cwd: "/tmp/b", startedAt: T + 2000 },
    ];
    expect(timeoutMessage(VITEST_TIMEOUT, record, T + 30_000)).toBe(
      "Test timed out in 900000ms while running `pulumi up` in /tmp/a (for 30 s), and " +
        `\`pulumi up\` in /tmp/b (for 28 s).\n${HINT}`,
    );
  });

  it("says when the test timed out outside its steps, and how long after the last one", () => {
    const record = [{ label: "pulumi up", cwd: "/tmp/p", startedAt: T, endedAt: T + 20_000 }];
    expect(timeoutMessage(VITEST_TIMEOUT, record, T + 60_000)).toBe(
      "Test timed out in 900000ms outside its steps, 40 s after the last one ended (steps: " +
        `\`pulumi up\` 20 s).\n${HINT}`,
    );
  });

  it("says when the test ran no step at all", () => {
    expect(timeoutMessage(VITEST_TIMEOUT, [], T)).toBe(
      `Test timed out in 900000ms, having run no step (no child process).\n${HINT}`,
    );
  });

  it("names the last ten steps before it and counts the earlier ones", () => {
    const record = Array.from({ length: 13 }, (_, i) => ({
      label: `pulumi up #${i}`,
      cwd: "/tmp/p",
      startedAt: T + i * 1000,
      endedAt: T + i * 1000 + 500,
    }));
    const message = timeoutMessage(VITEST_TIMEOUT, record, T + 60_000);
    expect(message).toContain("(steps: 3 earlier, `pulumi up #3` 0.5 s, ");
    expect(message).toContain("`pulumi up #12` 0.5 s).");
  });

  it("writes durations in seconds, to a tenth below ten", () => {
    expect([0, 440, 9_949, 10_000, 412_400].map(seconds)).toEqual([
      "0 s",
      "0.4 s",
      "9.9 s",
      "10 s",
      "412 s",
    ]);
  });
});

describe("the record of steps", () => {
  it("holds the running steps and the ended ones of the test, and kills only the test's own", () => {
    const tracker = new StepTracker();
    const killed: string[] = [];
    const endShared = tracker.start("npm ci --offline", "/tmp/u", () => killed.push("install"));
    tracker.start("pulumi preview", "/tmp/p", () => killed.push("preview"))();
    const test = tracker.beginTest("a test");
    tracker.start("pulumi up", "/tmp/p", () => killed.push("up"));
    // The earlier test's ended step is gone; the step still running from before stays.
    expect(tracker.snapshot().map((step) => [step.label, step.endedAt === undefined])).toEqual([
      ["npm ci --offline", true],
      ["pulumi up", true],
    ]);
    expect(tracker.killRunning(test)).toBe(1);
    expect(killed).toEqual(["up"]);
    endShared();
    expect(tracker.snapshot()[0]?.endedAt).toBeTypeOf("number");
  });
});

describe("a step past its bound", () => {
  it(
    "fails a pulumi run with an error naming the command and the bound",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "tenant-step-"));
      temps.push(dir);
      let pid = 0;
      const result = await runCli(process.execPath, HANGING, {
        cwd: dir,
        env: process.env,
        boundMs: 1000,
        label: "pulumi up",
        onStart: (child) => {
          pid = child.pid ?? 0;
        },
      });
      expect(result.error).toBe(
        "pulumi up was killed after 1 s, its bound (test/support/budgets.ts)",
      );
      expect([result.ok, result.exitCode]).toEqual([false, 128 + 9]);
      await expectGone(pid);
    },
    budget({ node: 1 }),
  );

  it(
    "is killed with every process it started",
    async () => {
      let plugin = 0;
      const result = await runStep(process.execPath, HANGING_TREE, {
        cwd: tmpdir(),
        boundMs: STEP_BOUNDS_MS.node,
        // Killed as its bound kills it, once it has started its plugin (it prints the pid then).
        onStart: (child) => {
          child.stdout?.once("data", (text: Buffer | string) => {
            plugin = Number(String(text).trim());
            if (child.pid !== undefined) killProcessTree(child.pid);
          });
        },
      });
      expect(plugin).toBeGreaterThan(0);
      expect(result.exitCode).toBe(128 + 9);
      await expectGone(plugin);
    },
    budget({ node: 1 }),
  );

  it(
    "rejects, as execFile would, with the sentence naming it",
    async () => {
      await expect(
        runStepOrThrow(process.execPath, HANGING, {
          cwd: tmpdir(),
          boundMs: 1000,
          label: "npm pack",
        }),
      ).rejects.toThrow(killedSentence("npm pack", 1000));
    },
    budget({ node: 1 }),
  );

  it(
    "is not killed when it ends within its bound",
    async () => {
      const result = await runStep(process.execPath, ["-e", 'process.stderr.write("x")'], {
        cwd: tmpdir(),
        boundMs: STEP_BOUNDS_MS.node,
      });
      expect(result).toMatchObject({ exitCode: 0, stderr: "x", output: "x" });
      expect(result.killed).toBeUndefined();
    },
    budget({ node: 1 }),
  );
});

describe("budgets", () => {
  it("are the sum of the steps' bounds and the slack, a run of a stack with its config commands", () => {
    const { pulumiOperation, pulumiCommand, pack, install } = STEP_BOUNDS_MS;
    expect(budget({ pulumi: 6, installs: 1 })).toBe(
      6 * (pulumiOperation + 4 * pulumiCommand) + pack + install + SLACK_MS,
    );
    expect(budget({ pulumi: 2 }, { pulumiOperation: 300_000 })).toBe(
      2 * (300_000 + 4 * pulumiCommand) + SLACK_MS,
    );
    expect(budget({})).toBe(SLACK_MS);
  });
});

describe("a test that times out in a step, as Vitest reports it", () => {
  it(
    "says in its error which step it was in and which ran before, and its running step is killed",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "tenant-step-vitest-"));
      temps.push(dir);
      const steps = join(REPO_ROOT, "test", "support", "steps.ts");
      const pidFile = join(dir, "pid");
      await writeFile(
        join(dir, "vitest.config.mjs"),
        `export default ${JSON.stringify({
          test: {
            root: dir,
            include: ["*.test.ts"],
            globals: true,
            setupFiles: [join(REPO_ROOT, "test", "support", "step-setup.ts")],
            pool: "forks",
          },
        })};\n`,
      );
      await writeFile(
        join(dir, "slow.test.ts"),
        [
          `import { writeFileSync } from "node:fs";`,
          `import { runStep } from ${JSON.stringify(steps)};`,
          `it("times out", async () => {`,
          `  const cwd = ${JSON.stringify(dir)};`,
          `  await runStep(process.execPath, ["-e", ""], { cwd, boundMs: 60000, label: "pulumi preview" });`,
          `  await runStep(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {`,
          `    cwd, boundMs: 60000, label: "pulumi up",`,
          `    onStart: (child) => writeFileSync(${JSON.stringify(pidFile)}, String(child.pid)),`,
          `  });`,
          `}, 5000);`,
          "",
        ].join("\n"),
      );
      const env = Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !/^(VITEST|TINYPOOL)/.test(name)),
      );
      const report = join(dir, "report.json");
      const run = await runStep(
        process.execPath,
        [
          join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs"),
          "run",
          "--config",
          join(dir, "vitest.config.mjs"),
          "--reporter=json",
          `--outputFile=${report}`,
        ],
        { cwd: REPO_ROOT, env, boundMs: STEP_BOUNDS_MS.node, label: "vitest run slow.test.ts" },
      );
      expect(run.exitCode, run.output).toBe(1);
      const json = JSON.parse(await readFile(report, "utf8")) as {
        testResults: { assertionResults: { failureMessages: string[] }[] }[];
      };
      const [message] = json.testResults[0]?.assertionResults[0]?.failureMessages ?? [];
      const duration = String.raw`\d+(\.\d)? s`;
      expect(message).toMatch(
        new RegExp(
          String.raw`^Error: Test timed out in 5000ms while running \`pulumi up\` in ${escaped(dir)} ` +
            String.raw`\(for ${duration}; steps before it: \`pulumi preview\` ${duration}\)\.\n` +
            "Each step has its own bound",
        ),
      );
      await expectGone(Number(await readFile(pidFile, "utf8")));
    },
    budget({ node: 1 }),
  );
});
