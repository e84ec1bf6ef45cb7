/**
 * The three resources under Pulumi's rules (test/engine/CONFORMANCE.md), end to end against the
 * local tenant API: the drift gate of rule 1 in both scenarios, credential rotation (rule 2),
 * retainOnDelete added later (rule 5) and replaceOnChanges (rule 6).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EngineCommand, EngineOptions, EngineResult } from "./engine/index.js";
import { type Stack, startStack } from "./support/e2e.js";
import { DEFAULT_SEED_IDS } from "./tenant-api/seed.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const PARTNER = DEFAULT_SEED_IDS.strictThirdParty;
const FIXTURE = resolve(__dirname, "engine", "fixtures", "tenant", "index.ts");
const DECLARED = ["https://portal.example.com/callback"];
const EDITED = ["https://attacker.example/cb"];

interface Spec {
  kind: "ClientSettings" | "PushProviderSelection" | "EventStreamDeletion";
  name: string;
  args: Record<string, unknown>;
  options?: Record<string, unknown>;
}

const portal = (options?: Record<string, unknown>, callbacks = DECLARED): Spec => ({
  kind: "ClientSettings",
  name: "portal",
  args: { clientId: PORTAL, callbacks },
  ...(options ? { options } : {}),
});
// A client whose thirdPartySecurityMode is fixed: declaring the live value must never fail.
const partner: Spec = {
  kind: "ClientSettings",
  name: "partner",
  args: { clientId: PARTNER, thirdPartySecurityMode: "strict", description: "Partner app" },
};

interface RulesStack {
  stack: Stack;
  run(
    command: EngineCommand,
    resources: Spec[] | undefined,
    options?: Partial<EngineOptions>,
  ): Promise<EngineResult>;
  callbacks(): unknown;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A project running the fixture program against its own local tenant API. */
async function rulesStack(): Promise<RulesStack> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-rules-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, "Pulumi.yaml"),
    `name: tenant-rules\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: ${FIXTURE}\n`,
  );
  const stack = await startStack(dir, {});
  cleanups.push(() => stack.stop());
  return {
    stack,
    run: (command, resources, options = {}) =>
      stack.run(command, {
        ...options,
        config: {
          ...(resources ? { "rules:resources": { value: JSON.stringify(resources) } } : {}),
          ...options.config,
        },
      }),
    callbacks: () => stack.api.store.getClient(PORTAL)?.callbacks,
  };
}

async function ok(result: Promise<EngineResult>): Promise<EngineResult> {
  const done = await result;
  expect(done.error, done.output).toBeUndefined();
  return done;
}

/** Someone edits the portal's callbacks in the dashboard. */
function edit(s: RulesStack, callbacks: string[]): void {
  const client = s.stack.api.store.getClient(PORTAL);
  if (!client) throw new Error("the portal client is missing from the seed");
  s.stack.api.store.putClient({ ...client, callbacks });
}

describe("the drift gate (refresh --preview-only --expect-no-changes) under Pulumi's refresh", () => {
  it("still fails with exit code 7 after a plain refresh accepted the edit into the state", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal(), partner]));
    edit(s, EDITED);
    await ok(s.run("refresh", undefined));

    const gate = await s.run("refresh", undefined, { previewOnly: true, expectNoChanges: true });

    expect(gate.exitCode, gate.output).toBe(7);
    expect(gate.steps.map((step) => [step.name, step.op, step.changedProperties]).sort()).toEqual([
      ["partner", "same", []],
      ["portal", "update", ["callbacks"]],
    ]);
    await ok(s.run("up", [portal(), partner]));
    expect(s.callbacks()).toEqual(DECLARED);
  });

  it("passes once the edit is undone, though the state still holds the edited callbacks", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal(), partner]));
    edit(s, EDITED);
    await ok(s.run("refresh", undefined));
    edit(s, DECLARED);

    const gate = await s.run("refresh", undefined, { previewOnly: true, expectNoChanges: true });

    expect(gate.exitCode, gate.output).toBe(0);
    expect(gate.counts).toEqual({ same: 2 });
  });
});

describe("credential rotation (the provider entry keeps the config of the last up)", () => {
  /** Rotates the management client's secret: the old one stops working at once. */
  function rotate(s: RulesStack): Partial<EngineOptions> {
    const admin = s.stack.api.store.getClient(s.stack.api.clientId);
    if (!admin) throw new Error("the management client is missing from the seed");
    const secret = "rotated-secret-0123456789abcdefghijklmnopqrstuv";
    s.stack.api.store.putClient({ ...admin, client_secret: secret });
    return { config: { "tenant:clientSecret": { value: secret, secret: true } } };
  }

  it("fails refresh and destroy with the revoked secret until up records the new one", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal()]));
    const rotated = rotate(s);

    const refresh = await s.run("refresh", undefined, rotated);
    const destroy = await s.run("destroy", undefined, rotated);

    const revoked =
      `ClientSettings "portal": getting an access token for client ${s.stack.api.clientId} ` +
      `from ${s.stack.api.tokenUrl} failed with 401 access_denied: Unauthorized`;
    expect(refresh.exitCode).toBe(1);
    expect(refresh.error).toBe(`tenant:ClientSettings (portal): read failed: ${revoked}`);
    expect(destroy.exitCode).toBe(1);
    expect(destroy.error).toBe(`tenant:ClientSettings (portal): delete failed: ${revoked}`);
    expect(s.callbacks()).toEqual(DECLARED);

    await ok(s.run("up", [portal()], rotated));
    await ok(s.run("refresh", undefined, rotated));
    await ok(s.run("destroy", undefined, rotated));
  });

  it("refreshes with the new secret when the program runs, which also records it", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal()]));
    const rotated = rotate(s);

    await ok(s.run("refresh", [portal()], { ...rotated, runProgram: true }));

    await ok(s.run("refresh", undefined, rotated));
  });
});

describe("resource options of the three resources", () => {
  it("keeps a client's settings when retainOnDelete is added first and the resource removed later", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal()]));
    const retained = await ok(s.run("up", [portal({ retainOnDelete: true })]));
    expect(retained.counts).toEqual({ same: 1 });

    const removed = await ok(s.run("up", []));

    expect(removed.steps.map((step) => [step.name, step.op])).toEqual([["portal", "delete"]]);
    expect(s.callbacks()).toEqual(DECLARED);
  });

  it("updates a client in place on a change under replaceOnChanges, keeping the declared value", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal({ replaceOnChanges: ["callbacks"] })]));
    const next = ["https://portal.example.com/callback2"];

    const changed = await ok(s.run("up", [portal({ replaceOnChanges: ["callbacks"] }, next)]));

    expect(changed.steps.map((step) => [step.name, step.op])).toEqual([["portal", "update"]]);
    expect(s.callbacks()).toEqual(next);
  });
});
