/**
 * The stacks of the pacing end-to-end tests (test/e2e-pacing.test.ts, test/e2e-foreign-tenant.test.ts):
 * the clients-from-data example, installed from the packed package, declaring a new description for
 * each of the local tenant's generated clients, and how to tell that they converged.
 */

import { generatedClients, type TenantApi } from "../../provider/local-tenant/index.js";
import { type ConfigValues, clientsFile, tenantConfig, type undoAfterEach } from "./e2e.js";
import type { InstalledProject } from "./installed-package.js";
import { PulumiProject, type PulumiResult, type RunOptions } from "./pulumi.js";

/** One entry of the clients file per client: a new description for each. */
export interface Managed {
  readonly clientId: string;
  readonly description: string;
}

/** The generated clients from `from` (0-based) on, `count` of them, each with a new description. */
export function managedClients(count: number, from = 0): Managed[] {
  return generatedClients(from + count)
    .slice(from)
    .map((client, i) => ({
      clientId: String(client.client_id),
      description: `Managed by the platform team (${from + i})`,
    }));
}

/** Whether every managed client holds its declared description. */
export function converged(api: TenantApi, managed: readonly Managed[]): boolean {
  return managed.every(
    ({ clientId, description }) =>
      (api.store.getClient(clientId) as { description?: string } | undefined)?.description ===
      description,
  );
}

/** A stack to run commands of. */
export interface PacedStack {
  run(command: "up" | "preview" | "refresh", run?: RunOptions): Promise<PulumiResult>;
}

/**
 * A stack of the installed `project` declaring `managed` against `api`, with `config` merged into
 * the stack config and `settings` into every entry (a `tenant` input, say); each command is bound
 * by `runMs`, and everything made is removed by `undo`.
 */
export async function pacedStack(
  project: InstalledProject,
  undo: ReturnType<typeof undoAfterEach>,
  api: TenantApi,
  managed: readonly Managed[],
  options: {
    name?: string;
    config?: ConfigValues;
    settings?: Record<string, unknown>;
    runMs: number;
  },
): Promise<PacedStack> {
  const file = await clientsFile(
    managed.map(({ clientId, description }, i) => ({
      name: `client-${i}`,
      clientId,
      settings: { description, ...options.settings },
    })),
  );
  undo(() => file.remove());
  const made = await PulumiProject.create({ program: project.dir, stack: options.name ?? "e2e" });
  undo(() => made.remove());
  const config = {
    ...tenantConfig(api),
    "clients-from-data:file": { value: file.path },
    ...options.config,
  };
  return {
    run: (command, run = {}) => made.run(command, config, { timeoutMs: options.runMs, ...run }),
  };
}
