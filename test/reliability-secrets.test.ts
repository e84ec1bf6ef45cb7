import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ClientSettingsProvider } from "../provider/resources/client-settings.js";
import type { EngineCommand, EngineResult } from "./engine/index.js";
import { clientsFile, example, startStack, undoAfterEach } from "./support/e2e.js";
import { readOnlyConfig, stackConfig } from "./support/harness.js";
import { fetchToken } from "./tenant-api/index.js";
import { DEFAULT_SEED_IDS } from "./tenant-api/seed.js";

/**
 * A full lifecycle (preview, up, refresh, destroy) with every kind of secret in play: an API token
 * or client credentials, a declared `clientSecret`, add-on keys, and the prior values (the portal's
 * old secret among them). Everything the run leaves behind or prints is searched for each secret in
 * plaintext: the state file after every step, the engine's output, the provider host's and the
 * program's diagnostics, the serialized providers, and the errors.
 */

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const DECLARED_SECRET = "declared-client-secret-7Hq2Zp9";
const ADDON_KEY = "addon-sas-key-Xw81LmQ3";

const undo = undoAfterEach();

async function lifecycle(credentials: "apiToken" | "clientCredentials") {
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
  undo(() => file.remove());
  const stack = await startStack(example("clients-from-data"), {
    "clients-from-data:file": { value: file.path },
  });
  undo(() => stack.stop());
  const secrets = [DECLARED_SECRET, ADDON_KEY, stack.api.clientSecret];
  const priorSecret = stack.api.store.getClient(PORTAL)?.client_secret;
  if (typeof priorSecret === "string") secrets.push(priorSecret);

  let config = {};
  if (credentials === "apiToken") {
    const token = await fetchToken(stack.api);
    secrets.push(token);
    config = {
      "tenant:clientId": { value: "" },
      "tenant:clientSecret": { value: "" },
      "tenant:apiToken": { value: token, secret: true },
    };
  }
  const texts: string[] = [];
  const results: EngineResult[] = [];
  for (const command of ["preview", "up", "refresh", "destroy"] satisfies EngineCommand[]) {
    const result = await stack.run(command, { config });
    results.push(result);
    texts.push(result.output, ...result.diagnostics, result.error ?? "", await stack.stateText());
  }
  return { stack, secrets, texts, results };
}

describe("secrets over a full lifecycle", () => {
  it.each(["apiToken", "clientCredentials"] as const)(
    "appear nowhere in plaintext when authenticating with %s",
    async (credentials) => {
      const { secrets, texts, results } = await lifecycle(credentials);
      expect(results.map((r) => r.ok)).toEqual([true, true, true, true]);
      for (const secret of secrets) {
        for (const text of texts) expect(text).not.toContain(secret);
      }
    },
  );

  it("are applied and restored although they never show", async () => {
    const { stack } = await lifecycle("clientCredentials");
    // destroy put the portal's own secret back
    expect(stack.api.store.getClient(PORTAL)?.client_secret).not.toBe(DECLARED_SECRET);
  });

  it("stay out of the error a failed operation reports", async () => {
    const { stack } = await lifecycle("clientCredentials");
    const provider = new ClientSettingsProvider();
    await provider.configure({
      config: stackConfig(readOnlyConfig(stack.api)),
    });
    const error = await provider
      .create({ __resourceName: "portal", clientId: PORTAL, clientSecret: DECLARED_SECRET })
      .catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(
      /^ClientSettings "portal": PATCH \/clients\/\w+ failed with 403 insufficient_scope: needs update:client/,
    );
    const dump = inspect(error, { depth: 10, showHidden: true });
    for (const secret of [DECLARED_SECRET, stack.api.readOnly.clientSecret])
      expect(dump).not.toContain(secret);
    expect(dump.toLowerCase()).not.toContain("authorization");
  });
});
