/**
 * The build of examples/go as a user builds it: a Go program on the Go SDK that Pulumi's code
 * generator makes from the plugin's schema (test/support/sdk-gen.ts), with a driver that runs it
 * through the Automation API as an inline program (docs/design/plugin.md, "What is proven here"). `npm ci`
 * builds it once ({@link ensureGoExample}), which fills Go's module and build caches; a test then
 * builds it offline against a freshly generated SDK ({@link buildGoExample}) and runs it
 * (test/support/driver-stack.ts).
 */
import { execFile } from "node:child_process";
import {
  access,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { STEP_BOUNDS_MS } from "./budgets.js";
import { GO_BUILD_TIMEOUT_MS, hashOfFiles } from "./go-build.js";
import { REPO_ROOT } from "./installed-package.js";
import { type GeneratedSdks, generateSdks, goModulePath } from "./sdk-gen.js";
import { runStepOrThrow } from "./steps.js";

const run = promisify(execFile);

/** The example's Go module, as users copy it. */
const EXAMPLE = join(REPO_ROOT, "examples", "go");
/** The schema `npm run build` writes, which the SDK is generated from. */
const SCHEMA = join(REPO_ROOT, "dist", "provider", "plugin", "schema.json");
/** Where `npm ci` records its build of the example (git-ignored): `{inputs, seconds}`. */
const BUILD_DIR = join(REPO_ROOT, ".pulumi-cli", "go-example");
const BUILD_RECORD = "build.json";
/** The driver's executable, in the folder of a build. */
const BINARY = "tenant-go";

/** Whether {@link ensureGoExample} built the example now, and in how many seconds. */
export interface GoExampleBuild {
  readonly source: "built" | "cached";
  readonly seconds: number | undefined;
}

/**
 * For `npm ci` (test/pulumi-cli/install.ts): builds examples/go once against the Go SDK generated
 * from the schema, with the network, so that Go's module cache holds every module the build needs
 * and its build cache the compiled Automation API; the tests then build it with `GOPROXY=off` in
 * seconds. With `-mod=readonly`, so that a go.sum that misses a module fails here, where the
 * message is clear, rather than offline in a test. Skipped when the example's files are those of
 * the last build. On a machine without Go it throws the generator's sentence (`noSdkGenMessage()`
 * of sdk-gen.ts), which install.ts turns into a warning.
 */
export async function ensureGoExample(
  env: NodeJS.ProcessEnv = process.env,
): Promise<GoExampleBuild> {
  const inputs = await exampleHash();
  const record = await readFile(join(BUILD_DIR, BUILD_RECORD), "utf8").catch(() => "");
  const built =
    record === "" ? undefined : (JSON.parse(record) as { inputs: string; seconds: number });
  if (built?.inputs === inputs) return { source: "cached", seconds: built.seconds };
  await access(SCHEMA).catch(() => {
    throw new Error(`examples/go is built on the SDK of ${SCHEMA}: run \`npm run build\` first`);
  });
  const started = Date.now();
  const work = await mkdtemp(join(tmpdir(), "go-example-"));
  try {
    const sdks = await generateSdks(SCHEMA, join(work, "sdks"), env);
    // A cold build compiles the Automation API's packages from nothing: the bound of Go builds.
    const online = { ...env, GOFLAGS: "-mod=readonly" };
    await buildExample(sdks, join(work, "program"), online, GO_BUILD_TIMEOUT_MS);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  const partial = `${BUILD_DIR}.partial-${process.pid}`;
  await mkdir(partial, { recursive: true });
  await writeFile(join(partial, BUILD_RECORD), `${JSON.stringify({ inputs, seconds })}\n`);
  await rm(BUILD_DIR, { recursive: true, force: true });
  await rename(partial, BUILD_DIR);
  return { source: "built", seconds };
}

/** The driver built by {@link buildGoExample}, and its folder's removal. */
export interface GoExampleBinary {
  readonly path: string;
  remove(): Promise<void>;
}

/**
 * Builds examples/go as a user does, offline: a copy of it in a temporary folder, its `replace`
 * pointed at the generated SDK in `sdks.go`, then `go build` with `GOPROXY=off` and
 * `GOFLAGS=-mod=mod` (as sdk-gen.ts builds the Go SDK: nothing comes from the network, and the
 * committed go.sum must cover every module), as a step bounded by `STEP_BOUNDS_MS.goBuild`.
 */
export async function buildGoExample(
  sdks: Pick<GeneratedSdks, "go" | "schemaPath">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GoExampleBinary> {
  const dir = await mkdtemp(join(tmpdir(), "go-example-"));
  try {
    const offline = {
      ...env,
      GOPROXY: "off",
      GOFLAGS: [env.GOFLAGS, "-mod=mod"].filter(Boolean).join(" "),
    };
    const path = await buildExample(sdks, dir, offline, STEP_BOUNDS_MS.goBuild);
    return { path, remove: () => rm(dir, { recursive: true, force: true }) };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Copies examples/go into `dir`, points its `replace` of the SDK's module at `sdks.go` and builds
 * the driver there with `env` (as `npm ci` compiled the SDK's packages: no cgo, `-trimpath`, the
 * installed toolchain), as a step bounded by `boundMs`. Returns the driver's path; throws with Go's
 * output.
 */
async function buildExample(
  sdks: Pick<GeneratedSdks, "go" | "schemaPath">,
  dir: string,
  env: NodeJS.ProcessEnv,
  boundMs: number,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const name of await exampleFiles()) await copyFile(join(EXAMPLE, name), join(dir, name));
  const goEnv = { ...env, GOTOOLCHAIN: "local", CGO_ENABLED: "0" };
  const modulePath = await goModulePath(sdks);
  await run("go", ["mod", "edit", `-replace=${modulePath}=${sdks.go}`], {
    cwd: dir,
    env: goEnv,
    timeout: 60_000,
  });
  const path = join(dir, BINARY);
  await runStepOrThrow("go", ["build", "-trimpath", "-o", path, "."], {
    cwd: dir,
    env: goEnv,
    boundMs,
    label: "go build of examples/go",
  });
  return path;
}

/** The example's go.mod, go.sum and Go files (not a generated `sdk/` or a built driver). */
async function exampleFiles(): Promise<string[]> {
  const names = await readdir(EXAMPLE);
  return names.filter((n) => n === "go.mod" || n === "go.sum" || n.endsWith(".go")).sort();
}

async function exampleHash(): Promise<string> {
  return hashOfFiles((await exampleFiles()).map((name) => join(EXAMPLE, name)));
}
