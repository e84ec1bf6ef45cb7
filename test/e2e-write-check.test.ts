/**
 * Every write checked by its answer (issue 61 item 4), under the real pulumi CLI: a local tenant
 * that keeps a member against its own model (the `keep` quirk) answers a write it did not apply;
 * `up` fails naming the resource, the client, the path, what was sent and what the tenant
 * holds, and the next preview shows the change again instead of calling the resource done
 * (docs/design/decisions.md, "Every write checked by its answer").
 */

import { describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import { useClientsStacks } from "./support/e2e.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;

const clientsStack = useClientsStacks();

describe("every write checked by its answer under the CLI", {
  timeout: budget({ pulumi: 4 }),
}, () => {
  it("fails the up whose write the tenant does not hold, naming the path, and previews the change again", async () => {
    const entries = (settings: unknown) => [{ name: "portal", clientId: PORTAL, settings }];
    // The tenant keeps mobile.ios as stored (the portal has none), whatever a PATCH says.
    const { stack, run } = await clientsStack(entries({ mobile: { ios: { teamId: "T1" } } }), {
      quirks: "keep=mobile.ios",
    });
    const portal = () => stack.api.store.getClient(PORTAL) as Record<string, unknown>;
    const failed = await run("up");
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain(
      `ClientSettings "portal": client ${PORTAL} does not hold what was sent: mobile.ios.team_id ` +
        'sent "T1", the tenant holds none.',
    );
    expect(portal()).not.toHaveProperty("mobile.ios");

    const preview = await run("preview");
    expect(preview.ok).toBe(true);
    expect(preview.changes).toBe(true);
  });
});
