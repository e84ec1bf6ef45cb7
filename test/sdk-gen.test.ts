/**
 * The SDKs a Go, Python or Node.js user of the provider plugin gets: generated from the plugin's
 * package schema as `npm run build` writes it (dist/provider/plugin/schema.json) by Pulumi's own
 * code generators at the lock's release (test/sdk-gen, docs/design/pulumi-cli.md "SDKs of the provider
 * plugin"), offline; the Go SDK builds in a Go program, the Python SDK compiles, the Node.js SDK
 * type-checks, and every secret output of the schema is a secret output in each SDK.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/installed-package.js";
import {
  buildGoSdk,
  compilePythonSdk,
  type GeneratedSdks,
  generateSdks,
  typecheckNodejsSdk,
} from "./support/sdk-gen.js";

const SCHEMA = join(REPO_ROOT, "dist", "provider", "plugin", "schema.json");

/**
 * Timeouts, about four times the slowest time measured on 2 cores with the suite around: the
 * generator's build when its sources changed since `npm ci` (a minute with Go's caches warm; cold
 * it is `npm ci`'s work), the Go SDK's build (7 s alone, 20 s loaded: the SDK's own packages, the
 * rest is in the build cache), tsc of the Node.js SDK (4 s alone, 15 s loaded).
 */
const GENERATE_MS = 10 * 60_000;
const GO_BUILD_MS = 4 * 60_000;
const TSC_MS = 2 * 60_000;

interface ResourceSpec {
  properties?: Record<string, { secret?: boolean }>;
}
interface PackageSpec {
  resources: Record<string, ResourceSpec>;
}

let out: string;
let sdks: GeneratedSdks;
let schema: PackageSpec;

beforeAll(async () => {
  schema = JSON.parse(await readFile(SCHEMA, "utf8")) as PackageSpec;
  out = await mkdtemp(join(tmpdir(), "sdk-gen-test-"));
  sdks = await generateSdks(SCHEMA, join(out, "sdks"));
}, GENERATE_MS);
afterAll(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

/** Every file of a folder, its path relative to it and its text. */
async function filesOf(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(dir.length + 1), await readFile(path, "utf8"));
  }
  return files;
}

/** The names in a list of quoted strings (`"a", "b"`, one a line or not). */
const quoted = (list: string) => [...list.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]);

/**
 * How each SDK registers a resource (its type token in the file of its class) and lists the
 * resource's secret outputs (Pulumi's code generators at 3.259.0).
 */
const LANGUAGES = [
  {
    name: "go",
    registers: (token: string) => `ctx.RegisterResource("${token}"`,
    secrets: /pulumi\.AdditionalSecretOutputs\(\[\]string\{([^}]*)\}\)/,
  },
  {
    name: "python",
    registers: (token: string) => `'${token}',`,
    secrets: /additional_secret_outputs=\[([^\]]*)\]/,
  },
  {
    name: "nodejs",
    registers: (token: string) => `__pulumiType = '${token}'`,
    secrets: /additionalSecretOutputs: \[([^\]]*)\]/,
  },
] as const;

describe("the SDKs of the plugin's package schema, by Pulumi's code generators", () => {
  it("binds the schema with no diagnostic", () => {
    expect(sdks.warnings).toEqual([]);
  });

  it.each(LANGUAGES)(
    "has a class for every resource in the $name SDK, its secret outputs secret",
    async ({ name, registers, secrets }) => {
      const files = [...(await filesOf(sdks[name])).values()];
      for (const [token, resource] of Object.entries(schema.resources)) {
        const classFile = files.filter((text) => text.includes(registers(token)));
        expect(classFile, token).toHaveLength(1);
        const listed = quoted(secrets.exec(classFile[0] ?? "")?.[1] ?? "");
        const secret = Object.entries(resource.properties ?? {})
          .filter(([, property]) => property.secret === true)
          .map(([property]) => property);
        expect(listed.sort(), token).toEqual(secret.sort());
      }
    },
  );

  it(
    "builds the Go SDK in a Go program, offline",
    async () => {
      const built = await buildGoSdk(sdks);
      expect(built.packages).toContain(`${built.modulePath}/tenant`);
    },
    GO_BUILD_MS,
  );

  it("compiles the Python SDK", async () => {
    await compilePythonSdk(sdks);
  });

  it(
    "type-checks the Node.js SDK against this repository's @pulumi/pulumi",
    async () => {
      await typecheckNodejsSdk(sdks);
    },
    TSC_MS,
  );

  it("refuses a schema that does not bind, naming what is wrong", async () => {
    const broken = JSON.parse(await readFile(SCHEMA, "utf8")) as Record<string, unknown>;
    const resources = broken.resources as Record<string, { properties: Record<string, unknown> }>;
    const first = Object.values(resources)[0];
    if (first === undefined) throw new Error("the schema has no resource");
    first.properties.broken = { type: "strng" };
    const path = join(out, "broken.json");
    await writeFile(path, JSON.stringify(broken));
    await expect(generateSdks(path, join(out, "broken"))).rejects.toThrow(
      /unknown type kind strng/,
    );
  });
});
