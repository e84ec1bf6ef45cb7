import { cp, readdir } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { type InstalledProject, installPackedPackage, REPO_ROOT } from "./installed-package.js";
import { DEFAULT_NODE_LINE, findNodeRuntime } from "./node-runtimes.js";
import { isolatedCliEnv } from "./pulumi.js";
import type { PulumiCli } from "./pulumi-cli.js";

/**
 * What a user's testing project installs besides the package: its test runner and the local
 * tenant's optional peer dependencies (Node.js strips the program's types: no compiler).
 */
const TESTING_PACKAGES = ["vitest", "fastify", "@fastify/formbody", "jose"];

/**
 * A user project with the packed package and {@link TESTING_PACKAGES} installed from the npm cache,
 * and `examples/testing/` copied in (its package.json aside: the project has its own, written from
 * the lock, with the same packages).
 */
export async function installTestingExample(): Promise<InstalledProject> {
  const project = await installPackedPackage(TESTING_PACKAGES);
  const source = join(REPO_ROOT, "examples", "testing");
  try {
    for (const name of await readdir(source)) {
      if (name === "package.json" || name === "node_modules" || name.startsWith("Pulumi.test")) {
        continue;
      }
      await cp(join(source, name), join(project.dir, name), { recursive: true });
    }
    return project;
  } catch (error) {
    await project.remove();
    throw error;
  }
}

/**
 * The environment a user's Automation API test runs in here: the pinned CLI's folder first on
 * PATH (its plugins, the language host and the dynamic-provider launcher, sit next to it), then
 * the Node.js line every CLI test runs (test/support/node-runtimes.ts), and the offline, isolated
 * settings of every CLI command ({@link isolatedCliEnv}). The test itself names its backend and
 * passphrase, as a user's does.
 */
export function automationEnv(cli: PulumiCli, home: string): NodeJS.ProcessEnv {
  const env = isolatedCliEnv(home, findNodeRuntime(DEFAULT_NODE_LINE));
  return { ...env, PATH: [dirname(cli.path), env.PATH ?? ""].join(delimiter) };
}
