/**
 * The three resources under the rules of Pulumi's engine that the package's promises rest on
 * (docs/design/pulumi-cli.md), end to end with the real CLI against the local tenant API: the drift gate
 * in both scenarios, `up --expect-no-changes`, credential rotation, retainOnDelete added later,
 * replaceOnChanges, protect, and a missing passphrase.
 */
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget } from "./support/budgets.js";
import { type Stack, type StackRunOptions, startStack } from "./support/e2e.js";
import type { PulumiCommand, PulumiResult } from "./support/pulumi.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const PARTNER = DEFAULT_SEED_IDS.strictThirdParty;
const PROGRAM = resolve(__dirname, "fixtures", "rules");
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
  /** Runs the fixture program declaring `resources` (undefined: the config of the last run). */
  run(
    command: PulumiCommand,
    resources: Spec[] | undefined,
    options?: StackRunOptions,
  ): Promise<PulumiResult>;
  callbacks(): unknown;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A project running the fixture program against its own local tenant API. */
async function rulesStack(): Promise<RulesStack> {
  const stack = await startStack(PROGRAM, {});
  cleanups.push(() => stack.stop());
  let declared: Spec[] = [];
  return {
    stack,
    run: (command, resources, options = {}) => {
      declared = resources ?? declared;
      return stack.run(command, {
        ...options,
        config: {
          "rules:resources": { value: JSON.stringify(declared) },
          ...options.config,
        },
      });
    },
    callbacks: () => stack.api.store.getClient(PORTAL)?.callbacks,
  };
}

async function ok(result: Promise<PulumiResult>): Promise<PulumiResult> {
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

describe("the drift gate (refresh --preview-only --expect-no-changes) under Pulumi's refresh", {
  timeout: budget({ pulumi: 5 }),
}, () => {
  it("still fails with exit code 7 after a plain refresh accepted the edit into the state, and passes once up repaired it", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal(), partner]));
    edit(s, EDITED);
    await ok(s.run("refresh", undefined));

    const gate = await s.run("refresh", undefined, { previewOnly: true, expectNoChanges: true });

    expect(gate.exitCode, gate.output).toBe(7);
    expect(gate.steps.map((step) => [step.name, step.op]).sort()).toEqual([
      ["partner", "same"],
      ["portal", "update"],
    ]);
    await ok(s.run("up", [portal(), partner]));
    expect(s.callbacks()).toEqual(DECLARED);
    const repaired = await s.run("refresh", undefined, {
      previewOnly: true,
      expectNoChanges: true,
    });
    expect(repaired.exitCode, repaired.output).toBe(0);
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

describe("up --expect-no-changes", { timeout: budget({ pulumi: 2 }) }, () => {
  it("applies the changes, then exits with code 7", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal()]));
    const next = ["https://portal.example.com/next"];

    const result = await s.run("up", [portal(undefined, next)], { expectNoChanges: true });

    expect(result.exitCode, result.output).toBe(7);
    expect(result.error).toBe("no changes were expected for update but changes were proposed");
    expect(s.callbacks()).toEqual(next);
  });
});

describe("credential rotation (the provider entry keeps the config of the last up)", {
  timeout: budget({ pulumi: 6 }),
}, () => {
  /** Rotates the management client's secret: the old one stops working at once. */
  function rotate(s: RulesStack): StackRunOptions {
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
      `from ${s.stack.api.tokenUrl} failed with 401 access_denied: Unauthorized; ` +
      `check the client secret given for client ${s.stack.api.clientId}`;
    expect(refresh.exitCode).toBe(1);
    // refresh fails in its preview pass, destroy in the deletion itself: neither writes anything.
    expect(refresh.error).toBe(`Preview failed: ${revoked}\npreview failed`);
    expect(destroy.exitCode).toBe(1);
    expect(destroy.error).toBe(`${revoked}\nupdate failed`);
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

describe("resource options of the three resources", { timeout: budget({ pulumi: 3 }) }, () => {
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

  it("refuses in preview to delete a protected resource, writing nothing", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal({ protect: true })]));
    s.stack.api.resetStats();

    const removed = await s.run("up", []);

    const urn = "urn:pulumi:e2e::tenant-rules::pulumi-nodejs:dynamic/tenant:ClientSettings::portal";
    expect(removed.exitCode).toBe(1);
    expect(removed.error).toBe(
      `Preview failed: resource "${urn}" cannot be deleted\n` +
        "because it is protected. To unprotect the resource, either remove the `protect` flag from " +
        "the resource in your Pulumi program and run `pulumi up`, or use the command:\n" +
        `\`pulumi state unprotect '${urn}'\`\npreview failed`,
    );
    expect(s.stack.writes()).toBe(0);
    expect(s.callbacks()).toEqual(DECLARED);
  });
});

describe("the stack's secrets", { timeout: budget({ pulumi: 2 }) }, () => {
  it("fail a run without the passphrase before anything reaches the tenant", async () => {
    const s = await rulesStack();
    await ok(s.run("up", [portal()]));
    s.stack.api.resetStats();

    const result = await s.run("up", [portal(undefined, EDITED)], {
      env: { PULUMI_CONFIG_PASSPHRASE: undefined },
    });

    expect(result.exitCode).toBe(1);
    expect(result.error).toBe(
      "getting stack configuration: get stack secrets manager: passphrase must be set with " +
        "PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE environment variables",
    );
    expect(s.stack.api.stats().total).toBe(0);
    expect(s.callbacks()).toEqual(DECLARED);
  });
});
