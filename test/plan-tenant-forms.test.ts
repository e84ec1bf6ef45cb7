/**
 * No endless drift from the tenant's own forms (issue 54, defect 6): every nullable field declared
 * null, and every field the response defaults declared as its default, compares equal to what the
 * tenant keeps after the PATCH, so that the next preview shows no change. The tenant is the local
 * tenant's model of how a PATCH applies (provider/local-tenant/client-patch.ts).
 */

import { describe, expect, it } from "vitest";
import type { Props } from "../provider/json.js";
import { applyClientPatch } from "../provider/local-tenant/client-patch.js";
import { clientResponseDefaults, withResponseDefaults } from "../provider/local-tenant/clients.js";
import { planCreate, planDiff, planRead } from "../provider/plan/client-settings.js";
import { CLIENT_FIELDS, declaredClient } from "../provider/plan/declared.js";
import { fieldFromWire } from "../provider/schema/index.js";
import { clientFieldSchema } from "../provider/schema/wire.js";

const ID = "client-1";
const TENANT = "local";

/** The client as the tenant answers it after a create of `fields`, and the outputs left. */
function afterCreate(fields: Props): { outs: Props; live: Props } {
  const declared = declaredClient({ __resourceName: "web", clientId: ID, ...fields });
  // Answered to credentials that may read key material: the secret shows it.
  const before = withResponseDefaults({ client_id: ID, name: "Web", client_secret: "s" }, TENANT);
  const plan = planCreate(declared, before);
  // A PATCH's answer is the client as stored after it: no create defaults come back.
  const live = applyClientPatch(before, plan.send);
  return { outs: plan.report(live), live };
}

/** Whether declaring `value` in `field` leaves a change for the next preview, with and without refresh. */
function drifts(field: string, value: unknown): boolean {
  const fields = { [field]: value };
  const declared = declaredClient({ __resourceName: "web", clientId: ID, ...fields });
  const { outs, live } = afterCreate(fields);
  return planDiff(declared, outs).changes || planDiff(declared, planRead(outs, live)).changes;
}

const NULLABLE = CLIENT_FIELDS.filter(({ field }) =>
  [clientFieldSchema(field).type].flat().includes("null"),
).map(({ field }) => field);

const DEFAULTS = clientResponseDefaults(TENANT);
const DEFAULTED = CLIENT_FIELDS.filter(({ wire }) => Object.hasOwn(DEFAULTS, wire));

describe("the tenant's own forms", () => {
  it("finds the nullable and defaulted fields of the spec", () => {
    expect(NULLABLE.length).toBeGreaterThanOrEqual(15);
    // The fields the platform answers on a client created without them (recorded POST answers).
    expect(DEFAULTED.length).toBeGreaterThanOrEqual(9);
  });

  it.each(NULLABLE)("compares %s declared null as the tenant keeps it", (field) => {
    expect(drifts(field, null)).toBe(false);
  });

  it.each(DEFAULTED.map(({ field, wire }) => [field, wire] as const))(
    "compares %s declared as its default as the tenant keeps it",
    (field, wire) => {
      // Declared in the user's spelling, as a program writes it.
      expect(drifts(field, fieldFromWire(field, DEFAULTS[wire]))).toBe(false);
    },
  );
});
