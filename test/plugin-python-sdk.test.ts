/**
 * The release's Python SDK (provider/plugin/release/python-sdk.ts, docs/plugin.md "Python"): what
 * it says on a checkout where `npm ci` did not make its tools. The wheel itself is built and
 * installed end to end in e2e-python.test.ts.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePythonSdk } from "../provider/plugin/release/python-sdk.js";

describe("the release's Python SDK", () => {
  it("says in one sentence which tool npm ci makes is missing, and writes nothing", async () => {
    const out = await mkdtemp(join(tmpdir(), "python-sdk-test-"));
    try {
      const missing = join(out, "no-such-generator");
      await expect(
        writePythonSdk(join(out, "schema.json"), out, { generator: missing }),
      ).rejects.toThrow(
        `the Python SDK needs the SDK generator that npm ci makes (${missing} is missing): run npm ci`,
      );
      expect(await readdir(out)).toEqual([]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
