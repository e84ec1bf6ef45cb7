/**
 * Node.js 22, 24 and 26 (docs/installation-configuration.md, "Where it runs"): the packed package in a user's project
 * installed by npm, the tenant example's whole lifecycle under each supported line, its program
 * and provider hosts run by that line's `node`.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  expectLifecyclePasses,
  installedVersion,
  LIFECYCLE_TIMEOUT_MS,
  tenantUserStack,
  type UserStack,
} from "./support/lifecycle.js";
import { NODE_LINES } from "./support/node-runtimes.js";

let user: UserStack | undefined;
afterEach(async () => {
  await user?.remove();
  user = undefined;
});

describe("a user project installed by npm", { timeout: LIFECYCLE_TIMEOUT_MS }, () => {
  it.each(NODE_LINES)(
    "passes the lifecycle on Node.js %i through Node.js's type stripping",
    async (line) => {
      user = await tenantUserStack({ manager: "npm", line, way: "type-stripping" });
      await expectLifecyclePasses(user);
    },
  );

  it("passes the lifecycle through ts-node with the TypeScript the installation page's install line gets", async () => {
    user = await tenantUserStack({ manager: "npm", line: 22, way: "ts-node" });
    const typescript = await installedVersion(user.project.dir, "typescript");
    expect(Number(typescript.split(".")[0])).toBeLessThan(7);
    await expectLifecyclePasses(user);
  });
});
