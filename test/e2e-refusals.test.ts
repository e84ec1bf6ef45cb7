import { describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget } from "./support/budgets.js";
import { useClientsStacks } from "./support/e2e.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const PARTNER = DEFAULT_SEED_IDS.strictThirdParty;

/** A stack of the clients-from-data example whose file holds `entries`. */
const stackOf = useClientsStacks();

describe("refusals before anything is sent", { timeout: budget({ pulumi: 2 }) }, () => {
  it("fails the preview of a thirdPartySecurityMode change with the message, sending nothing", async () => {
    const partner = (mode: string) => [
      { name: "partner", clientId: PARTNER, settings: { thirdPartySecurityMode: mode, sso: true } },
    ];
    const { stack, run, write } = await stackOf(partner("strict"));
    expect((await run("up")).ok).toBe(true);
    await write(partner("permissive"));
    stack.api.resetStats();

    const preview = await run("preview");
    expect(preview.ok).toBe(false);
    expect(preview.output).toContain(
      `ClientSettings "partner": thirdPartySecurityMode of client ${PARTNER} cannot change from "strict" to "permissive": ` +
        "the platform fixes it when the client is created.",
    );
    expect(stack.api.stats().api).toBe(0);
  });

  it("fails the preview of invalid inputs, naming every property, sending nothing", async () => {
    const { stack, run } = await stackOf([
      {
        name: "portal",
        clientId: PORTAL,
        settings: {
          callbacks: ["https://portal.example.com/cb", "portal/cb"],
          description: "x".repeat(141),
          jwtConfiguration: { lifetimeInSaconds: 3600 },
        },
      },
    ]);
    const preview = await run("preview");
    expect(preview.ok).toBe(false);
    // The CLI prints each failure of Check with the property's top-level value (none for a nested
    // path): every mistake of the program at once.
    const failure = (property: string, value: string, reason: string) =>
      `pulumi-nodejs:dynamic/tenant:ClientSettings resource 'portal': property ${property} value {${value}} has a problem: ${reason}`;
    expect(preview.exitCode).toBe(1);
    expect(preview.error?.split("\n").slice(0, 3)).toEqual([
      failure("description", "x".repeat(141), "must be at most 140 characters (got 141)"),
      failure(
        "callbacks[1]",
        "<nil>",
        'must be an absolute URL such as https://app.example.com/callback or com.example.app://callback ("*" allowed in a subdomain) (got "portal/cb")',
      ),
      failure(
        "jwtConfiguration.lifetimeInSaconds",
        "<nil>",
        'is not a known property; did you mean "lifetimeInSeconds"?',
      ),
    ]);
    expect(stack.api.stats().api).toBe(0);
    expect(stack.writes()).toBe(0);
  });
});
