/**
 * examples/go, a Go program on the Go SDK that Pulumi's code generator makes from the plugin's
 * schema, run by its driver through the Automation API as an inline program (no Go language host:
 * the real pulumi CLI talks to the program's own process), against a local tenant, with the plugin
 * installed from its release tarball (docs/design/plugin.md, "What is proven here"). Built and run offline: every
 * Go module comes from the cache that `npm ci` filled.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { budget } from "./support/budgets.js";
import {
  BAD_INPUT_ENV,
  expectBadInputRefused,
  expectDriverLifecycle,
} from "./support/driver-lifecycle.js";
import { type DriverStack, startDriverStack } from "./support/driver-stack.js";
import { undoAfterEach } from "./support/e2e.js";
import { buildGoExample, type GoExampleBinary } from "./support/go-example.js";
import { REPO_ROOT } from "./support/installed-package.js";
import { selfContainedPlugin } from "./support/plugin-executable.js";
import { generateSdks } from "./support/sdk-gen.js";

/**
 * The plugin the engine runs for the Go program: the self-contained executable for this platform
 * (linux-amd64), as a Go user's deploy machine gets it, with no `node` on PATH at all. The one line
 * to change for the launcher of the packed package (which needs Node.js 22, then put on PATH):
 * `const plugin = usePackedPlugin();` (e2e.ts).
 */
const plugin = () => selfContainedPlugin();

const SCHEMA = join(REPO_ROOT, "dist", "provider", "plugin", "schema.json");
/** The generator, rebuilt here only when its sources changed since `npm ci` (sdk-gen.test.ts). */
const GENERATE_MS = 10 * 60_000;

const undo = undoAfterEach();
let work: string;
let binary: GoExampleBinary;

beforeAll(
  async () => {
    work = await mkdtemp(join(tmpdir(), "e2e-go-"));
    const sdks = await generateSdks(SCHEMA, join(work, "sdks"));
    binary = await buildGoExample(sdks);
  },
  GENERATE_MS + budget({ goBuilds: 1 }),
);
afterAll(async () => {
  await binary?.remove();
  if (work) await rm(work, { recursive: true, force: true });
});

async function goStack(programEnv: Record<string, string> = {}): Promise<DriverStack> {
  const driver = { project: "tenant-go", command: [binary.path], optionPrefix: "-" } as const;
  const stack = await startDriverStack({ driver, plugin: await plugin(), programEnv });
  undo(() => stack.stop());
  return stack;
}

describe("the Go program on the generated Go SDK, through the Automation API", () => {
  it(
    "passes preview, up, the drift gate and destroy, with no secret in the state or the output",
    async () => {
      const stack = await goStack();
      await expectDriverLifecycle(stack, {
        creates: 4,
        driftSentence: "error: the tenant differs from the stack: run `up -refresh` to put it back",
      });
      console.log(
        `lifecycle passed: Go, Automation API inline program, pulumi ${stack.cli.version}, plugin ` +
          `${(await stack.pluginNeedsNode()) ? "launcher on Node.js 22" : "executable"}`,
      );
    },
    budget({ goPrograms: 6, pulumiCommands: 2 }),
  );

  it(
    "fails at preview on a bad input, naming the property, with nothing sent",
    async () => {
      await expectBadInputRefused(await goStack(BAD_INPUT_ENV));
    },
    budget({ goPrograms: 1, pulumiCommands: 1 }),
  );
});
