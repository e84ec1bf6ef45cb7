/**
 * Every validation rule of docs/design/platform.md ("The three operations", "Limits", "Rules across fields") as the local tenant API enforces it: one test per
 * rule, each naming it. Bodies are checked by the schema module the provider itself uses
 * (`provider/schema`, one source of truth), so the expected messages are built from it; the rules
 * that need the stored client are this server's own and are asserted word for word.
 */

import { describe, expect, it } from "vitest";
import {
  DEFAULT_SEED_IDS,
  type TenantApi,
  type WireClient,
} from "../provider/local-tenant/index.js";
import { validateWire } from "../provider/local-tenant/wire.js";
import {
  clientRoute,
  errorBody,
  expectErrorAnswer,
  PROVIDER,
  streamRoute,
  useTenantApi,
} from "./support/tenant-api-suite.js";
import { type ApiAnswer, callApi } from "./support/test-client.js";

let api: TenantApi;
let token: string;
useTenantApi({ random: 2 }, (started, admin) => ([api, token] = [started, admin]));

/** The message the server must send for a body the schema module refuses. */
function expectedMessage(kind: "pushProviderSelection" | "clientUpdate", body: unknown): string {
  const failures = validateWire(kind, body);
  const parts = failures.map((f) => (f.path === "" ? f.reason : `${f.path}: ${f.reason}`));
  return `Payload validation error: ${parts.join("; ")}`;
}

/** Asserts a 400 invalid_body whose message is exactly the schema's and names `paths`. */
function expectInvalidBody(
  answer: ApiAnswer,
  kind: "pushProviderSelection" | "clientUpdate",
  body: unknown,
  paths: string[],
): void {
  expectErrorAnswer(answer, 400, "invalid_body", expectedMessage(kind, body));
  expect(validateWire(kind, body).map((f) => f.path)).toEqual(paths);
}

async function put(body: unknown): Promise<ApiAnswer> {
  return callApi(api, "PUT", PROVIDER, { token, json: body });
}

async function patch(id: string, body: unknown): Promise<ApiAnswer<WireClient>> {
  return callApi<WireClient>(api, "PATCH", clientRoute(id), { token, json: body });
}

const WEB = DEFAULT_SEED_IDS.regularWeb;

describe("the body of a PUT of the selected provider", () => {
  it("answers 400 when the body lacks provider", async () => {
    expectInvalidBody(await put({}), "pushProviderSelection", {}, ["provider"]);
  });

  it("answers 400 when there is no body at all", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, { token });
    expectInvalidBody(answer, "pushProviderSelection", {}, ["provider"]);
  });

  it("answers 400 when provider is not one of guardian, sns, direct", async () => {
    const body = { provider: "apns" };
    expectInvalidBody(await put(body), "pushProviderSelection", body, ["provider"]);
  });

  it("answers 400 when the body has a property other than provider", async () => {
    const body = { provider: "sns", region: "eu-west-1" };
    expectInvalidBody(await put(body), "pushProviderSelection", body, ["region"]);
    expect(api.store.getProvider()).toBe("guardian");
  });

  it("answers 400 when the body is not an object", async () => {
    expectInvalidBody(await put(["sns"]), "pushProviderSelection", ["sns"], [""]);
  });

  it("answers 400 for a form body with an unknown provider", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, { token, form: { provider: "fcm" } });
    expectInvalidBody(answer, "pushProviderSelection", { provider: "fcm" }, ["provider"]);
  });
});

describe("the body of a client PATCH: its fields and their limits", () => {
  it("answers 400 when the body has a property the spec does not list", async () => {
    const body = { nmae: "typo" };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["nmae"]);
  });

  it("answers 400 when the body sets a response-only field such as client_id", async () => {
    const body = { client_id: "other" };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["client_id"]);
  });

  it("answers 400 when name contains <", async () => {
    const body = { name: "<script>" };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["name"]);
  });

  it("answers 400 when name contains >", async () => {
    const body = { name: "a > b" };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["name"]);
  });

  it("answers 400 when name is empty", async () => {
    expectInvalidBody(await patch(WEB, { name: "" }), "clientUpdate", { name: "" }, ["name"]);
  });

  it("answers 400 when description has 141 characters, and 200 with 140", async () => {
    const body = { description: "d".repeat(141) };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["description"]);
    expect((await patch(WEB, { description: "d".repeat(140) })).status).toBe(200);
  });

  it("answers 400 when client_secret is empty", async () => {
    const body = { client_secret: "" };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["client_secret"]);
  });

  it("answers 400 when par_request_expiry is 9", async () => {
    const body = { par_request_expiry: 9 };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["par_request_expiry"]);
  });

  it("answers 400 when par_request_expiry is 601", async () => {
    const body = { par_request_expiry: 601 };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["par_request_expiry"]);
  });

  it("accepts par_request_expiry 10 and 600, the ends of the range", async () => {
    expect((await patch(WEB, { par_request_expiry: 10 })).status).toBe(200);
    expect((await patch(WEB, { par_request_expiry: 600 })).body.par_request_expiry).toBe(600);
  });

  it("answers 400 when client_metadata has 11 keys", async () => {
    const body = {
      client_metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"])),
    };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["client_metadata"]);
  });

  it("answers 400 when a client_metadata value has 256 characters, and 200 with 255", async () => {
    const body = { client_metadata: { note: "n".repeat(256) } };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["client_metadata.note"]);
    expect((await patch(WEB, { client_metadata: { note: "n".repeat(255) } })).status).toBe(200);
  });

  it("answers 400 when a client_metadata key has a character outside the allowed set", async () => {
    const body = { client_metadata: { "cost#center": "42" } };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, [
      'client_metadata["cost#center"]',
    ]);
  });

  it("answers 400 when a client_metadata value is not a string", async () => {
    const body = { client_metadata: { count: 3 } };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["client_metadata.count"]);
  });

  it("answers 400 when organization_discovery_methods is empty", async () => {
    const body = { organization_discovery_methods: [] };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, [
      "organization_discovery_methods",
    ]);
  });

  it("answers 400 when async_approval_notification_channels is empty", async () => {
    const body = { async_approval_notification_channels: [] };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, [
      "async_approval_notification_channels",
    ]);
  });

  it("answers 400 when a client_aliases item is empty", async () => {
    const body = { client_aliases: ["urn:ok", ""] };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["client_aliases[1]"]);
  });

  it("answers 400 when an allowed_clients item is empty", async () => {
    const body = { allowed_clients: [""] };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["allowed_clients[0]"]);
  });

  it("answers 400 when a grant_types item is not an allowed grant", async () => {
    const body = { grant_types: ["authorization_code", "magic"] };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["grant_types[1]"]);
  });

  it("answers 400 when app_type is not an accepted value", async () => {
    const body = { app_type: "mainframe" };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["app_type"]);
  });

  it("answers 400 when organization_require_behavior is not an enum value", async () => {
    const body = { organization_require_behavior: "always" };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, [
      "organization_require_behavior",
    ]);
  });

  it("answers 400 when a callbacks item is not a callback URL", async () => {
    const body = { callbacks: ["https://ok.example.com/cb", "not a url"] };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["callbacks[1]"]);
  });

  it("answers 400 when initiate_login_uri is not https", async () => {
    const body = { initiate_login_uri: "http://portal.example.com/login" };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, ["initiate_login_uri"]);
  });

  it("answers 400 when a nested member has the wrong type, naming its wire path", async () => {
    const body = { jwt_configuration: { lifetime_in_seconds: "300" } };
    expectInvalidBody(await patch(WEB, body), "clientUpdate", body, [
      "jwt_configuration.lifetime_in_seconds",
    ]);
  });

  it("reports every failure of a body at once", async () => {
    const body = { name: "<x>", description: "d".repeat(141), par_request_expiry: 9 };
    const answer = await patch(WEB, body);
    expectInvalidBody(answer, "clientUpdate", body, ["name", "description", "par_request_expiry"]);
  });

  it("leaves the client unchanged when the body is refused", async () => {
    const before = api.store.getClient(WEB);
    await patch(WEB, { name: "fine", description: "d".repeat(141) });
    expect(api.store.getClient(WEB)).toEqual(before);
  });
});

describe("post_login_prompt needs oidc_conformant", () => {
  const message =
    'Payload validation error: organization_require_behavior: "post_login_prompt" requires oidc_conformant to be true';

  it("answers 400 when organization_require_behavior is post_login_prompt and the stored client is not OIDC conformant", async () => {
    const answer = await patch(WEB, { organization_require_behavior: "post_login_prompt" });
    expectErrorAnswer(answer, 400, "invalid_body", message);
  });

  it("answers 400 when the same body sets oidc_conformant false", async () => {
    const answer = await patch(DEFAULT_SEED_IDS.spa, {
      organization_require_behavior: "post_login_prompt",
      oidc_conformant: false,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ message, errorCode: "invalid_body" });
  });

  it("answers 400 when oidc_conformant is turned off on a client that uses post_login_prompt", async () => {
    const spa = DEFAULT_SEED_IDS.spa;
    expect((await patch(spa, { organization_require_behavior: "post_login_prompt" })).status).toBe(
      200,
    );
    const answer = await patch(spa, { oidc_conformant: false });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ message, errorCode: "invalid_body" });
  });

  it("accepts post_login_prompt for a client that is OIDC conformant", async () => {
    const answer = await patch(DEFAULT_SEED_IDS.spa, {
      organization_usage: "require",
      organization_require_behavior: "post_login_prompt",
    });
    expect(answer.status).toBe(200);
    expect(answer.body.organization_require_behavior).toBe("post_login_prompt");
  });

  it("accepts post_login_prompt when the same body makes the client OIDC conformant", async () => {
    const answer = await patch(WEB, {
      organization_require_behavior: "post_login_prompt",
      oidc_conformant: true,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      oidc_conformant: true,
      organization_require_behavior: "post_login_prompt",
    });
  });
});

describe("third_party_security_mode cannot change", () => {
  const thirdParty = DEFAULT_SEED_IDS.strictThirdParty;

  it("answers 400 when a PATCH changes third_party_security_mode", async () => {
    const answer = await patch(thirdParty, { third_party_security_mode: "permissive" });
    expectErrorAnswer(
      answer,
      400,
      "invalid_body",
      'Payload validation error: third_party_security_mode: cannot be modified after creation (current: "strict", requested: "permissive")',
    );
    expect(api.store.getClient(thirdParty)?.third_party_security_mode).toBe("strict");
  });

  it("accepts a PATCH that sends the unchanged third_party_security_mode", async () => {
    const answer = await patch(thirdParty, {
      third_party_security_mode: "strict",
      description: "still strict",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      third_party_security_mode: "strict",
      description: "still strict",
    });
  });

  it("answers 400 when a PATCH sets third_party_security_mode on a client created without it", async () => {
    const answer = await patch(WEB, { third_party_security_mode: "strict" });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      message:
        'Payload validation error: third_party_security_mode: cannot be modified after creation (current: not set, requested: "strict")',
      errorCode: "invalid_body",
    });
  });
});

describe("the client_metadata limit after the merge", () => {
  it("answers 400 when the merged client_metadata would have 11 keys", async () => {
    // The seeded web client has two keys; nine more make eleven.
    const metadata = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, "v"]));
    const answer = await patch(WEB, { client_metadata: metadata });
    expectErrorAnswer(
      answer,
      400,
      "invalid_body",
      "Payload validation error: client_metadata: must NOT have more than 10 properties once merged with the stored ones (would have 11)",
    );
  });

  it("accepts the same keys when a null removes one of the stored keys", async () => {
    const metadata = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, "v"]));
    const answer = await patch(WEB, { client_metadata: { ...metadata, tier: null } });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.client_metadata as object)).toHaveLength(10);
  });
});

describe("an event stream id", () => {
  const invalidUri = (length: number) =>
    errorBody(
      400,
      "invalid_uri",
      `Path validation error: id: must be exactly 26 characters (got ${length})`,
    );

  it("answers 400 invalid_uri when a DELETE names an event stream id of 25 characters", async () => {
    const answer = await callApi(api, "DELETE", streamRoute(`est_${"a".repeat(21)}`), { token });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(invalidUri(25));
  });

  it("answers 400 invalid_uri when a DELETE names an event stream id of 27 characters", async () => {
    const answer = await callApi(api, "DELETE", streamRoute(`est_${"a".repeat(23)}`), { token });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(invalidUri(27));
  });

  it("answers 400 invalid_uri when a GET names an event stream id of 25 characters", async () => {
    const answer = await callApi(api, "GET", streamRoute(`est_${"a".repeat(21)}`), { token });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(invalidUri(25));
  });

  it("answers GET of a well-formed id of no event stream with the platform's 404, without errorCode", async () => {
    const answer = await callApi(api, "GET", streamRoute(`est_${"Z".repeat(22)}`), { token });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      statusCode: 404,
      error: "Not Found",
      message: "The requested stream does not exist.",
    });
  });

  it("answers DELETE of a well-formed id of no event stream with 204, as the platform does", async () => {
    const answer = await callApi(api, "DELETE", streamRoute(`est_${"Z".repeat(22)}`), { token });
    expect([answer.status, answer.text]).toEqual([204, ""]);
  });

  it("leaves the seeded streams alone when the id is refused", async () => {
    await callApi(api, "DELETE", streamRoute(`${DEFAULT_SEED_IDS.webhookStream}x`), { token });
    expect(api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(true);
  });
});
