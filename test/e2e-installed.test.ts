import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget } from "./support/budgets.js";
import { installedExample, type Stack, startStack, tenantExampleConfig } from "./support/e2e.js";
import type { InstalledProject } from "./support/installed-package.js";

/**
 * As a user meets the package: `npm pack`, installed into a fresh Pulumi project outside the
 * repository, with the tenant example copied in. The serialized providers must load the installed
 * package, not the repository's sources.
 */
describe("the packed package installed in a user's project", {
  timeout: budget({ pulumi: 2, pulumiCommands: 1 }),
}, () => {
  let project: InstalledProject;
  let s: Stack | undefined;
  beforeAll(
    async () => {
      project = await installedExample("tenant");
    },
    budget({ installs: 1 }),
  );
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });
  afterAll(async () => {
    await project?.remove();
  });

  it("previews and applies the tenant example", async () => {
    s = await startStack(project.dir, tenantExampleConfig());
    expect((await s.run("preview")).ok).toBe(true);
    const up = await s.run("up");
    expect(up.error).toBeUndefined();
    expect(s.api.store.getProvider()).toBe("sns");
    expect(s.api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(false);
  });

  it("stores a provider of under 1 KB that requires the installed package by name", async () => {
    s = await startStack(project.dir, tenantExampleConfig());
    expect((await s.run("up")).ok).toBe(true);
    const { deployment } = await s.project.exportState();
    const tenantResources = (deployment.resources ?? []).filter((r) =>
      r.type.includes("dynamic/tenant:"),
    );
    expect(tenantResources).toHaveLength(4);
    for (const resource of tenantResources) {
      const provider = String(resource.outputs?.__provider);
      expect(provider).toMatch(/require\("pulumi-tenant\/shims\/[a-z-]+"\)/);
      expect(Buffer.byteLength(provider)).toBeLessThan(1024);
    }
  });
});
