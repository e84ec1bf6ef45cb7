/**
 * The oldest Node.js line the plugin runs on: the oldest that `@pulumi/pulumi` and this package
 * still support (docs/design/plugin.md, "Node.js").
 */
const OLDEST_NODE_MAJOR = 22;

/**
 * Refuses a Node.js older than {@link OLDEST_NODE_MAJOR} with one sentence. The launcher script
 * (`pulumi-resource-tenant`) says the same before Node.js even starts; this is for a plugin
 * started some other way.
 *
 * @throws {Error} naming the version found and the one needed.
 */
export function requireSupportedNode(version: string): void {
  const major = Number(version.split(".")[0]);
  if (!(major >= OLDEST_NODE_MAJOR)) {
    throw new Error(
      `needs Node.js ${OLDEST_NODE_MAJOR} or later on PATH, and found Node.js ${version}`,
    );
  }
}
