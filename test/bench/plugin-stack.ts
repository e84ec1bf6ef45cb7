/**
 * The benchmarks' plugin face: a Pulumi YAML program run by the real `pulumi` CLI with Pulumi's
 * YAML language host, the provider plugin installed into the stack's own `PULUMI_HOME` from a
 * tarball (`pulumi plugin install resource tenant VERSION --file TARBALL`, as test/support/plugin.ts
 * does for the tests and docs/design/plugin.md tells users): the self-contained executable's release
 * tarball, or the one the packed package writes; and the tenant's credentials in the stack config,
 * where the plugin reads them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import type { TenantApi } from "../../provider/local-tenant/index.js";
import { installPlugin, type PluginTarball } from "../support/plugin.js";
import { PulumiProject } from "../support/pulumi.js";
import { tenantConfig } from "../support/stack-config.js";
import type { DeclaredClient } from "./program.js";

/**
 * The text of a Pulumi YAML program named `name` that declares one `tenant:index:ClientSettings`
 * per entry, named `client-<i>` like the TypeScript bench program's, so both faces do the same
 * work; with no entry, a program that declares nothing (what `pulumi import` starts from).
 */
export function yamlProgram(name: string, clients: readonly DeclaredClient[]): string {
  const resources = Object.fromEntries(
    clients.map(({ clientId, description }, i) => [
      `client-${i}`,
      { type: "tenant:index:ClientSettings", properties: { clientId, description } },
    ]),
  );
  return stringify({
    name,
    runtime: "yaml",
    ...(clients.length > 0 ? { resources } : {}),
  });
}

/**
 * A new stack of the YAML program `program` (a Pulumi.yaml's text) against `api`: its project
 * (own file backend and `PULUMI_HOME`, which holds the program: PulumiProject copies a YAML
 * program's Pulumi.yaml whole), the tenant's credentials in its config (the secret as a secret),
 * and the plugin installed from `tarball`. `remove()` on the project removes it all.
 */
export async function pluginStack(
  api: TenantApi,
  stack: string,
  program: string,
  tarball: Pick<PluginTarball, "path" | "version">,
): Promise<PulumiProject> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-bench-yaml-"));
  let project: PulumiProject;
  try {
    await writeFile(join(dir, "Pulumi.yaml"), program);
    project = await PulumiProject.create({ program: dir, stack, config: tenantConfig(api) });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  try {
    await installPlugin(project, tarball);
    return project;
  } catch (error) {
    await project.remove();
    throw error;
  }
}
