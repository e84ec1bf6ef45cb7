/**
 * actionlint, the linter of GitHub Actions workflows, which checks examples/pipeline's workflow in
 * `npm test` (test/pipeline.test.ts). Pinned by our Go module test/pulumi-cli/actionlint (its
 * `tool` line and go.sum) and built like the tests' other Go tools (go-build.ts): by `npm ci`
 * (test/pulumi-cli/install.ts), with the network, into `.pulumi-cli/actionlint-<version>/`;
 * nothing after that needs the network.
 */
import { execFile } from "node:child_process";
import { access, constants, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { GO_BUILD_TIMEOUT_MS, goBuildEnv } from "./go-build.js";
import { REPO_ROOT } from "./installed-package.js";

const run = promisify(execFile);

const MODULE = join(REPO_ROOT, "test", "pulumi-cli", "actionlint");
const PACKAGE = "github.com/rhysd/actionlint/cmd/actionlint";
const BINARY = "actionlint";
const BUILD_RECORD = "build.json";

/** The actionlint executable and the version it was built from. */
export interface Actionlint {
  readonly path: string;
  /** The pinned `github.com/rhysd/actionlint` version, e.g. `v1.7.12`. */
  readonly version: string;
  /** How long its build took, when it was built here. */
  readonly seconds: number | undefined;
}

/** The `github.com/rhysd/actionlint` version that test/pulumi-cli/actionlint/go.mod requires. */
async function pinnedVersion(): Promise<string> {
  const goMod = await readFile(join(MODULE, "go.mod"), "utf8");
  const version = /^\s*github\.com\/rhysd\/actionlint (v\d+\.\d+\.\d+)\b/m.exec(goMod)?.[1];
  if (version === undefined)
    throw new Error("test/pulumi-cli/actionlint/go.mod requires no actionlint");
  return version;
}

/** The sentence a machine without Go gets, at `npm ci` and in the test that needs actionlint. */
function noActionlintMessage(version: string): string {
  return (
    `no actionlint ${version} here: install Go 1.26 and run \`npm ci\`, which builds it from ` +
    "test/pulumi-cli/actionlint."
  );
}

/** Where {@link ensureActionlint} puts the build of `version`. */
function buildDir(version: string): string {
  return join(REPO_ROOT, ".pulumi-cli", `actionlint-${version}`);
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * actionlint, built from test/pulumi-cli/actionlint when missing (Go, and the network unless Go's
 * module cache has every module its go.sum names), into a new folder renamed into place.
 *
 * @throws the sentence of {@link noActionlintMessage} when it must be built and there is no Go.
 */
export async function ensureActionlint(env: NodeJS.ProcessEnv = process.env): Promise<Actionlint> {
  const version = await pinnedVersion();
  const target = buildDir(version);
  const path = join(target, BINARY);
  const record = async (): Promise<number | undefined> => {
    const text = await readFile(join(target, BUILD_RECORD), "utf8").catch(() => "");
    return text === "" ? undefined : (JSON.parse(text) as { seconds: number }).seconds;
  };
  if (await isExecutable(path)) return { path, version, seconds: await record() };
  const hasGo = await run("go", ["version"], { env, timeout: 30_000 }).then(
    () => true,
    () => false,
  );
  if (!hasGo) throw new Error(noActionlintMessage(version));
  const partial = `${target}.partial-${process.pid}`;
  const started = Date.now();
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    await run("go", ["build", "-trimpath", "-o", join(partial, BINARY), PACKAGE], {
      cwd: MODULE,
      env: goBuildEnv(env),
      timeout: GO_BUILD_TIMEOUT_MS,
    });
    const seconds = Math.round((Date.now() - started) / 1000);
    await writeFile(join(partial, BUILD_RECORD), `${JSON.stringify({ version, seconds })}\n`);
    await rm(target, { recursive: true, force: true });
    await rename(partial, target);
    return { path, version, seconds };
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(
      `building actionlint ${version} from test/pulumi-cli/actionlint failed: ${stderr.split("\n").slice(-5).join(" ") || String(error)}`,
      { cause: error },
    );
  }
}
