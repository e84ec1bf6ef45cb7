/**
 * Ownership by path (issue 54): a ClientSettings owns the paths it declares, remembers the prior
 * of each (absent included), puts back only those, and keeps every other path as it is live.
 * Through the pure plan (provider/plan/client-settings.ts), without a server.
 */

import { describe, expect, it } from "vitest";
import { TenantApiError, WriteNotHeldError } from "../provider/errors.js";
import type { Props } from "../provider/json.js";
import {
  clientUpdate,
  deletePriors,
  fieldsToRead,
  keyObjectsAtStake,
  planCreate,
  planDelete,
  planDiff,
  planRead,
  planUpdate,
  putBackAtUpdate,
} from "../provider/plan/client-settings.js";
import { declaredClient } from "../provider/plan/declared.js";
import { unscopedKeysError } from "../provider/plan/key-material.js";
import { absencesLeft, putBackNotes, putBackRefusal } from "../provider/plan/put-back-messages.js";
import { applyRecordedPatch, PATCH_MODELS, type PatchModel } from "./support/recorded-patch.js";

const ID = "client-1";

const inputs = (fields: Props): Props => ({ __resourceName: "web", clientId: ID, ...fields });
const declared = (fields: Props) => declaredClient(inputs(fields));

/** `jwt_configuration` as the platform stores it, with a key it added. */
const jwt = (fields: Props = {}): Props => ({
  alg: "RS256",
  lifetime_in_seconds: 36000,
  secret_encoded: false,
  fooBar: 1,
  ...fields,
});

/** A client as the API answers it; without addons, mobile, logo_uri, initiate_login_uri. */
const live = (fields: Props = {}): Props => ({
  client_id: ID,
  description: "Portal",
  jwt_configuration: jwt(),
  refresh_token: { rotation_type: "non-rotating", token_lifetime: 2592000 },
  client_metadata: { team: "identity" },
  ...fields,
});

/** A stack's life against one client: create, updates and delete, the client patched in between. */
class Stack {
  client: Props;
  outs: Props = {};
  readonly model: PatchModel;
  constructor(client: Props, model: PatchModel) {
    this.client = client;
    this.model = model;
  }
  create(fields: Props): Props {
    const plan = planCreate(declared(fields), this.client);
    this.client = applyRecordedPatch(this.client, plan.send, this.model);
    this.outs = plan.report(this.client);
    return plan.send;
  }
  update(fields: Props): Props {
    const plan = planUpdate(clientUpdate(declared(fields), this.outs), this.client);
    this.client = applyRecordedPatch(this.client, plan.send, this.model);
    this.outs = plan.report(this.client);
    return plan.send;
  }
  delete(): Props {
    const { send } = planDelete(this.outs, this.client);
    this.client = applyRecordedPatch(this.client, send, this.model);
    return send;
  }
  /** Someone changes the client outside the program. */
  outside(body: Props): void {
    this.client = applyRecordedPatch(this.client, body, this.model);
  }
}

describe.each(PATCH_MODELS)("under the %s model", (model) => {
  const stackOn = (client: Props) => new Stack(client, model);

  describe("putting back a declared object (defect 1)", () => {
    it("keeps a key changed outside the program when the object leaves the program", () => {
      const stack = stackOn(live());
      stack.create({ jwtConfiguration: { lifetimeInSeconds: 600 } });
      stack.outside({ jwt_configuration: jwt({ lifetime_in_seconds: 600, alg: "HS256" }) });
      stack.update({ description: "Portal" });
      expect(stack.client.jwt_configuration).toEqual(jwt({ alg: "HS256" }));
    });

    it("keeps a key changed outside the program at delete", () => {
      const stack = stackOn(live());
      stack.create({ refreshToken: { rotationType: "rotating" } });
      stack.outside({ refresh_token: { rotation_type: "rotating", token_lifetime: 86400 } });
      stack.delete();
      expect(stack.client.refresh_token).toEqual({
        rotation_type: "non-rotating",
        token_lifetime: 86400,
      });
    });

    it("sends nothing at delete when the declared value was already live, whatever changed beside it", () => {
      const stack = stackOn(live());
      stack.create({ jwtConfiguration: { lifetimeInSeconds: 36000 } });
      stack.outside({ jwt_configuration: jwt({ alg: "HS256" }) });
      expect(stack.delete()).toEqual({});
    });
  });

  describe("removing a key inside a declared object (defect 2)", () => {
    it("is a change", () => {
      const stack = stackOn(live());
      stack.create({ jwtConfiguration: { lifetimeInSeconds: 600, alg: "HS256" } });
      const diff = planDiff(declared({ jwtConfiguration: { lifetimeInSeconds: 600 } }), stack.outs);
      expect(diff.changes).toBe(true);
    });

    it("puts the removed key back to its prior", () => {
      const stack = stackOn(live());
      stack.create({ jwtConfiguration: { lifetimeInSeconds: 600, alg: "HS256" } });
      // jwt_configuration merges: only the path put back is sent.
      expect(stack.update({ jwtConfiguration: { lifetimeInSeconds: 600 } })).toEqual({
        jwt_configuration: { alg: "RS256" },
      });
      expect(stack.client.jwt_configuration).toEqual(jwt({ lifetime_in_seconds: 600 }));
    });

    it("puts the removed key back while a declared key of the same object changes", () => {
      const stack = stackOn(live());
      stack.create({ jwtConfiguration: { lifetimeInSeconds: 600, alg: "HS256" } });
      expect(stack.update({ jwtConfiguration: { lifetimeInSeconds: 700 } })).toEqual({
        jwt_configuration: { lifetime_in_seconds: 700, alg: "RS256" },
      });
      expect(stack.client.jwt_configuration).toEqual(jwt({ lifetime_in_seconds: 700 }));
    });

    it("disables an add-on removed from the program that the client did not have", () => {
      const stack = stackOn(live());
      stack.create({ addons: { samlp: { audience: "urn:a" }, wsfed: {} } });
      stack.update({ addons: { samlp: { audience: "urn:a" } } });
      expect(stack.client.addons).toEqual({ samlp: { audience: "urn:a" } });
    });

    it("removes a scope the program added when it leaves jwtConfiguration.scopes", () => {
      const stack = stackOn(live());
      stack.create({ jwtConfiguration: { scopes: { "read:a": {}, "read:b": {} } } });
      stack.update({ jwtConfiguration: { scopes: { "read:a": {} } } });
      expect(stack.client.jwt_configuration).toEqual(jwt({ scopes: { "read:a": {} } }));
    });

    it("puts a removed key back to the value the client had before, not the one at import", () => {
      const stack = stackOn(live({ jwt_configuration: jwt({ alg: "HS256" }) }));
      stack.create({ jwtConfiguration: { alg: "HS256", lifetimeInSeconds: 36000 } });
      stack.update({ jwtConfiguration: { lifetimeInSeconds: 36000 } });
      expect((stack.client.jwt_configuration as Props).alg).toBe("HS256");
    });
  });

  describe("what the client did not have (defect 3)", () => {
    const absentFields = {
      addons: { samlp: { audience: "urn:a" } },
      mobile: { ios: { teamId: "T" } },
      logoUri: "https://logo.example/a.png",
      initiateLoginUri: "https://portal.example/login",
      crossOriginLoc: "https://portal.example/cors",
    };

    it("is put back as absent when the fields leave the program", () => {
      const stack = stackOn(live());
      stack.create(absentFields);
      expect(stack.update({ description: "Portal" })).toEqual({
        addons: { samlp: null },
        mobile: { ios: null },
        logo_uri: "",
        initiate_login_uri: "",
        cross_origin_loc: null,
      });
    });

    it("is put back as absent at delete", () => {
      const stack = stackOn(live());
      stack.create(absentFields);
      expect(stack.delete()).toEqual({
        addons: { samlp: null },
        mobile: { ios: null },
        logo_uri: "",
        initiate_login_uri: "",
        cross_origin_loc: null,
      });
    });

    it("leaves an add-on enabled outside the program in place when its own leaves", () => {
      const stack = stackOn(live());
      stack.create({ addons: { wsfed: {} } });
      stack.outside({ addons: { wsfed: {}, oag: {} } });
      stack.delete();
      expect(stack.client.addons).toEqual({ oag: {} });
    });
  });

  describe("put-backs as the platform applies a PATCH (issue 61)", () => {
    it("removes mobile.ios when it leaves the program, keeping android", () => {
      const stack = stackOn(live({ mobile: { android: { app_package_name: "com.a" } } }));
      stack.create({ mobile: { android: { appPackageName: "com.a" }, ios: { teamId: "T1" } } });
      expect(stack.update({ mobile: { android: { appPackageName: "com.a" } } })).toEqual({
        mobile: { ios: null },
      });
      expect(stack.client.mobile).toEqual({ android: { app_package_name: "com.a" } });
    });

    it("removes jwtConfiguration.alg from a client created without one", () => {
      const created = { secret_encoded: false, lifetime_in_seconds: 36000 };
      const stack = stackOn(live({ jwt_configuration: created }));
      stack.create({ jwtConfiguration: { alg: "HS256" } });
      expect(stack.update({ description: "Portal" })).toEqual({ jwt_configuration: { alg: null } });
      expect(stack.client.jwt_configuration).toEqual(created);
    });

    it("removes at destroy a sessionTransfer the client never had, with what the platform filled in", () => {
      const stack = stackOn(live());
      stack.create({ sessionTransfer: { canCreateSessionTransferToken: true } });
      // The platform fills in the other members when the object was absent (docs/design/platform.md).
      stack.outside({
        session_transfer: {
          allowed_authentication_methods: ["cookie"],
          enforce_device_binding: "ip",
        },
      });
      expect(stack.delete()).toEqual({ session_transfer: null });
      expect(stack.client).not.toHaveProperty("session_transfer");
    });

    it("removes at destroy the members of a mobile and a signedRequestObject the client never had", () => {
      const stack = stackOn(live());
      stack.create({ mobile: { ios: { teamId: "T1" } }, signedRequestObject: { required: true } });
      expect(stack.delete()).toEqual({
        mobile: { ios: null },
        signed_request_object: { required: null },
      });
      expect(stack.client.mobile).toEqual({});
      expect(stack.client.signed_request_object).toEqual({});
    });

    it("sends a declared tokenEndpointAuthMethod: null as null", () => {
      const stack = stackOn(live({ token_endpoint_auth_method: "client_secret_post" }));
      expect(stack.create({ tokenEndpointAuthMethod: null })).toEqual({
        token_endpoint_auth_method: null,
      });
      expect(stack.client).not.toHaveProperty("token_endpoint_auth_method");
    });

    it("sends nothing at destroy when every prior is what the client holds, client_metadata included", () => {
      const stack = stackOn(live());
      expect(stack.create({ description: "Portal", clientMetadata: { team: "identity" } })).toEqual(
        {},
      );
      expect(stack.delete()).toEqual({});
    });

    it("sends a replaced add-on whole, without the member put back to absent", () => {
      const samlp = { recipient: "https://r.example", logout: { callback: "https://l.example" } };
      const stack = stackOn(live({ addons: { samlp } }));
      stack.create({ addons: { samlp: { audience: "urn:a" } } });
      expect(stack.delete()).toEqual({ addons: { samlp } });
      expect(stack.client.addons).toEqual({ samlp });
    });

    it("sends an empty metadata value the client does not have yet", () => {
      const stack = stackOn(live());
      expect(stack.create({ clientMetadata: { note: "" } })).toEqual({
        client_metadata: { note: "" },
      });
      expect(stack.client.client_metadata).toEqual({ team: "identity", note: "" });
    });

    it("writes only the owned paths of a merging object, not the live keys beside them", () => {
      const stack = stackOn(live());
      expect(stack.create({ jwtConfiguration: { lifetimeInSeconds: 600 } })).toEqual({
        jwt_configuration: { lifetime_in_seconds: 600 },
      });
      expect(stack.client.jwt_configuration).toEqual(jwt({ lifetime_in_seconds: 600 }));
    });
  });

  describe("every write checked by its answer (issue 61)", () => {
    it("fails naming the client, the path, what was sent and what the tenant holds", () => {
      const stack = stackOn(live({ mobile: { android: { app_package_name: "com.a" } } }));
      stack.create({ mobile: { android: { appPackageName: "com.a" }, ios: { teamId: "T1" } } });
      const update = clientUpdate(
        declared({ mobile: { android: { appPackageName: "com.a" } } }),
        stack.outs,
      );
      const plan = planUpdate(update, stack.client);
      // A tenant that keeps the member it was told to remove.
      const answer = stack.client;
      const paths = [{ path: "mobile.ios", sent: "none", held: '{"team_id":"T1"}' }];
      // With the outputs the update would have reported, the tenant's mobile.ios among them.
      expect(() => plan.report(answer)).toThrowError(
        expect.objectContaining({
          message: new WriteNotHeldError(ID, paths).message,
          paths,
          outputs: expect.objectContaining({ mobile: { android: { appPackageName: "com.a" } } }),
        }),
      );
      expect(new WriteNotHeldError(ID, []).code).toBe("ERR_TENANT_WRITE_NOT_HELD");
    });

    it("never shows a sensitive value it sent or found", () => {
      const stack = stackOn(live());
      const plan = planCreate(declared({ addons: { wsfed: {} } }), stack.client);
      expect(() => plan.report(stack.client)).toThrowError(
        "client client-1 does not hold what was sent: addons.wsfed sent sensitive: not shown, " +
          "the tenant holds none.",
      );
    });

    it("passes an answer that holds every path sent", () => {
      const stack = stackOn(live());
      const plan = planCreate(declared({ jwtConfiguration: { alg: "HS256" } }), stack.client);
      const answer = applyRecordedPatch(stack.client, plan.send, model);
      expect(plan.report(answer).jwtConfiguration).toEqual({ alg: "HS256" });
    });
  });

  describe("the prior in the state", () => {
    it("is recorded per owned path, absent included", () => {
      const stack = stackOn(live());
      stack.create({ jwtConfiguration: { alg: "HS256" }, addons: { wsfed: {} } });
      expect(stack.outs.prior).toEqual({
        paths: [
          { path: ["jwt_configuration", "alg"], value: "RS256" },
          { path: ["addons", "wsfed"], absentBelow: 0 },
        ],
      });
    });

    it("puts back a whole-field prior stored before paths by the keys it declared", () => {
      const client = live({ jwt_configuration: jwt({ alg: "HS256", lifetime_in_seconds: 600 }) });
      const outs = {
        ...inputs({ jwtConfiguration: { lifetimeInSeconds: 600 } }),
        prior: { jwtConfiguration: jwt() },
      };
      expect(planDelete(outs, client).send).toEqual({
        jwt_configuration: { lifetime_in_seconds: 36000 },
      });
    });
  });

  describe("states written before priors by path", () => {
    it("removes an add-on whose whole-field prior was recorded as {}", () => {
      const outs = { ...inputs({ addons: { wsfed: {} } }), prior: { addons: {} } };
      const client = live({ addons: { wsfed: {}, oag: {} } });
      // addons is undecided: sent whole, the removed add-on as null (docs/design/platform.md).
      expect(planDelete(outs, client).send).toEqual({ addons: { wsfed: null, oag: {} } });
    });

    it("puts nothing back for key material whose prior was never recorded: it may have been hidden", () => {
      const outs = { ...inputs({ encryptionKey: { subject: "CN=y" } }), prior: {} };
      const client = live({ client_secret: "s", encryption_key: { pub: "P", subject: "CN=y" } });
      expect(planDelete(outs, client).send).toEqual({});
    });

    it("puts back as absent a field whose prior was never recorded", () => {
      const outs = { ...inputs({ logoUri: "https://logo.example/a.png" }), prior: {} };
      const client = live({ logo_uri: "https://logo.example/a.png" });
      expect(planDelete(outs, client).send).toEqual({ logo_uri: "" });
    });
  });

  describe("a put-back the platform would refuse (defect 10)", () => {
    it("is refused before anything is sent, naming the path put back and its prior", () => {
      const stack = stackOn(live({ oidc_conformant: false }));
      stack.create({ oidcConformant: true });
      stack.outside({ organization_require_behavior: "post_login_prompt" });
      const update = clientUpdate(declared({ description: "Portal" }), stack.outs);
      expect(update.needsLive).toBe(true);
      expect(() => planUpdate(update, stack.client)).toThrowError(
        expect.objectContaining({
          name: "TenantValidationError",
          message:
            "putting oidcConformant back to its prior (false), as it left the program, would break a " +
            `rule of client ${ID}: organizationRequireBehavior "post_login_prompt" requires ` +
            "oidcConformant to be true; keep declaring oidcConformant: true, or change " +
            "organizationRequireBehavior first. Nothing was sent.",
        }),
      );
    });
  });

  describe("key material the credentials cannot read (defect 5)", () => {
    /** A client as answered to credentials without read:client_keys: no key material at all. */
    const hidden = () => live();

    it("refuses a partial key-material object before anything is sent, naming the scope", () => {
      const fields = {
        clientAuthenticationMethods: { privateKeyJwt: { credentials: [{ id: "cred_B" }] } },
      };
      expect(() => planCreate(declared(fields), hidden())).toThrowError(
        expect.objectContaining({
          name: "TenantValidationError",
          message:
            `clientAuthenticationMethods of client ${ID} cannot be seen: the tenant answers it only ` +
            "to credentials with read:client_keys (or read:client_credentials), and without it what " +
            "the program does not declare there would be lost and nothing could be put back; grant " +
            "read:client_keys to the provider's credentials. Nothing was sent.",
        }),
      );
    });

    it("refuses an encryption key declared without seeing the live one", () => {
      expect(() =>
        planCreate(declared({ encryptionKey: { subject: "CN=y" } }), hidden()),
      ).toThrowError(/^encryptionKey of client client-1 cannot be seen: /);
    });

    it("merges a partial key-material object over the live one when the key material is visible", () => {
      const client = live({
        client_secret: "s3cret",
        encryption_key: { pub: "P", cert: "C", subject: "CN=x" },
      });
      const plan = planCreate(declared({ encryptionKey: { subject: "CN=y" } }), client);
      expect(plan.send).toEqual({ encryption_key: { pub: "P", cert: "C", subject: "CN=y" } });
    });

    it("reads the key material along with a declared key-material field, to tell hidden from absent", () => {
      expect(fieldsToRead(declared({ encryptionKey: { subject: "CN=y" } }))).toEqual([
        "encryption_key",
        "client_secret",
        "client_authentication_methods",
      ]);
    });

    it("keeps the client secret the state knows when a refresh cannot see it", () => {
      const stack = stackOn(live({ client_secret: "old" }));
      stack.create({ clientSecret: "new" });
      const refreshed = planRead(stack.outs, hidden());
      expect(refreshed.clientSecret).toBe("new");
      expect(planDiff(declared({ clientSecret: "new" }), refreshed).changes).toBe(false);
    });
  });

  describe("a put-back the tenant refuses (defect 9)", () => {
    const refusal = new TenantApiError({
      method: "PATCH",
      path: `/clients/${ID}`,
      status: 400,
      errorCode: "invalid_body",
      apiMessage: "Payload validation error: description: must be at most 140 characters",
    });

    it("sends a prior as the tenant held it, without today's input rules", () => {
      const long = "d".repeat(200);
      const stack = stackOn(live({ description: long }));
      stack.create({ description: "Portal" });
      expect(stack.delete()).toEqual({ description: long });
    });

    it("names the path put back and its prior when the tenant refuses it", () => {
      const long = "d".repeat(200);
      const stack = stackOn(live({ description: long }));
      stack.create({ description: "Portal", sso: true });
      const plan = planUpdate(clientUpdate(declared({ sso: true }), stack.outs), stack.client);
      const error = putBackRefusal(plan.putBack, plan.send, refusal);
      expect(error?.message).toBe(
        `putting description back to its prior ("${"d".repeat(60)}…", 200 characters) was refused: ` +
          `PATCH /clients/${ID} failed with 400 invalid_body: Payload validation error: description: ` +
          "must be at most 140 characters. The program does not set it: it goes back to what the " +
          "client held before the resource managed it. To let the resource go without putting it " +
          "back, remove it from the state (pulumi state delete).",
      );
    });

    it("never prints the prior of a sensitive field", () => {
      const stack = stackOn(live({ client_secret: "the-old-secret" }));
      stack.create({ clientSecret: "new", sso: true });
      const plan = planUpdate(clientUpdate(declared({ sso: true }), stack.outs), stack.client);
      const error = putBackRefusal(plan.putBack, plan.send, refusal);
      expect(error?.message).toContain(
        "putting clientSecret back to its prior (sensitive: not shown)",
      );
      expect(error?.message).not.toContain("the-old-secret");
    });

    it("leaves a refusal of what the program declares as it is", () => {
      const stack = stackOn(live());
      stack.create({ sso: true });
      const plan = planUpdate(clientUpdate(declared({ sso: false }), stack.outs), stack.client);
      expect(putBackRefusal(plan.putBack, plan.send, refusal)).toBeUndefined();
    });
  });

  describe("what a put-back reads", () => {
    it("reads the fields of the paths put back, and organization_require_behavior for oidc_conformant", () => {
      const stack = stackOn(live());
      stack.create({ oidcConformant: true, jwtConfiguration: { alg: "HS256" } });
      const update = clientUpdate(declared({ sso: true }), stack.outs);
      expect(fieldsToRead(update.declared, update.removed)).toEqual([
        "sso",
        "jwt_configuration",
        "oidc_conformant",
        "organization_require_behavior",
      ]);
    });

    it("refuses at delete to put back key material the credentials cannot see", () => {
      const stack = stackOn(live({ client_secret: "s", encryption_key: { pub: "P" } }));
      stack.create({ encryptionKey: { subject: "CN=y" } });
      expect(() => planDelete(stack.outs, live())).toThrowError(
        /^encryptionKey of client client-1 cannot be seen: /,
      );
    });

    it("reads a metadata key remembered as null before paths as absent, and removes it", () => {
      const outs = {
        ...inputs({ clientMetadata: { owner: "ops" } }),
        prior: { clientMetadata: { owner: null } },
      };
      const client = live({ client_metadata: { team: "identity", owner: "ops" } });
      expect(planDelete(outs, client).send).toEqual({ client_metadata: { owner: null } });
    });
  });

  describe("key material refused at preview by the token's scopes (item 5)", () => {
    const keyScopeless = ["read:clients", "update:clients", "update:client_keys"];
    const encryptionKey = { subject: "CN=y" };

    it("refuses a created key-material object when the token lacks read:client_keys, as up would", () => {
      const client = declared({ description: "Portal", encryptionKey });
      const error = unscopedKeysError(client, keyObjectsAtStake(client), keyScopeless);
      expect(error?.message).toBe(
        `encryptionKey of client ${ID} cannot be seen: the tenant answers it only to credentials ` +
          "with read:client_keys (or read:client_credentials), and without it what the program " +
          "does not declare there would be lost and nothing could be put back; grant " +
          "read:client_keys to the provider's credentials. Nothing was sent.",
      );
    });

    it("refuses nothing when the token grants read:client_keys or read:client_credentials", () => {
      const client = declared({ encryptionKey });
      const fields = keyObjectsAtStake(client);
      expect(
        unscopedKeysError(client, fields, [...keyScopeless, "read:client_keys"]),
      ).toBeUndefined();
      expect(
        unscopedKeysError(client, fields, [...keyScopeless, "read:client_credentials"]),
      ).toBeUndefined();
    });

    it("refuses nothing when the token's scopes cannot be read, leaving it to up", () => {
      const client = declared({ encryptionKey });
      expect(unscopedKeysError(client, keyObjectsAtStake(client), undefined)).toBeUndefined();
    });

    it("puts nothing at stake for a program that declares no key material, so no token is needed", () => {
      expect(keyObjectsAtStake(declared({ description: "Portal", clientSecret: "s" }))).toEqual([]);
    });

    it("puts a declared clientAuthenticationMethods at stake at create", () => {
      const methods = { privateKeyJwt: { credentials: [{ id: "cred_B" }] } };
      expect(keyObjectsAtStake(declared({ clientAuthenticationMethods: methods }))).toEqual([
        "client_authentication_methods",
      ]);
    });

    it("puts nothing at stake in an update that leaves declared key material unchanged", () => {
      const stack = stackOn(live({ client_secret: "s", encryption_key: { pub: "P" } }));
      stack.create({ encryptionKey: { pub: "P" } });
      const next = declared({ encryptionKey: { pub: "P" }, description: "new" });
      expect(keyObjectsAtStake(next, stack.outs)).toEqual([]);
    });

    it("puts at stake the key material an update changes or puts back", () => {
      const stack = stackOn(live({ client_secret: "s", encryption_key: { pub: "P" } }));
      stack.create({ encryptionKey: { pub: "P" } });
      expect(keyObjectsAtStake(declared({ encryptionKey: { pub: "Q" } }), stack.outs)).toEqual([
        "encryption_key",
      ]);
      expect(keyObjectsAtStake(declared({ description: "new" }), stack.outs)).toEqual([
        "encryption_key",
      ]);
    });
  });

  describe("absence the API cannot express (item 3)", () => {
    const left = (field: string) =>
      `${field} of client ${ID} is left as it is: the client had no ${field} before this ` +
      "resource set it, and the API cannot be told to have none (it takes no null or empty value there)";

    it("warns when a removal would leave a redirectionPolicy the client did not have", () => {
      const stack = stackOn(live());
      stack.create({ redirectionPolicy: "allow_always", description: "Portal" });
      const entries = putBackAtUpdate(declared({ description: "Portal" }), stack.outs);
      expect(absencesLeft(ID, entries)).toEqual([left("redirectionPolicy")]);
    });

    it("does not warn when the removed field had a value to put back", () => {
      const stack = stackOn(live({ redirection_policy: "open_redirect_protection" }));
      stack.create({ redirectionPolicy: "allow_always" });
      expect(absencesLeft(ID, putBackAtUpdate(declared({}), stack.outs))).toEqual([]);
    });

    it("does not warn for absences the API can express: an empty logoUri, a metadata key, an add-on", () => {
      const stack = stackOn(live());
      stack.create({
        logoUri: "https://portal.example.com/logo.png",
        clientMetadata: { owner: "platform" },
        addons: { wsfed: {} },
      });
      expect(absencesLeft(ID, deletePriors(stack.outs))).toEqual([]);
    });

    it("warns at delete for each such field the client did not have", () => {
      const stack = stackOn(live());
      stack.create({ appType: "spa", clientSecret: "a-secret-value", description: "new" });
      expect(absencesLeft(ID, deletePriors(stack.outs))).toEqual([
        left("clientSecret"),
        left("appType"),
      ]);
    });
  });

  describe("what the preview says a removal puts back (item 2)", () => {
    it("names each removed path with the prior it goes back to, in the schema's order", () => {
      const stack = stackOn(live({ logo_uri: "https://old.example.com/logo.png" }));
      stack.create({
        jwtConfiguration: { lifetimeInSeconds: 600, alg: "HS256" },
        logoUri: "https://portal.example.com/logo.png",
      });
      const entries = putBackAtUpdate(
        declared({ jwtConfiguration: { lifetimeInSeconds: 600 } }),
        stack.outs,
      );
      expect(putBackNotes(ID, entries)).toEqual([
        `logoUri of client ${ID} goes back to its prior ("https://old.example.com/logo.png"), what the client held before this resource managed it`,
        `jwtConfiguration.alg of client ${ID} goes back to its prior ("RS256"), what the client held before this resource managed it`,
      ]);
    });

    it("says none for a path the client did not have, and never shows a sensitive prior", () => {
      const stack = stackOn(live({ addons: { samlp: { audience: "urn:old" } } }));
      stack.create({
        addons: { samlp: { audience: "urn:new" }, wsfed: {} },
        mobile: { ios: { teamId: "T" } },
      });
      expect(putBackNotes(ID, deletePriors(stack.outs))).toEqual([
        `addons.samlp.audience of client ${ID} goes back to its prior (sensitive: not shown), what the client held before this resource managed it`,
        `addons.wsfed of client ${ID} goes back to its prior (sensitive: not shown), what the client held before this resource managed it`,
        `mobile.ios.team_id of client ${ID} goes back to its prior (none), what the client held before this resource managed it`,
      ]);
    });

    it("leaves a path the put-back cannot make to its own warning", () => {
      const stack = stackOn(live());
      stack.create({ redirectionPolicy: "allow_always", description: "Portal" });
      expect(
        putBackNotes(ID, putBackAtUpdate(declared({ description: "Portal" }), stack.outs)),
      ).toEqual([]);
    });
  });

  describe("key material left as it is", () => {
    it("does not refuse an update that leaves a declared key-material field unchanged", () => {
      const stack = stackOn(live({ client_secret: "s", encryption_key: { pub: "P" } }));
      stack.create({ encryptionKey: { pub: "P" } });
      const update = clientUpdate(
        declared({ encryptionKey: { pub: "P" }, description: "new" }),
        stack.outs,
      );
      expect(planUpdate(update, live()).send).toEqual({ description: "new" });
    });
  });
});
