import { describe, expect, it } from "vitest";
import { CONFIG_KEYS } from "../provider/config.js";
import { packageSchema, typeToken } from "../provider/plugin/package-schema.js";
import { SECRET_OUTPUTS } from "../provider/providers/secret-outputs.js";
import { INPUT_SCHEMAS, propertiesOf, type ResourceKind } from "../provider/schema/kinds.js";

/** The plugin's package schema, made from the one input schema (docs/design/plugin.md, "Schema"). */

const schema = packageSchema("1.2.3");
const KINDS = Object.keys(INPUT_SCHEMAS) as ResourceKind[];

interface ResourceSpec {
  inputProperties: Record<string, { secret?: boolean; description?: string; $ref?: string }>;
  properties: Record<string, { secret?: boolean }>;
  requiredInputs: string[];
}
const resource = (kind: ResourceKind) =>
  (schema.resources as Record<string, ResourceSpec>)[typeToken(kind)] as ResourceSpec;

describe("the plugin's package schema", () => {
  it("names the package tenant, at the version it is made for", () => {
    expect([schema.name, schema.version]).toEqual(["tenant", "1.2.3"]);
  });

  it.each(KINDS)("declares every input of %s that the input schema has, and no other", (kind) => {
    expect(Object.keys(resource(kind).inputProperties)).toEqual(
      Object.keys(propertiesOf(INPUT_SCHEMAS[kind])),
    );
  });

  it("requires the inputs the input schema requires", () => {
    expect(KINDS.map((kind) => resource(kind).requiredInputs)).toEqual([
      ["provider"],
      ["clientId"],
      ["eventStreamId"],
    ]);
  });

  it("marks the sensitive client fields secret, as inputs and as outputs", () => {
    const inputs = resource("ClientSettings").inputProperties;
    expect(Object.keys(inputs).filter((key) => inputs[key]?.secret)).toEqual([
      "clientSecret",
      "encryptionKey",
      "addons",
    ]);
    const outputs = resource("ClientSettings").properties;
    expect(
      // `prior` and `stackConfigTenant` are bookkeeping for delete, not outputs for programs.
      SECRET_OUTPUTS.ClientSettings.filter(
        (key) => key !== "prior" && key !== "stackConfigTenant",
      ).every((key) => outputs[key]?.secret),
    ).toBe(true);
  });

  it("declares the prior provider as a secret output only", () => {
    expect(resource("PushProviderSelection").properties.priorProvider).toMatchObject({
      type: "string",
      secret: true,
    });
    expect(resource("PushProviderSelection").inputProperties.priorProvider).toBeUndefined();
  });

  it("types a nested object as a named type and the tenant input as one type shared by the three", () => {
    expect(resource("ClientSettings").inputProperties.jwtConfiguration?.$ref).toBe(
      "#/types/tenant:index:ClientSettingsJwtConfiguration",
    );
    expect(KINDS.map((kind) => resource(kind).inputProperties.tenant?.$ref)).toEqual(
      Array(3).fill("#/types/tenant:index:TenantConnection"),
    );
  });

  it("configures the provider with every config key, the credentials secret", () => {
    const variables = (schema.config as { variables: Record<string, { secret?: boolean }> })
      .variables;
    expect(
      Object.keys(variables)
        .map((name) => `tenant:${name}`)
        .sort(),
    ).toEqual(
      Object.values(CONFIG_KEYS)
        .map(({ key }) => key)
        .sort(),
    );
    expect(Object.keys(variables).filter((name) => variables[name]?.secret)).toEqual([
      "apiToken",
      "clientSecret",
      "clientAssertionPrivateKey",
    ]);
    expect((schema.provider as { inputProperties: unknown }).inputProperties).toEqual(variables);
  });

  it("has a language section for Go, Python, .NET, Java and Node.js", () => {
    expect(Object.keys(schema.language as object).sort()).toEqual([
      "csharp",
      "go",
      "java",
      "nodejs",
      "python",
    ]);
  });
});
