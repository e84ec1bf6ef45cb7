/**
 * How the local tenant applies a client PATCH (provider/local-tenant/client-patch.ts), rule by
 * rule, as the platform's recorded traffic shows it (docs/design/local-tenant.md, "How a PATCH
 * applies"); the replay of the whole corpus is test/local-tenant-conformance.test.ts.
 */

import { describe, expect, it } from "vitest";
import { CommandUsageError } from "../provider/errors.js";
import {
  applyClientPatch,
  checkedPatchModel,
  objectRule,
  type PatchModel,
} from "../provider/local-tenant/client-patch.js";
import { clientResponseDefaults, withResponseDefaults } from "../provider/local-tenant/clients.js";
import { parseCliArgs } from "../provider/local-tenant/command.js";

const ID = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";

/** A stored client of these fields. */
function client(fields: Record<string, unknown>) {
  return { client_id: ID, name: "App", ...fields };
}

/** The stored client once `patch` applies under `model` (merge by default). */
function patched(
  fields: Record<string, unknown>,
  patch: Record<string, unknown>,
  model: PatchModel = "merge",
  keep: readonly string[] = [],
) {
  return applyClientPatch(client(fields), patch, { model, keep });
}

describe("a PATCH as the platform applies it", () => {
  it("changes only the fields sent", () => {
    expect(patched({ description: "a", sso: true }, { name: "B" })).toEqual(
      client({ name: "B", description: "a", sso: true }),
    );
  });

  it("merges mobile member by member: ios is kept when android alone is sent", () => {
    const ios = { team_id: "9JA89QQLNQ", app_bundle_identifier: "com.my.bundle.id" };
    expect(
      patched(
        { mobile: { ios, android: { app_package_name: "a" } } },
        {
          mobile: { android: { app_package_name: "b" } },
        },
      ).mobile,
    ).toEqual({ ios, android: { app_package_name: "b" } });
  });

  it("merges session_transfer, keeping the members not sent", () => {
    expect(
      patched(
        { session_transfer: { allow_refresh_token: true, enforce_device_binding: "ip" } },
        {
          session_transfer: { enforce_device_binding: "none" },
        },
      ).session_transfer,
    ).toEqual({ allow_refresh_token: true, enforce_device_binding: "none" });
  });

  it("merges signed_request_object, keeping its credentials", () => {
    const credentials = [{ id: "cred_1" }];
    expect(
      patched(
        { signed_request_object: { required: false, credentials } },
        {
          signed_request_object: { required: true },
        },
      ).signed_request_object,
    ).toEqual({ required: true, credentials });
  });

  it("merges jwt_configuration, keeping lifetime_in_seconds and adding no alg", () => {
    expect(
      patched(
        { jwt_configuration: { secret_encoded: false, lifetime_in_seconds: 36000 } },
        {
          jwt_configuration: { scopes: {} },
        },
      ).jwt_configuration,
    ).toEqual({ secret_encoded: false, lifetime_in_seconds: 36000, scopes: {} });
  });

  it("replaces addons.samlp whole: a member not sent is dropped", () => {
    expect(
      patched(
        { addons: { samlp: { audience: "a", logout: { callback: "x" } } } },
        {
          addons: { samlp: { audience: "b" } },
        },
      ).addons,
    ).toEqual({ samlp: { audience: "b" } });
  });

  it("replaces addons.samlp.mappings whole", () => {
    expect(
      patched(
        { addons: { samlp: { mappings: { email: "e", name: "n" } } } },
        {
          addons: { samlp: { mappings: { email: "e2" } } },
        },
      ).addons,
    ).toEqual({ samlp: { mappings: { email: "e2" } } });
  });

  it("merges client_metadata key by key, a key sent as null removed", () => {
    expect(
      patched(
        { client_metadata: { team: "id", tier: "gold" } },
        {
          client_metadata: { tier: null, region: "eu" },
        },
      ).client_metadata,
    ).toEqual({ team: "id", region: "eu" });
  });

  it("removes a top-level field sent as null from the answer", () => {
    const after = patched({ refresh_token: { leeway: 0 } }, { refresh_token: null });
    expect("refresh_token" in after).toBe(false);
  });

  it("removes token_endpoint_auth_method sent as null, though the spec calls it never null", () => {
    const after = patched(
      { token_endpoint_auth_method: "client_secret_post" },
      {
        token_endpoint_auth_method: null,
      },
    );
    expect("token_endpoint_auth_method" in after).toBe(false);
  });

  it("removes skip_non_verifiable_callback_uri_confirmation_prompt sent as null", () => {
    const after = patched(
      { skip_non_verifiable_callback_uri_confirmation_prompt: true },
      {
        skip_non_verifiable_callback_uri_confirmation_prompt: null,
      },
    );
    expect("skip_non_verifiable_callback_uri_confirmation_prompt" in after).toBe(false);
  });

  it("removes a nested member sent as null: session_transfer.delegation", () => {
    expect(
      patched(
        { session_transfer: { allow_refresh_token: true, delegation: { x: 1 } } },
        {
          session_transfer: { delegation: null },
        },
      ).session_transfer,
    ).toEqual({ allow_refresh_token: true });
  });

  it("stores {} for an object the client did not have", () => {
    expect(patched({}, { oidc_logout: {} }).oidc_logout).toEqual({});
  });

  it("stores a list whole, as sent", () => {
    expect(
      patched({ callbacks: ["https://a", "https://b"] }, { callbacks: ["https://c"] }),
    ).toEqual(client({ callbacks: ["https://c"] }));
  });

  it('removes initiate_login_uri sent as ""', () => {
    const after = patched({ initiate_login_uri: "https://x/login" }, { initiate_login_uri: "" });
    expect("initiate_login_uri" in after).toBe(false);
  });

  it('stores "" as sent for description, custom_login_page and form_template', () => {
    const after = patched(
      { description: "d", custom_login_page: "p", form_template: "f" },
      {
        description: "",
        custom_login_page: "",
        form_template: "",
      },
    );
    expect([after.description, after.custom_login_page, after.form_template]).toEqual(["", "", ""]);
  });

  it("fills in session_transfer's members when a PATCH gives it to a client that had none", () => {
    expect(patched({}, { session_transfer: { delegation: null } }).session_transfer).toEqual({
      can_create_session_transfer_token: false,
      allowed_authentication_methods: [],
      enforce_device_binding: "ip",
      allow_refresh_token: false,
      enforce_online_refresh_tokens: true,
      enforce_cascade_revocation: true,
    });
  });

  it("leaves the stored client untouched", () => {
    const stored = { client_id: ID, mobile: { ios: { team_id: "T" } } };
    applyClientPatch(stored, { mobile: { ios: null } });
    expect(stored.mobile).toEqual({ ios: { team_id: "T" } });
  });
});

describe("a path the recordings leave undecided", () => {
  it("merges refresh_token under the merge model", () => {
    expect(
      patched(
        { refresh_token: { leeway: 0, token_lifetime: 10 } },
        {
          refresh_token: { leeway: 5 },
        },
      ).refresh_token,
    ).toEqual({ leeway: 5, token_lifetime: 10 });
  });

  it("replaces refresh_token under the replace model", () => {
    expect(
      patched(
        { refresh_token: { leeway: 0, token_lifetime: 10 } },
        { refresh_token: { leeway: 5 } },
        "replace",
      ).refresh_token,
    ).toEqual({ leeway: 5 });
  });

  it("keeps another add-on beside the one sent under the merge model", () => {
    expect(
      patched(
        { addons: { wsfed: {}, samlp: { audience: "a" } } },
        { addons: { samlp: { audience: "b" } } },
      ).addons,
    ).toEqual({ wsfed: {}, samlp: { audience: "b" } });
  });

  it("drops another add-on beside the one sent under the replace model", () => {
    expect(
      patched(
        { addons: { wsfed: {}, samlp: { audience: "a" } } },
        { addons: { samlp: { audience: "b" } } },
        "replace",
      ).addons,
    ).toEqual({ samlp: { audience: "b" } });
  });

  it("merges a recorded path under the replace model too: mobile", () => {
    expect(objectRule("mobile", "replace")).toBe("merge");
  });

  it("replaces addons.samlp under the merge model too", () => {
    expect(objectRule("addons.samlp", "merge")).toBe("replace");
  });

  it("drops a null member of an object stored by replacing", () => {
    expect(
      patched({}, { oidc_logout: { backchannel_logout_urls: null } }, "replace").oidc_logout,
    ).toEqual({});
  });

  it('takes "merge" when no model is named', () => {
    expect(checkedPatchModel(undefined)).toBe("merge");
  });

  it("refuses a model it does not know, naming the two it takes", () => {
    expect(() => checkedPatchModel("deep")).toThrow(
      new CommandUsageError('patchModel must be one of "merge", "replace", got "deep"'),
    );
  });
});

describe("the command's --patch-model", () => {
  it("passes replace on to the tenant's options", () => {
    const options = parseCliArgs(["--patch-model", "replace"]);
    expect(options === "help" ? undefined : options.patchModel).toBe("replace");
  });

  it("refuses a model it does not know, naming the flag", () => {
    expect(() => parseCliArgs(["--patch-model", "deep"])).toThrow(
      new CommandUsageError('--patch-model must be merge or replace, got "deep"'),
    );
  });
});

describe("the keep quirk", () => {
  it("leaves a kept member as stored whatever the PATCH sends", () => {
    expect(
      patched(
        { jwt_configuration: { alg: "RS256" } },
        { jwt_configuration: { alg: "HS256" } },
        "merge",
        ["jwt_configuration.alg"],
      ).jwt_configuration,
    ).toEqual({ alg: "RS256" });
  });

  it("leaves a kept member as stored when the PATCH sends null for it", () => {
    expect(
      patched(
        { jwt_configuration: { alg: "RS256", lifetime_in_seconds: 1 } },
        {
          jwt_configuration: { alg: null },
        },
        "merge",
        ["jwt_configuration.alg"],
      ).jwt_configuration,
    ).toEqual({ alg: "RS256", lifetime_in_seconds: 1 });
  });

  it("leaves a kept member absent when it was absent", () => {
    expect(
      patched(
        { jwt_configuration: { lifetime_in_seconds: 1 } },
        {
          jwt_configuration: { alg: "RS256" },
        },
        "merge",
        ["jwt_configuration.alg"],
      ).jwt_configuration,
    ).toEqual({ lifetime_in_seconds: 1 });
  });

  it("leaves a kept top-level field as stored when the PATCH removes its object", () => {
    expect(
      patched({ jwt_configuration: { alg: "RS256" } }, { jwt_configuration: null }, "merge", [
        "jwt_configuration.alg",
      ]).jwt_configuration,
    ).toEqual({ alg: "RS256" });
  });
});

describe("a client created without these fields", () => {
  const TENANT = "acme";

  it("answers jwt_configuration without alg for most app types", () => {
    expect(clientResponseDefaults(TENANT, "spa").jwt_configuration).toEqual({
      secret_encoded: false,
      lifetime_in_seconds: 36000,
    });
  });

  it("answers jwt_configuration with alg RS256 and no lifetime for a resource server", () => {
    expect(clientResponseDefaults(TENANT, "resource_server").jwt_configuration).toEqual({
      secret_encoded: false,
      alg: "RS256",
    });
  });

  it("answers no token_endpoint_auth_method, description or callbacks as defaults", () => {
    const defaults = clientResponseDefaults(TENANT, "regular_web");
    expect(
      ["token_endpoint_auth_method", "description", "callbacks"].filter((f) => f in defaults),
    ).toEqual([]);
  });

  it("fills in session_transfer's members left out on create", () => {
    expect(
      withResponseDefaults(client({ session_transfer: { enforce_device_binding: "asn" } }), TENANT)
        .session_transfer,
    ).toMatchObject({ enforce_device_binding: "asn", allow_refresh_token: false });
  });
});
