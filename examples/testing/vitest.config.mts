import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each step runs the pulumi CLI, which starts the program and the provider: seconds, not ms.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
