/**
 * The program the benchmarks run, as a user has it: the packed package installed offline in a
 * fresh project (test/support/installed-package.ts) with the clients-from-data example copied in,
 * its clients file written by the benchmark. Each stack is a {@link PulumiProject} of its own (own
 * temporary folder, file backend and PULUMI_HOME) whose `main:` points at that program, run by the
 * real `pulumi` CLI (docs/design/pulumi-cli.md).
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTenantApi, type TenantApi } from "../../provider/local-tenant/index.js";
import { newClientId, type SeedClient } from "../../provider/local-tenant/seed.js";
import { installPackedPackage } from "../support/installed-package.js";
import { PulumiProject } from "../support/pulumi.js";
import { tenantConfig } from "../support/stack-config.js";
import { type Distance, RequestLog } from "./measure.js";

const EXAMPLE = resolve(__dirname, "..", "..", "examples", "clients-from-data");

/** One managed client: its id and the settings the program declares. */
export interface DeclaredClient {
  readonly clientId: string;
  readonly description: string;
}

/**
 * The tenant's clients of the stack benchmarks: `count` regular web applications, each with a
 * description and a callback of its own.
 */
export function seedClients(count: number): SeedClient[] {
  return Array.from({ length: count }, (_, i) => ({
    client_id: newClientId(),
    name: `Application ${i}`,
    app_type: "regular_web",
    description: `seeded application ${i}`,
    callbacks: [`https://app-${i}.example.com/callback`],
  }));
}

/**
 * What the benchmarks' programs declare of `seeded`: one description differing on each client
 * (run.ts's scenario 1), or, `revised`, differing again (its scenario 3).
 */
export function declaredClients(seeded: readonly SeedClient[], revised = false): DeclaredClient[] {
  return seeded.map((client, i) => ({
    clientId: String(client.client_id),
    description: `managed application ${i}${revised ? ", revised" : ""}`,
  }));
}

/**
 * A tenant of `seeded` limited to `rateLimit`, `distance` away (loopback by default), and the log
 * of its requests (measure.ts).
 */
export async function startBenchTenant(
  seeded: SeedClient[],
  rateLimit: { rate: number; burst: number },
  distance?: Distance,
): Promise<{ api: TenantApi; requests: RequestLog }> {
  const requests = new RequestLog();
  const api = await startTenantApi({
    seed: { clients: seeded },
    rateLimit,
    networkDelay: distance?.networkDelay,
    onRequest: requests.record,
    onAnswer: requests.answer,
  });
  return { api, requests };
}

/** The installed clients-from-data program. */
export interface BenchProgram {
  /**
   * The user project the packed package is installed in: its `node_modules`, and the installed
   * `pulumi-tenant` command that writes the plugin tarball and generates programs.
   */
  readonly projectDir: string;
  /** The program's folder, inside the user project (its node_modules is one level up). */
  readonly dir: string;
  /** Writes the clients file: one ClientSettings per entry, named `client-<i>`. */
  declare(clients: readonly DeclaredClient[]): Promise<void>;
  /**
   * A new stack of the program against `api`: its project, made with the tenant's credentials (the
   * secret as a secret) and the clients file in its config.
   */
  stack(api: TenantApi, stack: string): Promise<PulumiProject>;
  remove(): Promise<void>;
}

/** Installs the program in a fresh project outside the repository. */
export async function installBenchProgram(): Promise<BenchProgram> {
  const project = await installPackedPackage(["typescript", "ts-node"]);
  const dir = join(project.dir, "program");
  await mkdir(dir);
  for (const file of ["index.ts", "Pulumi.yaml", "package.json"]) {
    await copyFile(join(EXAMPLE, file), join(dir, file));
  }
  const scratch = await mkdtemp(join(tmpdir(), "tenant-bench-"));
  const dataFile = join(scratch, "clients.json");
  const stacks: PulumiProject[] = [];
  return {
    projectDir: project.dir,
    dir,
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
    stack: async (api, stack) => {
      const made = await PulumiProject.create({
        program: dir,
        stack,
        config: { ...tenantConfig(api), "clients-from-data:file": { value: dataFile } },
      });
      stacks.push(made);
      return made;
    },
    remove: async () => {
      for (const made of stacks.splice(0)) await made.remove();
      await rm(scratch, { recursive: true, force: true });
      await project.remove();
    },
  };
}
