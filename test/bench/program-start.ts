/**
 * How fast a user's TypeScript program starts, the two supported ways
 * (docs/installation-configuration.md, "Installing in your project"): Node.js's own type stripping
 * (`typescript: false`, `"type": "module"`) and ts-node (Pulumi's default, with the TypeScript
 * range of that page). The tenant example in a user's project installed by npm, under Node.js 22
 * (the tests' line), run by the lock's pulumi CLI against a local tenant; `up` runs the program
 * twice (its preview pass and its update), and `preview` once.
 *
 * Measured per command: the program's run up to its first registration (the launch of the
 * dynamic-provider host), summed over the passes, and the command's wall time. Each way runs
 * {@link ROUNDS} times; the medians are reported.
 *
 * ts-node runs as Pulumi runs it by default, type-checking the program, and also with
 * `PULUMI_NODEJS_TRANSPILE_ONLY=true` (what the tests use, as they type-check with tsc first).
 *
 * Target: type stripping starts the program in at most half the time ts-node takes by default.
 */
import { DEFAULT_SEED_IDS } from "../../provider/local-tenant/seed.js";
import { startTenantApi } from "../../provider/local-tenant/server.js";
import { DEFAULT_NODE_LINE, findNodeRuntime } from "../support/node-runtimes.js";
import { PulumiProject } from "../support/pulumi.js";
import { lockedPulumiVersion } from "../support/pulumi-cli.js";
import { tenantConfig, tenantExampleConfig } from "../support/stack-config.js";
import { type TypeScriptWay, tenantProgram } from "../support/tenant-program.js";
import { installUserProject } from "../support/user-project.js";
import { type Measured, measureRun, median, programSeconds, RequestLog } from "./measure.js";

const ROUNDS = 3;
/** One way to start the program: how the project is made, and the environment of its commands. */
interface Variant {
  readonly label: string;
  readonly way: TypeScriptWay;
  readonly env: Record<string, string | undefined>;
}

const VARIANTS: readonly Variant[] = [
  {
    label: "type stripping",
    way: "type-stripping",
    env: { PULUMI_NODEJS_TRANSPILE_ONLY: undefined },
  },
  {
    label: "ts-node (type-checks)",
    way: "ts-node",
    env: { PULUMI_NODEJS_TRANSPILE_ONLY: undefined },
  },
  {
    label: "ts-node, transpile only",
    way: "ts-node",
    env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
  },
];
/** The most type stripping's program start may take, as a share of ts-node's. */
const TARGET_SHARE = 0.5;

interface Figures {
  label: string;
  /** Median over the rounds, seconds. */
  upProgram: number;
  upWall: number;
  previewProgram: number;
  previewWall: number;
}

async function measureVariant({ label, way, env }: Variant): Promise<Figures> {
  const program = await tenantProgram(way);
  const project = await installUserProject({
    manager: "npm",
    node: findNodeRuntime(DEFAULT_NODE_LINE),
    ...program,
    dependencies: { "@pulumi/pulumi": lockedPulumiVersion(), ...program.dependencies },
  });
  const up: Measured[] = [];
  const preview: Measured[] = [];
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const requests = new RequestLog();
      const api = await startTenantApi({ onRequest: requests.record, onAnswer: requests.answer });
      const stack = await PulumiProject.create({
        program: project.dir,
        stack: `${way}-${round}`,
        config: { ...tenantConfig(api), ...tenantExampleConfig() },
      });
      try {
        preview.push(await measureRun(stack, "preview", { requests, env }));
        up.push(await measureRun(stack, "up", { requests, env }));
        for (const m of [...preview, ...up]) {
          if (!m.result.ok) throw new Error(`${label}: ${m.command} failed:\n${m.result.output}`);
        }
        if (api.store.getProvider() !== "sns") throw new Error(`${label}: up did not apply`);
        if (api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)) {
          throw new Error(`${label}: up did not delete the event stream`);
        }
      } finally {
        await stack.remove();
        await api.stop();
      }
    }
  } finally {
    await project.remove();
  }
  const programOf = (m: Measured) => programSeconds(m) ?? Number.NaN;
  return {
    label,
    upProgram: median(up.map(programOf)),
    upWall: median(up.map((m) => m.wallSeconds)),
    previewProgram: median(preview.map(programOf)),
    previewWall: median(preview.map((m) => m.wallSeconds)),
  };
}

async function main(): Promise<void> {
  const figures: Figures[] = [];
  for (const variant of VARIANTS) figures.push(await measureVariant(variant));
  const f2 = (n: number) => n.toFixed(2);
  process.stdout.write(
    `program start, the tenant example (4 resources), Node.js ${findNodeRuntime(DEFAULT_NODE_LINE).version}, ` +
      `pulumi v${lockedPulumiVersion()}, median of ${ROUNDS}:\n` +
      "| way | preview: program s | preview: wall s | up: program s (2 passes) | up: wall s |\n" +
      "|---|---|---|---|---|\n",
  );
  for (const f of figures) {
    process.stdout.write(
      `| ${f.label} | ${f2(f.previewProgram)} | ${f2(f.previewWall)} | ${f2(f.upProgram)} | ${f2(f.upWall)} |\n`,
    );
  }
  const [stripping, tsNode] = figures as [Figures, Figures, Figures];
  const share = stripping.upProgram / tsNode.upProgram;
  const met = share <= TARGET_SHARE;
  process.stdout.write(
    `\ntargets:\n  ${met ? "met    " : "NOT MET"}  type stripping's program start <= ${TARGET_SHARE} x ts-node's by default: ${share.toFixed(2)} x\n`,
  );
  if (!met) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
