import { ensurePulumiCli, ensureYamlLanguageHost, pinnedCliVersions } from "./pulumi-cli.js";

/**
 * Finds every pinned pulumi CLI once, before any test file runs, and builds the missing ones (a
 * build needs Go and Go's module cache or the network: `npm ci` builds them, so they are there),
 * then Pulumi's YAML language host, which it links next to each CLI (a CLI folder built before
 * the host existed gets its link here). The test files then find them where this left them.
 */
export default async function setup(): Promise<void> {
  for (const version of await pinnedCliVersions()) {
    const cli = await ensurePulumiCli(version);
    process.stdout.write(`pulumi CLI ${cli.version} (${cli.source}): ${cli.path}\n`);
  }
  const yaml = await ensureYamlLanguageHost();
  process.stdout.write(`pulumi-language-yaml ${yaml.version}: ${yaml.path}\n`);
}
