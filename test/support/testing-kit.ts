import { cp, readdir } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { type InstalledProject, installPackedPackage, REPO_ROOT } from "./installed-package.js";
import type { PulumiCli } from "./pulumi-cli.js";

/** What a user's testing project installs besides the package: its test runner, the TypeScript
 * Pulumi runs the program with, and the local tenant's optional peer dependencies. */
const TESTING_PACKAGES = [
  "vitest",
  "typescript",
  "ts-node",
  "fastify",
  "@fastify/formbody",
  "jose",
];

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
 * PATH (its plugins, the language host and the dynamic-provider launcher, sit next to it), this
 * `node` next, and the offline, isolated settings test/support/pulumi.ts runs every CLI command
 * with (docs/pulumi-cli.md): an own `PULUMI_HOME`, no update check, no plugin download, no plugins
 * from PATH, no Pulumi Cloud token. The test itself names its backend and passphrase, as a user's
 * does.
 */
export function automationEnv(cli: PulumiCli, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [dirname(cli.path), dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
    PULUMI_HOME: home,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    NO_COLOR: "1",
  };
  for (const name of [
    "PULUMI_ACCESS_TOKEN",
    "PULUMI_BACKEND_URL",
    "PULUMI_CONFIG_PASSPHRASE_FILE",
  ]) {
    delete env[name];
  }
  return env;
}
