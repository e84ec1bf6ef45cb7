import type * as pulumi from "@pulumi/pulumi";
import { describe, expectTypeOf, it } from "vitest";
import type {
  ClientSettingsArgs,
  EventStreamDeletionArgs,
  PushProviderSelectionArgs,
} from "../provider/index.js";
import type { GRANT_TYPES } from "../provider/schema/client-settings.js";
import type {
  APP_TYPES,
  CLIENT_SETTINGS_FIELDS,
  ClientSettingsField,
  ClientSettingsInputs,
  EventStreamDeletionInputs,
  PushProviderSelectionInputs,
  ResourceKind,
  SENSITIVE_CLIENT_FIELDS,
} from "../provider/schema/index.js";
import type { UNKNOWN } from "../provider/unknown.js";

type C = ClientSettingsInputs;

describe("PushProviderSelectionInputs", () => {
  it("is exactly a required provider from the enum", () => {
    expectTypeOf<PushProviderSelectionInputs>().toEqualTypeOf<{
      provider: "guardian" | "sns" | "direct";
    }>();
  });
});

describe("EventStreamDeletionInputs", () => {
  it("is exactly a required eventStreamId string", () => {
    expectTypeOf<EventStreamDeletionInputs>().toEqualTypeOf<{ eventStreamId: string }>();
  });
});

describe("ClientSettingsInputs", () => {
  it("requires clientId and nothing else", () => {
    expectTypeOf<C["clientId"]>().toEqualTypeOf<string>();
    expectTypeOf<{ clientId: string }>().toExtend<C>();
  });

  it("has exactly clientId and the client fields as keys", () => {
    expectTypeOf<keyof C>().toEqualTypeOf<"clientId" | ClientSettingsField>();
  });

  it("makes every client field optional", () => {
    expectTypeOf<Pick<C, "clientId">>().toExtend<C>();
  });

  it("types plain fields from the schema", () => {
    expectTypeOf<C["name"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<C["oidcConformant"]>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<C["callbacks"]>().toEqualTypeOf<string[] | undefined>();
  });

  it("adds null exactly where the spec allows it", () => {
    expectTypeOf<C["crossOriginLoc"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<C["parRequestExpiry"]>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<C["skipNonVerifiableCallbackUriConfirmationPrompt"]>().toEqualTypeOf<
      boolean | null | undefined
    >();
    expectTypeOf<null>().not.toExtend<C["jwtConfiguration"]>();
    expectTypeOf<null>().toExtend<C["refreshToken"]>();
  });

  it("types enums as their literal values", () => {
    expectTypeOf<C["appType"]>().toEqualTypeOf<(typeof APP_TYPES)[number] | undefined>();
    expectTypeOf<C["grantTypes"]>().toEqualTypeOf<(typeof GRANT_TYPES)[number][] | undefined>();
    expectTypeOf<C["tokenEndpointAuthMethod"]>().toEqualTypeOf<
      "none" | "client_secret_post" | "client_secret_basic" | null | undefined
    >();
    expectTypeOf<C["organizationDiscoveryMethods"]>().toEqualTypeOf<
      ("email" | "organization_name")[] | null | undefined
    >();
    expectTypeOf<C["thirdPartySecurityMode"]>().toEqualTypeOf<
      "strict" | "permissive" | undefined
    >();
  });

  it("types nested shapes in camelCase", () => {
    expectTypeOf<NonNullable<C["jwtConfiguration"]>>().toEqualTypeOf<{
      lifetimeInSeconds?: number;
      secretEncoded?: boolean;
      scopes?: { [x: string]: unknown };
      alg?: string;
    }>();
    expectTypeOf<NonNullable<NonNullable<C["mobile"]>["android"]>>().toEqualTypeOf<{
      appPackageName?: string;
      sha256CertFingerprints?: string[];
    }>();
  });

  it("types clientMetadata as a map of strings", () => {
    expectTypeOf<C["clientMetadata"]>().toEqualTypeOf<{ [x: string]: string } | undefined>();
  });

  it("keeps the spec's spelling inside addons", () => {
    type Addons = NonNullable<C["addons"]>;
    expectTypeOf<NonNullable<Addons["samlp"]>["lifetimeInSeconds"]>().toEqualTypeOf<
      number | undefined
    >();
    expectTypeOf<Addons["sso_integration"]>().toEqualTypeOf<
      { name?: string; version?: string } | undefined
    >();
  });

  it("accepts a client written with the schema's names", () => {
    expectTypeOf({
      clientId: "c",
      oidcConformant: true,
      jwtConfiguration: { lifetimeInSeconds: 60 },
      organizationRequireBehavior: "post_login_prompt" as const,
    }).toExtend<C>();
  });

  it("has no key in the API's spelling", () => {
    expectTypeOf<"oidc_conformant" | "jwt_configuration" | "client_id">().not.toExtend<keyof C>();
  });
});

describe("the exported lists", () => {
  it("list the client fields as the field union", () => {
    expectTypeOf<typeof CLIENT_SETTINGS_FIELDS>().toEqualTypeOf<readonly ClientSettingsField[]>();
    expectTypeOf<typeof SENSITIVE_CLIENT_FIELDS>().toEqualTypeOf<readonly ClientSettingsField[]>();
  });

  it("exclude clientId from the field union", () => {
    expectTypeOf<"clientId">().not.toExtend<ClientSettingsField>();
    expectTypeOf<"addons" | "clientSecret" | "oidcConformant">().toExtend<ClientSettingsField>();
  });

  it("name the three resource kinds", () => {
    expectTypeOf<ResourceKind>().toEqualTypeOf<
      "PushProviderSelection" | "ClientSettings" | "EventStreamDeletion"
    >();
  });

  it("type the unknown placeholder as its literal", () => {
    expectTypeOf<typeof UNKNOWN>().toEqualTypeOf<"04da6b54-80e4-46f7-96ec-b56ff0331ba9">();
  });
});

describe("the tenant input", () => {
  type Tenant = NonNullable<ClientSettingsArgs["tenant"]>;
  const output = {} as pulumi.Output<string>;

  it("takes a domain with an API token, or with a client id and secret, each an Input", () => {
    expectTypeOf({ domain: "a.example", apiToken: output }).toExtend<Tenant>();
    expectTypeOf({ domain: output, clientId: "c", clientSecret: output }).toExtend<Tenant>();
    expectTypeOf({
      domain: "a",
      clientId: "c",
      clientSecret: "s",
      audience: "x",
    }).toExtend<Tenant>();
  });

  it("refuses a connection without credentials or with half of them", () => {
    expectTypeOf({ domain: "a.example" }).not.toExtend<Tenant>();
    expectTypeOf({ domain: "a.example", clientId: "c" }).not.toExtend<Tenant>();
  });

  it("is the same type on every resource", () => {
    expectTypeOf<NonNullable<PushProviderSelectionArgs["tenant"]>>().toEqualTypeOf<Tenant>();
    expectTypeOf<NonNullable<EventStreamDeletionArgs["tenant"]>>().toEqualTypeOf<Tenant>();
  });
});
