import { describe, expect, it } from "vitest";
import type { NodeRuntime } from "./support/node-runtimes.js";
import { installPlan, MANAGER_SCRIPT, managerEnv } from "./support/user-project.js";

const node: NodeRuntime = {
  line: 24,
  version: "v24.21.0",
  node: "/rt/24/bin/node",
  source: "package",
};
const REGISTRY = "http://127.0.0.1:4873";
const HOME = "/tmp/project/.home";

describe("how each package manager installs a user project", () => {
  it("runs npm install, the machine's npm under the project's node", () => {
    expect(installPlan({ manager: "npm", node }, REGISTRY, HOME)).toEqual({
      command: "npm",
      args: ["install"],
      files: {},
    });
  });

  it("runs pnpm's own script under the project's node, without the frozen lock file CI implies", () => {
    const plan = installPlan({ manager: "pnpm", node }, REGISTRY, HOME);
    expect(plan.command).toBe(node.node);
    expect(plan.args.slice(0, 3)).toEqual([MANAGER_SCRIPT.pnpm, "install", "--no-frozen-lockfile"]);
  });

  it("points Yarn classic at the registry in the project's .yarnrc, with a cache of its own", () => {
    const plan = installPlan({ manager: "yarn-classic", node }, REGISTRY, HOME);
    expect(plan.files).toEqual({ ".yarnrc": `registry "${REGISTRY}/"\n` });
    expect(plan.args).toContain(`${HOME}/.yarn-cache`);
  });

  it("gives Yarn the linker asked for, the registry, and a mutable install", () => {
    const plan = installPlan({ manager: "yarn", node, yarnLinker: "pnp" }, REGISTRY, HOME);
    const yarnrc = plan.files[".yarnrc.yml"] ?? "";
    expect(yarnrc.split("\n")).toEqual(
      expect.arrayContaining([
        "nodeLinker: pnp",
        `npmRegistryServer: "${REGISTRY}"`,
        "enableImmutableInstalls: false",
      ]),
    );
    expect(plan.files["yarn.lock"]).toBe("");
  });

  it("uses Yarn's node-modules linker unless told otherwise", () => {
    const plan = installPlan({ manager: "yarn", node }, REGISTRY, HOME);
    expect(plan.files[".yarnrc.yml"]).toContain("nodeLinker: node-modules\n");
  });
});

describe("a package manager's environment", () => {
  const env = managerEnv(node, REGISTRY, HOME, {
    PATH: "/usr/bin",
    npm_lifecycle_event: "test",
    npm_package_name: "pulumi-tenant",
    npm_config_cache: "/ci/npm-cache",
    KEEP: "me",
  });

  it("drops what the repository's npm test passes down and names the registry and its own home", () => {
    expect(env).toMatchObject({
      KEEP: "me",
      HOME,
      npm_config_registry: `${REGISTRY}/`,
      npm_config_cache: `${HOME}/.npm`,
    });
    expect(env.npm_lifecycle_event).toBeUndefined();
    expect(env.npm_package_name).toBeUndefined();
  });

  it("puts the project's node first on PATH", () => {
    expect(env.PATH).toBe("/rt/24/bin:/usr/bin");
  });
});
