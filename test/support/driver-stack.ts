/**
 * The examples' drivers run as a user runs them: examples/go's executable (built by
 * test/support/go-example.ts) and examples/python's `main.py` run their program through the
 * Automation API as an inline program, so the real pulumi CLI talks to the program's own process
 * and no language host is involved (docs/design/plugin.md, "What is proven here"); here against a local
 * tenant, with a file backend and a `PULUMI_HOME` of its own, and the plugin either installed from
 * a tarball or fetched by Pulumi itself through the SDK's `pluginDownloadURL` ({@link startDriverStack}).
 */
import { mkdir, mkdtemp, open, readdir, readFile, rm } from "node:fs/promises";
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

/** The stack every run names. */
const STACK = "dev";

/** A command of the examples' drivers (examples/go/main.go, examples/python/main.py). */
export type DriverCommand = "preview" | "up" | "gate" | "destroy";

/** The line of JSON a driver prints on stdout at the end of a run. */
export interface DriverResult {
  readonly operation: DriverCommand;
  /** The engine's summary: `create`, `update`, `delete` and their counts (not `same`). */
  readonly changes?: Record<string, number>;
  /** The stack's outputs after `up`, a secret one as `[secret]`. */
  readonly outputs?: Record<string, unknown>;
  /** `gate`: whether the tenant differs from the stack. */
  readonly drift?: boolean;
}

/** One run of a driver. */
export interface DriverRun extends StepResult {
  /** Its line of JSON; undefined when it printed none (it failed). */
  readonly result: DriverResult | undefined;
}

/**
 * A plugin tarball and the version it installs as: the packed package's (`PluginTarball`, a
 * launcher script and the bundle) or a self-contained executable's (`SelfContainedPlugin`).
 */
export type DriverPluginTarball =
  | Pick<PluginTarball, "path" | "version">
  | Pick<SelfContainedPlugin, "tarball" | "version">;

/** An example's driver: how to start it, and how it spells its options. */
export interface Driver {
  /** The program's project name (examples/go: `tenant-go`): the state's folder in the backend. */
  readonly project: string;
  /** The executable and the arguments before the driver's own (`python main.py`). */
  readonly command: readonly [string, ...string[]];
  /** Its options' prefix: Go's flag package takes `-stack`, Python's argparse `--stack`. */
  readonly optionPrefix: "-" | "--";
  /** The folder it runs in (the program's files, for a driver that reads them). */
  readonly cwd?: string;
}

/** How {@link startDriverStack} runs an example. */
export interface DriverStackOptions {
  readonly driver: Driver;
  /**
   * The plugin tarball installed into the stack's `PULUMI_HOME` before the first run, which the
   * engine runs for every `tenant` resource; when it holds a launcher script (the packed
   * package's), the runs get Node.js 22 first on PATH. Without one, Pulumi fetches the plugin
   * itself at the first run from the `pluginDownloadURL` the program's SDK names (automatic plugin
   * acquisition on), as a user's machine does.
   */
  readonly plugin?: DriverPluginTarball;
  /** Config of the program over the default seed's (`PORTAL_CLIENT_ID`, ...) and more variables. */
  readonly programEnv?: Readonly<Record<string, string>>;
}

/** A local tenant and an example's stack against it, in a temporary folder of its own. */
export interface DriverStack {
  readonly api: TenantApi;
  readonly cli: PulumiCli;
  /** Runs the driver's `command`, as a step bounded by `goProgram`; `refresh` for `up`. */
  run(command: DriverCommand, options?: { refresh?: boolean }): Promise<DriverRun>;
  /** Whether the installed plugin is a launcher that needs `node` (else an executable). */
  pluginNeedsNode(): Promise<boolean>;
  /** The plugins in the stack's `PULUMI_HOME` (`resource-tenant-v0.1.0`). */
  installedPlugins(): Promise<string[]>;
  /** The state file's text in the file backend ("" before the first update). */
  stateText(): Promise<string>;
  /** `pulumi stack export` of the stack (secrets encrypted). */
  exportText(): Promise<string>;
  /** Stops the tenant and removes the folder. */
  stop(): Promise<void>;
}

/**
 * Starts a local tenant (port 0) and prepares a stack of an example against it: a temporary
 * folder with the file backend, `PULUMI_HOME` (the plugin installed there with `pulumi plugin
 * install resource tenant <version> --file <tarball>`, when given) and `TMPDIR` of the runs. The
 * tenant's credentials reach the driver as the `TENANT_*` variables, which it moves into the stack
 * config (the secret encrypted), and the program's config as `PORTAL_CLIENT_ID`,
 * `PARTNER_CLIENT_ID` and `STALE_EVENT_STREAM_ID`. The runs' PATH is the CLI's folder alone (no
 * `node`), but for a launcher plugin.
 */
export async function startDriverStack(options: DriverStackOptions): Promise<DriverStack> {
  const { driver } = options;
  const cli = await ensurePulumiCli();
  const api = await startTenantApi();
  const root = await mkdtemp(join(tmpdir(), `${driver.project}-`));
  try {
    for (const dir of ["state", "home", "tmp", "work"]) await mkdir(join(root, dir));
    const home = join(root, "home");
    const isolated = isolatedCliEnv(home, findNodeRuntime(DEFAULT_NODE_LINE));
    const cliEnv: NodeJS.ProcessEnv = {
      ...isolated,
      PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
    };
    const pluginPath = (version: string) =>
      join(home, "plugins", `resource-tenant-v${version}`, "pulumi-resource-tenant");
    let needsNode = false;
    if (options.plugin !== undefined) {
      const install = ["plugin", "install", "resource", "tenant", options.plugin.version];
      const tarball = "path" in options.plugin ? options.plugin.path : options.plugin.tarball;
      await runStepOrThrow(cli.path, [...install, "--file", tarball, "--non-interactive"], {
        cwd: join(root, "work"),
        env: cliEnv,
        boundMs: STEP_BOUNDS_MS.pulumiCommand,
        label: "pulumi plugin install",
      });
      needsNode = await isScript(pluginPath(options.plugin.version));
    } else {
      delete cliEnv.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
    }
    const env: NodeJS.ProcessEnv = {
      ...cliEnv,
      // The driver's Automation API finds `pulumi` on PATH; the driver and the CLI need nothing
      // else there, and an executable plugin not even `node`.
      PATH: needsNode
        ? [dirname(cli.path), isolated.PATH ?? ""].join(delimiter)
        : dirname(cli.path),
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      TMPDIR: join(root, "tmp"),
      TENANT_DOMAIN: api.domain,
      TENANT_CLIENT_ID: api.clientId,
      TENANT_CLIENT_SECRET: api.clientSecret,
      PORTAL_CLIENT_ID: DEFAULT_SEED_IDS.regularWeb,
      PARTNER_CLIENT_ID: DEFAULT_SEED_IDS.strictThirdParty,
      STALE_EVENT_STREAM_ID: DEFAULT_SEED_IDS.webhookStream,
      ...options.programEnv,
    };
    // The plugins' folders, without the engine's own marks beside them (.lock, .partial, .lastused).
    const installedPlugins = async () =>
      (await readdir(join(home, "plugins")).catch(() => [] as string[])).filter(
        (name) => !/\.(lock|partial|lastused)$/.test(name),
      );
    const [executable, ...leading] = driver.command;
    const option = (name: string) => `${driver.optionPrefix}${name}`;
    return {
      api,
      cli,
      run: async (command, { refresh = false } = {}) => {
        const args = [option("stack"), STACK, ...(refresh ? [option("refresh")] : []), command];
        const step = await runStep(executable, [...leading, ...args], {
          cwd: driver.cwd ?? join(root, "work"),
          env,
          boundMs: STEP_BOUNDS_MS.goProgram,
          label: `${driver.project} ${args.slice(2).join(" ")}`,
        });
        const last = step.stdout.trim().split("\n").at(-1) ?? "";
        const result = last.startsWith("{") ? (JSON.parse(last) as DriverResult) : undefined;
        return { ...step, result };
      },
      pluginNeedsNode: async () => {
        const [installed] = await installedPlugins();
        const version = installed?.replace(/^resource-tenant-v/, "");
        return version !== undefined && isScript(pluginPath(version));
      },
      installedPlugins,
      stateText: () =>
        readFile(
          join(root, "state", ".pulumi", "stacks", driver.project, `${STACK}.json`),
          "utf8",
        ).catch(() => ""),
      exportText: async () => {
        const ref = `organization/${driver.project}/${STACK}`;
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
