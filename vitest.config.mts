import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Integration and end-to-end suites start real servers and child processes; the default 5 s is
    // too tight on a 2-core machine, but every suite also bounds its own waits.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most of the suite waits on child processes (the pulumi CLI, package managers, servers):
    // three files at a time keep both cores busy; every wait is bounded on its own.
    maxWorkers: 3,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
