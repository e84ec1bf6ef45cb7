/**
 * An install that builds nothing (issue 62): the package has no install script that runs when it
 * is installed from the registry or a tarball, its `prepare` builds only `dist/` when npm prepares
 * it as a git dependency or packs it, and the pulumi CLIs (Go, the network) are built only by this
 * repository's own `npm ci` (test/support/repository-setup.ts); `allowScripts` names every
 * package of the lock whose install scripts `npm ci` runs, so npm 11 warns of none; and the size
 * the testing guide gives is the one `npm pack` reports.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STEP_BOUNDS_MS } from "./support/budgets.js";
import { REPO_ROOT } from "./support/installed-package.js";
import { setUpSteps } from "./support/repository-setup.js";
import { runStepOrThrow } from "./support/steps.js";

interface Manifest {
  readonly scripts: Record<string, string>;
  readonly allowScripts: Record<string, boolean>;
}
interface Lock {
  readonly packages: Record<string, { readonly hasInstallScript?: boolean }>;
}

const TSX = join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const SETUP = join(REPO_ROOT, "test", "support", "repository-setup.ts");

async function json<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(join(REPO_ROOT, file), "utf8")) as T;
}

describe("the package's install scripts", () => {
  it("are none that run from the registry or a tarball: only prepare, which runs the set-up script", async () => {
    const { scripts } = await json<Manifest>("package.json");
    expect(["preinstall", "install", "postinstall", "prepack"].filter((s) => s in scripts)).toEqual(
      [],
    );
    expect(scripts.prepare).toBe("tsx test/support/repository-setup.ts");
  });

  it("build the CLIs in this repository's npm ci only, and only dist/ for a git install or a pack", () => {
    const ci = { npm_command: "ci" };
    expect(setUpSteps(ci)).toEqual(["build", "pulumi-cli", "plugin-node-bases"]);
    expect(setUpSteps({ npm_command: "install" })).toEqual(setUpSteps(ci));
    // npm's git dependency: `npm install` in the clone, then prepare before packing it.
    expect(
      setUpSteps({ ...ci, npm_command: "install", _PACOTE_NO_PREPARE_: "git+https://x" }),
    ).toEqual(["build"]);
    expect(setUpSteps({ npm_package_resolved: "/tmp/clone" })).toEqual(["build"]);
    expect(setUpSteps({ npm_command: "pack" })).toEqual(["build"]);
    expect(setUpSteps({ npm_command: "publish" })).toEqual(["build"]);
  });
});

describe("the set-up script, as npm runs it", () => {
  /** The npm scripts the set-up runs in `env`, through a stand-in npm that records them. */
  async function scriptsRun(env: Record<string, string>): Promise<string[]> {
    const dir = await mkdtemp(join(tmpdir(), "repository-setup-"));
    try {
      const npm = join(dir, "npm-cli.js");
      const record = join(dir, "record");
      await writeFile(
        npm,
        `require("node:fs").appendFileSync(${JSON.stringify(record)}, process.argv.slice(2).join(" ") + "\\n");\n`,
      );
      await runStepOrThrow(process.execPath, [TSX, SETUP], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? "", npm_execpath: npm, ...env },
        boundMs: STEP_BOUNDS_MS.node,
        label: "the set-up script",
      });
      return (await readFile(record, "utf8")).trim().split("\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("runs the CLIs' builds for npm ci, and only the build for a git dependency", async () => {
    expect(await scriptsRun({ npm_command: "ci" })).toEqual([
      "run build",
      "run pulumi-cli",
      "run plugin-node-bases",
    ]);
    expect(
      await scriptsRun({ npm_command: "install", _PACOTE_NO_PREPARE_: "git+https://x" }),
    ).toEqual(["run build"]);
  });
});

describe("allowScripts", () => {
  it("names every package of the lock with install scripts, and no other", async () => {
    const [{ allowScripts }, lock] = await Promise.all([
      json<Manifest>("package.json"),
      json<Lock>("package-lock.json"),
    ]);
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(Object.keys(allowScripts).sort()).toEqual([...new Set(withScripts)].sort());
  });
});

describe("the package's size", () => {
  it("is what the testing guide says, as npm pack reports it", async () => {
    const { stdout } = await runStepOrThrow(
      "npm",
      ["pack", "--dry-run", "--json", "--ignore-scripts", "--offline"],
      { cwd: REPO_ROOT, boundMs: STEP_BOUNDS_MS.pack, label: "npm pack --dry-run" },
    );
    const [packed] = JSON.parse(stdout) as {
      size: number;
      unpackedSize: number;
      files: unknown[];
    }[];
    // The built package: dist/ is there (npm test builds first).
    expect(packed?.files.length).toBeGreaterThan(100);
    const guide = await readFile(
      join(REPO_ROOT, "docs", "guides", "testing-your-program.md"),
      "utf8",
    );
    const said =
      /the package itself is ([\d.]+) MB packed and ([\d.]+) MB unpacked, as `npm pack --dry-run` reports it/.exec(
        guide.replace(/\s+/g, " "),
      );
    expect(said, "the guide's sentence on the package's size").not.toBeNull();
    // The guide gives tenths of a megabyte: within a tenth of what npm reports, so that a change
    // of a few kilobytes does not fail the suite while a stale figure does.
    const megabytes = (bytes: number | undefined) => (bytes ?? 0) / 1_000_000;
    expect(Math.abs(Number(said?.[1]) - megabytes(packed?.size))).toBeLessThanOrEqual(0.1);
    expect(Math.abs(Number(said?.[2]) - megabytes(packed?.unpackedSize))).toBeLessThanOrEqual(0.1);
  });
});
