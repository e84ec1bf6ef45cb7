/**
 * The lifecycle every supported environment must pass (docs/installation-configuration.md, "Where it runs"): the tenant
 * example in a user's project, installed by a package manager under a Node.js line, taken by the
 * real pulumi CLI through preview, up, the drift gate, the repair and destroy, with no secret in
 * the state or the output.
 */
import { readFile } from "node:fs/promises";
import { expect } from "vitest";
import { DEFAULT_SEED_IDS } from "../../provider/local-tenant/seed.js";
import { budget, type StepCounts } from "./budgets.js";
import { credentialTexts, type Stack, startStack, tenantExampleConfig } from "./e2e.js";
import { findNodeRuntime, type NodeLine } from "./node-runtimes.js";
import { lockedPulumiVersion } from "./pulumi-cli.js";
import { type TypeScriptWay, tenantProgram } from "./tenant-program.js";
import { installUserProject, type UserProject, type UserProjectSpec } from "./user-project.js";

/**
 * The steps of the lifecycle ({@link expectTenantLifecycle}): six runs of the stack (preview, up,
 * the gate, the repair, the gate again, destroy) and `stack output`; the budget of a test that runs
 * it on a stack installed before (test/support/budgets.ts).
 */
export const LIFECYCLE_STEPS: StepCounts = { pulumi: 6, pulumiCommands: 1 };

/**
 * The budget of a test that installs a user project ({@link tenantUserStack}) and runs its
 * lifecycle ({@link expectLifecyclePasses}): one install and {@link LIFECYCLE_STEPS}.
 */
export const LIFECYCLE_TIMEOUT_MS = budget({ installs: 1, ...LIFECYCLE_STEPS });

/**
 * Runs the tenant example's lifecycle on `s` and asserts each step, throwing at the first step
 * that fails (with the CLI's output); returns the stack's outputs after `up`. `gateExit` is what a
 * failed `--expect-no-changes` exits with: 7 from pulumi 3.226, 255 before (docs/design/pulumi-cli.md).
 */
export async function expectTenantLifecycle(
  s: Stack,
  gateExit = 7,
): Promise<Record<string, unknown>> {
  const portal = DEFAULT_SEED_IDS.regularWeb;
  const before = s.api.store.snapshot();

  const preview = await s.run("preview");
  expect(preview.counts, preview.output).toEqual({ create: 4 });
  expect(s.api.stats().api, "a preview calls no API").toBe(0);

  const up = await s.run("up");
  expect(up.error, up.output).toBeUndefined();
  expect(s.api.store.getProvider()).toBe("sns");
  expect(s.api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(false);
  const outputs = JSON.parse(await s.project.cliCommand(["stack", "output", "--json"]));

  const client = s.api.store.getClient(portal);
  s.api.store.putClient({ ...client, callbacks: ["https://attacker.example/cb"] } as never);
  const gate = await s.run("refresh", { previewOnly: true, expectNoChanges: true });
  expect(gate.exitCode, gate.output).toBe(gateExit);
  const repair = await s.run("up", { args: ["--refresh"] });
  expect(repair.error, repair.output).toBeUndefined();
  expect(s.api.store.getClient(portal)).toMatchObject({
    callbacks: ["https://portal.example.com/callback"],
  });
  const clean = await s.run("refresh", { previewOnly: true, expectNoChanges: true });
  expect(clean.exitCode, clean.output).toBe(0);

  const state = await s.stateText();
  expect(state).not.toBe("");
  for (const [what, text] of [
    ["the state", state],
    ["the outputs", JSON.stringify(outputs)],
    ["the output of up", up.output],
    ["the output of the gate", gate.output],
    ["the output of the repair", repair.output],
  ] as const) {
    for (const secret of credentialTexts(s.api)) {
      expect(text, `${what} holds a credential`).not.toContain(secret);
    }
    // A prior value is a secret output: the portal's old description must not be readable.
    expect(text, `${what} holds a prior value`).not.toContain("Server-rendered customer portal");
  }

  const destroy = await s.run("destroy");
  expect(destroy.error, destroy.output).toBeUndefined();
  const { eventStreams: _after, ...after } = s.api.store.snapshot();
  const { eventStreams: _before, ...expected } = before;
  expect(after, "destroy puts the tenant back").toEqual(expected);
  return outputs as Record<string, unknown>;
}

/** The version of `name` that Node finds from the project's folder `dir` (hoisted, or linked). */
export async function installedVersion(dir: string, name: string): Promise<string> {
  const manifest = require.resolve(`${name}/package.json`, { paths: [dir] });
  return (JSON.parse(await readFile(manifest, "utf8")) as { version: string }).version;
}

/** A user project installed as `spec` says, and a stack of it against a new local tenant. */
export interface UserStack {
  readonly project: UserProject;
  readonly stack: Stack;
  /** What the stack was made with. */
  readonly spec: TenantUserStackSpec;
  /** Removes the stack's tenant and backend and the project. */
  remove(): Promise<void>;
}

/** How {@link tenantUserStack} installs and runs the tenant example. */
export type TenantUserStackSpec = Omit<
  UserProjectSpec,
  "files" | "dependencies" | "type" | "node"
> & {
  readonly way: TypeScriptWay;
  readonly line: NodeLine;
  /** Dependencies over the example's (`@pulumi/pulumi` at the lock's version, ts-node's). */
  readonly dependencies?: Readonly<Record<string, string>>;
  /** The pulumi CLI; by default the lock's. */
  readonly cliVersion?: string;
};

/**
 * Installs the tenant example, the TypeScript `way`, as `manager` does under Node.js `line`, and
 * starts a stack of it run by the pulumi CLI `cliVersion` under the same line.
 */
export async function tenantUserStack(spec: TenantUserStackSpec): Promise<UserStack> {
  const { way, line, cliVersion, dependencies, ...install } = spec;
  const program = await tenantProgram(way);
  const project = await installUserProject({
    ...install,
    ...program,
    node: findNodeRuntime(line),
    dependencies: {
      "@pulumi/pulumi": lockedPulumiVersion(),
      ...program.dependencies,
      ...dependencies,
    },
  });
  try {
    const stack = await startStack(
      project.dir,
      tenantExampleConfig(),
      {},
      {
        nodeLine: line,
        ...(cliVersion ? { cliVersion } : {}),
      },
    );
    return {
      project,
      stack,
      spec,
      remove: async () => {
        await stack.stop();
        await project.remove();
      },
    };
  } catch (error) {
    await project.remove();
    throw error;
  }
}

/**
 * The lifecycle ({@link expectTenantLifecycle}) of `user`, checked to have run its program under
 * the Node.js line it asked for, then reported as one line of the run's output, which the table
 * of what is tested quotes (docs/installation-configuration.md, "Where it runs").
 */
export async function expectLifecyclePasses(user: UserStack, gateExit = 7): Promise<void> {
  const outputs = await expectTenantLifecycle(user.stack, gateExit);
  expect(outputs.nodeVersion, "the Node.js that ran the program").toBe(
    findNodeRuntime(user.spec.line).version,
  );
  const layout = user.spec.monorepo ? ", npm workspaces monorepo" : "";
  const linker = user.spec.yarnLinker ? `, nodeLinker ${user.spec.yarnLinker}` : "";
  process.stdout.write(
    `lifecycle passed: Node.js ${outputs.nodeVersion}, ${user.spec.manager}${layout}${linker}, ` +
      `pulumi ${user.stack.project.cli.version}, @pulumi/pulumi ` +
      `${await installedVersion(user.project.dir, "@pulumi/pulumi")}, ${user.spec.way}\n`,
  );
}
