/**
 * `npm run demo`: the main job, end to end. Starts the local tenant API and takes the example
 * program in examples/tenant through preview, up, a second preview, a change made out of band,
 * refresh (the drift shows), up (the drift is repaired) and destroy (the tenant is put back),
 * printing each step. Exits non-zero if any step does not do what it should.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type EngineCommand, type EngineResult, runEngine } from "./engine/index.js";
import { startTenantApi, type TenantApi } from "./tenant-api/index.js";
import { DEFAULT_SEED_IDS } from "./tenant-api/seed.js";

const PROGRAM = resolve(__dirname, "..", "examples", "tenant");
const PORTAL = DEFAULT_SEED_IDS.regularWeb;

function say(text: string): void {
  process.stdout.write(`\n\x1b[1m== ${text}\x1b[0m\n`);
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`demo: expected ${what}`);
  process.stdout.write(`   ok: ${what}\n`);
}

async function main(): Promise<void> {
  const api = await startTenantApi();
  const stateDir = await mkdtemp(join(tmpdir(), "tenant-demo-"));
  const before = api.store.snapshot();
  try {
    const engine = (command: EngineCommand, extra: { expectNoChanges?: boolean } = {}) =>
      runEngine({
        command,
        cwd: PROGRAM,
        stack: "demo",
        stateDir,
        timeoutMs: 120_000,
        config: stackConfig(api),
        // The engine stand-in encrypts secrets (the client secret, the prior values) with it.
        env: {
          PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "demo-passphrase",
        },
        ...extra,
      });
    const step = async (
      title: string,
      command: EngineCommand,
      extra: { expectNoChanges?: boolean } = {},
    ): Promise<EngineResult> => {
      say(title);
      api.resetStats();
      const result = await engine(command, extra);
      process.stdout.write(result.output.endsWith("\n") ? result.output : `${result.output}\n`);
      process.stdout.write(`   (${api.stats().api} API calls)\n`);
      if (!result.ok) throw new Error(`demo: ${command} failed: ${result.error ?? "see above"}`);
      return result;
    };

    say(`Local tenant API at ${api.domain}; program ${PROGRAM}`);

    await step("preview: what would change (validates every input, sends nothing)", "preview");
    check(api.stats().api === 0, "the preview made no API call");

    await step("up: apply", "up");
    check(api.store.getProvider() === "sns", "the push provider is sns");
    check(
      !api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream),
      "the retired event stream is gone",
    );

    const again = await step("preview again: nothing to do", "preview", { expectNoChanges: true });
    check(!again.changes && api.stats().api === 0, "no change and no API call");

    say("Someone edits the portal's callbacks in the dashboard");
    const portal = api.store.getClient(PORTAL);
    if (!portal) throw new Error("demo: the portal client is missing from the seed");
    api.store.putClient({ ...portal, callbacks: ["https://attacker.example/callback"] });
    process.stdout.write("   callbacks = https://attacker.example/callback\n");

    const refreshed = await step("refresh: the drift shows", "refresh");
    check(refreshed.changes, "refresh reported the drift");

    await step("up: the declared callbacks are put back", "up");
    check(
      JSON.stringify(api.store.getClient(PORTAL)?.callbacks) ===
        JSON.stringify(["https://portal.example.com/callback"]),
      "the portal's callbacks are the declared ones again",
    );

    await step("destroy: the prior settings are restored", "destroy");
    const after = api.store.snapshot();
    check(
      JSON.stringify(withoutStreams(after)) === JSON.stringify(withoutStreams(before)),
      "every client and the push provider are as they were before `up`",
    );
    process.stdout.write(
      "   (the deleted event stream stays deleted: an event stream cannot be restored)\n",
    );
    say("Demo finished");
  } finally {
    await rm(stateDir, { recursive: true, force: true });
    await api.stop();
  }
}

function stackConfig(api: TenantApi): Record<string, { value: string; secret?: boolean }> {
  return {
    "tenant:domain": { value: api.domain },
    "tenant:clientId": { value: api.clientId },
    "tenant:clientSecret": { value: api.clientSecret, secret: true },
    "tenant-example:portalClientId": { value: PORTAL },
    "tenant-example:dashboardClientId": { value: DEFAULT_SEED_IDS.spa },
    "tenant-example:staleEventStreamId": { value: DEFAULT_SEED_IDS.webhookStream },
  };
}

function withoutStreams(state: ReturnType<TenantApi["store"]["snapshot"]>): unknown {
  const { eventStreams: _streams, ...rest } = state as unknown as Record<string, unknown>;
  return rest;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
