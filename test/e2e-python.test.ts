/**
 * examples/python, a Python program on `pulumi_tenant`, the Python SDK of the release: the wheel
 * that `npm run plugin-release` writes (provider/plugin/release/python-sdk.ts) from a fresh build's
 * schema, installed with pip into a fresh virtual environment, as a user installs it. Its driver
 * runs the program through Pulumi's Automation API as an inline program (no Python language host:
 * the real pulumi CLI talks to the Python process itself), against a local tenant; the plugin is
 * fetched by Pulumi itself from a loopback release server through the `pluginDownloadURL` the
 * wheel names, and no `node` is on PATH (docs/design/plugin.md, "Python"). Offline: every Python package
 * comes from the wheels `npm ci` downloaded.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { PULUMI_PYTHON_SDK_FLOOR, packageSchema } from "../provider/plugin/package-schema.js";
import { type PythonSdkRelease, writePythonSdk } from "../provider/plugin/release/python-sdk.js";
import { budget } from "./support/budgets.js";
import {
  BAD_INPUT_ENV,
  expectBadInputRefused,
  expectDriverLifecycle,
} from "./support/driver-lifecycle.js";
import { type DriverStack, startDriverStack } from "./support/driver-stack.js";
import { example, undoAfterEach, writesTo } from "./support/e2e.js";
import {
  type PluginServer,
  selfContainedPlugin,
  servePluginTarballs,
} from "./support/plugin-executable.js";
import { ensurePythonEnv, freshVirtualEnv, pyright } from "./support/python-env.js";

const run = promisify(execFile);

/** The example's files, copied for each stack (a test edits its copy of the program). */
const PROGRAM_FILES = ["main.py", "program.py"] as const;
/**
 * The set-up: the generator's run and the wheel's build (about 10 s), a fresh virtual environment
 * with the wheel and Pulumi's SDK (about 15 s), the plugin's executable (about 20 s when the
 * bundle changed); four times that, for a loaded machine.
 */
const SETUP_MS = 4 * 60_000;

const undo = undoAfterEach();
let work: string;
let server: PluginServer;
let release: PythonSdkRelease;
let python: string;
let version: string;

beforeAll(async () => {
  const pythonEnv = await ensurePythonEnv();
  work = await mkdtemp(join(tmpdir(), "e2e-python-"));
  const plugin = await selfContainedPlugin();
  version = plugin.version;
  server = await servePluginTarballs([plugin.tarball]);
  // The schema of a build with PULUMI_TENANT_PLUGIN_DOWNLOAD_URL naming the loopback server.
  const schema = join(work, "schema.json");
  await writeFile(schema, JSON.stringify(packageSchema(version, server.url)));
  release = await writePythonSdk(schema, join(work, "release"));
  python = await freshVirtualEnv(pythonEnv, join(work, "venv"), [release.wheel.path]);
}, SETUP_MS);
afterAll(async () => {
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A stack of the example, and a way to change its copy of the program between runs. */
interface PythonStack {
  readonly stack: DriverStack;
  editProgram(edit: (program: string) => string): Promise<void>;
}

/** A stack of the example, with a copy of its program of its own. */
async function pythonStack(programEnv: Record<string, string> = {}): Promise<PythonStack> {
  const dir = await mkdtemp(join(work, "program-"));
  for (const file of PROGRAM_FILES) await copyFile(join(example("python"), file), join(dir, file));
  const driver = {
    project: "tenant-python",
    command: [python, join(dir, "main.py")],
    optionPrefix: "--",
    cwd: dir,
  } as const;
  const stack = await startDriverStack({
    driver,
    programEnv: { PYTHONDONTWRITEBYTECODE: "1", ...programEnv },
  });
  undo(async () => {
    await stack.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const program = join(dir, "program.py");
  return {
    stack,
    editProgram: async (edit) => writeFile(program, edit(await readFile(program, "utf8"))),
  };
}

describe("the Python SDK's release", () => {
  it("is a typed wheel and a source distribution named and versioned as on the index", async () => {
    expect(release.wheel.path.split("/").pop()).toBe(`pulumi_tenant-${version}-py3-none-any.whl`);
    expect(release.sdist.path.split("/").pop()).toBe(`pulumi_tenant-${version}.tar.gz`);
    const listing = await run("python3", [
      "-c",
      "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
      release.wheel.path,
    ]);
    expect(listing.stdout.split("\n")).toEqual(
      expect.arrayContaining(["pulumi_tenant/py.typed", "pulumi_tenant/pulumi-plugin.json"]),
    );
  });

  it("names the plugin, its download URL and the Pulumi SDK it is tested with", async () => {
    const probe = [
      "import importlib.metadata as m, json, pathlib, pulumi_tenant",
      "d = m.distribution('pulumi_tenant')",
      "plugin = pathlib.Path(pulumi_tenant.__file__).with_name('pulumi-plugin.json')",
      "print(json.dumps({'requires': d.requires, 'python': d.metadata['Requires-Python'],",
      "  'plugin': json.loads(plugin.read_text())}))",
    ].join("\n");
    const { stdout } = await run(python, ["-c", probe]);
    const facts = JSON.parse(stdout) as { requires: string[]; python: string; plugin: unknown };
    expect(facts.plugin).toEqual({
      resource: true,
      name: "tenant",
      version,
      server: server.url,
    });
    expect(facts.requires).toContain(`pulumi<4.0.0,>=${PULUMI_PYTHON_SDK_FLOOR}`);
    expect(facts.python).toBe(">=3.10");
  });

  it("depends on the Pulumi SDK release the tests' environment pins", async () => {
    const requirements = await readFile(join(__dirname, "python", "requirements.txt"), "utf8");
    expect(requirements).toMatch(
      new RegExp(`^pulumi==${PULUMI_PYTHON_SDK_FLOOR.replaceAll(".", "\\.")} `, "m"),
    );
  });
});

describe("the Python program on the wheel, through the Automation API", () => {
  it(
    "passes preview, up, the drift gate and destroy, with the plugin fetched by Pulumi itself",
    async () => {
      const { stack } = await pythonStack();
      const requests = server.requests.length;
      await expectDriverLifecycle(stack, {
        creates: 5,
        driftSentence:
          "error: the tenant differs from the stack: run `up --refresh` to put it back",
      });
      expect(server.requests.slice(requests)).toEqual([
        `GET /pulumi-resource-tenant-v${version}-linux-amd64.tar.gz 200`,
      ]);
      expect(await stack.installedPlugins()).toEqual([`resource-tenant-v${version}`]);
      expect(await stack.pluginNeedsNode()).toBe(false);
      console.log(
        `lifecycle passed: Python, Automation API inline program, pulumi ${stack.cli.version}, ` +
          `${release.wheel.path.split("/").pop()} in a fresh virtual environment, plugin ` +
          "executable fetched through pluginDownloadURL",
      );
    },
    budget({ goPrograms: 6, pulumiCommands: 2 }),
  );

  it(
    "fails at preview on a bad input, naming the property, with nothing sent",
    async () => {
      const { stack } = await pythonStack(BAD_INPUT_ENV);
      await expectBadInputRefused(stack);
    },
    budget({ goPrograms: 1 }),
  );

  it(
    "fails at preview on a change of third_party_security_mode, with nothing written",
    async () => {
      const { stack, editProgram } = await pythonStack();
      const up = await stack.run("up");
      expect(up.exitCode, up.output).toBe(0);
      const writes = writesTo(stack.api);
      await editProgram((program) =>
        program.replace(
          'third_party_security_mode="strict"',
          'third_party_security_mode="permissive"',
        ),
      );
      const preview = await stack.run("preview");
      expect(preview.exitCode).toBe(1);
      expect(preview.output).toContain(
        `ClientSettings "partner": thirdPartySecurityMode of client ${DEFAULT_SEED_IDS.strictThirdParty} cannot change from "strict" to "permissive"`,
      );
      expect(writesTo(stack.api)).toBe(writes);
    },
    budget({ goPrograms: 2 }),
  );
});

describe("the Python program under a type checker", () => {
  it(
    "type-checks under pyright against the installed wheel, with no finding",
    async () => {
      const files = PROGRAM_FILES.map((file) => join(example("python"), file));
      expect(await pyright(python, files)).toEqual([]);
    },
    5 * 60_000,
  );

  it(
    "reports a wrong input type, naming the parameter and its type",
    async () => {
      const dir = await mkdtemp(join(work, "typecheck-"));
      const program = join(dir, "program.py");
      const text = await readFile(join(example("python"), "program.py"), "utf8");
      await writeFile(program, text.replace('provider="sns"', "provider=42"));
      const findings = await pyright(python, [program]);
      console.log(`pyright on the bad example: ${JSON.stringify(findings)}`);
      expect(findings).toEqual([
        {
          file: program,
          line: text.split("\n").findIndex((l) => l.includes('provider="sns"')) + 1,
          severity: "error",
          message:
            'Argument of type "Literal[42]" cannot be assigned to parameter "provider" of type "Input[str | None]" in function "__init__"',
          rule: "reportArgumentType",
        },
      ]);
    },
    5 * 60_000,
  );
});
