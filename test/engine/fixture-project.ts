/**
 * Test support: a throw-away Pulumi project whose `main` is the `files` fixture program, with its
 * own stack file, state directory, files directory and provider-operations log, so every test
 * starts from nothing (or from a {@link FixtureProject.clone} of a prepared project, which saves
 * the seconds of an `up`) and cleans up after itself.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readState, runEngine } from "./index.js";
import { newEncryptionSalt } from "./secrets.js";
import type { StackState } from "./state.js";
import type { EngineOptions, EngineResult } from "./types.js";

/** The passphrase of every test stack. */
export const PASSPHRASE = "engine-stand-in-test-passphrase";

const FIXTURES = path.join(__dirname, "fixtures");
const REPO = path.resolve(__dirname, "..", "..");

// One salt for all test stacks: deriving a key costs a quarter of a second, and it is cached per salt.
let salt: Promise<string> | undefined;
function sharedSalt(): Promise<string> {
  salt ??= newEncryptionSalt(PASSPHRASE).then((s) => s.encryptionsalt);
  return salt;
}

/** One file resource of the `files` fixture, as a test describes it in its `fixture:files` config. */
export interface FileSpec {
  name: string;
  /** Relative to `FIXTURE_DIR`; it is the resource's id, and a change replaces the resource. */
  path: string;
  /**
   * Literal content. `invalid:...` makes check fail; `diff-throws` makes diff throw; `hang` makes
   * create wait forever (for a run killed in the middle of a create).
   */
  content?: string;
  /** Take the content from the computed `digest` output of the named file (unknown in preview). */
  contentFrom?: string;
  /** Take the content from the secret config value `fixture:secret`. */
  secretContent?: boolean;
  /** Have diff answer with `changes` undefined, so the engine compares inputs itself. */
  diffUnknown?: boolean;
  dependsOn?: string[];
  deleteBeforeReplace?: boolean;
  protect?: boolean;
  retainOnDelete?: boolean;
  replaceOnChanges?: string[];
  ignoreChanges?: string[];
}

/** One provider call recorded by the fixture's provider. */
export interface RecordedOp {
  op: "configure" | "check" | "diff" | "create" | "read" | "update" | "delete";
  label: string;
  [key: string]: unknown;
}

/** Options of {@link FixtureProject.run}: the files to declare, plus any engine option. */
export type RunOptions = Partial<Omit<EngineOptions, "command" | "cwd">> & { files?: FileSpec[] };

/** A temporary project running the `files` fixture. */
export class FixtureProject {
  private constructor(
    /** The project directory (Pulumi.yaml, Pulumi.dev.yaml). */
    readonly cwd: string,
    /** Where the fixture's files are written. */
    readonly filesDir: string,
    /** The provider's operations log (JSON lines). */
    readonly opsLog: string,
    /** The state directory. */
    readonly stateDir: string,
  ) {}

  private static at(cwd: string): FixtureProject {
    return new FixtureProject(
      cwd,
      path.join(cwd, "files"),
      path.join(cwd, "ops.jsonl"),
      path.join(cwd, "state"),
    );
  }

  /** Creates the project, its stack file (with the shared salt) and its directories. */
  static async create(): Promise<FixtureProject> {
    const cwd = await fs.promises.mkdtemp(path.join(os.tmpdir(), "engine-test-"));
    const project = FixtureProject.at(cwd);
    await fs.promises.mkdir(project.filesDir);
    await fs.promises.writeFile(
      path.join(cwd, "Pulumi.yaml"),
      [
        "name: engine-test",
        "runtime:",
        "  name: nodejs",
        "  options:",
        "    typescript: true",
        `main: ${path.join(FIXTURES, "files", "index.ts")}`,
        "",
      ].join("\n"),
    );
    await fs.promises.writeFile(
      path.join(cwd, "Pulumi.dev.yaml"),
      `encryptionsalt: ${await sharedSalt()}\n`,
    );
    return project;
  }

  /**
   * A new project with this one's stack file, state and files (not its operations log): the
   * fixture's state holds no absolute path, so the copy is the same stack in another directory.
   */
  async clone(): Promise<FixtureProject> {
    const cwd = await fs.promises.mkdtemp(path.join(os.tmpdir(), "engine-test-"));
    await fs.promises.cp(this.cwd, cwd, {
      recursive: true,
      filter: (src) => src !== this.opsLog,
    });
    return FixtureProject.at(cwd);
  }

  /** The environment every run gets: the files and ops log, the passphrase, transpile-only TS. */
  get env(): Record<string, string> {
    return {
      FIXTURE_DIR: this.filesDir,
      FIXTURE_OPS_LOG: this.opsLog,
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      // Type-checking the fixture costs ~6 s per run; `tsc` checks it once for the whole repo.
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    };
  }

  /** Runs one engine command with `files` as the `fixture:files` config. */
  run(command: EngineOptions["command"], options: RunOptions = {}): Promise<EngineResult> {
    const { files, config, env, ...rest } = options;
    return runEngine({
      command,
      cwd: this.cwd,
      stateDir: this.stateDir,
      timeoutMs: 60_000,
      ...rest,
      env: { ...this.env, ...env },
      config: {
        ...(files ? { "fixture:files": { value: JSON.stringify(files) } } : {}),
        ...config,
      },
    });
  }

  /** The provider calls recorded so far, `configure` aside (see {@link configuredStamps}). */
  ops(): RecordedOp[] {
    return this.records().filter((o) => o.op !== "configure");
  }

  /** The `fixture:stamp` each configure of a provider host received, in order. */
  configuredStamps(): Array<string | null> {
    return this.records()
      .filter((o) => o.op === "configure")
      .map((o) => (typeof o.stamp === "string" ? o.stamp : null));
  }

  private records(): RecordedOp[] {
    if (!fs.existsSync(this.opsLog)) return [];
    return fs
      .readFileSync(this.opsLog, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as RecordedOp);
  }

  /** Forgets the recorded calls (to look at one run only). */
  clearOps(): void {
    fs.rmSync(this.opsLog, { force: true });
  }

  /** Path of a file the fixture manages. */
  file(name: string): string {
    return path.join(this.filesDir, name);
  }

  /** The stack's state, secrets decrypted. */
  state(): Promise<StackState> {
    return readState(path.join(this.stateDir, "dev.json"), { passphrase: PASSPHRASE });
  }

  /** The raw state file's text. */
  stateText(): string {
    return fs.readFileSync(path.join(this.stateDir, "dev.json"), "utf8");
  }

  /** Removes the project directory. */
  async cleanup(): Promise<void> {
    await fs.promises.rm(this.cwd, { recursive: true, force: true });
  }
}

/** What a CLI run printed and how it exited. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI (`tsx test/engine/cli.ts ...`) as `npm run engine` would, bounded by `timeoutMs`;
 * the child is killed if it outlives the bound.
 */
export async function runCli(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> {
  const tsx = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");
  const child = spawn(process.execPath, [tsx, path.join(__dirname, "cli.ts"), ...args], {
    cwd: REPO,
    env: { ...process.env, INIT_CWD: REPO, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("exit", (c) => resolve(c));
      child.once("error", reject);
      timer = setTimeout(
        () => reject(new Error(`the CLI did not finish within ${options.timeoutMs ?? 60_000} ms`)),
        options.timeoutMs ?? 60_000,
      );
    });
    return { code, stdout, stderr };
  } finally {
    if (timer) clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}
