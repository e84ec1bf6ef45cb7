/**
 * `npm run pulumi-cli` (and `npm ci`, through `prepare`): makes sure every pulumi CLI that the
 * tests pin is at hand, building the missing ones from their Go modules (docs/pulumi-cli.md). This
 * is the step that may use the network (Go's module proxy); nothing after it does. On a machine
 * without Go it says how to get a CLI and exits 0, so that `npm ci` still installs the package;
 * the tests then stop with the same sentence.
 */
import { ensurePulumiCli, noCliMessage, pinnedCliVersions } from "../support/pulumi-cli.js";

async function main(): Promise<void> {
  for (const version of await pinnedCliVersions()) {
    const started = Date.now();
    try {
      const cli = await ensurePulumiCli(version);
      const took = ((Date.now() - started) / 1000).toFixed(0);
      process.stdout.write(`pulumi ${cli.version} (${cli.source}, ${took} s): ${cli.path}\n`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== noCliMessage(version)) throw error;
      process.stderr.write(`warning: ${message}\n`);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
