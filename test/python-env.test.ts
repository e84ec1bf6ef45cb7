/**
 * The tests' Python environment (test/support/python-env.ts, docs/design/plugin.md "Python"): what
 * `npm ci` says on a machine without a Python it can use, and the pins it installs from.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensurePythonEnv, noPythonMessage } from "./support/python-env.js";

describe("the tests' Python environment", () => {
  it("says in one sentence that no Python is there, and makes nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "python-env-test-"));
    const empty = await mkdtemp(join(tmpdir(), "python-env-path-"));
    try {
      const env = { PATH: empty, PYTHON: join(empty, "python3.12") };
      await expect(ensurePythonEnv(env, join(dir, "python"))).rejects.toThrow(noPythonMessage());
      expect(existsSync(join(dir, "python")), "nothing is made").toBe(false);
      expect(noPythonMessage()).toBe(
        "no Python 3.10 or later with venv and pip here (set PYTHON to one): install it and run `npm ci`, which makes the Python environment of the tests.",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("installs only pinned versions, each with its hashes", async () => {
    const text = await readFile(join(__dirname, "python", "requirements.txt"), "utf8");
    const requirements = text.split(/\n(?=\S)/).filter((block) => /^[a-z]/i.test(block));
    expect(requirements.length).toBeGreaterThan(10);
    for (const block of requirements) {
      expect(block, block.split("\n")[0]).toMatch(/^[A-Za-z0-9_.-]+==[^\s]+ \\\n\s+--hash=sha256:/);
    }
  });
});
