/**
 * `pulumi import` through the provider plugin, under the real CLI: the ids the adoption guide names
 * (docs/guides/adopting-a-tenant.md, "Import"), an import file written by `pulumi-tenant generate
 * --import-file`, adoption with no write, and the code Pulumi generates previewing with no change,
 * in YAML (Pulumi's YAML language host) and in TypeScript (Pulumi's Node.js code generator, through
 * our Node.js language host: docs/design/pulumi-cli.md), with the Node.js SDK generated from the plugin's schema.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { type Stack, startStack, undoAfterEach, usePackedPlugin, writesTo } from "./support/e2e.js";
import {
  type InstalledProject,
  installPackedPackage,
  REPO_ROOT,
} from "./support/installed-package.js";
import { installPlugin } from "./support/plugin.js";
import { buildNodejsSdk, generateSdks } from "./support/sdk-gen.js";
import { runStepOrThrow } from "./support/steps.js";

const undo = undoAfterEach();
const plugin = usePackedPlugin();

/**
 * A stack of the project in `program`, which declares nothing yet, against a local tenant: its
 * first preview passed, then the plugin installed.
 */
async function emptyStack(program: string): Promise<Stack> {
  const stack = await startStack(program, {});
  undo(() => stack.stop());
  const first = await stack.run("preview");
  expect(first.error, first.output).toBeUndefined();
  await installPlugin(stack.project, plugin());
  return stack;
}

/** A YAML project that declares nothing yet: see {@link emptyStack}. */
async function emptyYamlStack(): Promise<Stack> {
  const program = await mkdtemp(join(tmpdir(), "tenant-import-program-"));
  undo(() => rm(program, { recursive: true, force: true }));
  await writeFile(join(program, "Pulumi.yaml"), "name: tenant-import\nruntime: yaml\n");
  return emptyStack(program);
}

/** `pulumi import ARGS --yes --out FILE` in the stack's project; the code Pulumi wrote. */
async function pulumiImport(
  stack: Stack,
  args: string[],
  out = join(stack.project.dir, "imported.yaml"),
): Promise<string> {
  await stack.project.cliCommand(["import", ...args, "--yes", "--out", out]);
  return readFile(out, "utf8");
}

/** The three imports of the adoption guide: type, name and id of each, for a tenant on `host`. */
function guideImports(host: string): Array<[type: string, name: string, id: string]> {
  return [
    ["tenant:index:PushProviderSelection", "mfa-push", host],
    ["tenant:index:ClientSettings", "portal", DEFAULT_SEED_IDS.regularWeb],
    ["tenant:index:EventStreamDeletion", "retired-webhook", DEFAULT_SEED_IDS.webhookStream],
  ];
}

describe("pulumi import with the plugin", () => {
  it(
    "adopts each resource by the id the adoption guide names, with no write, and the generated YAML previews with no change",
    async () => {
      const stack = await emptyYamlStack();
      const host = new URL(stack.api.domain).host;
      // The stream must be gone to be adopted as deleted.
      stack.api.store.deleteEventStream(DEFAULT_SEED_IDS.webhookStream);
      stack.api.resetStats();
      const code: string[] = [];
      for (const args of guideImports(host)) code.push(await pulumiImport(stack, args));
      expect(writesTo(stack.api)).toBe(0);
      const declarations = code.map((part) => part.replace(/^resources:\n/, "")).join("");
      await stack.project.editProgram((text) => `${text}resources:\n${declarations}`);
      const preview = await stack.run("preview", { expectNoChanges: true });
      expect(preview.error, preview.output).toBeUndefined();
      expect(preview.counts).toEqual({ same: 3 });
      expect(writesTo(stack.api)).toBe(0);
    },
    budget({ pulumi: 2, pulumiCommands: 8 }),
  );

  it(
    "adopts a whole tenant from the import file generate writes",
    async () => {
      const stack = await emptyYamlStack();
      const out = await mkdtemp(join(tmpdir(), "tenant-generated-"));
      undo(() => rm(out, { recursive: true, force: true }));
      await runStepOrThrow(
        process.execPath,
        [plugin().cli, "generate", "--out", out, "--import-file"],
        {
          cwd: out,
          boundMs: STEP_BOUNDS_MS.node,
          label: "pulumi-tenant generate --import-file",
          env: {
            ...process.env,
            TENANT_DOMAIN: stack.api.domain,
            TENANT_CLIENT_ID: stack.api.readOnly.clientId,
            TENANT_CLIENT_SECRET: stack.api.readOnly.clientSecret,
          },
        },
      );
      const file = JSON.parse(await readFile(join(out, "import.json"), "utf8"));
      const host = new URL(stack.api.domain).host;
      // Every client but the one whose credentials read the tenant (generate leaves it out).
      const { regularWeb, spa, strictThirdParty, admin } = DEFAULT_SEED_IDS;
      expect(
        file.resources.map((r: { type: string; id: string }) => `${r.type} ${r.id}`).sort(),
      ).toEqual(
        [
          `tenant:index:PushProviderSelection ${host}`,
          ...[regularWeb, spa, strictThirdParty, admin].map(
            (id) => `tenant:index:ClientSettings ${id}`,
          ),
        ].sort(),
      );
      stack.api.resetStats();
      const code = await pulumiImport(stack, ["--file", join(out, "import.json")]);
      expect(writesTo(stack.api)).toBe(0);
      await stack.project.editProgram((text) => text + code);
      const preview = await stack.run("preview", { expectNoChanges: true });
      expect(preview.error, preview.output).toBeUndefined();
      expect(preview.counts).toEqual({ same: 5 });
    },
    budget({ pulumi: 2, pulumiCommands: 4, node: 1 }),
  );

  it(
    "refuses to import a client the tenant does not have, naming it",
    async () => {
      const stack = await emptyYamlStack();
      await expect(
        pulumiImport(stack, ["tenant:index:ClientSettings", "ghost", "no-such-client"]),
      ).rejects.toThrow(
        'ClientSettings "ghost": cannot import client no-such-client: the tenant has no client with that id',
      );
    },
    budget({ pulumi: 1, pulumiCommands: 3 }),
  );
});

/**
 * The Node.js SDK of the plugin's schema (`npm run build` writes it to dist/provider/plugin/), as
 * a provider's release publishes it (generated by Pulumi's generator, compiled, its version the
 * plugin's: {@link buildNodejsSdk}), installed into `projectDir`'s node_modules as
 * `@pulumi-tenant/tenant`, where it finds the project's `@pulumi/pulumi`, as a user's installed
 * SDK does.
 */
async function installNodejsSdk(projectDir: string, version: string): Promise<void> {
  const out = await mkdtemp(join(tmpdir(), "tenant-sdks-"));
  try {
    const sdks = await generateSdks(
      join(REPO_ROOT, "dist", "provider", "plugin", "schema.json"),
      out,
    );
    const built = await buildNodejsSdk(sdks, version);
    const installed = join(projectDir, "node_modules", "@pulumi-tenant", "tenant");
    await mkdir(installed, { recursive: true });
    await cp(built, installed, { recursive: true });
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

describe("pulumi import with the plugin, in a TypeScript program", () => {
  /** A user's project: `@pulumi/pulumi`, TypeScript and ts-node, and the plugin's Node.js SDK. */
  let project: InstalledProject;
  beforeAll(
    async () => {
      project = await installPackedPackage(["typescript", "ts-node"]);
      await installNodejsSdk(project.dir, plugin().version);
    },
    budget({ installs: 1, node: 1, tsc: 1 }),
  );
  afterAll(async () => {
    await project?.remove();
  });

  it(
    "adopts each resource by the id the adoption guide names, with no write, and the generated TypeScript type-checks and previews with no change",
    async () => {
      const { dir } = project;
      await writeFile(
        join(dir, "Pulumi.yaml"),
        "name: tenant-import-ts\nruntime: nodejs\nmain: index.ts\n",
      );
      await writeFile(join(dir, "index.ts"), "// Nothing declared yet.\n");
      const stack = await emptyStack(dir);
      const host = new URL(stack.api.domain).host;
      // The stream must be gone to be adopted as deleted.
      stack.api.store.deleteEventStream(DEFAULT_SEED_IDS.webhookStream);
      stack.api.resetStats();
      // Each import's code in a module of its own, as Pulumi wrote it; index.ts loads them.
      const modules: string[] = [];
      for (const [type, name, id] of guideImports(host)) {
        const code = await pulumiImport(stack, [type, name, id], join(dir, `${name}.ts`));
        expect(code).toContain('import * as tenant from "@pulumi-tenant/tenant";');
        // tenant:index:ClientSettings is the SDK's class tenant.ClientSettings.
        expect(code).toContain(`new tenant.${type.replace("tenant:index:", "")}("${name}"`);
        modules.push(name);
      }
      expect(writesTo(stack.api)).toBe(0);
      await writeFile(join(dir, "index.ts"), modules.map((m) => `import "./${m}";\n`).join(""));
      // The previews run it transpiled only (PULUMI_NODEJS_TRANSPILE_ONLY): the types are checked here.
      await runStepOrThrow(
        join(dir, "node_modules", ".bin", "tsc"),
        ["--noEmit", "--strict", "--module", "commonjs", "--target", "es2020", "index.ts"],
        { cwd: dir, boundMs: STEP_BOUNDS_MS.tsc, label: "tsc of the imported program" },
      );
      const preview = await stack.run("preview", { expectNoChanges: true });
      expect(preview.error, preview.output).toBeUndefined();
      expect(preview.counts).toEqual({ same: 3 });
      expect(writesTo(stack.api)).toBe(0);
    },
    budget({ pulumi: 2, pulumiCommands: 4, tsc: 1 }),
  );
});
