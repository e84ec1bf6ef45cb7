/**
 * The tenant example as a user's project holds it, the one TypeScript way or the other
 * (docs/installation-configuration.md, "Installing in your project"). Free of vitest, so that the
 * benchmarks can use it too.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { UserProjectSpec } from "./user-project.js";

const EXAMPLE = resolve(__dirname, "..", "..", "examples", "tenant");

/** How a user's program is turned from TypeScript into JavaScript (docs/installation-configuration.md, "Installing in your project"). */
export type TypeScriptWay = "type-stripping" | "ts-node";

/**
 * The TypeScript range Pulumi's runner accepts for ts-node (its peer range `>= 3.8.3 < 7`), as
 * docs/installation-configuration.md's install line names it: TypeScript 7 has no JavaScript API
 * for ts-node to call.
 */
export const TS_NODE_TYPESCRIPT = "<7";

/**
 * The files and dependencies of the tenant example as a user's project holds them, the one way
 * or the other: Node.js's type stripping (`typescript: false`, `"type": "module"`, no compiler),
 * or ts-node with the TypeScript range of docs/installation-configuration.md.
 */
export async function tenantProgram(
  way: TypeScriptWay,
): Promise<Pick<UserProjectSpec, "files" | "dependencies" | "type">> {
  // The program also says which Node.js ran it, as a stack output.
  const index = `${await readFile(join(EXAMPLE, "index.ts"), "utf8")}
export const nodeVersion = process.version;
`;
  const pulumiYaml = [
    "name: tenant-example",
    "runtime:",
    "  name: nodejs",
    "  options:",
    `    typescript: ${way === "ts-node"}`,
    "main: index.ts",
    "",
  ].join("\n");
  return {
    files: { "index.ts": index, "Pulumi.yaml": pulumiYaml },
    dependencies:
      way === "ts-node"
        ? { typescript: TS_NODE_TYPESCRIPT, "ts-node": "^10.9.2" }
        : ({} as Record<string, string>),
    ...(way === "type-stripping" ? { type: "module" as const } : {}),
  };
}
