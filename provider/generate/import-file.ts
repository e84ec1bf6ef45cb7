/**
 * The import file `generate --import-file` writes (`import.json`): the resources of the generated
 * program, by type token of the provider plugin, name and id, for `pulumi import --file`. Pulumi
 * then adopts them through the plugin and writes the program in the project's own language, so a
 * Python, Go, .NET, Java or YAML team adopts a tenant as a TypeScript team does with the
 * generated program (docs/guides/adopting-a-tenant.md). Pure and deterministic, as the project's
 * other files.
 *
 * @module
 */

import { typeToken } from "../plugin/package-schema.js";
import type { ProgramPlan } from "./adopt.js";
import { PUSH_RESOURCE_NAME } from "./project.js";

/** One resource of a Pulumi import file. */
interface ImportEntry {
  readonly type: string;
  readonly name: string;
  readonly id: string;
}

/**
 * `import.json` for `plan`, the push provider selection's id being the tenant's `host` (the id
 * the plugin gives it). The clients are imported with the fields the plugin adopts by default
 * (docs/design/plugin.md, "Import"), whatever `--fields` chose for the TypeScript program.
 */
export function renderImportFile(plan: ProgramPlan, host: string): string {
  const resources: ImportEntry[] = [];
  if (plan.pushProvider !== undefined) {
    resources.push({
      type: typeToken("PushProviderSelection"),
      name: PUSH_RESOURCE_NAME,
      id: host,
    });
  }
  for (const client of plan.clients) {
    resources.push({
      type: typeToken("ClientSettings"),
      name: client.resourceName,
      id: client.clientId,
    });
  }
  return `${JSON.stringify({ resources }, null, 2)}\n`;
}
