/**
 * Warnings of the providers to the person running Pulumi: a sentence about something the program
 * asked for that will not happen as it reads (docs/design/decisions.md, "What a resource owns"). Each is
 * said once per process, however often the engine asks the same question (a preview, then the
 * update's own diff).
 *
 * Where a warning goes depends on the face: the plugin sends it to the engine's `Log` service as a
 * warning ({@link sendWarningsTo}, `plugin/engine-log.ts`); the dynamic provider host does not
 * hand its providers the engine's address (Pulumi's `log.warn` there writes to stderr), so on that
 * face it is a line on stderr, which the engine shows as the provider's output.
 *
 * @module
 */

import { writeLine } from "../stderr-lines.js";

let sink: (message: string) => void = (message) => writeLine(`warning: ${message}`);
const said = new Set<string>();

/** Says `message` (a whole sentence naming the resource) to the person running Pulumi, once. */
export function warnUser(message: string): void {
  if (said.has(message)) return;
  said.add(message);
  sink(message);
}

/** Sends the warnings to `next` from now on: the plugin's engine, when it knows its address. */
export function sendWarningsTo(next: (message: string) => void): void {
  sink = next;
}
