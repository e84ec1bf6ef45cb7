/**
 * Every write checked by its answer (issue 61 item 4), under the real pulumi CLI: a local tenant
 * that keeps a member against its own model (the `keep` quirk) answers a write it did not apply;
 * `up` fails naming the resource, the client, the path, what was sent and what the tenant
 * holds, and the next preview shows the change again instead of calling the resource done. A
 * create that fails so is still recorded, with the priors it took before writing, so that the
 * next preview is an update and a destroy puts the client back as it was
 * (docs/design/decisions.md, "Every write checked by its answer").
 */

import { describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import { useClientsStacks } from "./support/e2e.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;

const clientsStack = useClientsStacks();

describe("every write checked by its answer under the CLI", {
  timeout: budget({ pulumi: 4, pulumiCommands: 1 }),
}, () => {
  it("records a create whose write the tenant does not hold, previews an update, and destroys back to the true priors", async () => {
    const entries = (settings: unknown) => [{ name: "portal", clientId: PORTAL, settings }];
    // The tenant keeps mobile.ios as stored (the portal has none), whatever a PATCH says; the
    // description is written as sent.
    const { stack, run } = await clientsStack(
      entries({ description: "Managed portal", mobile: { ios: { teamId: "T1" } } }),
      { quirks: "keep=mobile.ios" },
    );
    const portal = () => stack.api.store.getClient(PORTAL) as Record<string, unknown>;
    const failed = await run("up");
    expect(failed.ok).toBe(false);
    const message =
      `ClientSettings "portal": client ${PORTAL} does not hold what was sent: mobile.ios.team_id ` +
      'sent "T1", the tenant holds none.';
    expect(failed.error).toContain(message);
    expect(portal()).not.toHaveProperty("mobile.ios");
    expect(portal().description).toBe("Managed portal");

    const state = await stack.project.exportState({ showSecrets: true });
    const recorded = state.deployment.resources?.find((r) => r.urn.endsWith("::portal"));
    expect(recorded?.id).toBe(PORTAL);
    expect(recorded?.initErrors?.[0]).toContain(message);
    expect(JSON.stringify(recorded?.outputs?.prior)).toContain("Server-rendered customer portal");
    // The priors are saved encrypted, as a create that succeeds saves them.
    expect(await stack.stateText()).not.toContain("Server-rendered customer portal");

    const preview = await run("preview");
    expect(preview.ok).toBe(true);
    expect(preview.steps.map(({ name, op }) => `${name} ${op}`)).toContain("portal update");

    const destroy = await run("destroy");
    expect(destroy.error, destroy.output).toBeUndefined();
    expect(portal().description).toBe("Server-rendered customer portal");
  });
});
