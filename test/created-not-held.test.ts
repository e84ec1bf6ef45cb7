/**
 * A create whose write the tenant does not hold (docs/design/decisions.md, "Every write checked by
 * its answer"): the failure carries the partial state the engine records, the client's id and the
 * outputs the create would have saved, with the priors taken before the write.
 */

import { afterEach, describe, expect, it } from "vitest";
import { TenantApiError, WriteNotHeldError } from "../provider/errors.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { createdNotHeld } from "../provider/providers/created-not-held.js";
import { type Harness, startHarness } from "./support/harness.js";

const WEB = DEFAULT_SEED_IDS.regularWeb;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe("a create whose write the tenant does not hold", () => {
  it("throws an error carrying the id, the outputs as the tenant holds them and the true priors", async () => {
    // The tenant keeps mobile.ios as stored (the portal has none), whatever a PATCH says.
    h = await startHarness({ quirks: "keep=mobile.ios" });
    const failure = await h.clients
      .create({
        __resourceName: "web",
        clientId: WEB,
        description: "Portal",
        mobile: { ios: { teamId: "T1" } },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(WriteNotHeldError);
    const error = failure as WriteNotHeldError;
    const message =
      `ClientSettings "web": client ${WEB} does not hold what was sent: mobile.ios.team_id ` +
      'sent "T1", the tenant holds none. The tenant accepted the PATCH but kept another value ' +
      "there; the next preview shows the difference, and `up` tries again.";
    expect(error.message).toBe(message);
    expect(error.id).toBe(WEB);
    expect(error.reasons).toEqual([message]);
    expect(error.properties).toEqual({
      __resourceName: "web",
      clientId: WEB,
      description: "Portal",
      mobile: { ios: null },
      prior: {
        paths: [
          { path: ["description"], value: "Server-rendered customer portal" },
          { path: ["mobile", "ios", "team_id"], absentBelow: 0 },
        ],
      },
      ...h.recorded,
    });
  });
});

describe("createdNotHeld", () => {
  it("leaves an error without outputs as it is, id and reasons unset", () => {
    const refused = new TenantApiError({ method: "PATCH", path: "/clients/abc", status: 400 });
    expect(createdNotHeld(refused, "abc", {})).toBe(refused);
    const notHeld = new WriteNotHeldError("abc", [{ path: "sso", sent: "true", held: "false" }]);
    expect(createdNotHeld(notHeld, "abc", {})).toBe(notHeld);
    expect(notHeld.id).toBeUndefined();
    expect(notHeld.reasons).toBeUndefined();
  });

  it("records the report's outputs and what create adds to them", () => {
    const notHeld = new WriteNotHeldError("abc", [{ path: "sso", sent: "true", held: "false" }]);
    notHeld.outputs = { clientId: "abc", sso: false };
    createdNotHeld(notHeld, "abc", { stackTenant: { domain: "t.example" } });
    expect(notHeld.properties).toEqual({
      clientId: "abc",
      sso: false,
      stackTenant: { domain: "t.example" },
    });
    expect(notHeld.reasons).toEqual([notHeld.message]);
  });
});
