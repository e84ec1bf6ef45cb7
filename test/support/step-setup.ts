/**
 * Vitest setup file (vitest.config.mts, `setupFiles`): a test that times out says which step it was
 * in (the command, its folder, for how long) and which steps ran before, not only its budget.
 *
 * How, in Vitest 4 (@vitest/runner): when a test's (or a `beforeEach`/`afterEach` hook's) timer
 * fires, the runner makes its `Test timed out in <n>ms` error, aborts the test context's `signal`
 * with it, and only then rejects the test with that same error object, which it then serializes
 * into the report. So a listener on the signal, added before the test, rewrites the error's
 * message and stack at the moment of the timeout, with what the steps were doing at that moment
 * ({@link timeoutMessage}), before anything reads them; and it kills the test's running steps,
 * which nothing waits for any more. (`onTestFailed` runs only after the `afterEach` hooks, which
 * stop the test's stack: too late to tell what was running at the timeout.) A `beforeAll` hook has
 * no such signal; its steps are bounded on their own, under its budget (test/support/budgets.ts).
 */
import { afterEach, beforeEach } from "vitest";
import { steps, timeoutMessage } from "./steps.js";

/** The first words of the errors of Vitest's test and hook timers. */
const TIMED_OUT = /^(Test|Hook) timed out in \d+ms/;

beforeEach((context) => {
  const test = steps.beginTest(`${context.task.file.name} > ${context.task.name}`);
  context.signal.addEventListener(
    "abort",
    () => {
      const reason: unknown = context.signal.reason;
      if (!(reason instanceof Error) || !TIMED_OUT.test(reason.message)) return;
      const message = timeoutMessage(reason.message, steps.snapshot(), Date.now());
      const frames = (reason.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
      reason.message = message;
      reason.stack = [`${reason.name}: ${message}`, ...frames].join("\n");
      steps.killRunning(test);
    },
    { once: true },
  );
});

afterEach((context) => {
  // Steps from here to the next test are a hook's (`afterAll`, `beforeAll`): so says the step log.
  steps.testName = `${context.task.file.name} > (a hook after ${context.task.name})`;
});
