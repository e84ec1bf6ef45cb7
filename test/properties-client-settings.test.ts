import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS, type WireClient } from "../provider/local-tenant/index.js";
import { fromWire, toWire } from "../provider/local-tenant/wire.js";
import { matchesDeclared } from "../provider/plan/compare.js";
import { NAME_KEY } from "../provider/schema/index.js";
import {
  type Constraint,
  constraintsOf,
  type InvalidCase,
  invalidClientSettings,
  MUTATION_KINDS,
  PROPERTY_SEED,
  ROOT,
  SCHEMA_NODES,
  validClientSettings,
} from "./support/arbitraries/index.js";
import { failurePath } from "./support/check-failures.js";
import { type Harness, useFileHarness } from "./support/harness.js";
import { PLATFORM_APP_TYPES } from "./support/platform.js";
import { callApi, fetchToken } from "./support/test-client.js";

/** How many generated inputs each property checks: the issue asks for at least these. */
const RUNS = {
  invalid: 5000,
  valid: 1000,
  /** Invalid inputs whose wire form is also sent to the tenant API, to see it refuse them too. */
  apiInvalid: 1000,
  /** Through the provider's create (a GET and a PATCH each): fewer, the PATCHes cover the wire. */
  create: 150,
} as const;

/**
 * The client every valid input is applied to: third-party with `third_party_security_mode:
 * "strict"`, OIDC conformant, without metadata, so the rules that depend on the stored client
 * (docs/design/platform.md, "Rules across fields", and the metadata count once merged) hold for any valid input.
 */
const TARGET = DEFAULT_SEED_IDS.strictThirdParty;
const TARGET_MODE = "strict";

/** Fields the response never holds as null (docs/design/platform.md, "Response-only fields"): a null sent resets them to the default. */
type Inputs = Record<string, unknown>;

const file = useFileHarness(TARGET);
let h: Harness;
beforeEach(() => {
  h = file.h();
});

/** `thirdPartySecurityMode` can never change (docs/design/platform.md, "Rules across fields"): a valid input may only restate it. */
const sameModeAsTarget = (inputs: Inputs): Inputs =>
  "thirdPartySecurityMode" in inputs ? { ...inputs, thirdPartySecurityMode: TARGET_MODE } : inputs;

/**
 * Whether `inputs` hold a `defaultOrganization` with one of its two members, which `check` takes
 * but the platform refuses (400, recorded; docs/design/local-tenant.md, "Routes"): left out of the
 * valid inputs sent to the tenant until `check` refuses it too.
 */
const halfDefaultOrganization = (inputs: Inputs): boolean => {
  const organization = inputs.defaultOrganization;
  if (typeof organization !== "object" || organization === null) return false;
  return ["organizationId", "flows"].filter((member) => member in organization).length === 1;
};

const userFields = (inputs: Inputs): Inputs =>
  Object.fromEntries(
    Object.entries(inputs).filter(([key]) => key !== "clientId" && !key.startsWith("__")),
  );

/**
 * The declared fields (any one spelling) that `live` (same spelling) does not hold. A null sent
 * for a field in `neverNull` holds when the field now has its (non-null) default.
 */
/** The secret, in both spellings. */
const SECRET = ["client_secret", "clientSecret"];

/** The field a `""` removes, in both spellings (the wire's and the user's). */
const REMOVED_BY_EMPTY = ["initiate_login_uri", "initiateLoginUri"];

function notHeld(live: Inputs, declared: Inputs): string[] {
  // The secret of a client with authentication methods is kept but not answered, as on the
  // platform (docs/design/local-tenant.md, "Routes").
  const methods = declared.client_authentication_methods ?? declared.clientAuthenticationMethods;
  const unanswered = typeof methods === "object" && methods !== null ? SECRET : [];
  return Object.entries(declared)
    .filter(([field]) => !unanswered.includes(field))
    .filter(([field, value]) =>
      // A null sent removes the field, and so does "" for initiate_login_uri, as on the platform
      // (docs/design/local-tenant.md, "How a PATCH applies").
      value === null || (value === "" && REMOVED_BY_EMPTY.includes(field))
        ? field in live
        : !matchesDeclared(live[field], value),
    )
    .map(([field]) => field);
}

/**
 * Whether the API can see the mutation in the wire form, and must refuse it. It cannot when the
 * mutation is in `clientId` (it travels in the path) or is a missing `clientId`; and it may accept,
 * by design, two things `check` refuses: an unknown key with an underscore (the user wrote the
 * wire's own spelling, `oidc_conformant`, which `check` refuses with a suggestion) and a null
 * anywhere (on the wire, as on the platform, null removes what it names; docs/design/local-tenant.md,
 * "How a PATCH applies").
 */
function visibleOnTheWire(c: InvalidCase): boolean {
  const last = c.path[c.path.length - 1];
  let mutated: unknown = c.input;
  for (const step of c.path) {
    mutated =
      typeof mutated === "object" && mutated !== null
        ? (mutated as Record<string, unknown>)[step.key]
        : undefined;
  }
  if (c.path.length > 0 && mutated === null) return false;
  if (c.field === "clientId" || (c.field === ROOT && c.kind !== "cross-field rule broken")) {
    return false;
  }
  if (c.kind === "unknown property" && last?.key.includes("_")) return false;
  const metadata = c.input.clientMetadata;
  const isNullMetadataValue =
    c.field === "clientMetadata" &&
    c.path.length === 2 &&
    last !== undefined &&
    typeof metadata === "object" &&
    metadata !== null &&
    (metadata as Record<string, unknown>)[last.key] === null;
  return !isNullMetadataValue;
}

describe("ClientSettings check on generated invalid inputs", () => {
  it("rejects 5,000 inputs with one mutation each at exactly the mutated property, without calling the API", async () => {
    const before = h.api.stats();
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(invalidClientSettings(), async ({ input, property }) => {
        runs += 1;
        const failures = (await h.clients.check({}, input)).failures ?? [];
        expect(failures).not.toEqual([]);
        for (const failure of failures) {
          expect(failurePath(failure)).toBe(property);
          expect(failure.reason).not.toBe("");
        }
      }),
      { seed: PROPERTY_SEED, numRuns: RUNS.invalid },
    );
    expect(runs).toBe(RUNS.invalid);
    const after = h.api.stats();
    expect({ api: after.api, token: after.token }).toEqual({
      api: before.api,
      token: before.token,
    });
  });

  it("has the tenant API refuse the wire form of 1,000 of them with 400, naming the same field", async () => {
    const token = await fetchToken(h.api);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(invalidClientSettings().filter(visibleOnTheWire), async (c) => {
        runs += 1;
        await file.reset();
        const answer = await callApi<{ errorCode?: string; message?: string }>(
          h.api,
          "PATCH",
          `/api/v2/clients/${TARGET}`,
          { token, json: toWire("ClientSettings", c.input) },
        );
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body.errorCode).toBe("invalid_body");
        // The wire path starts with the top-level field in the spec's spelling.
        expect(answer.body.message).toContain(`${snakeCase(c.path[0]?.key ?? "")}`);
      }),
      { seed: PROPERTY_SEED, numRuns: RUNS.apiInvalid },
    );
    await file.reset();
    expect(runs).toBe(RUNS.apiInvalid);
  });

  it("generates mutations of every client field and of every kind", () => {
    const cases: InvalidCase[] = fc.sample(invalidClientSettings(), {
      seed: PROPERTY_SEED,
      numRuns: RUNS.invalid,
    });
    const fields = new Set(cases.map((c) => c.field));
    const kinds = new Map<string, number>();
    for (const c of cases) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
    const expectedFields = [ROOT, ...Object.keys(clientProperties())];
    expect([...fields].sort()).toEqual([...expectedFields].sort());
    for (const kind of MUTATION_KINDS) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(20);
    }
  });
});

describe("ClientSettings check and the tenant API on generated valid inputs", () => {
  it("accepts 1,000 inputs in check, and the tenant API answers their wire form with 200 and stores it", async () => {
    const token = await fetchToken(h.api);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        validClientSettings()
          .map(sameModeAsTarget)
          .filter((inputs) => !halfDefaultOrganization(inputs)),
        async (inputs) => {
          runs += 1;
          expect((await h.clients.check({}, inputs)).failures ?? []).toEqual([]);
          const body = toWire("ClientSettings", inputs);
          await file.reset();
          const answer = await callApi<Inputs>(h.api, "PATCH", `/api/v2/clients/${TARGET}`, {
            token,
            json: body,
          });
          expect(answer.status, answer.text).toBe(200);
          expect(notHeld(answer.body, body)).toEqual([]);
        },
      ),
      { seed: PROPERTY_SEED, numRuns: RUNS.valid },
    );
    await file.reset();
    expect(runs).toBe(RUNS.valid);
  });

  it("generates valid inputs at the limits of every field", () => {
    const samples = fc.sample(validClientSettings(), { seed: PROPERTY_SEED, numRuns: RUNS.valid });
    const some = (test: (inputs: Inputs) => boolean) => samples.some(test);
    const metadataOf = (inputs: Inputs) => (inputs.clientMetadata ?? {}) as Record<string, string>;
    expect({
      description140: some(
        (i) => typeof i.description === "string" && [...i.description].length === 140,
      ),
      metadata10Keys: some((i) => Object.keys(metadataOf(i)).length === 10),
      metadataKey255: some((i) => Object.keys(metadataOf(i)).some((k) => [...k].length === 255)),
      metadataValue255: some((i) =>
        Object.values(metadataOf(i)).some((v) => [...v].length === 255),
      ),
      parRequestExpiry10: some((i) => i.parRequestExpiry === 10),
      parRequestExpiry600: some((i) => i.parRequestExpiry === 600),
      postLoginPrompt: some((i) => i.organizationRequireBehavior === "post_login_prompt"),
    }).toEqual({
      description140: true,
      metadata10Keys: true,
      metadataKey255: true,
      metadataValue255: true,
      parRequestExpiry10: true,
      parRequestExpiry600: true,
      postLoginPrompt: true,
    });
  });

  it("maps 1,000 inputs to the wire and back unchanged", () => {
    fc.assert(
      fc.property(validClientSettings(), (inputs) => {
        expect(fromWire("ClientSettings", toWire("ClientSettings", inputs))).toEqual(
          userFields(inputs),
        );
      }),
      { seed: PROPERTY_SEED, numRuns: RUNS.valid },
    );
  });

  it("creates 150 inputs through the provider, after which the client holds every declared value", async () => {
    await fc.assert(
      fc.asyncProperty(
        validClientSettings()
          .map(sameModeAsTarget)
          .filter((inputs) => !halfDefaultOrganization(inputs)),
        async (generated) => {
          const inputs = { ...generated, [NAME_KEY]: "generated", clientId: TARGET };
          await file.reset();
          await h.clients.create(inputs);
          const live = fromWire("ClientSettings", h.api.store.getClient(TARGET) as WireClient);
          expect(notHeld(live, userFields(inputs))).toEqual([]);
        },
      ),
      { seed: PROPERTY_SEED, numRuns: RUNS.create },
    );
    await file.reset();
  });
});

function clientProperties(): Record<string, unknown> {
  return SCHEMA_NODES.ClientSettings.properties as Record<string, unknown>;
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The 55 client fields in the platform's spelling, with the types its table gives. Written from
 * the platform's documentation (docs/design/platform.md), not from the schema, so that a field or a type missing from the schema shows here:
 * the generators walk the schema and would never notice.
 */
const SPEC_FIELD_TYPES: Record<string, string | string[]> = {
  name: "string",
  description: "string",
  client_secret: "string",
  logo_uri: "string",
  callbacks: "array",
  oidc_logout: "object",
  oidc_backchannel_logout: "object",
  session_transfer: ["object", "null"],
  allowed_origins: "array",
  web_origins: "array",
  grant_types: "array",
  client_aliases: "array",
  allowed_clients: "array",
  allowed_logout_urls: "array",
  jwt_configuration: "object",
  encryption_key: ["object", "null"],
  sso: "boolean",
  cross_origin_authentication: "boolean",
  cross_origin_loc: ["string", "null"],
  sso_disabled: "boolean",
  custom_login_page_on: "boolean",
  token_endpoint_auth_method: ["string", "null"],
  is_token_endpoint_ip_header_trusted: "boolean",
  app_type: "string",
  is_first_party: "boolean",
  oidc_conformant: "boolean",
  custom_login_page: "string",
  custom_login_page_preview: "string",
  token_quota: ["object", "null"],
  form_template: "string",
  addons: "object",
  client_metadata: "object",
  mobile: "object",
  initiate_login_uri: "string",
  native_social_login: ["object", "null"],
  fedcm_login: ["object", "null"],
  refresh_token: ["object", "null"],
  default_organization: ["object", "null"],
  organization_usage: ["string", "null"],
  organization_require_behavior: ["string", "null"],
  organization_discovery_methods: ["array", "null"],
  client_authentication_methods: ["object", "null"],
  require_pushed_authorization_requests: "boolean",
  require_proof_of_possession: "boolean",
  signed_request_object: "object",
  token_vault_privileged_access: "object",
  compliance_level: ["string", "null"],
  skip_non_verifiable_callback_uri_confirmation_prompt: ["boolean", "null"],
  token_exchange: ["object", "null"],
  par_request_expiry: ["integer", "null"],
  express_configuration: ["object", "null"],
  my_organization_configuration: ["object", "null"],
  async_approval_notification_channels: ["array", "null"],
  third_party_security_mode: "string",
  redirection_policy: "string",
};

const URL_LIST = "url-with-placeholders";

/** The constraints of docs/design/platform.md ("Client fields", "Limits", "URL formats"), at the user's paths. */
const SPEC_CONSTRAINTS: Constraint[] = [
  { path: "clientId", keyword: "minLength", value: 1 },
  { path: "name", keyword: "minLength", value: 1 },
  // The spec's ^[^<>]+$, split so that an empty name and a bracket each get their own failure.
  { path: "name", keyword: "pattern", value: "^[^<>]*$" },
  { path: "description", keyword: "maxLength", value: 140 },
  { path: "clientSecret", keyword: "minLength", value: 1 },
  { path: "logoUri", keyword: "format", value: "absolute-uri-or-empty" },
  { path: "callbacks[]", keyword: "format", value: "callback-url" },
  { path: "allowedOrigins[]", keyword: "format", value: URL_LIST },
  { path: "webOrigins[]", keyword: "format", value: URL_LIST },
  { path: "allowedLogoutUrls[]", keyword: "format", value: URL_LIST },
  {
    path: "grantTypes[]",
    keyword: "enum",
    value: [
      "authorization_code",
      "implicit",
      "refresh_token",
      "client_credentials",
      "password",
      "http://example/oauth/grant-type/password-realm",
      "http://example/oauth/grant-type/mfa-oob",
      "http://example/oauth/grant-type/mfa-otp",
      "http://example/oauth/grant-type/mfa-recovery-code",
      "urn:openid:params:grant-type:ciba",
      "urn:ietf:params:oauth:grant-type:device_code",
      "urn:example:params:oauth:grant-type:token-exchange:federated-connection-access-token",
    ],
  },
  { path: "clientAliases[]", keyword: "minLength", value: 1 },
  { path: "allowedClients[]", keyword: "minLength", value: 1 },
  { path: "crossOriginLoc", keyword: "format", value: "url-or-null" },
  {
    path: "tokenEndpointAuthMethod",
    keyword: "enum",
    value: ["none", "client_secret_post", "client_secret_basic", null],
  },
  {
    path: "appType",
    keyword: "enum",
    value: PLATFORM_APP_TYPES,
  },
  {
    path: "initiateLoginUri",
    keyword: "format",
    value: "absolute-https-uri-with-placeholders-or-empty",
  },
  { path: "organizationUsage", keyword: "enum", value: ["deny", "allow", "require", null] },
  {
    path: "organizationRequireBehavior",
    keyword: "enum",
    value: ["no_prompt", "pre_login_prompt", "post_login_prompt", null],
  },
  { path: "organizationDiscoveryMethods", keyword: "minItems", value: 1 },
  {
    path: "organizationDiscoveryMethods[]",
    keyword: "enum",
    value: ["email", "organization_name"],
  },
  {
    path: "complianceLevel",
    keyword: "enum",
    value: [
      "none",
      "fapi1_adv_pkj_par",
      "fapi1_adv_mtls_par",
      "fapi2_sp_pkj_mtls",
      "fapi2_sp_mtls_mtls",
      null,
    ],
  },
  { path: "parRequestExpiry", keyword: "minimum", value: 10 },
  { path: "parRequestExpiry", keyword: "maximum", value: 600 },
  { path: "asyncApprovalNotificationChannels", keyword: "minItems", value: 1 },
  {
    path: "asyncApprovalNotificationChannels[]",
    keyword: "enum",
    value: ["guardian-push", "email"],
  },
  { path: "thirdPartySecurityMode", keyword: "enum", value: ["strict", "permissive"] },
  {
    path: "redirectionPolicy",
    keyword: "enum",
    value: ["allow_always", "open_redirect_protection"],
  },
  { path: "clientMetadata", keyword: "maxProperties", value: 10 },
  { path: "clientMetadata{}", keyword: "type", value: "string" },
  { path: "clientMetadata{}", keyword: "maxLength", value: 255 },
  { path: "clientMetadata{key}", keyword: "maxLength", value: 255 },
  { path: "", keyword: "additionalProperties", value: false },
  { path: "", keyword: "required", value: ["clientId"] },
];

/** docs/design/platform.md, "Limits": letters, digits and `: , - + = _ * ? " / ( ) < > @`, tab and space. */
const SPEC_KEY_PUNCTUATION = ':,-+=_*?"/()<>@\t ';

describe("ClientSettings schema walked by the generators", () => {
  it("has exactly the fields of a client, in camelCase, with their types", () => {
    const fields = Object.entries(clientProperties()).filter(([name]) => name !== "clientId");
    const types = Object.fromEntries(
      fields.map(([name, schema]) => [snakeCase(name), (schema as { type: unknown }).type]),
    );
    expect(types).toEqual(SPEC_FIELD_TYPES);
  });

  it("carries every constraint of the client fields and their limits", () => {
    const found = constraintsOf(SCHEMA_NODES.ClientSettings);
    for (const constraint of SPEC_CONSTRAINTS) expect(found).toContainEqual(constraint);
  });

  it("admits exactly the allowed metadata key characters among ASCII", () => {
    const keys = constraintsOf(SCHEMA_NODES.ClientSettings).find(
      (c) => c.path === "clientMetadata{key}" && c.keyword === "pattern",
    );
    const pattern = new RegExp(String(keys?.value), "u");
    const admitted = (c: string) => /[A-Za-z0-9]/.test(c) || SPEC_KEY_PUNCTUATION.includes(c);
    for (let code = 0; code < 128; code += 1) {
      const c = String.fromCharCode(code);
      expect(pattern.test(c), JSON.stringify(c)).toBe(admitted(c));
    }
  });
});
