#!/usr/bin/env node
/**
 * The `pulumi-tenant` command shipped with the package: `generate`
 * (docs/guides/adopting-a-tenant.md), `snapshot` and `local-tenant`
 * (docs/guides/testing-your-program.md).
 *
 * Each command's module is loaded only when that command runs, so `generate` and `snapshot` never
 * load the local tenant's server and its dependencies.
 *
 * @module
 */

import { docAddress } from "./docs-address.js";
import { COMMAND_EXIT } from "./errors.js";
import { unsupportedNodeSentence } from "./node-support.js";

/** The command names, for the suggestion after a typo. */
const NAMES = ["generate", "snapshot", "audit", "local-tenant", "plugin"];

const COMMANDS = `Usage: pulumi-tenant <command> [options]   (pulumi-tenant <command> --help)

  generate --out DIR       write a Pulumi program that declares the live tenant as it is
  snapshot --out FILE      write a seed of the live tenant for the local tenant, secrets left out
  audit                    judge every client of the tenant (or a seed) by the policy pack's rules
  local-tenant             serve the local tenant until stopped, printing one JSON line
  plugin --out DIR         write the provider plugin as a tarball for pulumi plugin install

  --version                this package's version

Exit statuses, the same for every command: 0 done, 1 audit findings, 2 a wrong command line,
input or output, 3 the tenant could not be read, 4 anything else:
${docAddress("docs/guides/commands.md", "exit-statuses")}`;

async function main(argv: readonly string[]): Promise<number> {
  const unsupported = unsupportedNodeSentence("pulumi-tenant", process.versions.node);
  if (unsupported !== undefined) {
    process.stderr.write(`pulumi-tenant: ${unsupported}\n`);
    return COMMAND_EXIT.failed;
  }
  const [command, ...rest] = argv;
  const io = {
    stdout: (text: string) => process.stdout.write(text),
    stderr: (text: string) => process.stderr.write(text),
    env: process.env,
    stderrIsTerminal: process.stderr.isTTY === true,
  };
  if (command === "generate") {
    const { runGenerate } = await import("./generate/command.js");
    return runGenerate(rest, io);
  }
  if (command === "snapshot") {
    const { runSnapshot } = await import("./local-tenant/snapshot.js");
    return runSnapshot(rest, io);
  }
  if (command === "audit") {
    const { runAudit } = await import("./audit/command.js");
    // A large report must reach a pipe whole before the process exits.
    const stdout = (text: string) =>
      new Promise<void>((done) => process.stdout.write(text, () => done()));
    return runAudit(rest, { ...io, stdout });
  }
  if (command === "local-tenant") {
    // Its own flags are those before `--`; `--help` needs none of the server's packages.
    const own = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
    if (!own.includes("--help") && !own.includes("-h")) {
      const { requireServerPeers } = await import("./local-tenant/peers.js");
      try {
        requireServerPeers({ tls: own.includes("--tls") });
      } catch (error) {
        process.stderr.write(`pulumi-tenant local-tenant: ${(error as Error).message}\n`);
        return COMMAND_EXIT.failed;
      }
    }
    const { runLocalTenant } = await import("./local-tenant/command.js");
    return runLocalTenant(rest, io);
  }
  if (command === "plugin") {
    const { runPlugin } = await import("./plugin/tarball.js");
    return runPlugin(rest, io);
  }
  if (command === "--version" || command === "-v") {
    // By package name: the same file from the sources, the build and an installed copy.
    process.stdout.write(
      `${(require("pulumi-tenant/package.json") as { version: string }).version}\n`,
    );
    return COMMAND_EXIT.done;
  }
  if (command === undefined || command === "--help" || command === "-h") {
    process.stdout.write(`${COMMANDS}\n`);
    return command === undefined ? COMMAND_EXIT.usage : COMMAND_EXIT.done;
  }
  const { unknownCommandProblem } = await import("./command/line.js");
  process.stderr.write(`pulumi-tenant: ${unknownCommandProblem(command, NAMES)}\n`);
  return COMMAND_EXIT.usage;
}

// Exit as soon as the command is done: a read still paced by the limiter after a failure
// must not keep the process waiting.
main(process.argv.slice(2)).then((code) => process.exit(code));
