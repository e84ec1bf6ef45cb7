/**
 * `npm run demo`: the main job, end to end, with the real `pulumi` CLI (docs/design/pulumi-cli.md).
 * Starts the local tenant API and takes the example program in examples/tenant through preview,
 * up, a second preview, a change made out of band, refresh (the drift shows), up (the drift is
 * repaired) and destroy (the tenant is put back). The change out of band is made through the
 * local tenant's console, as a person's Save on its page would (docs/design/local-tenant.md, "The
 * console"), whose address the demo prints first. Each step prints the `pulumi` command as a user
 * types it, then the CLI's own output; the demo's checks follow. Exits non-zero if any step does
 * not do what it should.
 *
 * The project lives in a temporary folder with its own file backend and PULUMI_HOME
 * (test/support/pulumi.ts); its Pulumi.yaml's `main:` points at examples/tenant, so the program
 * resolves `pulumi-tenant` through this repository's node_modules, as a user's program does.
 */
import { resolve } from "node:path";
import { startTenantApi, type TenantState } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import {
  type ConfigValues,
  PASSPHRASE,
  type PulumiCommand,
  PulumiProject,
  type PulumiResult,
  type RunOptions,
} from "./support/pulumi.js";
import { tenantConfig, tenantExampleConfig } from "./support/stack-config.js";

const PROGRAM = resolve(__dirname, "..", "examples", "tenant");
const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const STACK = "demo";

function say(text: string): void {
  process.stdout.write(`\n\x1b[1m== ${text}\x1b[0m\n`);
}

function shell(command: string): void {
  process.stdout.write(`\x1b[36m$ ${command}\x1b[0m\n`);
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`demo: expected ${what}`);
  process.stdout.write(`   ok: ${what}\n`);
}

/** The `pulumi` command line a user types for `command` with `options` (as PulumiProject runs it). */
function typed(command: PulumiCommand, options: RunOptions): string {
  const flags = [
    ...(command === "preview" || options.previewOnly ? [] : ["--yes"]),
    ...(options.expectNoChanges ? ["--expect-no-changes"] : []),
    ...(options.previewOnly ? ["--preview-only"] : []),
    ...(options.skipPreview ? ["--skip-preview"] : []),
    ...(options.args ?? []),
  ];
  return ["pulumi", command, ...flags].join(" ");
}

async function main(): Promise<void> {
  const api = await startTenantApi();
  const before = api.store.snapshot();
  const config: ConfigValues = { ...tenantConfig(api), ...tenantExampleConfig() };
  let project: PulumiProject | undefined;
  try {
    say(`Local tenant API at ${api.domain}; program ${PROGRAM}`);
    process.stdout.write(
      `   watch each step in a browser: ${api.consoleUrl}\n` +
        "   (the tenant's clients, the calls of each pulumi command as they come, the drift below)\n",
    );
    process.stdout.write("   a new project and stack, with a local state backend:\n");
    project = await PulumiProject.create({ program: PROGRAM, stack: STACK, config });
    const made = project;
    process.stdout.write(`   (pulumi ${made.cli.version}, ${made.cli.path})\n`);
    shell(`cd ${made.dir}    # Pulumi.yaml: main points at ${PROGRAM}`);
    shell(`export PULUMI_BACKEND_URL=file://${resolve(made.root, "state")}`);
    shell(`export PULUMI_CONFIG_PASSPHRASE=${PASSPHRASE}`);
    shell(`pulumi stack init ${STACK} --secrets-provider passphrase`);
    for (const [key, { value, secret }] of Object.entries(config)) {
      shell(
        `pulumi config set ${secret ? "--secret " : ""}${key} ${secret ? "'<secret>'" : value}`,
      );
    }
    process.stdout.write(
      "   (each command below also gets --non-interactive --color never --event-log <file>:\n" +
        "    the demo reads the engine's events to check what the run did)\n",
    );

    const step = async (
      title: string,
      command: PulumiCommand,
      options: RunOptions = {},
    ): Promise<PulumiResult> => {
      say(title);
      shell(typed(command, options));
      api.resetStats();
      const started = Date.now();
      const result = await made.run(command, undefined, options);
      const output = result.output.trimEnd();
      process.stdout.write(`${output}\n`);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `   (exit code ${result.exitCode}, ${seconds} s, ${api.stats().api} calls to the tenant API)\n`,
      );
      if (!result.ok) {
        throw new Error(
          `demo: \`${typed(command, options)}\` failed: ${result.error ?? "see above"}`,
        );
      }
      return result;
    };

    const preview = await step(
      "preview: what would change (validates every input, sends nothing)",
      "preview",
    );
    check(preview.counts.create === 4, "the preview shows 4 resources to create");
    check(api.stats().api === 0, "the preview made no API call");

    await step("up: apply", "up");
    check(api.store.getProvider() === "sns", "the push provider is sns");
    check(
      !api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream),
      "the retired event stream is gone",
    );
    check(
      JSON.stringify(api.store.getClient(PORTAL)?.callbacks) ===
        JSON.stringify(["https://portal.example.com/callback"]),
      "the portal's callbacks are the declared ones",
    );

    const again = await step("preview again: nothing to do", "preview", {
      expectNoChanges: true,
    });
    check(!again.changes && api.stats().api === 0, "no change and no API call");

    say("Someone edits the portal's callbacks in the dashboard (the console's Save)");
    const edit = { callbacks: ["https://attacker.example/callback"] };
    const editUrl = `${api.consoleUrl}/clients/${PORTAL}`;
    shell(
      `curl -X PATCH ${editUrl} -H 'content-type: application/json' -d '${JSON.stringify(edit)}'`,
    );
    const answer = await fetch(editUrl, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(edit),
    });
    check(answer.status === 200, `the console's edit was accepted (${answer.status})`);
    process.stdout.write("   callbacks = https://attacker.example/callback\n");

    const refreshed = await step("refresh: the drift shows", "refresh", { args: ["--diff"] });
    check(refreshed.changes, "refresh reported the drift");
    const drifted = refreshed.steps.filter((s) => s.op !== "same").map((s) => s.name);
    check(
      drifted.length === 1 && drifted[0] === "portal",
      `the portal alone drifted (${drifted.join(", ")})`,
    );

    const repaired = await step("up: the declared callbacks are put back", "up");
    check(
      repaired.counts.update === 1 && api.stats().byRoute["PATCH /api/v2/clients/:id"] === 1,
      "one update, one PATCH",
    );
    check(
      JSON.stringify(api.store.getClient(PORTAL)?.callbacks) ===
        JSON.stringify(["https://portal.example.com/callback"]),
      "the portal's callbacks are the declared ones again",
    );

    await step("destroy: the prior settings are restored", "destroy");
    check(
      JSON.stringify(withoutStreams(api.store.snapshot())) ===
        JSON.stringify(withoutStreams(before)),
      "every client and the push provider are as they were before `up`",
    );
    process.stdout.write(
      "   (the deleted event stream stays deleted: an event stream cannot be restored)\n",
    );
    say("Demo finished");
  } finally {
    await project?.remove();
    await api.stop();
  }
}

function withoutStreams(state: TenantState): unknown {
  const { eventStreams: _streams, ...rest } = state;
  return rest;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
