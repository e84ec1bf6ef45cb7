/**
 * npm's `prepare` of this package (CONTRIBUTING.md, "Development"): what it runs depends on who
 * asks. npm runs `prepare` in three places, and only one of them is this repository's own set-up:
 *
 * - `npm ci` (or `npm install`) in a checkout: build, then the pinned pulumi CLIs and the other Go
 *   tools (`npm run pulumi-cli`, Go and the network) and the plugin's Node.js bases
 *   (`npm run plugin-node-bases`, the network): the tests' set-up.
 * - installing the package from a git URL: npm clones the repository, runs `npm install` in the
 *   clone and then `prepare` again, before it packs the clone (npm's pacote sets
 *   `_PACOTE_NO_PREPARE_` for the first and `npm_package_resolved` for the second); the package
 *   needs its `dist/` and nothing else, so this builds only: tsc and esbuild, from the
 *   devDependencies npm installed in the clone, no Go and no network.
 * - `npm pack` and `npm publish`: build only, the packed files being dist/'s.
 *
 * Installing from the tarball or the registry runs no `prepare` at all (npm runs it only for git,
 * directory and linked packages). Pure decision {@link setUpSteps}; the rest runs the npm scripts.
 */
import { spawnSync } from "node:child_process";

/** The npm scripts `prepare` runs, in order, for the environment npm gives it. */
export function setUpSteps(env: NodeJS.ProcessEnv): readonly string[] {
  const gitDependency =
    env._PACOTE_NO_PREPARE_ !== undefined || env.npm_package_resolved !== undefined;
  const packing = env.npm_command === "pack" || env.npm_command === "publish";
  return gitDependency || packing ? ["build"] : ["build", "pulumi-cli", "plugin-node-bases"];
}

if (require.main === module) {
  // The npm that runs this script, as npm names it to its scripts; else the one on PATH.
  const npm = process.env.npm_execpath;
  for (const script of setUpSteps(process.env)) {
    const { status } =
      npm === undefined
        ? spawnSync("npm", ["run", script], { stdio: "inherit" })
        : spawnSync(process.execPath, [npm, "run", script], { stdio: "inherit" });
    if (status !== 0) process.exit(status ?? 1);
  }
}
