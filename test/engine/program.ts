/**
 * The Pulumi program, run by Pulumi's own Node.js language runtime (`@pulumi/pulumi/cmd/run`) with
 * the arguments and environment that `pulumi-language-nodejs` gives it: `--monitor`, `--engine`,
 * `--project`, `--stack`, `--organization`, `--pwd`, `--root-directory`, `--parallel`,
 * `--dry-run`, and `PULUMI_CONFIG` / `PULUMI_CONFIG_SECRET_KEYS` / `PULUMI_NODEJS_TYPESCRIPT`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";
import type { ConfigValue, ProjectInfo } from "./config.js";
import { stopChild } from "./provider-host.js";

/** How to run the program. */
export interface ProgramOptions {
  sdkDir: string;
  project: ProjectInfo;
  stack: string;
  organization: string;
  monitorAddress: string;
  engineAddress: string;
  dryRun: boolean;
  parallel: number;
  config: Record<string, ConfigValue>;
  env: NodeJS.ProcessEnv;
  /** Each line the program prints (console output, and whatever the runtime prints itself). */
  onLine: (stream: "stdout" | "stderr", line: string) => void;
}

/** How the program ended. */
export interface ProgramExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The running program. */
export class ProgramProcess {
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ProgramExit>;

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise<ProgramExit>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", () => resolve({ code: -1, signal: null }));
    });
  }

  /** The program's process id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Starts the program. */
  static start(options: ProgramOptions): ProgramProcess {
    const { project } = options;
    const script = path.join(options.sdkDir, "cmd", "run", "index.js");
    const args = [
      script,
      `--monitor=${options.monitorAddress}`,
      `--engine=${options.engineAddress}`,
      `--project=${project.name}`,
      `--stack=${options.stack}`,
      `--organization=${options.organization}`,
      `--pwd=${project.programDir}`,
      `--root-directory=${project.dir}`,
      `--parallel=${options.parallel}`,
      ...(options.dryRun ? ["--dry-run"] : []),
      project.program,
    ];
    const config: Record<string, string> = {};
    const secretKeys: string[] = [];
    for (const [k, v] of Object.entries(options.config)) {
      config[k] = v.value;
      if (v.secret) secretKeys.push(k);
    }
    const child = spawn(process.execPath, args, {
      cwd: project.programDir,
      env: {
        ...options.env,
        PULUMI_CONFIG: JSON.stringify(config),
        PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secretKeys),
        ...(project.typescript ? { PULUMI_NODEJS_TYPESCRIPT: "true" } : {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of ["stdout", "stderr"] as const) {
      const input = child[stream];
      if (input) readline.createInterface({ input }).on("line", (l) => options.onLine(stream, l));
    }
    return new ProgramProcess(child);
  }

  /**
   * Kills the program at once (SIGKILL): after a failed step the SDK can spend about 40 s
   * formatting the error, and nothing it would still do matters.
   */
  async kill(): Promise<void> {
    await stopChild(this.child, 0);
  }
}
