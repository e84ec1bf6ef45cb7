/**
 * What the commands say about a command line Node's `util.parseArgs` refused, or a command name
 * `pulumi-tenant` does not know: one line naming what was typed, the nearest flag or command when
 * one is near (`--outt` → `--out`, `genrate` → `generate`), and a pointer to `--help`, never the
 * whole usage (docs/guides/commands.md).
 *
 * @module
 */

import { closest, distance } from "fastest-levenshtein";

/** `name`'s nearest in `known` when a typo away (a third of its length, at least 2 edits). */
function nearest(name: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const found = closest(name, [...known]);
  return distance(name, found) <= Math.max(2, Math.floor(name.length / 3)) ? found : undefined;
}

/**
 * The sentence for a `parseArgs` failure of a command whose `--help` text is `usage`: an unknown
 * flag with its nearest one among those the usage lists (so a flag added to a command and its
 * usage is suggested with no list to keep), else Node's first sentence (the rest of Node's wording
 * is about positionals, which these commands do not take).
 *
 * @example `unknown option --outt; did you mean --out? (see --help)`
 */
export function commandLineProblem(error: unknown, usage: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = message.match(/^Unknown option '(-{1,2}[^']*)'/);
  if (unknown?.[1] !== undefined) return unknownOptionProblem(unknown[1], usage);
  const first = message.split(". ")[0] ?? message;
  return `${first.replace(/\.$/, "")} (see --help)`;
}

/**
 * The sentence for the unknown option `typed` of a command whose `--help` text is `usage`, with
 * the nearest flag the usage lists when one is near.
 *
 * @example `unknown option --outt; did you mean --out? (see --help)`
 */
export function unknownOptionProblem(typed: string, usage: string): string {
  const flags = [...new Set(usage.match(/--[a-z][a-z0-9-]*/g) ?? [])].map((flag) => flag.slice(2));
  const name = typed.replace(/^-+/, "").split("=")[0] ?? "";
  const near = nearest(name, flags);
  const hint = near === undefined ? "" : `; did you mean --${near}?`;
  return `unknown option ${typed}${hint} (see --help)`;
}

/**
 * The line for a command `pulumi-tenant` does not know, with the nearest one when near.
 *
 * @example `unknown command "genrate"; did you mean generate? (pulumi-tenant --help lists them)`
 */
export function unknownCommandProblem(command: string, commands: readonly string[]): string {
  const near = nearest(command, commands);
  return (
    `unknown command ${JSON.stringify(command)}` +
    `${near === undefined ? "" : `; did you mean ${near}?`} (pulumi-tenant --help lists them)`
  );
}
