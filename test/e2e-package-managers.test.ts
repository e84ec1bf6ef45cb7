/**
 * pnpm, Yarn and monorepos (docs/installation-configuration.md, "Where it runs"): the packed package in a user's project as
 * each package manager lays it out, the tenant example's whole lifecycle under the real pulumi
 * CLI; and the one layout that cannot work, Plug'n'Play, refused at preview with one sentence.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { STEP_BOUNDS_MS } from "./support/budgets.js";
import {
  expectLifecyclePasses,
  LIFECYCLE_TIMEOUT_MS,
  tenantUserStack,
  type UserStack,
} from "./support/lifecycle.js";
import { findNodeRuntime, withNode } from "./support/node-runtimes.js";
import { MANAGER_SCRIPT } from "./support/user-project.js";

const run = promisify(execFile);
const YARN = MANAGER_SCRIPT.yarn;

let user: UserStack | undefined;
afterEach(async () => {
  await user?.remove();
  user = undefined;
});

/** Where Node finds `@pulumi/pulumi` from the folder `from` (a package's own, or the project's). */
async function sdkFrom(from: string): Promise<string> {
  return realpath(
    require.resolve("@pulumi/pulumi/package.json", { paths: [await realpath(from)] }),
  );
}

describe("pnpm, with its default isolated layout", { timeout: LIFECYCLE_TIMEOUT_MS }, () => {
  it("passes the lifecycle through Node.js's type stripping", async () => {
    user = await tenantUserStack({ manager: "pnpm", line: 24, way: "type-stripping" });
    await expectLifecyclePasses(user);
  });

  it("gives the program and the package one copy of @pulumi/pulumi", async () => {
    user = await tenantUserStack({ manager: "pnpm", line: 24, way: "type-stripping" });
    const dir = user.project.dir;
    expect(await sdkFrom(join(dir, "node_modules", "pulumi-tenant"))).toBe(await sdkFrom(dir));
  });

  it("passes the lifecycle through ts-node with the installation page's TypeScript range", async () => {
    user = await tenantUserStack({ manager: "pnpm", line: 22, way: "ts-node" });
    await expectLifecyclePasses(user);
  });
});

describe("Yarn", { timeout: LIFECYCLE_TIMEOUT_MS }, () => {
  it("classic (1.x) passes the lifecycle through ts-node", async () => {
    user = await tenantUserStack({ manager: "yarn-classic", line: 26, way: "ts-node" });
    await expectLifecyclePasses(user);
  });

  it("with nodeLinker node-modules passes the lifecycle through ts-node", async () => {
    user = await tenantUserStack({
      manager: "yarn",
      yarnLinker: "node-modules",
      line: 24,
      way: "ts-node",
    });
    await expectLifecyclePasses(user);
  });
});

describe("Yarn Plug'n'Play, a layout that cannot work", { timeout: LIFECYCLE_TIMEOUT_MS }, () => {
  const sentence =
    "pulumi-tenant cannot run from a Plug'n'Play install, because Pulumi's dynamic-provider host " +
    "loads it from a node_modules folder: set `nodeLinker: node-modules` in .yarnrc.yml " +
    "(pnpm: `node-linker=isolated` in .npmrc) and install again.";

  /** The NODE_OPTIONS that `yarn run` and `yarn exec` give the commands they start (PnP's hooks). */
  async function yarnNodeOptions(project: UserStack["project"]): Promise<string> {
    const { stdout } = await run(
      findNodeRuntime(24).node,
      [YARN, "node", "-p", "process.env.NODE_OPTIONS"],
      {
        cwd: project.root,
        env: withNode(findNodeRuntime(24), { ...process.env, HOME: join(project.root, ".home") }),
        timeout: STEP_BOUNDS_MS.node,
      },
    );
    return stdout.trim();
  }

  it("fails pulumi preview, run as `yarn run` runs it, with one sentence naming the setting", async () => {
    user = await tenantUserStack({ manager: "yarn", yarnLinker: "pnp", line: 24, way: "ts-node" });
    const nodeOptions = await yarnNodeOptions(user.project);
    expect(nodeOptions).toContain(".pnp.cjs");
    const preview = await user.stack.run("preview", { env: { NODE_OPTIONS: nodeOptions } });
    expect(preview.ok).toBe(false);
    expect(preview.error?.split("\n")).toContain(sentence);
    expect(preview.output).not.toMatch(/^\s+at /m);
    expect(user.stack.api.stats().api).toBe(0);
  });

  it("fails plain pulumi preview in Pulumi's language host, which finds no SDK without PnP's hooks", async () => {
    user = await tenantUserStack({ manager: "yarn", yarnLinker: "pnp", line: 24, way: "ts-node" });
    const preview = await user.stack.run("preview");
    expect(preview.ok).toBe(false);
    expect(preview.output).toContain(
      "It looks like the Pulumi SDK has not been installed. Have you run pulumi install?",
    );
  });
});

describe("an npm workspaces monorepo", { timeout: LIFECYCLE_TIMEOUT_MS }, () => {
  it("passes the lifecycle of the Pulumi project in infra/, its dependencies hoisted to the root", async () => {
    user = await tenantUserStack({
      manager: "npm",
      monorepo: true,
      line: 26,
      way: "type-stripping",
    });
    const { root, dir } = user.project;
    expect(dir).toBe(join(root, "infra"));
    expect(existsSync(join(root, "node_modules", "pulumi-tenant"))).toBe(true);
    expect(existsSync(join(dir, "node_modules", "pulumi-tenant"))).toBe(false);
    await expectLifecyclePasses(user);
  });
});
