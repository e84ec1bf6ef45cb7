/**
 * Which `pulumi` CLI the end-to-end tests, the demo and the benchmarks run, and how it is built
 * when none is at hand (docs/design/pulumi-cli.md). The version is pinned: the `@pulumi/pulumi` that
 * package-lock.json installs, built from the Go module `test/pulumi-cli/v<version>/`.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import {
  access,
  constants,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { GO_BUILD_TIMEOUT_MS, goBuildEnv, hashOfFiles, releaseBuildArgs } from "./go-build.js";
import { REPO_ROOT } from "./installed-package.js";

const run = promisify(execFile);

/** The Go modules that pin each CLI the tests use, one folder per version (`v3.259.0`). */
export const CLI_MODULES = join(REPO_ROOT, "test", "pulumi-cli");
/** Where the CLIs are built (git-ignored), one folder per version. */
const CLI_BUILDS = join(REPO_ROOT, ".pulumi-cli");
/** Our Node.js language host's Go module, built next to every CLI (docs/design/pulumi-cli.md). */
const LANGUAGE_HOST_MODULE = join(CLI_MODULES, "language-host");
/** The name the CLI looks for next to itself. */
const LANGUAGE_HOST_BINARY = "pulumi-language-nodejs";
/**
 * What a build records next to the CLI: `{version, seconds, host}`, `host` the language host's
 * `{inputs, seconds}` (`inputs` a hash of the sources and flags it was built with, so that a change
 * of them rebuilds the host alone: {@link ensurePulumiCli}).
 */
const BUILD_RECORD = "build.json";

/** The contents of {@link BUILD_RECORD}. */
interface BuildRecord {
  readonly version: string;
  readonly seconds: number;
  readonly host?: { readonly inputs: string; readonly seconds: number };
}

/** How long the build of `.pulumi-cli/v<version>/` took, when it was built here. */
export async function buildSeconds(version: string): Promise<number | undefined> {
  const text = await readFile(join(CLI_BUILDS, `v${version}`, BUILD_RECORD), "utf8").catch(
    () => "",
  );
  return text === "" ? undefined : (JSON.parse(text) as { seconds: number }).seconds;
}

/**
 * Where `pulumi version` reads its version, set by the linker: the SDK's variable in recent
 * releases, pkg's own before (3.139.0 reads pkg's). Both are set; the linker ignores the absent one.
 */
const VERSION_VARIABLES = [
  "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version",
  "github.com/pulumi/pulumi/pkg/v3/version.Version",
];

/** The CLI to run and where it came from. */
export interface PulumiCli {
  /** The `pulumi` executable. */
  readonly path: string;
  /** What `pulumi version` answers, e.g. `v3.259.0`. */
  readonly version: string;
  readonly source: "PULUMI_CLI" | "PATH" | "built";
}

/** The version of `@pulumi/pulumi` that package-lock.json installs, e.g. `3.259.0`. */
export function lockedPulumiVersion(): string {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string }>;
  };
  const version = lock.packages["node_modules/@pulumi/pulumi"]?.version;
  if (version === undefined) throw new Error("package-lock.json installs no @pulumi/pulumi");
  return version;
}

/** The versions that have a Go module under test/pulumi-cli/, oldest first. */
export async function pinnedCliVersions(): Promise<string[]> {
  const names = await readdir(CLI_MODULES);
  return names
    .filter((name) => /^v\d+\.\d+\.\d+$/.test(name))
    .map((name) => name.slice(1))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

/** The sentence a machine with neither a matching `pulumi` nor Go gets. */
export function noCliMessage(version: string): string {
  return (
    `no pulumi CLI v${version} here: set PULUMI_CLI to a pulumi v${version} (or put one on PATH), ` +
    `or install Go 1.26 and run \`npm ci\`, which builds it from test/pulumi-cli/v${version}.`
  );
}

/**
 * The CLI for `version`, without building anything: `PULUMI_CLI` when set (used as it is) and
 * `version` is the lock's, else a `pulumi` on PATH that answers `v<version>`, else the one built
 * into `.pulumi-cli/v<version>/`. Another pinned version (the floor's) never takes `PULUMI_CLI`:
 * its tests are about that very CLI.
 */
export async function findPulumiCli(
  version = lockedPulumiVersion(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<PulumiCli | undefined> {
  if (env.PULUMI_CLI && version === lockedPulumiVersion()) {
    return { path: env.PULUMI_CLI, version: await versionOf(env.PULUMI_CLI), source: "PULUMI_CLI" };
  }
  for (const dir of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    const candidate = join(dir, "pulumi");
    if (!(await isExecutable(candidate))) continue;
    const answered = await versionOf(candidate).catch(() => "");
    if (answered === `v${version}`) return { path: candidate, version: answered, source: "PATH" };
    break;
  }
  const built = join(CLI_BUILDS, `v${version}`, "pulumi");
  if (await isExecutable(built)) return { path: built, version: `v${version}`, source: "built" };
  return undefined;
}

/**
 * The CLI for `version`: found as {@link findPulumiCli} does, else built from its Go module (which
 * needs Go, and the network unless Go's module cache holds every module go.sum names). Throws
 * {@link noCliMessage} when there is no Go to build with. A CLI built here gets its language host
 * rebuilt first when the host's sources (test/pulumi-cli/language-host) or flags changed since.
 */
export async function ensurePulumiCli(
  version = lockedPulumiVersion(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<PulumiCli> {
  const found = await findPulumiCli(version, env);
  if (found?.source === "built") await ensureLanguageHost(version, env);
  if (found) return found;
  if (!(await hasGo(env))) throw new Error(noCliMessage(version));
  await buildPulumiCli(version, env);
  return {
    path: join(CLI_BUILDS, `v${version}`, "pulumi"),
    version: `v${version}`,
    source: "built",
  };
}

/**
 * Builds `.pulumi-cli/v<version>/`: the CLI from `test/pulumi-cli/v<version>` as Pulumi's release
 * build does it, our language host, and the dynamic-provider launcher that `@pulumi/pulumi` ships
 * (linked, so the CLI finds all three next to itself). Built into a new folder that is renamed
 * into place at the end, so a build killed half-way is never mistaken for a finished one.
 */
export async function buildPulumiCli(version: string, env: NodeJS.ProcessEnv = process.env) {
  const target = join(CLI_BUILDS, `v${version}`);
  const partial = `${target}.partial-${process.pid}`;
  const started = Date.now();
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const goEnv = goBuildEnv(env);
  try {
    await run(
      "go",
      [
        ...releaseBuildArgs(ldflagsOf(version)),
        ...["-o", join(partial, "pulumi"), "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"],
      ],
      { cwd: join(CLI_MODULES, `v${version}`), env: goEnv, timeout: GO_BUILD_TIMEOUT_MS },
    );
    const host = await buildLanguageHost(version, join(partial, LANGUAGE_HOST_BINARY), env);
    // The launcher finds the dynamic-provider host from the program's folder, not from here.
    await symlink(
      join(REPO_ROOT, "node_modules", "@pulumi", "pulumi", "pulumi-resource-pulumi-nodejs"),
      join(partial, "pulumi-resource-pulumi-nodejs"),
    );
    // Pulumi's YAML language host, when it is built already (else ensureYamlLanguageHost links it).
    const yamlHost = yamlHostPath();
    if (await isExecutable(yamlHost)) await linkInto(partial, YAML_HOST_BINARY, yamlHost);
    const seconds = Math.round((Date.now() - started) / 1000);
    const record: BuildRecord = { version, seconds, host };
    await writeFile(join(partial, BUILD_RECORD), `${JSON.stringify(record)}\n`);
    await rm(target, { recursive: true, force: true });
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(
      `building pulumi v${version} from test/pulumi-cli/v${version} failed: ${stderr.split("\n").slice(-5).join(" ") || String(error)}`,
      { cause: error },
    );
  }
}

/** The linker flags of a CLI's build and of its language host: the version, no symbols. */
function ldflagsOf(version: string): string {
  return ["-s -w", ...VERSION_VARIABLES.map((v) => `-X ${v}=v${version}`)].join(" ");
}

/**
 * The arguments of `go build` of our language host for the CLI of `version`, but its output: the
 * CLI's version and the CLI's flags, tags included, so that the host shares Go's build cache with
 * CLI 3.259.0 and the SDK generator, whose modules have the same versions (without the tags every
 * package above gRPC compiles again).
 */
function languageHostBuildArgs(version: string): string[] {
  return releaseBuildArgs(ldflagsOf(version));
}

/**
 * A hash of what our language host for the CLI of `version` is built from: its go.mod, go.sum and
 * Go files, and the arguments of its build.
 */
async function languageHostInputs(version: string): Promise<string> {
  const names = (await readdir(LANGUAGE_HOST_MODULE))
    .filter((name) => name === "go.mod" || name === "go.sum" || name.endsWith(".go"))
    .sort();
  return hashOfFiles(
    names.map((name) => join(LANGUAGE_HOST_MODULE, name)),
    languageHostBuildArgs(version).join(" "),
  );
}

/**
 * Builds our language host for the CLI of `version` into `output` (`go build` of
 * test/pulumi-cli/language-host with {@link languageHostBuildArgs}). Returns its record.
 */
async function buildLanguageHost(
  version: string,
  output: string,
  env: NodeJS.ProcessEnv,
): Promise<NonNullable<BuildRecord["host"]>> {
  const started = Date.now();
  const inputs = await languageHostInputs(version);
  const goEnv = goBuildEnv(env);
  await run("go", [...languageHostBuildArgs(version), "-o", output], {
    cwd: LANGUAGE_HOST_MODULE,
    env: goEnv,
    timeout: GO_BUILD_TIMEOUT_MS,
  });
  return { inputs, seconds: Math.round((Date.now() - started) / 1000) };
}

/** One check (and rebuild) of each CLI's language host per process. */
const hostChecks = new Map<string, Promise<void>>();

/**
 * Rebuilds the language host in `.pulumi-cli/v<version>/` when its sources or flags changed since
 * it was built (its build record holds no hash, or another), and no more: the CLI, minutes to build, is
 * kept. The new host is built beside the old one and renamed over it, so a CLI running meanwhile
 * keeps the old one and none ever starts half a file. Without Go the host is kept as it is: it
 * still runs programs, and only what the sources added is missing.
 */
function ensureLanguageHost(version: string, env: NodeJS.ProcessEnv): Promise<void> {
  let check = hostChecks.get(version);
  if (check === undefined) {
    check = rebuildStaleLanguageHost(version, env);
    // A failed check is tried again by the next caller rather than remembered.
    check.catch(() => hostChecks.delete(version));
    hostChecks.set(version, check);
  }
  return check;
}

async function rebuildStaleLanguageHost(version: string, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = join(CLI_BUILDS, `v${version}`);
  const recordPath = join(dir, BUILD_RECORD);
  const text = await readFile(recordPath, "utf8").catch(() => "");
  // A CLI built before build records (or by hand) gets one, its own time unknown.
  const record: BuildRecord = text === "" ? { version, seconds: 0 } : JSON.parse(text);
  const binary = join(dir, LANGUAGE_HOST_BINARY);
  const current = await languageHostInputs(version);
  if (record.host?.inputs === current && (await isExecutable(binary))) return;
  if (!(await hasGo(env))) return;
  const temporary = join(dir, `.${LANGUAGE_HOST_BINARY}.${process.pid}`);
  try {
    const host = await buildLanguageHost(version, temporary, env);
    await rename(temporary, binary);
    const recordTemporary = join(dir, `.${BUILD_RECORD}.${process.pid}`);
    await writeFile(recordTemporary, `${JSON.stringify({ ...record, host })}\n`);
    await rename(recordTemporary, recordPath);
  } catch (error) {
    await rm(temporary, { force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(
      `building the language host of pulumi v${version} from test/pulumi-cli/language-host failed: ${stderr.split("\n").slice(-5).join(" ") || String(error)}`,
      { cause: error },
    );
  }
}

async function versionOf(cli: string): Promise<string> {
  const { stdout } = await run(cli, ["version"], {
    timeout: 30_000,
    env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
  });
  return stdout.trim();
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

/**
 * Pulumi's YAML language host (`runtime: yaml`), pinned by our Go module test/pulumi-cli/yaml-host
 * (docs/design/pulumi-cli.md, "The YAML language host"): one build, `.pulumi-cli/yaml-v<version>/`,
 * linked into the folder of every built CLI, where each CLI looks for its language hosts (also with
 * `PULUMI_IGNORE_AMBIENT_PLUGINS`).
 */
const YAML_HOST_MODULE = join(CLI_MODULES, "yaml-host");
const YAML_HOST_PACKAGE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml";
const YAML_HOST_BINARY = "pulumi-language-yaml";
/** What the host answers to GetPluginInfo, set by the linker as pulumi-yaml's release build does. */
const YAML_VERSION_VARIABLE = "github.com/pulumi/pulumi-yaml/pkg/version.Version";

/** The YAML language host and the version it reports. */
export interface YamlLanguageHost {
  /** The `pulumi-language-yaml` executable (its folder can go on PATH as well). */
  readonly path: string;
  /** The pinned `github.com/pulumi/pulumi-yaml` version, e.g. `v1.25.0`. */
  readonly version: string;
  /** How long its build took, when it was built here. */
  readonly seconds: number | undefined;
}

/** The `github.com/pulumi/pulumi-yaml` version that test/pulumi-cli/yaml-host/go.mod requires. */
export function pinnedYamlHostVersion(): string {
  const goMod = readFileSync(join(YAML_HOST_MODULE, "go.mod"), "utf8");
  const version = /^\s*github\.com\/pulumi\/pulumi-yaml (v\d+\.\d+\.\d+)\b/m.exec(goMod)?.[1];
  if (version === undefined)
    throw new Error("test/pulumi-cli/yaml-host/go.mod requires no pulumi-yaml");
  return version;
}

/** The sentence a machine without Go gets when a test needs the YAML language host. */
export function noYamlHostMessage(version = pinnedYamlHostVersion()): string {
  return (
    `no pulumi-language-yaml ${version} here: install Go 1.26 and run \`npm ci\`, which builds it ` +
    "from test/pulumi-cli/yaml-host (or set PULUMI_CLI to a full Pulumi installation, which has its own)."
  );
}

function yamlHostPath(version = pinnedYamlHostVersion()): string {
  return join(CLI_BUILDS, `yaml-${version}`, YAML_HOST_BINARY);
}

/**
 * Pulumi's YAML language host: built from test/pulumi-cli/yaml-host when missing (Go, and the
 * network unless Go's module cache has every module its go.sum names), then linked next to every
 * CLI built in `.pulumi-cli/`, so that a `runtime: yaml` project runs under each pinned CLI.
 * Throws {@link noYamlHostMessage} when it must be built and there is no Go.
 */
export async function ensureYamlLanguageHost(
  env: NodeJS.ProcessEnv = process.env,
): Promise<YamlLanguageHost> {
  const version = pinnedYamlHostVersion();
  const path = yamlHostPath(version);
  if (!(await isExecutable(path))) {
    if (!(await hasGo(env))) throw new Error(noYamlHostMessage(version));
    await buildYamlLanguageHost(version, env);
  }
  for (const name of await readdir(CLI_BUILDS)) {
    // Finished CLI builds only: a `.partial-<pid>` folder gets the link when it is built.
    if (/^v\d+\.\d+\.\d+$/.test(name))
      await linkInto(join(CLI_BUILDS, name), YAML_HOST_BINARY, path);
  }
  const record = await readFile(join(CLI_BUILDS, `yaml-${version}`, BUILD_RECORD), "utf8").catch(
    () => "",
  );
  const seconds = record === "" ? undefined : (JSON.parse(record) as { seconds: number }).seconds;
  return { path, version, seconds };
}

/**
 * Builds `.pulumi-cli/yaml-v<version>/pulumi-language-yaml` as pulumi-yaml's release build does
 * (`CGO_ENABLED=0`, `-ldflags "-s -w -X .../pkg/version.Version=<version>"`), with `-trimpath`,
 * `GOTOOLCHAIN=local` and `-mod=readonly` as the CLIs; into a new folder renamed into place.
 */
async function buildYamlLanguageHost(version: string, env: NodeJS.ProcessEnv): Promise<void> {
  const target = join(CLI_BUILDS, `yaml-${version}`);
  const partial = `${target}.partial-${process.pid}`;
  const started = Date.now();
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const goEnv = goBuildEnv(env);
  try {
    await run(
      "go",
      [
        ...["build", "-trimpath", "-ldflags", `-s -w -X ${YAML_VERSION_VARIABLE}=${version}`],
        ...["-o", join(partial, YAML_HOST_BINARY), YAML_HOST_PACKAGE],
      ],
      { cwd: YAML_HOST_MODULE, env: goEnv, timeout: GO_BUILD_TIMEOUT_MS },
    );
    const seconds = Math.round((Date.now() - started) / 1000);
    await writeFile(join(partial, BUILD_RECORD), `${JSON.stringify({ version, seconds })}\n`);
    await rm(target, { recursive: true, force: true });
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(
      `building pulumi-language-yaml ${version} from test/pulumi-cli/yaml-host failed: ${stderr.split("\n").slice(-5).join(" ") || String(error)}`,
      { cause: error },
    );
  }
}

/** Makes `dir/name` a link to `target` (a new link renamed over the old, so never half-made). */
async function linkInto(dir: string, name: string, target: string): Promise<void> {
  const link = join(dir, name);
  if ((await readlink(link).catch(() => "")) === target) return;
  const temporary = join(dir, `.${name}.${process.pid}`);
  await rm(temporary, { force: true });
  await symlink(target, temporary);
  await rename(temporary, link);
}
