/**
 * The Pulumi package schema of the plugin, made from the one input schema of the package
 * (`schema/kinds.ts`, the connection's schema and the config keys): resources, their inputs and
 * outputs, required inputs, secrets, descriptions, the provider's config, and the language
 * sections the SDK generators read. Nothing here lists a field: a field added to the input schema
 * reaches the plugin, Ajv, the TypeScript types and every SDK alike (docs/design/plugin.md, "Schema").
 *
 * JSON Schema says more than Pulumi's type system can; the translation keeps what an SDK can use:
 * - `type: [T, "null"]` is T (an SDK leaves out what is null); several types are a `oneOf`;
 * - an object with `properties` is a named object type (`tenant:index:ClientSettingsJwtConfiguration`);
 *   an object with only `additionalProperties` is a map; an object that has both, or a shape
 *   chosen by `oneOf`/`anyOf`/`if` (the add-ons), is `pulumi.json#/Any`: `check` still validates
 *   every constraint, so nothing is lost but a typed property in the SDKs;
 * - `enum`s stay strings (their values are in the descriptions and checked by `check`);
 * - `"x-sensitive"` marks the property `secret`.
 *
 * @module
 */

import { CONFIG_KEYS } from "../config.js";
import { CONNECTION_SETTINGS, TENANT_KEY } from "../connection/schema.js";
import { PluginBuildError } from "../errors.js";
import { OUTPUT_ONLY, SECRET_OUTPUTS } from "../providers/secret-outputs.js";
import {
  INPUT_SCHEMAS,
  isSchemaNode,
  itemSchema,
  propertiesOf,
  type ResourceKind,
  type SchemaNode,
} from "../schema/kinds.js";
import { examplesSection } from "./resource-examples.js";

/** The package's source repository, as package.json names it: the schema's `repository` and `homepage`. */
const REPOSITORY = "https://github.com/pulumi-tenant/pulumi-tenant";

/** The package's name in every type token (`tenant:index:ClientSettings`) and config key. */
export const PACKAGE_NAME = "tenant";

/** The Python SDK's package name, on the index and in `import pulumi_tenant`. */
export const PYTHON_PACKAGE_NAME = "pulumi_tenant";

/**
 * The oldest release of Pulumi's Python SDK the Python SDK is tested with, and so the floor of its
 * dependency on it: the release test/python/requirements.txt pins (a test holds the two together).
 * Pulumi's code generator sets a lower floor of its own (3.231), which nothing here runs.
 *
 * @internal
 */
export const PULUMI_PYTHON_SDK_FLOOR = "3.259.0";

/** The type token of a resource kind: `tenant:index:ClientSettings`. */
export function typeToken(kind: ResourceKind): string {
  return `${PACKAGE_NAME}:index:${kind}`;
}

/** The name of the type of the `tenant` input, shared by the three resources. */
const CONNECTION_TYPE = "TenantConnection";

/** One property of a Pulumi schema (`PropertySpec`), as far as this package uses it. */
interface PropertySpec {
  readonly type?: string;
  readonly $ref?: string;
  readonly items?: PropertySpec;
  readonly additionalProperties?: PropertySpec;
  readonly oneOf?: readonly PropertySpec[];
  readonly description?: string;
  readonly secret?: boolean;
}

/** An object type of the schema's `types` section. */
interface ObjectTypeSpec {
  readonly type: "object";
  readonly description?: string;
  readonly properties: Record<string, PropertySpec>;
  readonly required?: string[];
}

/** The whole package schema, as `GetSchema` serves it. */
export interface PackageSchema {
  readonly name: string;
  readonly version: string;
  readonly [section: string]: unknown;
}

const ANY: PropertySpec = { $ref: "pulumi.json#/Any" };

/** Keywords that choose a shape among several: the SDKs get `Any`, `check` the real rules. */
const SHAPE_CHOICES = ["oneOf", "anyOf", "allOf", "if", "not"] as const;

/**
 * Translates JSON Schema nodes to Pulumi property specs, collecting the object types it names.
 * Object types are named after where they are first met (`ClientSettings` + `JwtConfiguration`),
 * the `tenant` connection after itself; a node met again (the connection, in every resource) is
 * the same type.
 */
class TypeCollector {
  readonly types: Record<string, ObjectTypeSpec> = {};
  readonly #named = new Map<SchemaNode, string>();

  property(node: SchemaNode, typeName: string): PropertySpec {
    const spec = this.#shape(node, typeName);
    const description = typeof node.description === "string" ? node.description : undefined;
    return {
      ...spec,
      ...(description !== undefined && spec.description === undefined ? { description } : {}),
      ...(node["x-sensitive"] !== undefined && node["x-sensitive"] !== false
        ? { secret: true }
        : {}),
    };
  }

  #shape(node: SchemaNode, typeName: string): PropertySpec {
    if (SHAPE_CHOICES.some((keyword) => node[keyword] !== undefined)) return ANY;
    const types = [node.type].flat().filter((type) => type !== "null" && type !== undefined);
    if (types.length > 1) {
      return { oneOf: types.map((type) => this.#shape({ ...node, type }, typeName)) };
    }
    switch (types[0]) {
      case "string":
      case "boolean":
      case "integer":
      case "number":
        return { type: types[0] as string };
      case "array": {
        const items = itemSchema(node);
        return { type: "array", items: items ? this.property(items, `${typeName}Item`) : ANY };
      }
      case "object":
        return this.#object(node, typeName);
      default:
        return ANY;
    }
  }

  #object(node: SchemaNode, typeName: string): PropertySpec {
    const properties = propertiesOf(node);
    const additional = node.additionalProperties;
    const hasProperties = Object.keys(properties).length > 0;
    if (!hasProperties) {
      return {
        type: "object",
        additionalProperties: isSchemaNode(additional)
          ? this.property(additional, `${typeName}Value`)
          : { type: "string" },
      };
    }
    if (isSchemaNode(additional)) return ANY;
    const known = this.#named.get(node);
    if (known !== undefined) return { $ref: `#/types/${known}` };
    const token = `${PACKAGE_NAME}:index:${typeName}`;
    this.#named.set(node, token);
    const members = this.properties(node, typeName);
    this.types[token] = {
      type: "object",
      ...(typeof node.description === "string" ? { description: node.description } : {}),
      properties: members,
      ...requiredOf(node),
    };
    return { $ref: `#/types/${token}` };
  }

  /** The properties of an object node, each typed, nested objects named after `typeName`. */
  properties(node: SchemaNode, typeName: string): Record<string, PropertySpec> {
    const specs: Record<string, PropertySpec> = {};
    for (const [key, member] of Object.entries(propertiesOf(node))) {
      specs[key] = this.property(
        member,
        key === TENANT_KEY ? CONNECTION_TYPE : typeName + pascal(key),
      );
    }
    return specs;
  }
}

function requiredOf(node: SchemaNode): { required?: string[] } {
  const required = Array.isArray(node.required) ? (node.required as string[]) : [];
  return required.length > 0 ? { required: [...required] } : {};
}

function pascal(name: string): string {
  return name.replace(/(^|[_-])([a-z0-9])/g, (_match, _sep, letter: string) =>
    letter.toUpperCase(),
  );
}

/**
 * The provider's configuration, one variable per config key (`tenant:domain`, ...): the
 * connection's members as its schema describes them (credentials secret), and the timeouts.
 */
function configVariables(): Record<string, PropertySpec> {
  const collector = new TypeCollector();
  const connectionNode = propertiesOf(INPUT_SCHEMAS.ClientSettings)[TENANT_KEY] ?? {};
  const members = collector.properties(connectionNode, CONNECTION_TYPE);
  const variables: Record<string, PropertySpec> = {};
  for (const setting of CONNECTION_SETTINGS) {
    const member = members[setting];
    if (member !== undefined) variables[setting] = member;
  }
  for (const { key, description } of [CONFIG_KEYS.requestTimeout, CONFIG_KEYS.operationTimeout]) {
    variables[key.slice(`${PACKAGE_NAME}:`.length)] = { type: "number", description };
  }
  return variables;
}

/** What a resource's description says besides its schema's own: how it is imported. */
const IMPORT_IDS: Readonly<Record<ResourceKind, string>> = {
  PushProviderSelection: "the tenant's host (`acme.tenants.example`)",
  ClientSettings: "the client's id",
  EventStreamDeletion: "the event stream's id, of a stream already deleted",
};

function resourceSpec(kind: ResourceKind, collector: TypeCollector): Record<string, unknown> {
  const node = INPUT_SCHEMAS[kind];
  const inputs = collector.properties(node, kind);
  const secrets = new Set(SECRET_OUTPUTS[kind]);
  const outputs: Record<string, PropertySpec> = {};
  for (const [key, spec] of Object.entries({ ...inputs, ...OUTPUT_ONLY[kind] })) {
    outputs[key] = secrets.has(key) ? { ...spec, secret: true } : spec;
  }
  const required = requiredOf(node).required ?? [];
  const description = typeof node.description === "string" ? node.description : kind;
  return {
    description: `${description}\n\nImport with \`pulumi import ${typeToken(kind)} NAME ID\`, the id being ${IMPORT_IDS[kind]}.\n\n${examplesSection(kind)}`,
    inputProperties: inputs,
    requiredInputs: required,
    properties: outputs,
    required,
  };
}

/**
 * The build setting that names where Pulumi downloads the plugin's release tarballs from
 * (docs/design/plugin.md, "The self-contained executables"): read by `npm run build` into the schema's
 * `pluginDownloadURL`, which the SDKs generated from the schema (and a YAML program's package
 * declaration) carry, so that Pulumi fetches the plugin by itself.
 *
 * @internal
 */
export const DOWNLOAD_URL_SETTING = "PULUMI_TENANT_PLUGIN_DOWNLOAD_URL";

/**
 * The schemes the plugin may be downloaded from: those of Pulumi's plugin installer but `http:`,
 * from which every user of the SDKs would fetch an executable in clear text (docs/design/plugin.md,
 * "`pluginDownloadURL`").
 */
const DOWNLOAD_SCHEMES = ["https:", "github:", "gitlab:"];

/**
 * The download URL {@link DOWNLOAD_URL_SETTING} names in `env`, or undefined when it is unset or
 * empty (the schema then names none, and Pulumi cannot fetch the plugin by itself). Pulumi
 * replaces `${VERSION}`, `${OS}` and `${ARCH}` in it when it downloads.
 *
 * @throws {PluginBuildError} for a value that is not a URL of a scheme Pulumi downloads from, or
 *   an `http:` one.
 */
export function pluginDownloadUrl(env: NodeJS.ProcessEnv): string | undefined {
  const value = env[DOWNLOAD_URL_SETTING]?.trim();
  if (value === undefined || value === "") return undefined;
  let scheme: string | undefined;
  try {
    scheme = new URL(value).protocol;
  } catch {
    scheme = undefined;
  }
  if (scheme === "http:") {
    throw new PluginBuildError(
      `${DOWNLOAD_URL_SETTING} is ${JSON.stringify(value)}, which would have Pulumi fetch the plugin's executable in clear text: use https://, github:// or gitlab://`,
    );
  }
  if (scheme === undefined || !DOWNLOAD_SCHEMES.includes(scheme)) {
    throw new PluginBuildError(
      `${DOWNLOAD_URL_SETTING} is ${JSON.stringify(value)}, which is not a URL Pulumi downloads plugins from (${DOWNLOAD_SCHEMES.map((s) => `${s}//`).join(", ")})`,
    );
  }
  return value;
}

/**
 * The package schema for the plugin of `version`: the same for every process, so it is made once
 * at build time (`dist/provider/plugin/schema.json`) and by `GetSchema` when that file is absent.
 * `downloadUrl` becomes its `pluginDownloadURL` ({@link pluginDownloadUrl}).
 */
export function packageSchema(version: string, downloadUrl?: string): PackageSchema {
  const collector = new TypeCollector();
  const resources: Record<string, unknown> = {};
  for (const kind of Object.keys(INPUT_SCHEMAS) as ResourceKind[]) {
    resources[typeToken(kind)] = resourceSpec(kind, collector);
  }
  const variables = configVariables();
  return {
    name: PACKAGE_NAME,
    displayName: "Identity tenant",
    version,
    description:
      "The configuration of an identity-platform tenant: push provider selection, client settings, event stream deletion.",
    ...(downloadUrl === undefined ? {} : { pluginDownloadURL: downloadUrl }),
    // What the Registry's listing shows (docs/_index.md is the overview page it links to).
    publisher: "pulumi-tenant",
    repository: REPOSITORY,
    homepage: REPOSITORY,
    keywords: [
      "pulumi",
      "identity",
      "oauth",
      "oidc",
      "mfa",
      "tenant",
      "kind/native",
      "category/infrastructure",
    ],
    license: "MIT",
    config: { variables },
    provider: {
      description: "The tenant to manage and the credentials to reach it.",
      inputProperties: variables,
    },
    resources,
    types: collector.types,
    language: {
      nodejs: {
        packageName: "@pulumi-tenant/tenant",
        packageDescription: "Pulumi SDK of the tenant provider plugin.",
      },
      python: {
        packageName: PYTHON_PACKAGE_NAME,
        pyproject: { enabled: true },
        // The package's own version, in Python's form, rather than the generator's 0.0.0.
        respectSchemaVersion: true,
        requires: { pulumi: `>=${PULUMI_PYTHON_SDK_FLOOR},<4.0.0` },
        pythonRequires: ">=3.10",
      },
      go: {
        importBasePath: "github.com/pulumi-tenant/pulumi-tenant/sdk/go/tenant",
        generateResourceContainerTypes: true,
      },
      csharp: { rootNamespace: "PulumiTenant", packageReferences: { Pulumi: "3.*" } },
      java: { basePackage: "com.pulumitenant" },
    },
  };
}
