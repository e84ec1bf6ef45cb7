/**
 * The program the benchmarks run, as a user has it: the packed package installed offline in a
 * fresh project (test/support/installed-package.ts) with the clients-from-data example copied in,
 * its clients file written by the benchmark, and its own state folder.
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { EngineOptions } from "../engine/index.js";
import { installPackedPackage } from "../support/installed-package.js";
import type { TenantApi } from "../tenant-api/index.js";

/** Passphrase of the benchmarks' stacks. */
export const PASSPHRASE = "bench-passphrase";

const EXAMPLE = resolve(__dirname, "..", "..", "examples", "clients-from-data");

/** One managed client: its id and the settings the program declares. */
export interface DeclaredClient {
  readonly clientId: string;
  readonly description: string;
}

/** The installed clients-from-data program and its stack. */
export interface BenchProgram {
  /** Writes the clients file: one ClientSettings per entry, named `client-<i>`. */
  declare(clients: readonly DeclaredClient[]): Promise<void>;
  /** What every engine run of this program needs, against `api`, on the stack `stack`. */
  engineOptions(api: TenantApi, stack: string): Omit<EngineOptions, "command">;
  remove(): Promise<void>;
}

/** Installs the program in a fresh project outside the repository. */
export async function installBenchProgram(): Promise<BenchProgram> {
  const project = await installPackedPackage(["typescript", "ts-node"]);
  const cwd = join(project.dir, "program");
  await mkdir(cwd);
  for (const file of ["index.ts", "Pulumi.yaml", "package.json"]) {
    await copyFile(join(EXAMPLE, file), join(cwd, file));
  }
  const scratch = await mkdtemp(join(tmpdir(), "tenant-bench-"));
  const dataFile = join(scratch, "clients.json");
  return {
    declare: (clients) =>
      writeFile(
        dataFile,
        JSON.stringify(
          clients.map(({ clientId, description }, i) => ({
            name: `client-${i}`,
            clientId,
            settings: { description },
          })),
        ),
      ),
    engineOptions: (api, stack) => ({
      cwd,
      stack,
      stateDir: join(scratch, "state"),
      timeoutMs: 900_000,
      config: {
        "tenant:domain": { value: api.domain },
        "tenant:clientId": { value: api.clientId },
        "tenant:clientSecret": { value: api.clientSecret, secret: true },
        "clients-from-data:file": { value: dataFile },
      },
      // Program type-checking (ts-node) is the program's cost, not the provider's: left out here.
      // Diff runs one resource at a time, as for a user who has not opted into parallel diffs.
      env: {
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
        PULUMI_NODEJS_TRANSPILE_ONLY: "true",
        PULUMI_PARALLEL_DIFF: "false",
      },
    }),
    remove: async () => {
      await rm(scratch, { recursive: true, force: true });
      await project.remove();
    },
  };
}
