/**
 * The tests' Python environment (docs/design/plugin.md, "Python"): a virtual environment made by `npm ci`
 * from test/python/requirements.txt, pinned and hash-checked (Pulumi's Python SDK, what the
 * generated SDK needs, what the release builds its wheel with), and beside it the wheels of every
 * requirement, so that a test makes a fresh virtual environment and installs a wheel into it with
 * no network ({@link freshVirtualEnv}). On a machine without Python 3.10 or later, `npm ci` says so
 * in one sentence ({@link noPythonMessage}) and the Python tests stop with it.
 */
import { execFile } from "node:child_process";
import { access, constants, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { PYTHON_ENV_DIR, pythonInEnv } from "../../provider/plugin/release/checkout.js";
import { hashOfFiles } from "./go-build.js";
import { REPO_ROOT } from "./installed-package.js";

const run = promisify(execFile);

/** The pinned, hash-checked requirements (pip-compile's output) and their source. */
const REQUIREMENTS = join(REPO_ROOT, "test", "python", "requirements.txt");
/** The oldest Python the generated SDK and Pulumi's Python SDK run on. */
const MIN_PYTHON: readonly [number, number] = [3, 10];
/** The folder's record of what it was made from: `{inputs, python, seconds}`. */
const RECORD = "build.json";
/** Downloads and installs of about 30 MB of wheels; minutes on a slow network. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** The environment {@link ensurePythonEnv} made. */
export interface PythonEnv {
  /** The virtual environment's interpreter. */
  readonly python: string;
  /** The interpreter the environment was made with, e.g. `3.11.7`. */
  readonly version: string;
  /** The wheels of every requirement: `pip install --no-index --find-links` takes them. */
  readonly wheels: string;
  readonly source: "built" | "cached";
  readonly seconds: number | undefined;
}

/** The sentence a machine without a usable Python gets, at `npm ci` and in the Python tests. */
export function noPythonMessage(): string {
  return (
    `no Python ${MIN_PYTHON.join(".")} or later with venv and pip here (set PYTHON to one): ` +
    "install it and run `npm ci`, which makes the Python environment of the tests."
  );
}

/** What {@link RECORD} holds: the hash of the requirements, the interpreter's version, the seconds. */
interface BuildRecord {
  readonly inputs: string;
  readonly version: string;
  readonly seconds: number;
}

/**
 * The environment in `dir` (`.pulumi-cli/python/`): reused when it was made from the current
 * requirements, else made now (with the network: pip downloads the wheels, checks each against its hash and
 * installs them). The interpreter is `PYTHON` when set, else `python3` from PATH.
 *
 * @throws the sentence of {@link noPythonMessage} when no Python of 3.10 or later with `venv` is
 *   found; pip's own output when a download or a hash check fails.
 */
export async function ensurePythonEnv(
  env: NodeJS.ProcessEnv = process.env,
  dir: string = PYTHON_ENV_DIR,
): Promise<PythonEnv> {
  const inputs = await hashOfFiles([REQUIREMENTS]);
  const wheels = join(dir, "wheels");
  const python = pythonInEnv(dir);
  const text = await readFile(join(dir, RECORD), "utf8").catch(() => "");
  const record = text === "" ? undefined : (JSON.parse(text) as BuildRecord);
  if (record?.inputs === inputs && (await isExecutable(python))) {
    return { python, version: record.version, wheels, source: "cached", seconds: record.seconds };
  }
  const base = await basePython(env);
  if (base === undefined) throw new Error(noPythonMessage());
  const started = Date.now();
  // A virtual environment cannot move (its scripts name its own path): it is made in place, and
  // the record, written last, says that it is whole.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    await run(base.path, ["-m", "venv", join(dir, "venv")], { env, timeout: 120_000 });
    const pip = [python, "-m", "pip", "--disable-pip-version-check", "--no-input"] as const;
    await pythonStep(pip[0], [...pip.slice(1), "download", "--require-hashes", "--no-deps"], {
      args: ["-r", REQUIREMENTS, "-d", wheels],
      env,
      what: "downloading the wheels of test/python/requirements.txt",
    });
    await pythonStep(pip[0], [...pip.slice(1), "install", "--no-index", "--require-hashes"], {
      args: ["--find-links", wheels, "-r", REQUIREMENTS],
      env,
      what: "installing test/python/requirements.txt",
    });
    const seconds = Math.round((Date.now() - started) / 1000);
    const made: BuildRecord = { inputs, version: base.version, seconds };
    await writeFile(join(dir, RECORD), `${JSON.stringify(made)}\n`);
    return { python, version: base.version, wheels, source: "built", seconds };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Makes a new, empty virtual environment in `dir` (from the interpreter of `pythonEnv`) and
 * installs `packages` into it from files and the environment's wheels alone (`--no-index`): what
 * a user's `pip install` of the wheel does, without the network. Returns its interpreter.
 */
export async function freshVirtualEnv(
  pythonEnv: PythonEnv,
  dir: string,
  packages: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  await run(pythonEnv.python, ["-m", "venv", "--without-pip", dir], { env, timeout: 120_000 });
  const python = join(dir, "bin", "python");
  // The environment's pip installs into the new one (`--python`, pip 22.3 or later): the new
  // environment needs no pip of its own, which saves the seconds of ensurepip.
  await pythonStep(pythonEnv.python, ["-m", "pip", "--python", python, "install", "--no-index"], {
    args: ["--find-links", pythonEnv.wheels, "--disable-pip-version-check", ...packages],
    env,
    what: `installing ${packages.join(", ")} into a fresh virtual environment`,
  });
  return python;
}

/** The first of `PYTHON`, `python3` that is 3.10 or later and has `venv`, with its version. */
async function basePython(
  env: NodeJS.ProcessEnv,
): Promise<{ path: string; version: string } | undefined> {
  const probe = "import sys, venv, ensurepip; print('.'.join(map(str, sys.version_info[:3])))";
  for (const candidate of [env.PYTHON, "python3"]) {
    if (candidate === undefined || candidate === "") continue;
    const version = await run(candidate, ["-c", probe], { env, timeout: 30_000 }).then(
      ({ stdout }) => stdout.trim(),
      () => undefined,
    );
    if (version === undefined) continue;
    const [major = 0, minor = 0] = version.split(".").map(Number);
    if (major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1])) {
      return { path: candidate, version };
    }
  }
  return undefined;
}

/** Runs one Python step, bounded; a failure throws with `what` and the step's last lines. */
async function pythonStep(
  python: string,
  command: readonly string[],
  options: { args: readonly string[]; env: NodeJS.ProcessEnv; what: string },
): Promise<void> {
  await run(python, [...command, ...options.args], {
    env: options.env,
    timeout: INSTALL_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: unknown) => {
    const { stdout, stderr } = error as { stdout?: unknown; stderr?: unknown };
    const output = `${String(stdout ?? "")}${String(stderr ?? "")}`.trim().split("\n").slice(-8);
    throw new Error(`${options.what} failed:\n${output.join("\n") || String(error)}`, {
      cause: error,
    });
  });
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** One finding of pyright's: where, how bad, and its message's first line. */
export interface PyrightFinding {
  readonly file: string;
  readonly line: number;
  readonly severity: "error" | "warning" | "information";
  readonly message: string;
  readonly rule: string | undefined;
}

/**
 * Type-checks `files` with pyright (the npm package, this repository's devDependency: no download)
 * against the packages of the virtual environment whose interpreter is `python`, in pyright's
 * default (basic) mode, as a user's editor would. Returns its findings; lines count from 1.
 * `cwd` is pyright's execution root: a package in that folder is importable, as in a user's project.
 */
export async function pyright(
  python: string,
  files: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<PyrightFinding[]> {
  const bin = join(REPO_ROOT, "node_modules", ".bin", "pyright");
  // pyright exits 1 when it finds an error: its report is on stdout either way.
  const { stdout } = await run(bin, ["--outputjson", "--pythonpath", python, ...files], {
    cwd,
    env,
    timeout: 5 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: unknown) => {
    const { stdout: out } = error as { stdout?: unknown };
    if (typeof out === "string" && out.trimStart().startsWith("{")) return { stdout: out };
    throw error;
  });
  const report = JSON.parse(stdout) as {
    generalDiagnostics: Array<{
      file: string;
      severity: PyrightFinding["severity"];
      message: string;
      range: { start: { line: number } };
      rule?: string;
    }>;
  };
  return report.generalDiagnostics.map((d) => ({
    file: d.file,
    line: d.range.start.line + 1,
    severity: d.severity,
    message: d.message.split("\n")[0] ?? "",
    rule: d.rule,
  }));
}
