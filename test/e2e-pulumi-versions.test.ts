/**
 * The Pulumi versions users have: the package in a user's project whose program depends on the
 * oldest `@pulumi/pulumi` the package supports (its floor), under the floor's own CLI, or on the
 * newest on npm, under the newest CLI the Go module proxy serves; each with one copy of the SDK
 * (docs/design/pulumi-cli.md says which versions and why).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import {
  type ConfigValues,
  installedExample,
  type Stack,
  startStack,
  tenantExampleConfig,
  undoAfterEach,
} from "./support/e2e.js";
import type { InstalledProject } from "./support/installed-package.js";
import {
  expectLifecyclePasses,
  LIFECYCLE_STEPS,
  tenantUserStack,
  type UserStack,
} from "./support/lifecycle.js";

const run = promisify(execFile);
const FLOOR = "3.139.0";
/** The newest `@pulumi/pulumi` on npm, and the newest pulumi CLI the Go module proxy serves. */
const NEWEST = "3.270.0";
const NEWEST_CLI = "3.274.1";
const PORTAL = DEFAULT_SEED_IDS.regularWeb;

const undo = undoAfterEach();

/** Every copy of `@pulumi/pulumi` in an npm project's `node_modules`, as `npm ls` finds them. */
async function sdkCopies(dir: string): Promise<string[]> {
  const { stdout } = await run("npm", ["ls", "@pulumi/pulumi", "--all", "--parseable", "--long"], {
    cwd: dir,
    timeout: STEP_BOUNDS_MS.node,
  });
  return stdout
    .trim()
    .split("\n")
    .filter((line) => line.includes("@pulumi/pulumi@"))
    .map((line) => line.slice(line.lastIndexOf(":") + 1));
}

/**
 * The example `name` installed in a user project whose `@pulumi/pulumi` is the lock's copy
 * `pulumi`, before the describe block's tests, and removed after them.
 */
function userProject(name: string, pulumi: string): () => InstalledProject {
  let project: InstalledProject | undefined;
  beforeAll(
    async () => {
      project = await installedExample(name, pulumi);
    },
    budget({ installs: 1 }),
  );
  afterAll(async () => {
    await project?.remove();
  });
  return () => {
    if (project === undefined) throw new Error(`the ${name} user project was not installed`);
    return project;
  };
}

async function started(project: InstalledProject, config: ConfigValues): Promise<Stack> {
  const stack = await startStack(project.dir, config, {}, { cliVersion: FLOOR });
  undo(() => stack.stop());
  return stack;
}

// The lifecycle: six runs of the stack (preview, up, the gate, the repair, the gate, destroy).
describe(`a user project on the floor, @pulumi/pulumi ${FLOOR}, under pulumi v${FLOOR}`, {
  timeout: budget({ pulumi: 6 }),
}, () => {
  const tenant = userProject("tenant", "@pulumi/pulumi-floor");

  it("has one @pulumi/pulumi, the floor, shared by the program and the package", async () => {
    expect(await sdkCopies(tenant().dir)).toEqual([`@pulumi/pulumi@${FLOOR}`]);
  });

  it("previews, applies, gates drift, refreshes and destroys the tenant example", async () => {
    const s = await started(tenant(), tenantExampleConfig());
    const before = s.api.store.snapshot();

    const preview = await s.run("preview");
    expect(preview.counts, preview.output).toEqual({ create: 4 });
    expect(s.api.stats().api).toBe(0);
    const up = await s.run("up");
    expect(up.error, up.output).toBeUndefined();
    expect(s.api.store.getProvider()).toBe("sns");

    const client = s.api.store.getClient(PORTAL);
    s.api.store.putClient({ ...client, callbacks: ["https://attacker.example/cb"] } as never);
    const gate = await s.run("refresh", { previewOnly: true, expectNoChanges: true });
    // Before pulumi 3.226 a failed --expect-no-changes exits 255, not 7 (docs/design/pulumi-cli.md).
    expect(gate.exitCode, gate.output).toBe(255);
    expect(gate.error).toBe("no changes were expected but changes occurred");
    // As at every version, up repairs what a refresh recorded (pulumi up --refresh does both).
    expect((await s.run("up", { args: ["--refresh"] })).ok).toBe(true);
    const clean = await s.run("refresh", { previewOnly: true, expectNoChanges: true });
    expect(clean.exitCode, clean.output).toBe(0);

    expect((await s.run("destroy")).ok).toBe(true);
    const { eventStreams: _after, ...after } = s.api.store.snapshot();
    const { eventStreams: _before, ...expected } = before;
    expect(after).toEqual(expected);
  });

  it("keeps the tenant's client secret and the prior values out of the state file", async () => {
    const s = await started(tenant(), tenantExampleConfig());
    expect((await s.run("up")).ok).toBe(true);
    const state = await s.stateText();
    expect(state).not.toBe("");
    expect(state).not.toContain(s.api.clientSecret);
    expect(state).not.toContain("Server-rendered customer portal");
  });
});

describe(`a user project on the floor with two tenants, under pulumi v${FLOOR}`, {
  timeout: budget({ pulumi: 2 }),
}, () => {
  const multi = userProject("multi-tenant", "@pulumi/pulumi-floor");

  it("gives each tenant its own settings and destroys both back", async () => {
    const staging = await started(multi(), {});
    const production = await startStack(multi().dir, {}, {}, { cliVersion: FLOOR });
    undo(() => production.stop());
    const config: ConfigValues = { "tenant:domain": { value: "" } };
    for (const [environment, api] of [
      ["staging", staging.api],
      ["production", production.api],
    ] as const) {
      Object.assign(config, {
        [`multi-tenant:${environment}Domain`]: { value: api.domain },
        [`multi-tenant:${environment}ClientId`]: { value: api.clientId },
        [`multi-tenant:${environment}ClientSecret`]: { value: api.clientSecret, secret: true },
        [`multi-tenant:${environment}PortalClientId`]: { value: PORTAL },
        [`multi-tenant:${environment}DashboardClientId`]: { value: DEFAULT_SEED_IDS.spa },
      });
    }
    const before = [staging.api.store.snapshot(), production.api.store.snapshot()];

    const up = await staging.run("up", { config });
    expect(up.error, up.output).toBeUndefined();
    for (const [environment, api] of [
      ["staging", staging.api],
      ["production", production.api],
    ] as const) {
      expect(api.store.getClient(PORTAL)).toMatchObject({ client_metadata: { environment } });
    }
    expect((await staging.run("destroy", { config })).ok).toBe(true);
    expect([staging.api.store.snapshot(), production.api.store.snapshot()]).toEqual(before);
  });
});

describe(`a user project on the newest @pulumi/pulumi, ${NEWEST}, under the newest pulumi CLI, v${NEWEST_CLI}`, {
  // The lifecycle, on the stack that the beforeAll installs.
  timeout: budget(LIFECYCLE_STEPS),
}, () => {
  let user: UserStack | undefined;
  beforeAll(
    async () => {
      user = await tenantUserStack({
        manager: "npm",
        line: 26,
        way: "type-stripping",
        dependencies: { "@pulumi/pulumi": NEWEST },
        cliVersion: NEWEST_CLI,
      });
    },
    budget({ installs: 1 }),
  );
  afterAll(async () => {
    await user?.remove();
  });

  it("has one @pulumi/pulumi, the newest, shared by the program and the package", async () => {
    expect(await sdkCopies((user as UserStack).project.dir)).toEqual([`@pulumi/pulumi@${NEWEST}`]);
  });

  it("passes the lifecycle", async () => {
    await expectLifecyclePasses(user as UserStack);
  });
});
