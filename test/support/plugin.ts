/**
 * The provider plugin as a user gets it: the package packed and installed in a user project
 * (never the checkout), its `pulumi-tenant plugin` command writing the plugin tarball, and that
 * tarball installed into a project's `PULUMI_HOME` with `pulumi plugin install` (docs/design/plugin.md,
 * "How users get the plugin"). Free of test hooks, so that the benches can use it too; a test
 * file takes its plugin from `usePackedPlugin` (e2e.ts).
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STEP_BOUNDS_MS } from "./budgets.js";
import { installPackedPackage, REPO_ROOT } from "./installed-package.js";
import type { PulumiProject } from "./pulumi.js";
import { runStepOrThrow } from "./steps.js";

/** The plugin tarball made by the installed package, and what to remove afterwards. */
export interface PluginTarball {
  /** The installed package's `pulumi-tenant` command (its `cli.js`), to run with `node`. */
  readonly cli: string;
  readonly path: string;
  readonly bytes: number;
  readonly version: string;
  remove(): Promise<void>;
}

/**
 * Installs the packed package into a user project and runs its `pulumi-tenant plugin --out DIR`
 * with Node.js's `node`: the tarball a deploy machine without npm gets.
 */
export async function packedPluginTarball(): Promise<PluginTarball> {
  const project = await installPackedPackage();
  try {
    const tarball = await pluginTarballOf(project.dir);
    return {
      ...tarball,
      remove: async () => {
        await tarball.remove();
        await project.remove();
      },
    };
  } catch (error) {
    await project.remove();
    throw error;
  }
}

/**
 * The plugin tarball that `pulumi-tenant plugin --out DIR` writes in `projectDir`, a user project
 * that has the packed package installed already (the benchmarks install one for their TypeScript
 * program and need not pack and install again for the plugin). Its `remove` removes the tarball's
 * folder only; the project stays its owner's.
 */
export async function pluginTarballOf(projectDir: string): Promise<PluginTarball> {
  const out = await mkdtemp(join(tmpdir(), "tenant-plugin-"));
  try {
    const cli = join(projectDir, "node_modules", "pulumi-tenant", "dist", "provider", "cli.js");
    const { stdout } = await runStepOrThrow(process.execPath, [cli, "plugin", "--out", out], {
      cwd: projectDir,
      boundMs: STEP_BOUNDS_MS.node,
      label: "pulumi-tenant plugin",
    });
    const path = stdout.trim().split(" (")[0] ?? "";
    const { version } = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8"));
    return {
      cli,
      path,
      bytes: (await stat(path)).size,
      version,
      remove: () => rm(out, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(out, { recursive: true, force: true });
    throw error;
  }
}

/**
 * `pulumi plugin install resource tenant VERSION --file TARBALL` into the project's PULUMI_HOME:
 * the packed package's tarball, or a self-contained executable's release tarball.
 */
export async function installPlugin(
  project: PulumiProject,
  tarball: Pick<PluginTarball, "path" | "version">,
): Promise<void> {
  await project.cliCommand([
    "plugin",
    "install",
    "resource",
    "tenant",
    tarball.version,
    "--file",
    tarball.path,
  ]);
}
