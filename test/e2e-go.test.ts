/**
 * examples/go, a Go program on the Go SDK that Pulumi's code generator makes from the plugin's
 * schema, run by its driver through the Automation API as an inline program (no Go language host:
 * the real pulumi CLI talks to the program's own process), against a local tenant, with the plugin
 * installed from its release tarball (docs/plugin.md, "What is proven here"). Built and run offline: every
 * Go module comes from the cache that `npm ci` filled.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget } from "./support/budgets.js";
import { undoAfterEach, writesTo } from "./support/e2e.js";
import { buildGoExample, type GoExampleBinary } from "./support/go-example.js";
import { type GoStack, startGoStack } from "./support/go-stack.js";
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
const PORTAL = DEFAULT_SEED_IDS.regularWeb;

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

async function goStack(programEnv: Record<string, string> = {}): Promise<GoStack> {
  const stack = await startGoStack({ binary: binary.path, plugin: await plugin(), programEnv });
  undo(() => stack.stop());
  return stack;
}

describe("the Go program on the generated Go SDK, through the Automation API", () => {
  it(
    "passes preview, up, the drift gate and destroy, with no secret in the state or the output",
    async () => {
      const stack = await goStack();
      const before = stack.api.store.snapshot();
      stack.api.resetStats();

      const preview = await stack.run("preview");
      expect(preview.exitCode, preview.output).toBe(0);
      expect(preview.result).toEqual({ operation: "preview", changes: { create: 4 } });
      expect(stack.api.stats().api, "a preview calls no API").toBe(0);

      const up = await stack.run("up");
      expect(up.exitCode, up.output).toBe(0);
      expect(up.result).toEqual({
        operation: "up",
        changes: { create: 4 },
        outputs: { pushProvider: "sns", portalCallbacks: ["https://portal.example.com/callback"] },
      });
      expect(stack.api.store.getProvider()).toBe("sns");
      expect(stack.api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(false);
      expect(stack.api.store.getClient(PORTAL)).toMatchObject({
        description: "Customer portal (managed by the platform team)",
      });

      const clean = await stack.run("gate");
      expect(clean.exitCode, clean.output).toBe(0);
      expect(clean.result).toEqual({ operation: "gate", drift: false });

      const client = stack.api.store.getClient(PORTAL);
      stack.api.store.putClient({ ...client, callbacks: ["https://attacker.example/cb"] } as never);
      const writes = writesTo(stack.api);
      const gate = await stack.run("gate");
      expect(gate.exitCode, gate.output).toBe(7);
      expect(gate.result).toEqual({ operation: "gate", drift: true });
      expect(gate.stderr).toContain(
        "error: the tenant differs from the stack: run `up -refresh` to put it back",
      );
      expect(writesTo(stack.api), "the gate writes nothing").toBe(writes);

      const repair = await stack.run("up", ["-refresh"]);
      expect(repair.exitCode, repair.output).toBe(0);
      expect(stack.api.store.getClient(PORTAL)).toMatchObject({
        callbacks: ["https://portal.example.com/callback"],
      });

      const state = await stack.stateText();
      const exported = await stack.exportText();
      expect(state).toContain("tenant:index:ClientSettings");
      for (const [what, text] of [
        ["the state", state],
        ["the stack export", exported],
        ["the outputs", JSON.stringify(up.result?.outputs)],
        ...[preview, up, clean, gate, repair].map((r) => [
          `the output of ${r.result?.operation}`,
          r.output,
        ]),
      ] as const) {
        expect(text, `${what} holds the client secret`).not.toContain(stack.api.clientSecret);
        // What delete restores is a secret: the portal's old description must not be readable.
        expect(text, `${what} holds a prior value`).not.toContain(
          "Server-rendered customer portal",
        );
      }

      const destroy = await stack.run("destroy");
      expect(destroy.exitCode, destroy.output).toBe(0);
      expect(destroy.result).toEqual({ operation: "destroy", changes: { delete: 4 } });
      const { eventStreams: _after, ...after } = stack.api.store.snapshot();
      const { eventStreams: _before, ...expected } = before;
      expect(after, "destroy puts the tenant back").toEqual(expected);
      console.log(
        `lifecycle passed: Go, Automation API inline program, pulumi ${stack.cli.version}, plugin ` +
          `${stack.pluginNeedsNode ? "launcher on Node.js 22" : "executable"}`,
      );
    },
    budget({ goPrograms: 6, pulumiCommands: 2 }),
  );

  it(
    "fails at preview on a bad input, naming the property, with nothing sent",
    async () => {
      const stack = await goStack({ STALE_EVENT_STREAM_ID: "est_short" });
      stack.api.resetStats();
      const preview = await stack.run("preview");
      expect(preview.exitCode).toBe(1);
      expect(preview.output).toContain(
        "tenant:index:EventStreamDeletion resource 'retired-webhook': property eventStreamId value {est_short} has a problem: must be exactly 26 characters (got 9)",
      );
      expect(stack.api.stats().api).toBe(0);
    },
    budget({ goPrograms: 1, pulumiCommands: 1 }),
  );
});
