import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  startTenantApi,
  type TenantApi,
  type TenantApiOptions,
} from "../../provider/local-tenant/index.js";
import { budget } from "./budgets.js";
import { type InstalledProject, installPackedPackage } from "./installed-package.js";
import { type PluginTarball, packedPluginTarball } from "./plugin.js";
import {
  type ConfigValues,
  type ProjectOptions,
  type PulumiCommand,
  PulumiProject,
  type PulumiResult,
  type RunOptions,
} from "./pulumi.js";
import { tenantConfig } from "./stack-config.js";

export type { ConfigValues } from "./pulumi.js";
export { credentialTexts, tenantConfig, tenantExampleConfig } from "./stack-config.js";

/** The folder of an example program. */
export const example = (name: string): string => resolve(__dirname, "..", "..", "examples", name);

/** Options of one run of a {@link Stack}: the CLI's flags, and config over the stack's. */
export type StackRunOptions = RunOptions & { config?: ConfigValues };

/** A local tenant API and a Pulumi project of a program pointed at it, run by the real CLI. */
export interface Stack {
  readonly api: TenantApi;
  readonly project: PulumiProject;
  /**
   * Runs the CLI with the tenant's credentials (the secret as a secret), the stack's `config` and
   * `options.config` over both, as the stack's config for this run.
   */
  run(command: PulumiCommand, options?: StackRunOptions): Promise<PulumiResult>;
  /** The state file's text, for searching it. */
  stateText(): Promise<string>;
  /** Management API writes (PUT, PATCH, DELETE) since the last `resetStats`. */
  writes(): number;
  stop(): Promise<void>;
}

/** Management API writes (PUT, PATCH, DELETE) `api` received since its stats were reset. */
export function writesTo(api: TenantApi): number {
  return Object.entries(api.stats().byRoute)
    .filter(([route]) => /^(PUT|PATCH|DELETE) \/api\/v2\//.test(route))
    .reduce((sum, [, count]) => sum + count, 0);
}

/** Which CLI runs a {@link Stack}, and under which Node.js line; by default the lock's and 22. */
export type StackRuntime = Pick<ProjectOptions, "cliVersion" | "nodeLine">;

/**
 * Starts a local tenant API and, at the first run, makes a Pulumi project of `program` (an
 * example's folder or a program file) against it, run by the CLI and under the Node.js line that
 * `runtime` names. Each test gets its own tenant, backend and stack: nothing carries over between
 * tests.
 */
export async function startStack(
  program: string,
  config: ConfigValues,
  apiOptions: TenantApiOptions = {},
  runtime: StackRuntime = {},
): Promise<Stack> {
  const api = await startTenantApi(apiOptions);
  // The project is made at the first run, so a test may write the program after starting.
  let made: PulumiProject | undefined;
  let making: Promise<PulumiProject> | undefined;
  const project = () => {
    making ??= PulumiProject.create({
      program,
      config: { ...tenantConfig(api), ...config },
      ...runtime,
    }).then((created) => {
      made = created;
      return created;
    });
    return making;
  };
  return {
    api,
    get project() {
      if (made === undefined)
        throw new Error("the stack has not run yet: its project is made then");
      return made;
    },
    run: async (command, { config: extra, ...options } = {}) =>
      (await project()).run(command, { ...tenantConfig(api), ...config, ...extra }, options),
    stateText: async () => (made ? made.stateText() : ""),
    writes: () => writesTo(api),
    stop: async () => {
      await api.stop();
      await (await making?.catch(() => undefined))?.remove();
    },
  };
}

/**
 * The packed package installed in a fresh user project (installPackedPackage) with TypeScript, the
 * lock's copy `pulumi` of `@pulumi/pulumi`, and the program of `example` copied in: a user's
 * project, outside the repository.
 */
export async function installedExample(
  name: string,
  pulumi = "@pulumi/pulumi",
): Promise<InstalledProject> {
  const project = await installPackedPackage(["typescript", "ts-node"], pulumi);
  try {
    for (const file of ["index.ts", "Pulumi.yaml"]) {
      await copyFile(join(example(name), file), join(project.dir, file));
    }
    const manifest = JSON.parse(await readFile(join(project.dir, "package.json"), "utf8"));
    // The example's `type` says how Node.js loads it: "module" for its own type stripping.
    const { type } = JSON.parse(await readFile(join(example(name), "package.json"), "utf8"));
    await writeFile(
      join(project.dir, "package.json"),
      JSON.stringify({ ...manifest, ...(type ? { type } : {}), main: "index.ts" }, null, 2),
    );
    return project;
  } catch (error) {
    await project.remove();
    throw error;
  }
}

/** Writes a clients file for the clients-from-data example into a temp folder; returns its path. */
export async function clientsFile(
  entries: unknown[],
): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-e2e-clients-"));
  const path = join(dir, "clients.json");
  await writeFile(path, JSON.stringify(entries, null, 2));
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Undoes what each test started, after the test, in reverse order: returns the function with
 * which a test registers one undo step (stopping a stack, removing a file).
 */
export function undoAfterEach(): (undo: () => Promise<void>) => void {
  const steps: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of steps.splice(0).reverse()) await step();
  });
  return (undo) => {
    steps.push(undo);
  };
}

/** A stack of the clients-from-data example and the clients file its runs read. */
interface ClientsStack {
  readonly stack: Stack;
  /** Runs the CLI as {@link Stack.run} does, with the clients file last written as the config's. */
  run(command: PulumiCommand, options?: StackRunOptions): Promise<PulumiResult>;
  /** Writes `entries` as the clients file of the next runs (each file its own temp folder). */
  write(entries: unknown[]): Promise<void>;
}

/**
 * Stacks of the clients-from-data example for one test file, so that each step of a test only
 * rewrites a JSON file: returns the function that starts one on a clients file holding `entries`
 * (with `apiOptions` for its local tenant). The stack and every file written are removed after
 * each test.
 */
export function useClientsStacks(): (
  entries: unknown[],
  apiOptions?: TenantApiOptions,
) => Promise<ClientsStack> {
  const undo = undoAfterEach();
  return async (entries, apiOptions = {}) => {
    let file = "";
    const write = async (next: unknown[]) => {
      const written = await clientsFile(next);
      undo(written.remove);
      file = written.path;
    };
    await write(entries);
    const stack = await startStack(example("clients-from-data"), {}, apiOptions);
    undo(stack.stop);
    return {
      stack,
      run: (command, options = {}) =>
        stack.run(command, {
          ...options,
          config: { ...options.config, "clients-from-data:file": { value: file } },
        }),
      write,
    };
  };
}

/**
 * The packed plugin for one test file: made before its first test (one install of the packed
 * package and its `plugin` command), removed after its last. Returns the getter the tests use.
 */
export function usePackedPlugin(): () => PluginTarball {
  let plugin: PluginTarball | undefined;
  beforeAll(
    async () => {
      plugin = await packedPluginTarball();
    },
    budget({ installs: 1, node: 1 }),
  );
  afterAll(async () => {
    await plugin?.remove();
  });
  return () => {
    if (plugin === undefined)
      throw new Error("the packed plugin is made before the file's first test");
    return plugin;
  };
}
