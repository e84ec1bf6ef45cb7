/**
 * The plugin's own check of the Node.js running it: the launcher script (`pulumi-resource-tenant`)
 * says the same before Node.js even starts; this is for a plugin started some other way
 * (docs/design/plugin.md, "Node.js"). The lines are provider/node-support.ts's.
 *
 * @module
 */

import { unsupportedNodeSentence } from "../node-support.js";

/**
 * Refuses a Node.js older than the package runs on with one sentence.
 *
 * @throws {Error} naming the version found, the one needed and where to get it.
 */
export function requireSupportedNode(version: string): void {
  const sentence = unsupportedNodeSentence("pulumi-resource-tenant", version);
  if (sentence !== undefined) throw new Error(sentence);
}
