import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Before each test, the record of its steps (the child processes it runs); when it times out,
    // its error says which step it was in and for how long (test/support/step-setup.ts).
    setupFiles: ["test/support/step-setup.ts"],
    // Unit tests run no child process: a minute is many times what the slowest needs. Every test
    // and hook that runs the pulumi CLI, a package manager or another child process takes its
    // timeout from its steps instead (`budget(...)`, test/support/budgets.ts).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A rejection nobody handles fails the test that caused it, as it ends the plugin's process
    // (its launcher passes the same flag): no promise of the provider may be left unhandled.
    execArgv: ["--unhandled-rejections=strict"],
    // Most of the suite waits on child processes (the pulumi CLI, package managers, servers):
    // three files at a time keep both cores busy. Three heavy end-to-end files at once slow each
    // other's steps down several times over, which the budgets allow for: every step's bound is
    // at least four times its slowest time measured so, on 2 cores (test/support/budgets.ts), and
    // every test's timeout is more than the sum of its steps' bounds. Running the end-to-end
    // files one at a time instead (a project of their own with `maxWorkers: 1`) would add their
    // sum, most of the suite's time, to the run, for nothing the budgets do not give already.
    maxWorkers: 3,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
