/**
 * `npm run pulumi-cli` (and `npm ci`, through `prepare`): makes sure every pulumi CLI that the
 * tests pin is at hand, building the missing ones from their Go modules (docs/design/pulumi-cli.md), then
 * Pulumi's YAML language host (linked next to every CLI), our SDK generator (test/sdk-gen) and
 * examples/go against the Go SDK it generates (so that the tests build it offline), actionlint
 * (test/pulumi-cli/actionlint, for examples/pipeline's workflow), and the
 * Python environment of the Python SDK's tests and release (test/support/python-env.ts). This is
 * the step that may use the network (Go's module proxy, the Python package index); nothing after
 * it does. On a machine without Go, or without Python 3.10 or later, it says so in one sentence
 * and exits 0, so that `npm ci` still installs the package; the tests then stop with the same
 * sentence.
 */
import { ensureActionlint } from "../support/actionlint.js";
import { ensureGoExample } from "../support/go-example.js";
import {
  buildSeconds,
  ensurePulumiCli,
  ensureYamlLanguageHost,
  noCliMessage,
  noYamlHostMessage,
  pinnedCliVersions,
} from "../support/pulumi-cli.js";
import { ensurePythonEnv, noPythonMessage } from "../support/python-env.js";
import { ensureSdkGen, noSdkGenMessage } from "../support/sdk-gen.js";

async function main(): Promise<void> {
  for (const version of await pinnedCliVersions()) {
    try {
      const cli = await ensurePulumiCli(version);
      // npm may have run this already (for the `file:` link to the package itself), quietly.
      const seconds = cli.source === "built" ? await buildSeconds(version) : undefined;
      const built = seconds === undefined ? "" : `, built in ${seconds} s`;
      process.stdout.write(`pulumi ${cli.version} (${cli.source}${built}): ${cli.path}\n`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== noCliMessage(version)) throw error;
      process.stderr.write(`warning: ${message}\n`);
    }
  }
  try {
    const host = await ensureYamlLanguageHost();
    const built = host.seconds === undefined ? "" : `, built in ${host.seconds} s`;
    process.stdout.write(`pulumi-language-yaml ${host.version} (built${built}): ${host.path}\n`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message !== noYamlHostMessage()) throw error;
    process.stderr.write(`warning: ${message}\n`);
  }
  try {
    const generator = await ensureSdkGen();
    const built = generator.seconds === undefined ? "" : `, built in ${generator.seconds} s`;
    process.stdout.write(`sdk-gen (built${built}): ${generator.path}\n`);
    const example = await ensureGoExample();
    const seconds = example.seconds === undefined ? "" : `, built in ${example.seconds} s`;
    process.stdout.write(`examples/go (${example.source}${seconds})\n`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message !== noSdkGenMessage()) throw error;
    process.stderr.write(`warning: ${message}\n`);
  }
  try {
    const linter = await ensureActionlint();
    const built = linter.seconds === undefined ? "" : `, built in ${linter.seconds} s`;
    process.stdout.write(`actionlint ${linter.version} (built${built}): ${linter.path}\n`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!message.startsWith("no actionlint ")) throw error;
    process.stderr.write(`warning: ${message}\n`);
  }
  try {
    const python = await ensurePythonEnv();
    const built = python.seconds === undefined ? "" : `, made in ${python.seconds} s`;
    process.stdout.write(
      `Python ${python.version} environment (${python.source}${built}): ${python.python}\n`,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message !== noPythonMessage()) throw error;
    process.stderr.write(`warning: ${message}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
