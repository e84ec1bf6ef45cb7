#!/usr/bin/env node
/**
 * The `pulumi-tenant` command shipped with the package (`npx pulumi-tenant generate ...`). One
 * subcommand so far: `generate` (README "Adopt an existing tenant").
 *
 * @module
 */

import { runGenerate } from "./generate/command.js";

const COMMANDS =
  "Usage: pulumi-tenant generate --out DIR [options]   (pulumi-tenant generate --help)";

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "generate") {
    return runGenerate(rest, {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      env: process.env,
    });
  }
  if (command === undefined || command === "--help" || command === "-h") {
    process.stdout.write(`${COMMANDS}\n`);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`pulumi-tenant: unknown command "${command}"\n${COMMANDS}\n`);
  return 2;
}

// Exit as soon as the command is done: a read still paced by the limiter after a failure
// must not keep the process waiting.
main(process.argv.slice(2)).then((code) => process.exit(code));
