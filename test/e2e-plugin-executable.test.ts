/**
 * The plugin as a self-contained executable (docs/design/plugin.md, "The self-contained executables"),
 * under the real pulumi CLI and Pulumi's YAML language host, on a machine with no Node.js at all
 * on PATH: the linux-amd64 executable installed with `pulumi plugin install --server` from a
 * loopback release server, and fetched by Pulumi itself through the schema's `pluginDownloadURL`;
 * then what can be checked here of the four executables that cannot run here.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startTenantApi } from "../provider/local-tenant/index.js";
import { packageSchema } from "../provider/plugin/package-schema.js";
import { nodeBase } from "../provider/plugin/release/node-bases.js";
import { PLUGIN_TARGETS, type PluginPlatform } from "../provider/plugin/release/targets.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { example, type Stack, startStack, undoAfterEach } from "./support/e2e.js";
import { executableFacts, machoSignature, peHasSignature } from "./support/executable-headers.js";
import {
  type SelfContainedPlugin,
  selfContainedPlugin,
  servePluginTarballs,
} from "./support/plugin-executable.js";
import { expectYamlLifecycle, yamlConfig } from "./support/yaml-lifecycle.js";

const undo = undoAfterEach();
/** One build of an executable: `node --build-sea`, signing, packing (about 20 s here). */
const BUILD_BUDGET = budget({ node: 2 });

let linux: SelfContainedPlugin;
beforeAll(async () => {
  linux = await selfContainedPlugin("linux-amd64");
}, BUILD_BUDGET);

/** A PATH with nothing on it: no `node`, no shell tools. */
async function emptyPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-empty-path-"));
  undo(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The YAML example's stack and its staging tenant, made at a first preview (no plugin yet). */
async function yamlStack(env: Record<string, string | undefined>) {
  const staging = await startTenantApi();
  undo(() => staging.stop());
  const stack: Stack = await startStack(example("yaml"), yamlConfig(staging));
  undo(() => stack.stop());
  const first = await stack.run("preview", { env });
  expect(first.ok, "no plugin is installed yet").toBe(false);
  return { stack, staging };
}

describe("the linux-amd64 executable under pulumi 3.259.0, with no node on PATH", () => {
  it(
    "installed by pulumi plugin install --server from a loopback server, passes the YAML lifecycle",
    async () => {
      const server = await servePluginTarballs([linux.tarball]);
      undo(() => server.stop());
      const env = { PATH: await emptyPath() };
      const { stack, staging } = await yamlStack(env);
      await stack.project.cliCommand(
        ["plugin", "install", "resource", "tenant", linux.version, "--server", server.url],
        env,
      );
      expect(server.requests).toEqual([
        `GET /pulumi-resource-tenant-v${linux.version}-linux-amd64.tar.gz 200`,
      ]);
      await expectYamlLifecycle(stack, staging, { gateExit: 7, env });
    },
    budget({ pulumi: 9, pulumiCommands: 3 }),
  );

  it(
    "is fetched by Pulumi itself from the schema's pluginDownloadURL when the program needs it",
    async () => {
      const server = await servePluginTarballs([linux.tarball]);
      undo(() => server.stop());
      const path = await emptyPath();
      const { stack } = await yamlStack({ PATH: path });
      // The YAML program's package declaration, as Pulumi's YAML host writes it from a schema
      // built with PULUMI_TENANT_PLUGIN_DOWNLOAD_URL naming the server.
      const schema = join(stack.project.root, "schema.json");
      await writeFile(schema, JSON.stringify(packageSchema(linux.version, server.url)));
      await stack.project.cliCommand(
        [
          "package",
          "gen-sdk",
          schema,
          "--language",
          "yaml",
          "--out",
          join(stack.project.dir, "sdks"),
        ],
        { PATH: path },
      );
      const declarations = (await readdir(join(stack.project.dir, "sdks"), { recursive: true }))
        .filter((file) => file.endsWith(".yaml"))
        .map((file) => join(stack.project.dir, "sdks", file));
      expect(declarations).toHaveLength(1);
      expect(parse(await readFile(declarations[0] ?? "", "utf8"))).toEqual({
        packageDeclarationVersion: 1,
        name: "tenant",
        version: linux.version,
        downloadUrl: server.url,
      });
      const acquiring = { PATH: path, PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: undefined };
      const up = await stack.run("up", { env: acquiring });
      expect(up.error, up.output).toBeUndefined();
      expect(up.counts).toEqual({ create: 6 });
      expect(server.requests).toEqual([
        `GET /pulumi-resource-tenant-v${linux.version}-linux-amd64.tar.gz 200`,
      ]);
      const installed = join(stack.project.root, "home", "plugins");
      expect(await readdir(installed)).toContain(`resource-tenant-v${linux.version}`);
    },
    budget({ pulumi: 2, pulumiCommands: 1 }),
  );
});

describe("the linux-amd64 executable on its own", () => {
  it(
    "prints its port alone, with a NODE_OPTIONS that would break a Node.js program",
    async () => {
      const plugin = spawn(linux.executable, [], {
        env: { PATH: await emptyPath(), NODE_OPTIONS: "--require /nonexistent/hook.js" },
        stdio: ["ignore", "pipe", "pipe"],
        timeout: STEP_BOUNDS_MS.node,
      });
      let stdout = "";
      let stderr = "";
      plugin.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const firstLine = await new Promise<string>((resolve, reject) => {
        plugin.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes("\n")) resolve(stdout);
        });
        plugin.on("exit", (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
      const exited = new Promise((resolve) => plugin.on("exit", resolve));
      plugin.kill("SIGTERM");
      await exited;
      expect(firstLine).toMatch(/^\d+\n$/);
      expect(stderr).toBe("");
    },
    budget({ node: 1 }),
  );
});

const CPU: Record<PluginPlatform, string> = {
  "linux-amd64": "x86_64",
  "linux-arm64": "arm64",
  "darwin-amd64": "x86_64",
  "darwin-arm64": "arm64",
  "windows-amd64": "x86_64",
};

// The four that cannot run here are checked from their bytes; linux-amd64 too, as their control.
describe.each(PLUGIN_TARGETS)("the $platform executable, checked from its bytes", (target) => {
  let plugin: SelfContainedPlugin;
  let data: Buffer;
  beforeAll(async () => {
    plugin = await selfContainedPlugin(target.platform);
    data = await readFile(plugin.executable);
  }, BUILD_BUDGET);

  it("comes in its release tarball with its schema, named as Pulumi downloads it", async () => {
    expect(
      plugin.tarball.endsWith(
        `pulumi-resource-tenant-v${plugin.version}-${target.platform}.tar.gz`,
      ),
    ).toBe(true);
    expect((await readdir(plugin.dir)).sort()).toEqual(
      [target.executable, "NODE-LICENSE", "main.js.LEGAL.txt", "schema.json"].sort(),
    );
  });

  it("is an executable of its platform's format and CPU, holding the application", () => {
    expect(executableFacts(data)).toEqual({
      format: target.format,
      cpu: CPU[target.platform],
      fuseFlipped: true,
      blobPresent: true,
    });
  });

  if (target.format === "pe") {
    it("carries no Authenticode signature, rather than Node.js's broken one", () => {
      expect(peHasSignature(data)).toBe(false);
    });
  }
  if (target.format === "macho") {
    it("carries an ad-hoc signature whose every page hash is right", () => {
      const signature = machoSignature(data);
      expect(signature).toMatchObject({
        adHoc: true,
        identifier: "pulumi-resource-tenant",
        badPages: 0,
        coversFile: true,
      });
    });

    it("reads Apple's own signature of Node.js's binary as whole, as the control of that check", async () => {
      const signature = machoSignature(await readFile(nodeBase(target).binary));
      expect(signature).toMatchObject({ adHoc: false, badPages: 0, coversFile: true });
    });
  }
});
