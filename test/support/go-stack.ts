/**
 * examples/go run as a user runs it: its driver (built by test/support/go-example.ts) runs the
 * program through the Automation API as an inline program, so the real pulumi CLI talks to the
 * program's own process and no Go language host is involved (docs/plugin.md, "What is proven
 * here"); here against a local tenant, with a file backend, a `PULUMI_HOME` of its own and the
 * plugin installed from a tarball ({@link startGoStack}).
 */
import { mkdir, mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { startTenantApi, type TenantApi } from "../../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../../provider/local-tenant/seed.js";
import { STEP_BOUNDS_MS } from "./budgets.js";
import { DEFAULT_NODE_LINE, findNodeRuntime } from "./node-runtimes.js";
import type { PluginTarball } from "./plugin.js";
import type { SelfContainedPlugin } from "./plugin-executable.js";
import { isolatedCliEnv, PASSPHRASE } from "./pulumi.js";
import { ensurePulumiCli, type PulumiCli } from "./pulumi-cli.js";
import { runStep, runStepOrThrow, type StepResult } from "./steps.js";

/** The example's project name (examples/go/main.go): the state's folder in the backend. */
const PROJECT = "tenant-go";
/** The stack every run names. */
const STACK = "dev";

/** A command of the example's driver (examples/go/main.go). */
export type GoCommand = "preview" | "up" | "gate" | "destroy";

/** The line of JSON the driver prints on stdout at the end of a run. */
export interface GoResult {
  readonly operation: GoCommand;
  /** The engine's summary: `create`, `same`, `update`, `delete` and their counts. */
  readonly changes?: Record<string, number>;
  /** The stack's outputs after `up`, a secret one as `[secret]`. */
  readonly outputs?: Record<string, unknown>;
  /** `gate`: whether the tenant differs from the stack. */
  readonly drift?: boolean;
}

/** One run of the driver. */
export interface GoRun extends StepResult {
  /** Its line of JSON; undefined when it printed none (it failed). */
  readonly result: GoResult | undefined;
}

/**
 * A plugin tarball and the version it installs as: the packed package's (`PluginTarball`, a
 * launcher script and the bundle) or a self-contained executable's (`SelfContainedPlugin`).
 */
export type GoPluginTarball =
  | Pick<PluginTarball, "path" | "version">
  | Pick<SelfContainedPlugin, "tarball" | "version">;

/** How {@link startGoStack} runs the example. */
export interface GoStackOptions {
  /** The driver that `buildGoExample` (go-example.ts) built. */
  readonly binary: string;
  /**
   * The plugin tarball installed into the stack's `PULUMI_HOME`, which the engine runs for every
   * `tenant` resource. When it holds a launcher script (the packed package's), the runs get
   * Node.js 22 first on PATH; when it holds an executable, their PATH is the CLI's folder alone:
   * no `node` at all.
   */
  readonly plugin: GoPluginTarball;
  /** Config of the program over the default seed's: `PORTAL_CLIENT_ID`, `STALE_EVENT_STREAM_ID`. */
  readonly programEnv?: Readonly<Record<string, string>>;
}

/** A local tenant and the example's stack against it, in a temporary folder of its own. */
export interface GoStack {
  readonly api: TenantApi;
  readonly cli: PulumiCli;
  /** Whether the installed plugin is a launcher that needs `node` (else an executable). */
  readonly pluginNeedsNode: boolean;
  /** Runs `tenant-go <command>` (with `args` before it), as a step bounded by `goProgram`. */
  run(command: GoCommand, args?: readonly string[]): Promise<GoRun>;
  /** The state file's text in the file backend ("" before the first update). */
  stateText(): Promise<string>;
  /** `pulumi stack export` of the stack (secrets encrypted). */
  exportText(): Promise<string>;
  /** Stops the tenant and removes the folder. */
  stop(): Promise<void>;
}

/**
 * Starts a local tenant (port 0) and prepares a stack of the example against it: a temporary
 * folder with the file backend, `PULUMI_HOME` (the plugin installed there with `pulumi plugin
 * install resource tenant <version> --file <tarball>`) and `TMPDIR` of the runs. The tenant's
 * credentials reach the driver as the `TENANT_*` variables, which it moves into the stack config
 * (the secret encrypted), and the program's config as `PORTAL_CLIENT_ID` and `STALE_EVENT_STREAM_ID`.
 */
export async function startGoStack(options: GoStackOptions): Promise<GoStack> {
  const cli = await ensurePulumiCli();
  const api = await startTenantApi();
  const root = await mkdtemp(join(tmpdir(), "tenant-go-"));
  try {
    for (const dir of ["state", "home", "tmp", "work"]) await mkdir(join(root, dir));
    const home = join(root, "home");
    const isolated = isolatedCliEnv(home, findNodeRuntime(DEFAULT_NODE_LINE));
    const cliEnv = { ...isolated, PULUMI_BACKEND_URL: `file://${join(root, "state")}` };
    const install = ["plugin", "install", "resource", "tenant", options.plugin.version];
    const tarball = "path" in options.plugin ? options.plugin.path : options.plugin.tarball;
    await runStepOrThrow(cli.path, [...install, "--file", tarball, "--non-interactive"], {
      cwd: join(root, "work"),
      env: cliEnv,
      boundMs: STEP_BOUNDS_MS.pulumiCommand,
      label: "pulumi plugin install",
    });
    const pluginNeedsNode = await isScript(
      join(home, "plugins", `resource-tenant-v${options.plugin.version}`, "pulumi-resource-tenant"),
    );
    const env: NodeJS.ProcessEnv = {
      ...cliEnv,
      // The driver's Automation API finds `pulumi` on PATH; the driver and the CLI need nothing
      // else there, and an executable plugin not even `node`.
      PATH: pluginNeedsNode
        ? [dirname(cli.path), isolated.PATH ?? ""].join(delimiter)
        : dirname(cli.path),
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      TMPDIR: join(root, "tmp"),
      TENANT_DOMAIN: api.domain,
      TENANT_CLIENT_ID: api.clientId,
      TENANT_CLIENT_SECRET: api.clientSecret,
      PORTAL_CLIENT_ID: DEFAULT_SEED_IDS.regularWeb,
      STALE_EVENT_STREAM_ID: DEFAULT_SEED_IDS.webhookStream,
      ...options.programEnv,
    };
    return {
      api,
      cli,
      pluginNeedsNode,
      run: async (command, args = []) => {
        const step = await runStep(options.binary, ["-stack", STACK, ...args, command], {
          cwd: join(root, "work"),
          env,
          boundMs: STEP_BOUNDS_MS.goProgram,
          label: `tenant-go ${[...args, command].join(" ")}`,
        });
        const last = step.stdout.trim().split("\n").at(-1) ?? "";
        const result = last.startsWith("{") ? (JSON.parse(last) as GoResult) : undefined;
        return { ...step, result };
      },
      stateText: () =>
        readFile(join(root, "state", ".pulumi", "stacks", PROJECT, `${STACK}.json`), "utf8").catch(
          () => "",
        ),
      exportText: async () => {
        const ref = `organization/${PROJECT}/${STACK}`;
        const { stdout } = await runStepOrThrow(
          cli.path,
          ["stack", "export", "--stack", ref, "--non-interactive"],
          {
            cwd: join(root, "work"),
            env,
            boundMs: STEP_BOUNDS_MS.pulumiCommand,
            label: "pulumi stack export",
          },
        );
        return stdout;
      },
      stop: async () => {
        await api.stop();
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await api.stop();
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/** Whether the file at `path` is a script (`#!`), not an executable of its own. */
async function isScript(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const { buffer } = await file.read(Buffer.alloc(2), 0, 2, 0);
    return buffer.toString("latin1") === "#!";
  } finally {
    await file.close();
  }
}
