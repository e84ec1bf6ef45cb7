/**
 * A user's project as each package manager makes it: the packed package and the project's other
 * dependencies installed by npm, pnpm (its default isolated layout), Yarn classic or Yarn (the
 * current major, with the linker asked for), from the loopback registry of
 * test/support/local-registry.ts, under the Node.js line asked for. No request leaves the machine:
 * every tarball comes from the npm cache that `npm ci` filled.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { STEP_BOUNDS_MS } from "./budgets.js";
import { lockPackages, pack, REPO_ROOT } from "./installed-package.js";
import { type ExtraTarball, type LocalRegistry, startLocalRegistry } from "./local-registry.js";
import { type NodeRuntime, withNode } from "./node-runtimes.js";
import { runStep, runStepOrThrow } from "./steps.js";

/** The package managers a user project is installed with. */
export type PackageManager = "npm" | "pnpm" | "yarn-classic" | "yarn";

/** What a user project holds and how it is installed. */
export interface UserProjectSpec {
  readonly manager: PackageManager;
  /** The Node.js the package manager runs under (and the project's programs, later). */
  readonly node: NodeRuntime;
  /** Dependencies besides `pulumi-tenant` (which is always the packed package): name to range. */
  readonly dependencies: Readonly<Record<string, string>>;
  /** Files of the Pulumi project, path (relative to the project) to text: Pulumi.yaml, index.ts. */
  readonly files: Readonly<Record<string, string>>;
  /** `"module"` makes the project's package.json `"type": "module"` (Node.js's type stripping). */
  readonly type?: "module";
  /** Yarn's `nodeLinker`; `node-modules` unless given. */
  readonly yarnLinker?: "node-modules" | "pnp";
  /**
   * An npm workspaces monorepo: the Pulumi project is `infra/` of a repository whose dependencies
   * npm hoists to its root, next to an application workspace `apps/web`.
   */
  readonly monorepo?: boolean;
}

/** An installed user project. */
export interface UserProject {
  /** The repository's root: the project itself, or the monorepo's root. */
  readonly root: string;
  /** The Pulumi project's folder: `root`, or `root/infra` in a monorepo. */
  readonly dir: string;
  /** What the package manager printed. */
  readonly installLog: string;
  remove(): Promise<void>;
}

/** The script of each package manager (besides npm) that the tests run under a given `node`. */
export const MANAGER_SCRIPT: Record<Exclude<PackageManager, "npm">, string> = {
  pnpm: join(REPO_ROOT, "node_modules", "pnpm", "bin", "pnpm.cjs"),
  "yarn-classic": join(REPO_ROOT, "node_modules", "yarn", "bin", "yarn.js"),
  yarn: join(REPO_ROOT, "node_modules", "@yarnpkg", "cli-dist", "bin", "yarn.js"),
};

/**
 * Packs the repository, starts the loopback registry with the lock's packages and the packed
 * one, and installs `spec` in a new folder outside the repository, as its package manager does
 * with no lock file of its own: resolving every range against the registry, as `npm install
 * pulumi-tenant` (or `pnpm add`, `yarn add`) would. The managers run with a home folder of their
 * own, so no cache, store or config of this machine takes part.
 */
export async function installUserProject(spec: UserProjectSpec): Promise<UserProject> {
  const root = await mkdtemp(join(tmpdir(), `tenant-${spec.manager}-project-`));
  let registry: LocalRegistry | undefined;
  try {
    const packed = await packedPackage();
    const packages = await lockPackages();
    registry = await startLocalRegistry({ packages, extra: [packed] });
    const dir = spec.monorepo ? join(root, "infra") : root;
    const dependencies = {
      [packed.manifest.name]: packed.manifest.version,
      ...spec.dependencies,
    };
    const manifest = {
      name: spec.monorepo ? "infra" : "user-project",
      version: "1.0.0",
      private: true,
      main: "index.ts",
      ...(spec.type ? { type: spec.type } : {}),
      dependencies,
    };
    await writeJson(join(dir, "package.json"), manifest);
    if (spec.monorepo) {
      await writeJson(join(root, "package.json"), {
        name: "monorepo",
        private: true,
        workspaces: ["infra", "apps/*"],
      });
      await writeJson(join(root, "apps", "web", "package.json"), {
        name: "web",
        version: "1.0.0",
        private: true,
        dependencies: { axios: packages["node_modules/axios"]?.version ?? "*" },
      });
    }
    for (const [path, text] of Object.entries(spec.files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const installLog = await install(spec, root, registry.url);
    return { root, dir, installLog, remove: () => rm(root, { recursive: true, force: true }) };
  } catch (error) {
    const misses = registry?.misses() ?? [];
    await rm(root, { recursive: true, force: true });
    if (misses.length > 0) {
      throw new Error(
        `${spec.manager} asked the local registry for what the lock or the npm cache lacks: ${misses.join(", ")}`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    await registry?.stop();
  }
}

let packing: Promise<ExtraTarball> | undefined;

/**
 * The packed package, as the registry serves it: packed once per test process (the build does not
 * change while the tests run: `npm test` builds first), so every user project gets the same bytes.
 */
function packedPackage(): Promise<ExtraTarball> {
  packing ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "tenant-packed-"));
    try {
      const bytes = await readFile(await pack(dir));
      const manifest = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8"));
      const { name, version, dependencies, peerDependencies, peerDependenciesMeta, bin, engines } =
        manifest;
      return {
        manifest: {
          name,
          version,
          dependencies,
          peerDependencies,
          peerDependenciesMeta,
          bin,
          engines,
        },
        bytes,
        integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })().catch((error: unknown) => {
    packing = undefined; // the next project packs again rather than failing on this error
    throw error;
  });
  return packing;
}

/** What an install runs: the command and its arguments, and the config files it writes first. */
export interface InstallPlan {
  readonly command: string;
  readonly args: readonly string[];
  /** File name (in the project's root) to text. */
  readonly files: Readonly<Record<string, string>>;
}

/**
 * How `spec.manager` installs a new project against the registry at `registry`, with `home` as
 * its home folder: each manager's own script run by the project's `node` (npm, the machine's, on
 * the same `node` through PATH), told where the registry is and kept from what CI would make it
 * do to a new project (a frozen lock file, an immutable install).
 */
export function installPlan(
  spec: Pick<UserProjectSpec, "manager" | "node" | "yarnLinker">,
  registry: string,
  home: string,
): InstallPlan {
  switch (spec.manager) {
    case "npm":
      return { command: "npm", args: ["install"], files: {} };
    case "pnpm":
      return {
        command: spec.node.node,
        args: [MANAGER_SCRIPT.pnpm, "install", "--no-frozen-lockfile", "--reporter", "append-only"],
        files: {},
      };
    case "yarn-classic":
      return {
        command: spec.node.node,
        args: [
          MANAGER_SCRIPT["yarn-classic"],
          ...["install", "--non-interactive", "--no-progress"],
          ...["--cache-folder", join(home, ".yarn-cache")],
        ],
        files: { ".yarnrc": `registry "${registry}/"\n` },
      };
    case "yarn":
      return {
        command: spec.node.node,
        args: [MANAGER_SCRIPT.yarn, "install"],
        files: {
          ".yarnrc.yml": [
            `nodeLinker: ${spec.yarnLinker ?? "node-modules"}`,
            `npmRegistryServer: "${registry}"`,
            'unsafeHttpWhitelist: ["127.0.0.1"]',
            "enableTelemetry: false",
            "enableGlobalCache: false",
            // Yarn makes installs immutable on CI; a new project has no lock file to keep.
            "enableImmutableInstalls: false",
            "enableProgressBars: false",
            // The registry's packuments carry no publish times, which Yarn's age gate would need.
            "npmMinimalAgeGate: 0",
            "",
          ].join("\n"),
          // An empty lock file marks the project's root, whatever folders above it hold.
          "yarn.lock": "",
        },
      };
  }
}

/**
 * The environment of a package manager: `node` first on PATH, a home folder of its own (so no
 * cache, store or config of this machine takes part), the registry, and none of the `npm_*`
 * variables that the repository's own `npm test` passes down (its lifecycle, its package, its
 * config), which npm, pnpm and Yarn would all read as their own.
 */
export function managerEnv(
  node: NodeRuntime,
  registry: string,
  home: string,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(base).filter(([name]) => !/^npm_(lifecycle|package|config)_/i.test(name)),
  );
  return withNode(node, {
    ...inherited,
    HOME: home,
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    npm_config_registry: `${registry}/`,
    npm_config_cache: join(home, ".npm"),
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  });
}

/**
 * Runs the project's package manager in `root` against the registry at `registry`, as a step
 * bounded by `STEP_BOUNDS_MS.install`.
 */
async function install(spec: UserProjectSpec, root: string, registry: string): Promise<string> {
  const home = join(root, ".home");
  await mkdir(home, { recursive: true });
  const plan = installPlan(spec, registry, home);
  for (const [name, text] of Object.entries(plan.files)) await writeFile(join(root, name), text);
  const result = await runStep(plan.command, plan.args, {
    cwd: root,
    env: managerEnv(spec.node, registry, home),
    boundMs: STEP_BOUNDS_MS.install,
    label: `${spec.manager} install`,
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.killed !== undefined || result.exitCode !== 0) {
    const why = result.killed ?? `${spec.manager} install failed`;
    throw new Error(`${why} in ${root}: ${output.trim().split("\n").slice(-8).join("\n")}`);
  }
  return output;
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** The package installed globally into a prefix of its own: its `bin` folder, and the undo. */
export interface GlobalInstall {
  /** The folder npm links the package's commands into (`<prefix>/bin`), to put on PATH. */
  readonly bin: string;
  remove(): Promise<void>;
}

/**
 * `npm install -g pulumi-tenant` as a user runs it, into a prefix in the temp directory, against
 * the loopback registry of the lock's packages and the packed package, under `node`.
 */
export async function installGlobally(node: NodeRuntime): Promise<GlobalInstall> {
  const root = await mkdtemp(join(tmpdir(), "tenant-global-"));
  let registry: LocalRegistry | undefined;
  try {
    const packed = await packedPackage();
    registry = await startLocalRegistry({ packages: await lockPackages(), extra: [packed] });
    const home = join(root, ".home");
    await mkdir(home, { recursive: true });
    const prefix = join(root, "global");
    await runStepOrThrow(
      "npm",
      ["install", "-g", "--prefix", prefix, `${packed.manifest.name}@${packed.manifest.version}`],
      {
        cwd: root,
        env: managerEnv(node, registry.url, home),
        boundMs: STEP_BOUNDS_MS.install,
        label: "npm install -g pulumi-tenant",
      },
    );
    return { bin: join(prefix, "bin"), remove: () => rm(root, { recursive: true, force: true }) };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  } finally {
    await registry?.stop();
  }
}
