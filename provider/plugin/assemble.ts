/**
 * Writes what the plugin needs besides its compiled code, run by `npm run build` after `tsc`:
 * the package schema (`schema.json`, served by `GetSchema` and read by SDK generators) and the
 * launcher script, next to `main.js`, and the same two next to the self-contained bundle that
 * `pulumi-tenant plugin` packs (docs/design/plugin.md, "How users get the plugin").
 *
 * @module
 */

import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageSchema, pluginDownloadUrl } from "./package-schema.js";

const LAUNCHER = "pulumi-resource-tenant";
const version = (require("../../../package.json") as { version: string }).version;
const source = join(__dirname, "..", "..", "..", "provider", "plugin", LAUNCHER);
// The build setting PULUMI_TENANT_PLUGIN_DOWNLOAD_URL, when set, names where Pulumi downloads the
// plugin's release tarballs (docs/design/plugin.md, "The self-contained executables").
let downloadUrl: string | undefined;
try {
  downloadUrl = pluginDownloadUrl(process.env);
} catch (error) {
  process.stderr.write(
    `npm run build: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
const schema = `${JSON.stringify(packageSchema(version, downloadUrl), null, 2)}\n`;
for (const folder of [__dirname, join(__dirname, "bundle")]) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "schema.json"), schema);
  copyFileSync(source, join(folder, LAUNCHER));
  chmodSync(join(folder, LAUNCHER), 0o755);
}
