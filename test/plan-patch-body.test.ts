/**
 * The PATCH body of an operation's writes (provider/plan/patch-body.ts), by the schema's rule per
 * path (provider/plan/patch-rules.ts): only the owned paths where an object merges, the whole
 * object where it is replaced, the whole object with removals as null where nothing recorded tells.
 */

import { describe, expect, it } from "vitest";
import { patchBody } from "../provider/plan/patch-body.js";
import { patchRuleAt } from "../provider/plan/patch-rules.js";

describe("patchRuleAt", () => {
  it("reads merge where the recordings show members kept", () => {
    for (const wire of [
      "mobile",
      "session_transfer",
      "signed_request_object",
      "jwt_configuration",
      "client_metadata",
      "native_social_login",
    ]) {
      expect(patchRuleAt([wire])).toBe("merge");
    }
  });

  it("reads replace for addons.samlp and its mappings, down the verbatim add-on keys", () => {
    expect(patchRuleAt(["addons", "samlp"])).toBe("replace");
    expect(patchRuleAt(["addons", "samlp", "mappings"])).toBe("replace");
  });

  it("reads undecided where nothing recorded tells, and inside a free-form value", () => {
    expect(patchRuleAt(["addons"])).toBe("undecided");
    expect(patchRuleAt(["refresh_token"])).toBe("undecided");
    expect(patchRuleAt(["mobile", "ios"])).toBe("undecided");
    expect(patchRuleAt(["jwt_configuration", "scopes", "read:a"])).toBe("undecided");
  });
});

describe("patchBody", () => {
  it("sends only the written paths of a merging object, a removal as null", () => {
    const live = { jwt_configuration: { alg: "RS256", lifetime_in_seconds: 36000 } };
    const body = patchBody(
      [
        { path: ["jwt_configuration", "lifetime_in_seconds"], value: 600 },
        { path: ["jwt_configuration", "alg"], remove: true },
      ],
      live,
    );
    expect(body).toEqual({ jwt_configuration: { lifetime_in_seconds: 600, alg: null } });
  });

  it("sends an undecided object whole below a merging one, a removal as null", () => {
    const live = { mobile: { ios: { team_id: "T", app_bundle_identifier: "b" }, android: {} } };
    expect(patchBody([{ path: ["mobile", "ios", "team_id"], remove: true }], live)).toEqual({
      mobile: { ios: { team_id: null, app_bundle_identifier: "b" } },
    });
  });

  it("sends a replaced object whole, with what is below it, a removal left out", () => {
    const samlp = { audience: "urn:a", recipient: "r", mappings: { email: "e", name: "n" } };
    const body = patchBody(
      [
        { path: ["addons", "samlp", "audience"], remove: true },
        { path: ["addons", "samlp", "mappings", "name"], remove: true },
      ],
      { addons: { samlp, wsfed: {} } },
    );
    expect(body).toEqual({
      addons: { samlp: { recipient: "r", mappings: { email: "e" } }, wsfed: {} },
    });
  });

  it("sends a top-level value as written, and nothing without a write", () => {
    expect(patchBody([{ path: ["description"], value: "x" }], {})).toEqual({ description: "x" });
    expect(patchBody([], { description: "x" })).toEqual({});
  });

  it("keeps a __proto__ key of a free-form map as a plain key", () => {
    const body = patchBody([{ path: ["client_metadata", "__proto__"], value: "x" }], {});
    const metadata = body.client_metadata as Record<string, unknown>;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.hasOwn(metadata, "__proto__")).toBe(true);
  });
});
