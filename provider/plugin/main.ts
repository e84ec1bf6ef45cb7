/**
 * `pulumi-resource-tenant`: the provider plugin the engine starts for the `tenant` package
 * (docs/design/plugin.md). It serves the three resources from the same core as the dynamic resources,
 * prints its port as its first line on stdout (the engine reads it), and logs nothing else there.
 *
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sendWarningsTo } from "../providers/warnings.js";
import { providers } from "../runtime.js";
import { writeLine } from "../stderr-lines.js";
import { engineAddress, engineWarnings } from "./engine-log.js";
import { requireSupportedNode } from "./node-version.js";
import { packageSchema } from "./package-schema.js";
import { PluginFace } from "./plugin-face.js";
import { serve } from "./server.js";

/** This package's version, which is the plugin's. */
function packageVersion(): string {
  return (require("../../../package.json") as { version: string }).version;
}

/**
 * The schema: the one the build wrote next to this file (`npm run build`), else made now from the
 * same input schema (a checkout run without a build).
 */
function schemaText(version: string): string {
  const built = join(__dirname, "schema.json");
  return existsSync(built) ? readFileSync(built, "utf8") : JSON.stringify(packageSchema(version));
}

async function main(): Promise<void> {
  requireSupportedNode(process.versions.node);
  const version = packageVersion();
  const address = engineAddress(process.argv.slice(2));
  if (address !== undefined) {
    sendWarningsTo(engineWarnings(address, (message) => writeLine(`warning: ${message}`)));
  }
  const { port } = await serve({
    face: new PluginFace(providers),
    version,
    schema: () => schemaText(version),
  });
  process.stdout.write(`${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `pulumi-resource-tenant: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
