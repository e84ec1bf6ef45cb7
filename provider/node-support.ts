/**
 * The Node.js lines the package runs on, said rather than crashed into
 * (docs/installation-configuration.md, "Where it runs"): the package's own code needs Node.js 22
 * or later (`engines`), and a TypeScript program that Node.js runs by stripping its types, as
 * `generate` writes one, needs 22.18 or later (or 23.6, or 24 on). Pure: each entry point (the
 * package's main, the command, the plugin) asks with the running version and says the sentence.
 *
 * @module
 */

/** The oldest Node.js of each line that strips a TypeScript program's types with no flag. */
const TYPE_STRIPPING_SINCE: Readonly<Record<number, number>> = { 22: 18, 23: 6 };

/** Where a person gets a Node.js the package runs on. */
const HOW_TO_GET = "https://nodejs.org/en/download (or run nvm install 22)";

/** A version's major and minor numbers (`v20.20.2` or `20.20.2`). */
function parts(version: string): [number, number] {
  const [major = Number.NaN, minor = Number.NaN] = version.replace(/^v/, "").split(".").map(Number);
  return [major, minor];
}

/**
 * Whether the package's own code runs on this Node.js: 22 or later, package.json's `engines`.
 *
 * @internal
 */
export function runsPackage(version: string): boolean {
  return parts(version)[0] >= 22;
}

/**
 * Whether this Node.js runs a `.ts` program by stripping its types, with no flag.
 *
 * @internal
 */
export function stripsTypes(version: string): boolean {
  const [major, minor] = parts(version);
  if (!(major >= 22)) return false;
  const since = TYPE_STRIPPING_SINCE[major];
  return since === undefined || minor >= since;
}

/**
 * The one sentence `who` says on a Node.js older than the package runs on, or undefined on one it
 * runs on: the Node.js it needs, the one it found, and how to get the one it needs.
 */
export function unsupportedNodeSentence(who: string, version: string): string | undefined {
  if (runsPackage(version)) return undefined;
  return (
    `${who} needs Node.js 22 or later (22.18 or later to run a TypeScript program), and this ` +
    `is Node.js ${version.replace(/^v/, "")}: install it from ${HOW_TO_GET}`
  );
}

/**
 * The sentence `generate` adds when the Node.js it runs on cannot run the project it wrote
 * (`index.ts`, run by type stripping), or undefined when it can.
 */
export function typeStrippingSentence(folder: string, version: string): string | undefined {
  if (stripsTypes(version)) return undefined;
  return (
    `the project in ${folder} runs index.ts by Node.js's type stripping, which needs Node.js ` +
    `22.18 or later, and this is Node.js ${version.replace(/^v/, "")}: install it from ` +
    `${HOW_TO_GET} before pulumi preview, or it fails with Unknown file extension ".ts"`
  );
}
