/**
 * The Go, Python and Node.js SDKs of a Pulumi package schema, generated offline with Pulumi's own
 * code generators (docs/design/pulumi-cli.md, "SDKs of the provider plugin"), and the checks that they
 * build: `go build` of a Go program that imports the Go SDK (GOPROXY=off), `python3 -m compileall`
 * of the Python SDK, `tsc --noEmit` of the Node.js SDK. The generator is our Go program test/sdk-gen, built by `npm ci` into
 * `.pulumi-cli/sdk-gen/` (git-ignored), rebuilt when its sources change.
 */
import { execFile } from "node:child_process";
import {
  access,
  constants,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix, relative, sep } from "node:path";
import { promisify } from "node:util";
import { STEP_BOUNDS_MS } from "./budgets.js";
import { GO_BUILD_TIMEOUT_MS, goBuildEnv, hashOfFiles, releaseBuildArgs } from "./go-build.js";
import { REPO_ROOT } from "./installed-package.js";
import { runStepOrThrow } from "./steps.js";

const run = promisify(execFile);

/** Our generator's Go module, and the Go program module that builds a generated Go SDK. */
const SDK_GEN_MODULE = join(REPO_ROOT, "test", "sdk-gen");
const PROGRAM_GO_MODULE = join(SDK_GEN_MODULE, "program-go");
const BUILD_DIR = join(REPO_ROOT, ".pulumi-cli", "sdk-gen");
const BINARY = "sdk-gen";
/** Its build record: `{inputs, seconds}`, `inputs` a hash of the sources it was built from. */
const BUILD_RECORD = "build.json";
/** Cold, the generator compiles much of Pulumi's pkg/v3 (shared with the CLI's build). */
/** A generated Go SDK builds against the SDK's packages, which `npm ci` compiled already. */
const GO_SDK_TIMEOUT_MS = 15 * 60_000;

/** The generator and how long its build took (when built by this call). */
export interface SdkGen {
  readonly path: string;
  readonly seconds: number | undefined;
  readonly source: "built" | "cached";
}

/** The folders of the SDKs {@link generateSdks} wrote, and the warnings binding the schema gave. */
export interface GeneratedSdks {
  readonly schemaPath: string;
  readonly go: string;
  readonly python: string;
  readonly nodejs: string;
  /** What the generator printed on stderr (schema warnings), one line each. */
  readonly warnings: string[];
}

/** The sentence a machine without Go gets. */
export function noSdkGenMessage(): string {
  return "no SDK generator here: install Go 1.26 and run `npm ci`, which builds test/sdk-gen.";
}

/**
 * The generator: the build in `.pulumi-cli/sdk-gen/` when it was built from the current sources,
 * else built now (Go, and the network unless Go's module cache holds every module go.sum names).
 * The same build also downloads the modules of test/sdk-gen/program-go and compiles its
 * dependencies, so that {@link buildGoSdk} later needs neither the network nor many minutes.
 */
export async function ensureSdkGen(env: NodeJS.ProcessEnv = process.env): Promise<SdkGen> {
  const inputs = await sourcesHash();
  const path = join(BUILD_DIR, BINARY);
  const record = await readFile(join(BUILD_DIR, BUILD_RECORD), "utf8").catch(() => "");
  const built =
    record === "" ? undefined : (JSON.parse(record) as { inputs: string; seconds: number });
  if (built?.inputs === inputs && (await isExecutable(path))) {
    return { path, seconds: built.seconds, source: "cached" };
  }
  if (!(await hasGo(env))) throw new Error(noSdkGenMessage());
  const seconds = await buildSdkGen(inputs, env);
  return { path, seconds, source: "built" };
}

/**
 * Generates the SDKs of the schema at `schemaPath` into `outDir`/go, /python and /nodejs (each
 * emptied first). Throws when the schema does not bind, with every diagnostic in the message.
 */
export async function generateSdks(
  schemaPath: string,
  outDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GeneratedSdks> {
  const { path } = await ensureSdkGen(env);
  const { stderr } = await run(path, ["--schema", schemaPath, "--out", outDir], {
    env,
    timeout: 5 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: unknown) => {
    const output = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(`generating the SDKs of ${schemaPath} failed:\n${output || String(error)}`, {
      cause: error,
    });
  });
  return {
    schemaPath,
    go: join(outDir, "go"),
    python: join(outDir, "python"),
    nodejs: join(outDir, "nodejs"),
    warnings: stderr.split("\n").filter((line) => line.trim() !== ""),
  };
}

/** What {@link buildGoSdk} built. */
export interface GoSdkBuild {
  /** The Go module path of the generated SDK (its go.mod's, or one up from `importBasePath`). */
  readonly modulePath: string;
  /** Every package of the SDK but `internal` ones, each imported by the program that was built. */
  readonly packages: string[];
}

/**
 * Builds the generated Go SDK in `sdks.go` as a user's program would: a copy of
 * test/sdk-gen/program-go in a temporary folder, with a `replace` of the SDK's module by the
 * generated folder and a file that imports every package of it, then `go build ./...` with
 * `GOPROXY=off` and `GOFLAGS=-mod=mod` (so nothing comes from the network, and the committed go.sum
 * must cover every module the SDK imports). When the generator wrote no go.mod (a schema without
 * `meta.supportPack`), one is written into the SDK's folder: the module one up from the schema's
 * `language.go.importBasePath`, where the generator put the package. Throws with Go's output.
 */
export async function buildGoSdk(
  sdks: Pick<GeneratedSdks, "go" | "schemaPath">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GoSdkBuild> {
  const modulePath = await goModulePath(sdks);
  const packages = (await goPackageDirs(sdks.go)).map((dir) =>
    dir === "" ? modulePath : `${modulePath}/${dir.split(sep).join("/")}`,
  );
  if (packages.length === 0) throw new Error(`no Go package in ${sdks.go}`);
  const program = await mkdtemp(join(tmpdir(), "sdk-gen-go-"));
  const goEnv = {
    ...env,
    GOTOOLCHAIN: "local",
    GOPROXY: "off",
    GOFLAGS: [env.GOFLAGS, "-mod=mod"].filter(Boolean).join(" "),
    // As `npm ci` compiled the SDK's packages (test/pulumi-cli/language-host, program-go).
    CGO_ENABLED: "0",
  };
  try {
    for (const name of ["go.mod", "go.sum", "deps.go"]) {
      await copyFile(join(PROGRAM_GO_MODULE, name), join(program, name));
    }
    const imports = packages.map((p) => `\t_ ${JSON.stringify(p)}\n`).join("");
    await writeFile(join(program, "sdk.go"), `package main\n\nimport (\n${imports})\n`);
    const options = { cwd: program, env: goEnv, timeout: GO_SDK_TIMEOUT_MS };
    await run(
      "go",
      ["mod", "edit", `-require=${modulePath}@v0.0.0`, `-replace=${modulePath}=${sdks.go}`],
      options,
    );
    await run("go", ["build", "-trimpath", "./..."], options).catch((error: unknown) => {
      const output = String((error as { stderr?: unknown }).stderr ?? "").trim();
      throw new Error(`the generated Go SDK does not build:\n${output || String(error)}`, {
        cause: error,
      });
    });
    return { modulePath, packages };
  } finally {
    await rm(program, { recursive: true, force: true });
  }
}

/** Byte-compiles the generated Python SDK (`python3 -m compileall -q`); throws with its output. */
export async function compilePythonSdk(
  sdks: Pick<GeneratedSdks, "python">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  await run("python3", ["-m", "compileall", "-q", sdks.python], {
    env,
    timeout: 5 * 60_000,
  }).catch((error: unknown) => {
    const { stdout, stderr } = error as { stdout?: unknown; stderr?: unknown };
    const output = `${String(stdout ?? "")}${String(stderr ?? "")}`.trim();
    throw new Error(`the generated Python SDK does not compile:\n${output || String(error)}`, {
      cause: error,
    });
  });
}

/**
 * Runs this repository's `tsc` on the generated Node.js SDK with its own tsconfig.json and `args`,
 * against this repository's `@pulumi/pulumi`: a `node_modules` link to the repository's for the
 * time of the run. Throws with the compiler's output.
 */
async function tscNodejsSdk(
  sdks: Pick<GeneratedSdks, "nodejs">,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const link = join(sdks.nodejs, "node_modules");
  await symlink(join(REPO_ROOT, "node_modules"), link);
  try {
    await runStepOrThrow(
      join(REPO_ROOT, "node_modules", ".bin", "tsc"),
      ["-p", sdks.nodejs, ...args],
      {
        cwd: sdks.nodejs,
        env,
        boundMs: STEP_BOUNDS_MS.tsc,
        label: "tsc of the generated Node.js SDK",
      },
    ).catch((error: unknown) => {
      const { stdout, stderr } = error as { stdout?: unknown; stderr?: unknown };
      const output = `${String(stdout ?? "")}${String(stderr ?? "")}`.trim();
      throw new Error(
        `the generated Node.js SDK does not type-check:\n${output || String(error)}`,
        {
          cause: error,
        },
      );
    });
  } finally {
    await rm(link, { force: true });
  }
}

/** Type-checks the generated Node.js SDK (`tsc --noEmit`, see {@link tscNodejsSdk}). */
export function typecheckNodejsSdk(
  sdks: Pick<GeneratedSdks, "nodejs">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  return tscNodejsSdk(sdks, ["--noEmit"], env);
}

/**
 * The generated Node.js SDK as a provider's release publishes it: compiled into `bin/` (see
 * {@link tscNodejsSdk}), its package.json copied in with the generator's `${VERSION}` placeholder
 * set to `version` (the plugin version its resources ask the engine for). Returns the package's
 * folder, to copy into a project's `node_modules`.
 */
export async function buildNodejsSdk(
  sdks: Pick<GeneratedSdks, "nodejs">,
  version: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  await tscNodejsSdk(sdks, [], env);
  const manifest = await readFile(join(sdks.nodejs, "package.json"), "utf8");
  const built = join(sdks.nodejs, "bin");
  await writeFile(join(built, "package.json"), manifest.replace(/\$\{VERSION\}/, version));
  return built;
}

/**
 * The Go module path of the generated SDK in `sdks.go`: its go.mod's; when the generator wrote none
 * (a schema without `meta.supportPack`), the module one up from the schema's
 * `language.go.importBasePath`, where the generator put the package, with a go.mod written for it.
 */
export async function goModulePath(
  sdks: Pick<GeneratedSdks, "go" | "schemaPath">,
): Promise<string> {
  const goMod = await readFile(join(sdks.go, "go.mod"), "utf8").catch(() => "");
  const declared = /^module\s+(\S+)/m.exec(goMod)?.[1];
  if (declared !== undefined) return declared;
  const schema = JSON.parse(await readFile(sdks.schemaPath, "utf8")) as {
    name?: string;
    language?: { go?: { importBasePath?: string } };
  };
  // Pulumi's default when the schema names no import path (pkg/v3/codegen/go, ExtractImportBasePath).
  const importBasePath =
    schema.language?.go?.importBasePath ??
    `example.com/pulumi-${schema.name}/sdk/go/${schema.name}`;
  const modulePath = posix.dirname(importBasePath);
  await writeFile(join(sdks.go, "go.mod"), `module ${modulePath}\n\ngo 1.26\n`);
  return modulePath;
}

/**
 * The folders under `root` that hold `.go` files, relative to it ("" for `root` itself), but for
 * `internal` ones (which a program may not import; the packages that import them build them).
 */
async function goPackageDirs(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name.endsWith(".go"))) found.push(relative(root, dir));
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "internal") continue;
      await visit(join(dir, entry.name));
    }
  };
  await visit(root);
  return found.sort();
}

/** A hash of what the generator's binary is built from (and of program-go's modules). */
function sourcesHash(): Promise<string> {
  return hashOfFiles([
    join(SDK_GEN_MODULE, "go.mod"),
    join(SDK_GEN_MODULE, "go.sum"),
    join(SDK_GEN_MODULE, "main.go"),
    join(PROGRAM_GO_MODULE, "go.mod"),
    join(PROGRAM_GO_MODULE, "go.sum"),
    join(PROGRAM_GO_MODULE, "deps.go"),
  ]);
}

/**
 * Builds `.pulumi-cli/sdk-gen/sdk-gen` with the CLI's flags (so it shares the CLI's build cache),
 * and compiles test/sdk-gen/program-go (downloading its modules), into a new folder renamed into
 * place at the end. Returns the seconds it took.
 */
async function buildSdkGen(inputs: string, env: NodeJS.ProcessEnv): Promise<number> {
  const partial = `${BUILD_DIR}.partial-${process.pid}`;
  const started = Date.now();
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const goEnv = goBuildEnv(env);
  try {
    await run("go", [...releaseBuildArgs("-s -w"), ...["-o", join(partial, BINARY), "."]], {
      cwd: SDK_GEN_MODULE,
      env: goEnv,
      timeout: GO_BUILD_TIMEOUT_MS,
    });
    // The modules and compiled packages a generated Go SDK needs, while the network is there.
    await run("go", ["build", "-trimpath", "-o", join(partial, "program-go"), "."], {
      cwd: PROGRAM_GO_MODULE,
      env: goEnv,
      timeout: GO_BUILD_TIMEOUT_MS,
    });
    await rm(join(partial, "program-go"), { force: true });
    const seconds = Math.round((Date.now() - started) / 1000);
    await writeFile(join(partial, BUILD_RECORD), `${JSON.stringify({ inputs, seconds })}\n`);
    await rm(BUILD_DIR, { recursive: true, force: true });
    await rename(partial, BUILD_DIR);
    return seconds;
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(
      `building the SDK generator from test/sdk-gen failed: ${stderr.split("\n").slice(-5).join(" ") || String(error)}`,
      { cause: error },
    );
  }
}

async function hasGo(env: NodeJS.ProcessEnv): Promise<boolean> {
  return run("go", ["version"], { env, timeout: 30_000 }).then(
    () => true,
    () => false,
  );
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}
