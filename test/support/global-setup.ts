import { ensurePulumiCli } from "./pulumi-cli.js";

/**
 * Finds the pinned pulumi CLI once, before any test file runs, and builds it if it is missing (a
 * build needs Go and Go's module cache or the network: `npm ci` builds it, so it is there). The
 * test files then find it where this left it.
 */
export default async function setup(): Promise<void> {
  const cli = await ensurePulumiCli();
  process.stdout.write(`pulumi CLI ${cli.version} (${cli.source}): ${cli.path}\n`);
}
