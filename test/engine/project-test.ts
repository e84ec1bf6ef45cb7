/**
 * Vitest support for the fixture projects (kept apart from fixture-project.ts, which also runs
 * outside vitest).
 */
import { it as baseIt } from "vitest";
import type { FixtureProject } from "./fixture-project.js";

/**
 * `it` with a `project` fixture made by `make` for each test and removed after it, so a test
 * cannot leak its project into the next one (nor run without a fresh one).
 */
export function projectTest(make: () => Promise<FixtureProject>) {
  return baseIt.extend<{ project: FixtureProject }>({
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    project: async ({}, use) => {
      const project = await make();
      try {
        await use(project);
      } finally {
        await project.cleanup();
      }
    },
  });
}
