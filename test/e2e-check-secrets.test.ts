import { describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget } from "./support/budgets.js";
import { useClientsStacks } from "./support/e2e.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;

/** One value per misspelt secret property, each told apart in the output. */
const SECRETS = {
  clientSecrett: "misspelt-client-secret-Qw3rTy1",
  encryption_key: "misspelt-encryption-key-Qw3rTy2",
  ADDONS: "misspelt-addons-Qw3rTy3",
  apiTokn: "misspelt-api-token-Qw3rTy4",
  tenantClientSecrt: "misspelt-tenant-secret-Qw3rTy5",
};

const clientsStack = useClientsStacks();

describe("check failures and secrets under the CLI", { timeout: budget({ pulumi: 1 }) }, () => {
  it("fails the preview of misspelt secret properties without printing or storing any value", async () => {
    // No clients until the tenant is up: the entry names its domain.
    const { stack, run, write } = await clientsStack([]);
    const { tenantClientSecrt, ...topLevel } = SECRETS;
    await write([
      {
        name: "portal",
        clientId: PORTAL,
        settings: {
          ...topLevel,
          tenant: { domain: stack.api.domain, clientSecrt: tenantClientSecrt },
        },
      },
    ]);

    const preview = await run("preview");
    expect(preview.ok).toBe(false);
    const printed = `${preview.output}\n${preview.error ?? ""}`;
    expect(printed).toContain(
      `ClientSettings resource 'portal' has a problem: clientSecrett: is not a known property; did you mean "clientSecret"?`,
    );
    expect(printed).toContain(
      "ClientSettings resource 'portal' has a problem: tenant: pulumi-tenant has no credentials",
    );
    const state = await stack.stateText();
    for (const value of Object.values(SECRETS)) {
      expect(printed).not.toContain(value);
      expect(state).not.toContain(value);
    }
    expect(stack.writes()).toBe(0);
  });
});
