import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import {
  type InstalledProject,
  installPackedPackage,
  REPO_ROOT,
} from "./support/installed-package.js";

const run = promisify(execFile);
const KINDS = ["push-provider-selection", "client-settings", "event-stream-deletion"] as const;
const SECRET = "tok_closure_secret_4f1c9b";

/**
 * Serializes a shim with Pulumi's own serializer (as `dynamic.Resource` does), then loads the text
 * the way Pulumi's dynamic-provider host does (`require-from-string(text).handler()`), in a fresh
 * process whose working directory is the program's, and calls `check` on it. Credentials are in the
 * environment, so any that leaked into the closure would show in the text.
 */
const SCRIPT = `
const sc = require("@pulumi/pulumi/runtime/closure/serializeClosure");
(async () => {
  const provider = require("pulumi-tenant/shims/" + process.argv[1]);
  const { text } = await sc.serializeFunction(() => provider, { allowSecrets: true });
  const loaded = require("require-from-string")(text).handler();
  const checked = await loaded.check({}, { bogus: 1 });
  process.stdout.write(JSON.stringify({ text, methods: Object.keys(loaded).sort(), failures: checked.failures }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

async function serialize(cwd: string, kind: string) {
  const { stdout } = await run(process.execPath, ["-e", SCRIPT, kind], {
    cwd,
    timeout: STEP_BOUNDS_MS.node,
    env: { ...process.env, TENANT_DOMAIN: "acme.tenants.example", TENANT_API_TOKEN: SECRET },
  });
  return JSON.parse(stdout) as {
    text: string;
    methods: string[];
    failures: { property: string }[];
  };
}

type Serialized = Awaited<ReturnType<typeof serialize>>;

describe("an installed package", () => {
  let project: InstalledProject;
  const serialized = new Map<string, Serialized>();
  const of = (kind: string): Serialized => serialized.get(kind) as Serialized;
  beforeAll(
    async () => {
      project = await installPackedPackage();
      await Promise.all(
        KINDS.map(async (kind) => serialized.set(kind, await serialize(project.dir, kind))),
      );
    },
    budget({ installs: 1, node: KINDS.length }),
  );
  afterAll(async () => {
    await project?.remove();
  });

  it.each(KINDS)("serializes the %s provider as a require of its shim, under 1 KB", (kind) => {
    expect(of(kind).text).toContain(`require("pulumi-tenant/shims/${kind}")`);
    expect(Buffer.byteLength(of(kind).text)).toBeLessThan(1024);
  });

  it.each(KINDS)("keeps every credential out of the serialized %s provider", (kind) => {
    expect(of(kind).text).not.toContain(SECRET);
  });

  it.each(KINDS)(
    "has a serialized %s provider that works when loaded as the provider host loads it",
    (kind) => {
      expect(of(kind).methods).toEqual([
        "check",
        "configure",
        "create",
        "delete",
        "diff",
        "read",
        "update",
      ]);
      expect(of(kind).failures).toContainEqual(
        expect.objectContaining({ reason: "bogus: is not a known property" }),
      );
    },
  );

  // Pulumi's serializer finds the package root by the first occurrence of the package name in the
  // module's path; in a project whose own path contains "pulumi-tenant" it falls back to the
  // file's path inside the package, which must therefore be exported too.
  it.each(KINDS)(
    "exports the file path Pulumi falls back to for the %s shim",
    async (kind) => {
      const { stdout } = await run(
        process.execPath,
        ["-p", `require.resolve("pulumi-tenant/dist/provider/shims/${kind}.js")`],
        { cwd: project.dir, timeout: STEP_BOUNDS_MS.node },
      );
      expect(stdout.trim()).toBe(
        `${project.dir}/node_modules/pulumi-tenant/dist/provider/shims/${kind}.js`,
      );
    },
    budget({ node: 1 }),
  );
});

describe("the serialized provider in a linked checkout", () => {
  it.each(KINDS)(
    "for %s is serialized by value, holds no credential, and still delegates to the package",
    async (kind) => {
      const { text, failures } = await serialize(REPO_ROOT, kind);
      expect(text).toContain('require("pulumi-tenant/runtime")');
      expect(text).not.toContain(SECRET);
      expect(Buffer.byteLength(text)).toBeLessThan(4096);
      expect(failures).toContainEqual(
        expect.objectContaining({ reason: "bogus: is not a known property" }),
      );
    },
    budget({ node: 1 }),
  );
});
