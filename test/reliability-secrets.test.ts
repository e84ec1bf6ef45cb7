import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTenantApi } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { ClientSettingsProvider } from "../provider/providers/client-settings.js";
import { budget } from "./support/budgets.js";
import { clientsFile, example, type Stack, startStack } from "./support/e2e.js";
import { readOnlyConfig, stackConfig } from "./support/harness.js";
import type { PulumiCommand, PulumiResult } from "./support/pulumi.js";
import { fetchToken } from "./support/test-client.js";

/**
 * A full lifecycle (preview, up, refresh, destroy) run by the real pulumi CLI with every kind of
 * secret in play: an API token or client credentials, a declared `clientSecret`, add-on keys, and
 * the prior values (the portal's old secret among them). Everything the run leaves behind or
 * prints is searched for each secret in plaintext: the state file after every step (the
 * serialized providers in it), the CLI's output, its engine events, diagnostics and errors, and
 * the gRPC debug log that `PULUMI_DEBUG_GRPC` makes the CLI write (where the engine's own
 * payloads carry the secrets by Pulumi's design: docs/design/pulumi-cli.md).
 */

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const DECLARED_SECRET = "declared-client-secret-7Hq2Zp9";
const ADDON_KEY = "addon-sas-key-Xw81LmQ3";
const COMMANDS = ["preview", "up", "refresh", "destroy"] as const satisfies PulumiCommand[];

type Credentials = "apiToken" | "clientCredentials";

/** What one lifecycle left behind. */
interface Lifecycle {
  stack: Stack;
  /** Every secret of the run, by what it is. */
  secrets: Record<string, string>;
  results: PulumiResult[];
  /** Everything the run printed or stored, by where it was found. */
  texts: Array<{ where: string; text: string }>;
  /** The lines of the gRPC debug log, parsed. */
  grpcLog: Array<{ method?: string; request?: unknown; response?: unknown }>;
  /** The portal's secret before the run, after `up` and after `destroy`. */
  portalSecret: { before: unknown; afterUp: unknown; afterDestroy: unknown };
  cleanup(): Promise<void>;
}

async function lifecycle(credentials: Credentials): Promise<Lifecycle> {
  const undo: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const step of undo.splice(0).reverse()) await step();
  };
  try {
    const file = await clientsFile([
      {
        name: "portal",
        clientId: PORTAL,
        settings: {
          clientSecret: DECLARED_SECRET,
          addons: { azure_sb: { namespace: "ns", sasKeyName: "sender", sasKey: ADDON_KEY } },
          description: "portal with secrets",
        },
      },
    ]);
    undo.push(() => file.remove());
    const stack = await startStack(example("clients-from-data"), {
      "clients-from-data:file": { value: file.path },
    });
    undo.push(() => stack.stop());
    // The gRPC log gets a folder of its own: the project's is made at the first run.
    const logDir = await mkdtemp(join(tmpdir(), "tenant-grpc-log-"));
    undo.push(() => rm(logDir, { recursive: true, force: true }));
    const grpcLogFile = join(logDir, "grpc.log");

    const priorSecret = stack.api.store.getClient(PORTAL)?.client_secret;
    const secrets: Record<string, string> = {
      "the declared client secret": DECLARED_SECRET,
      "the add-on key": ADDON_KEY,
      "the tenant client's secret": stack.api.clientSecret,
    };
    if (typeof priorSecret === "string") secrets["the portal's prior secret"] = priorSecret;
    let config = {};
    if (credentials === "apiToken") {
      const token = await fetchToken(stack.api);
      secrets["the API token"] = token;
      config = {
        "tenant:clientId": { value: "" },
        "tenant:clientSecret": { value: "" },
        "tenant:apiToken": { value: token, secret: true },
      };
    }

    const texts: Lifecycle["texts"] = [];
    const results: PulumiResult[] = [];
    let afterUp: unknown;
    for (const command of COMMANDS) {
      const result = await stack.run(command, {
        config,
        env: { PULUMI_DEBUG_GRPC: grpcLogFile },
      });
      results.push(result);
      if (command === "up") afterUp = stack.api.store.getClient(PORTAL)?.client_secret;
      texts.push(
        { where: `the output of ${command}`, text: result.output },
        { where: `the diagnostics of ${command}`, text: result.diagnostics.join("\n") },
        { where: `the error of ${command}`, text: result.error ?? "" },
        { where: `the engine events of ${command}`, text: JSON.stringify(result.events) },
        { where: `the state file after ${command}`, text: await stack.stateText() },
      );
    }
    const grpcText = await readFile(grpcLogFile, "utf8");
    return {
      stack,
      secrets,
      results,
      texts,
      grpcLog: grpcText
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Lifecycle["grpcLog"][number]),
      portalSecret: {
        before: priorSecret,
        afterUp,
        afterDestroy: stack.api.store.getClient(PORTAL)?.client_secret,
      },
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * The gRPC calls whose payloads carry decrypted secrets by Pulumi's design: the stack config to
 * the program and to the provider, the program's resource inputs, and the provider calls.
 */
const PAYLOADS_BY_DESIGN = new Set([
  "/pulumirpc.LanguageRuntime/Run",
  "/pulumirpc.ResourceMonitor/GetDeploymentInfo",
  "/pulumirpc.ResourceMonitor/RegisterResource",
  ...["CheckConfig", "Configure", "Check", "Diff", "Create", "Read", "Update", "Delete"].map(
    (method) => `/pulumirpc.ResourceProvider/${method}`,
  ),
]);

/** Every `__provider` string (a serialized dynamic provider) anywhere inside a log entry. */
function serializedProviders(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(serializedProviders);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    if (key === "__provider") {
      const text = (v as { stringValue?: unknown })?.stringValue ?? v;
      return typeof text === "string" ? [text] : serializedProviders(v);
    }
    return serializedProviders(v);
  });
}

/** "<secret> in <where>" for each secret found in plaintext in a text. */
function findings(
  secrets: Record<string, string>,
  texts: Array<{ where: string; text: string }>,
): string[] {
  const found = new Set<string>();
  for (const { where, text } of texts) {
    for (const [what, secret] of Object.entries(secrets)) {
      if (text.includes(secret)) found.add(`${what} in ${where}`);
    }
  }
  return [...found];
}

describe.each(["apiToken", "clientCredentials"] as const)(
  "secrets over a full lifecycle authenticating with %s",
  (credentials) => {
    let run: Lifecycle;
    beforeAll(
      async () => {
        run = await lifecycle(credentials);
      },
      budget({ pulumi: COMMANDS.length }),
    );
    afterAll(async () => {
      await run?.cleanup();
    });

    it("lets every step succeed", () => {
      expect(run.results.map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined]);
      expect(run.results.map((r) => r.ok)).toEqual([true, true, true, true]);
    });

    it("appear nowhere in plaintext in the state file, the output, the events or the errors", () => {
      expect(run.texts.length).toBe(COMMANDS.length * 5);
      expect(findings(run.secrets, run.texts)).toEqual([]);
    });

    it("appear in the gRPC debug log only in what the engine hands over in plaintext by design", () => {
      // The log holds the provider calls of every step: Configure, Check, Diff, Create, Read, Delete.
      const methods = new Set(run.grpcLog.map((entry) => entry.method));
      for (const method of ["Configure", "Check", "Create", "Read", "Delete"]) {
        expect(methods).toContain(`/pulumirpc.ResourceProvider/${method}`);
      }
      // Pulumi's interceptor writes every request and answer as it is, and the engine sends the
      // stack config and the resources' values decrypted to the program and the provider
      // (docs/design/pulumi-cli.md): those payloads hold the secrets. Anything else (a log line of the
      // program or the provider, a serialized provider) must not.
      const outside = run.grpcLog
        .map((entry, line) => ({ entry, where: `${entry.method} (line ${line + 1})` }))
        .filter(({ entry }) => !PAYLOADS_BY_DESIGN.has(entry.method ?? ""));
      const providers = run.grpcLog.flatMap((entry, line) =>
        serializedProviders(entry).map((text) => ({
          where: `a serialized provider (line ${line + 1})`,
          text,
        })),
      );
      expect(outside.length).toBeGreaterThan(0);
      expect(providers.length).toBeGreaterThan(0);
      expect(
        findings(run.secrets, [
          ...outside.map(({ entry, where }) => ({ where, text: JSON.stringify(entry) })),
          ...providers,
        ]),
      ).toEqual([]);
    });

    it("are applied on up and the prior one restored on destroy although they never show", () => {
      expect(run.portalSecret.afterUp).toBe(DECLARED_SECRET);
      expect(run.portalSecret.afterDestroy).toBe(run.portalSecret.before);
    });
  },
);

describe("a failed operation's error", () => {
  it("holds no secret, token or authorization header", async () => {
    const api = await startTenantApi();
    try {
      const provider = new ClientSettingsProvider();
      await provider.configure({ config: stackConfig(readOnlyConfig(api)) });
      const error = await provider
        .create({ __resourceName: "portal", clientId: PORTAL, clientSecret: DECLARED_SECRET })
        .catch((e: unknown) => e);
      expect(String((error as Error).message)).toMatch(
        /^ClientSettings "portal": PATCH \/clients\/\w+ failed with 403 insufficient_scope: needs update:client/,
      );
      const dump = inspect(error, { depth: 10, showHidden: true });
      for (const secret of [DECLARED_SECRET, api.readOnly.clientSecret]) {
        expect(dump).not.toContain(secret);
      }
      expect(dump.toLowerCase()).not.toContain("authorization");
    } finally {
      await api.stop();
    }
  });
});
