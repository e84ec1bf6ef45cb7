import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach } from "vitest";
import {
  type EngineCommand,
  type EngineOptions,
  type EngineResult,
  runEngine,
  stateFilePath,
} from "../engine/index.js";
import { startTenantApi, type TenantApi, type TenantApiOptions } from "../tenant-api/index.js";
import { DEFAULT_SEED_IDS } from "../tenant-api/seed.js";

/** The folder of an example program. */
export const example = (name: string): string => resolve(__dirname, "..", "..", "examples", name);

/** Passphrase for the engine stand-in's secrets in tests. */
export const PASSPHRASE = "e2e-passphrase";

/** A local tenant API, a private state folder, and the engine pointed at both. */
export interface Stack {
  readonly api: TenantApi;
  readonly stateDir: string;
  readonly stack: string;
  /** Runs the engine on `cwd` with the tenant's credentials (a secret) and `config`. */
  run(command: EngineCommand, options?: Partial<EngineOptions>): Promise<EngineResult>;
  /** The state file's text, for searching it. */
  stateText(): Promise<string>;
  /** Management API writes (PUT, PATCH, DELETE) since the last `resetStats`. */
  writes(): number;
  stop(): Promise<void>;
}

export type ConfigValues = Record<string, { value: string; secret?: boolean }>;

/** The stack config that the tenant example needs, for the default seed. */
export function tenantExampleConfig(): ConfigValues {
  return {
    "tenant-example:portalClientId": { value: DEFAULT_SEED_IDS.regularWeb },
    "tenant-example:dashboardClientId": { value: DEFAULT_SEED_IDS.spa },
    "tenant-example:staleEventStreamId": { value: DEFAULT_SEED_IDS.webhookStream },
  };
}

/**
 * Starts a local tenant API and prepares a stack of the program in `cwd` against it. Each test
 * gets its own tenant and state: nothing carries over between tests.
 */
export async function startStack(
  cwd: string,
  config: ConfigValues,
  apiOptions: TenantApiOptions = {},
): Promise<Stack> {
  const api = await startTenantApi(apiOptions);
  const stateDir = await mkdtemp(join(tmpdir(), "tenant-e2e-state-"));
  const stack = "e2e";
  return {
    api,
    stateDir,
    stack,
    run: (command, options = {}) =>
      runEngine({
        command,
        cwd,
        stack,
        stateDir,
        timeoutMs: 120_000,
        ...options,
        config: {
          "tenant:domain": { value: api.domain },
          "tenant:clientId": { value: api.clientId },
          "tenant:clientSecret": { value: api.clientSecret, secret: true },
          ...config,
          ...options.config,
        },
        // `npm test` type-checks the examples with tsc already; ts-node need not do it again.
        env: {
          PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
          PULUMI_NODEJS_TRANSPILE_ONLY: "true",
          ...options.env,
        },
      }),
    stateText: () => readFile(stateFilePath(stateDir, stack), "utf8").catch(() => ""),
    writes: () =>
      Object.entries(api.stats().byRoute)
        .filter(([route]) => /^(PUT|PATCH|DELETE) \/api\/v2\//.test(route))
        .reduce((sum, [, count]) => sum + count, 0),
    stop: async () => {
      await api.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
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
