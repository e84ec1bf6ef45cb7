/**
 * Whether the program's install can work at all, asked once, when the program declares its first
 * resource. Pulumi runs every resource's serialized provider in its dynamic-provider host, which
 * starts in the program's folder and loads `@pulumi/pulumi` and this package by name from a
 * `node_modules` folder there or above it (docs/design/provider-closure.md, "Where the host finds the
 * package"). An install without one (Plug'n'Play) would fail later, in the host, with a stack
 * trace; here it fails `pulumi preview` with one sentence that says what to change.
 *
 * @module
 */

import { TenantInstallError } from "../errors.js";

/** The modules the dynamic-provider host loads by name from the program's folder. */
const LOADED_BY_NAME = ["@pulumi/pulumi/cmd/dynamic-provider", "pulumi-tenant/runtime"] as const;

/**
 * What {@link installLayoutProblem} asks of the program's process: its versions (Yarn's PnP
 * runtime adds `pnp`), its folder, and Node's resolution.
 *
 * @internal
 */
export interface ProgramProcess {
  readonly versions: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Where Node finds `id` from `dir`, or throws: `require.resolve` with `paths`. */
  resolve(id: string, dir: string): string;
}

/**
 * Why the dynamic-provider host cannot load the package in this install, as one sentence, or
 * undefined when it can:
 * - Plug'n'Play (Yarn's default linker, pnpm's `node-linker=pnp`): no `node_modules` at all;
 * - a module the host loads by name that does not resolve from the program's folder (a package
 *   manager that does not link direct dependencies there).
 *
 * @internal
 */
export function installLayoutProblem(program: ProgramProcess): string | undefined {
  if (program.versions.pnp !== undefined) {
    return (
      "pulumi-tenant cannot run from a Plug'n'Play install, because Pulumi's dynamic-provider " +
      "host loads it from a node_modules folder: set `nodeLinker: node-modules` in .yarnrc.yml " +
      "(pnpm: `node-linker=isolated` in .npmrc) and install again."
    );
  }
  for (const id of LOADED_BY_NAME) {
    try {
      program.resolve(id, program.cwd);
    } catch {
      const name = id.startsWith("@") ? id.split("/").slice(0, 2).join("/") : id.split("/")[0];
      return (
        `pulumi-tenant cannot run from this install, because Pulumi's dynamic-provider host ` +
        `loads ${name} by name from the program's folder ${program.cwd} and it is not in a ` +
        `node_modules folder there or above: add ${name} to the dependencies of the Pulumi ` +
        `project's own package.json and install again.`
      );
    }
  }
  return undefined;
}

let checked = false;

/**
 * Throws {@link TenantInstallError} when this program's install cannot work; asks once per
 * process, at the first resource.
 */
export function assertInstallCanWork(): void {
  if (checked) return;
  const problem = installLayoutProblem({
    versions: process.versions,
    cwd: process.cwd(),
    resolve: (id, dir) => require.resolve(id, { paths: [dir] }),
  });
  if (problem !== undefined) throw new TenantInstallError(problem);
  checked = true;
}
