/**
 * The child processes the tests run (the pulumi CLI, package managers, `npm pack`), run as
 * steps: each bounded on its own and killed past its bound with every process it started, its
 * error then naming it and the bound (`pulumi up was killed after 180 s`); and each recorded while
 * it runs, so that a test that times out says which step it was in and for how long, not only its
 * budget (test/support/step-setup.ts reads the record; test/support/budgets.ts holds the bounds).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";

/** One step as the record holds it: what ran, where, from when until when. */
export interface StepView {
  /** What ran, as one would type it: `pulumi up --skip-preview`, `npm ci --offline`. */
  readonly label: string;
  /** Its working directory. */
  readonly cwd: string;
  /** When it started (`Date.now()`). */
  readonly startedAt: number;
  /** When it ended; undefined while it runs. */
  readonly endedAt?: number;
}

/** A step of the record: a {@link StepView}, and what the tracker needs to end or kill it. */
interface StepRecord extends StepView {
  endedAt?: number;
  /** The test (see {@link StepTracker.beginTest}) during which it started. */
  readonly test: number;
  readonly kill: () => void;
}

/** Ended steps the record keeps at most (a test runs a few dozen; the rest is history). */
const KEPT_ENDED_STEPS = 100;

/**
 * What the steps of this test process are doing. Vitest runs each test file in a process of its
 * own and its tests one after the other, so the record of the process is the record of the test
 * that runs: {@link beginTest} (called before each test) starts a new one.
 */
export class StepTracker {
  private test = 0;
  private records: StepRecord[] = [];
  /** The name of the test that runs (its file, then its name), for the step log. */
  testName = "";

  /**
   * Starts the record of a new test, `name`: steps still running (a file's `beforeAll`'s) stay in
   * it. Returns the test's number, which {@link killRunning} takes.
   */
  beginTest(name: string): number {
    this.test += 1;
    this.testName = name;
    this.records = this.records.filter((record) => record.endedAt === undefined);
    return this.test;
  }

  /** Records that a step started now; returns the function that records its end. */
  start(label: string, cwd: string, kill: () => void): () => void {
    const record: StepRecord = { label, cwd, startedAt: Date.now(), test: this.test, kill };
    this.records.push(record);
    const ended = this.records.filter((r) => r.endedAt !== undefined);
    if (ended.length > KEPT_ENDED_STEPS) {
      const dropped = new Set(ended.slice(0, ended.length - KEPT_ENDED_STEPS));
      this.records = this.records.filter((r) => !dropped.has(r));
    }
    return () => {
      record.endedAt ??= Date.now();
    };
  }

  /** The steps of the record, in the order they started: a copy, which later steps leave alone. */
  snapshot(): StepView[] {
    return this.records.map(({ label, cwd, startedAt, endedAt }) =>
      endedAt === undefined ? { label, cwd, startedAt } : { label, cwd, startedAt, endedAt },
    );
  }

  /**
   * Kills the steps that `test` started and that still run (with every process each started):
   * once a test has timed out nothing waits for them, and they would only take the CPU from the
   * tests that run beside them until their own bounds. Returns how many it killed.
   */
  killRunning(test: number): number {
    const running = this.records.filter((r) => r.test === test && r.endedAt === undefined);
    for (const record of running) record.kill();
    return running.length;
  }
}

/** The record of this test process's steps. */
export const steps = new StepTracker();

/** `ms` as a reader takes it in a message: `0.4 s`, `12 s`, `180 s`. */
export function seconds(ms: number): string {
  return ms < 10_000 ? `${(Math.round(ms / 100) / 10).toString()} s` : `${Math.round(ms / 1000)} s`;
}

/** The sentence with which a step killed by its own bound fails, naming the step and the bound. */
export function killedSentence(label: string, boundMs: number): string {
  return `${label} was killed after ${seconds(boundMs)}, its bound (test/support/budgets.ts)`;
}

/** The steps named in the sentence of a timed-out test at most: the last ones. */
const NAMED_STEPS = 10;

/**
 * The message of a test (or hook) that timed out at `at`, given what its steps were doing: Vitest's
 * first sentence (`Test timed out in 60000ms`), then the step or steps running at `at` with their
 * folder and for how long, then the steps that ended before with their durations; and where the
 * budgets come from, instead of Vitest's advice to raise the timeout. A pure function of its
 * arguments, so that its wording is unit-tested (test/step-tracker.test.ts).
 */
export function timeoutMessage(message: string, record: readonly StepView[], at: number): string {
  const first = (message.split("\n")[0] ?? message).replace(/\.$/, "");
  const started = record.filter((step) => step.startedAt <= at);
  const running = started.filter((step) => step.endedAt === undefined || step.endedAt > at);
  const before = started.filter((step) => step.endedAt !== undefined && step.endedAt <= at);
  const named = before.slice(-NAMED_STEPS);
  const earlier = before.length - named.length;
  const list = [
    ...(earlier > 0 ? [`${earlier} earlier`] : []),
    ...named.map((step) => `\`${step.label}\` ${seconds((step.endedAt ?? at) - step.startedAt)}`),
  ].join(", ");
  let sentence: string;
  if (running.length > 0) {
    const what = running
      .map((step) => `\`${step.label}\` in ${step.cwd} (for ${seconds(at - step.startedAt)}`)
      .join("), and ");
    sentence = `${first} while running ${what}${list ? `; steps before it: ${list}` : ""}).`;
  } else if (before.length > 0) {
    const last = before[before.length - 1] as StepView;
    sentence =
      `${first} outside its steps, ${seconds(at - (last.endedAt ?? at))} after the last one ` +
      `ended (steps: ${list}).`;
  } else {
    sentence = `${first}, having run no step (no child process).`;
  }
  return `${sentence}\n${BUDGETS_HINT}`;
}

/** The sentence after a timed-out test's: where its budget and its steps' bounds come from. */
const BUDGETS_HINT =
  "Each step has its own bound, and a test's budget is more than the sum of its steps' bounds " +
  "(test/support/budgets.ts).";

/** How a step runs. */
export interface StepOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Past this, the step and every process it started are killed (test/support/budgets.ts). */
  readonly boundMs: number;
  /** How messages name the step; by default its command and arguments. */
  readonly label?: string;
  /** Called with the child once it started (to kill it mid-run, say). */
  readonly onStart?: (child: ChildProcess) => void;
}

/** What a step did. */
export interface StepResult {
  /** Its exit code; 128 + the signal's number when a signal ended it. */
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Standard output and error in the order they came. */
  readonly output: string;
  readonly durationMs: number;
  /** When its bound killed it, the sentence that says so ({@link killedSentence}). */
  readonly killed?: string;
}

/**
 * Runs `command` as a step: in a process group of its own, recorded in {@link steps} while it
 * runs, and killed with every process descended from it once `boundMs` has passed (so no child
 * outlives it). Never rejects for a failed or killed command: its exit code and `killed` say so.
 * When the environment names a file in `TENANT_STEP_LOG`, appends the step's label and duration
 * to it as a line of JSON: the measurements the bounds of test/support/budgets.ts come from.
 */
export async function runStep(
  command: string,
  args: readonly string[],
  options: StepOptions,
): Promise<StepResult> {
  const label = options.label ?? [command, ...args].join(" ");
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: string[] = [];
  const err: string[] = [];
  const all: string[] = [];
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    out.push(text);
    all.push(text);
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    err.push(text);
    all.push(text);
  });
  const started = Date.now();
  let killed: string | undefined;
  const kill = () => {
    const running = child.exitCode === null && child.signalCode === null;
    if (child.pid !== undefined && running) killProcessTree(child.pid);
  };
  const ended = steps.start(label, options.cwd, kill);
  const timer = setTimeout(() => {
    killed = killedSentence(label, options.boundMs);
    kill();
  }, options.boundMs);
  try {
    options.onStart?.(child);
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code, signal) =>
        resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 9) : 1)),
      );
    });
    const durationMs = Date.now() - started;
    logStep(label, durationMs, exitCode);
    return {
      exitCode,
      stdout: out.join(""),
      stderr: err.join(""),
      output: all.join(""),
      durationMs,
      ...(killed !== undefined ? { killed } : {}),
    };
  } finally {
    clearTimeout(timer);
    ended();
  }
}

/**
 * {@link runStep}, as `execFile` would: its standard output, or an error for a command that failed
 * (`<label> failed with exit code 1: <its last lines>`) or that its bound killed (the sentence of
 * {@link killedSentence}), carrying the step's `stdout`, `stderr` and `exitCode`.
 */
export async function runStepOrThrow(
  command: string,
  args: readonly string[],
  options: StepOptions,
): Promise<StepResult> {
  const result = await runStep(command, args, options);
  if (result.exitCode === 0 && result.killed === undefined) return result;
  const label = options.label ?? [command, ...args].join(" ");
  const lastLines = result.output.trim().split("\n").slice(-8).join("\n");
  const message =
    result.killed ?? `${label} failed with exit code ${result.exitCode}: ${lastLines}`.trim();
  throw Object.assign(new Error(message), {
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
  });
}

function logStep(label: string, durationMs: number, exitCode: number): void {
  const file = process.env.TENANT_STEP_LOG;
  if (!file) return;
  const line = { test: steps.testName, label, durationMs, exitCode, at: Date.now() };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** A process, as Linux's /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Its process group. */
  pgid: number;
  /** Its command line. */
  args: string[];
}

/**
 * `pid` and every process descended from it, parents before children, read from Linux's /proc.
 * Pulumi starts each plugin (the language host, each provider host) in a process group of its own
 * (`cmdutil.RegisterProcessGroup`, which sets setpgid), so the CLI's process group holds the CLI
 * alone: its plugins are found by parentage.
 */
export function processTree(pid: number): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(join("/proc", entry, "stat"), "utf8");
      // After the command name, in parentheses and possibly with spaces: state, ppid, pgrp, ...
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const args = readFileSync(join("/proc", entry, "cmdline"), "utf8").split("\0");
      all.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        args: args.filter((arg) => arg !== ""),
      });
    } catch {
      // It exited while being read.
    }
  }
  const tree = all.filter((p) => p.pid === pid);
  // Each process is added once, under its one parent: the loop ends with the list.
  for (let i = 0; i < tree.length; i += 1) {
    const parent = tree[i]?.pid;
    tree.push(...all.filter((p) => p.ppid === parent && p.pid !== pid));
  }
  return tree;
}

/**
 * Kills `pid` and every process descended from it with SIGKILL, as the end of a CI job does: the
 * root first (so it starts nothing more), then every process group led by one of them (a child a
 * plugin started meanwhile is in its group), then each process. Returns the processes it found.
 */
export function killProcessTree(pid: number): ProcessInfo[] {
  const tree = processTree(pid);
  const kill = (target: number) => {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  kill(pid);
  const leaders = new Set(tree.map((p) => p.pid));
  for (const group of new Set(tree.map((p) => p.pgid))) if (leaders.has(group)) kill(-group);
  for (const p of tree) kill(p.pid);
  return tree;
}
