import { rm, stat, writeFile } from "node:fs/promises";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TenantApiOptions, TenantApiRequest } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import type { TenantState } from "../provider/local-tenant/store.js";
import { budget } from "./support/budgets.js";
import {
  example,
  type Stack,
  type StackRunOptions,
  startStack,
  tenantExampleConfig,
} from "./support/e2e.js";
import {
  killProcessTree,
  type ProcessInfo,
  type PulumiResult,
  processTree,
} from "./support/pulumi.js";
import { fetchToken } from "./support/test-client.js";

/**
 * The tenant example run end to end by the real pulumi CLI while things go wrong. `up` must either
 * finish with the tenant exactly as the program declares, or fail with an error reported against a
 * resource after which a second `up`, with the faults gone, converges. "Exactly" is checked on the
 * whole tenant, against the same program applied to a tenant without faults: nothing declared
 * lost, nothing undeclared touched.
 *
 * Runs are interrupted at an exact point, never after a sleep: the local tenant API tells the test
 * of each request as it arrives (`onRequest`), and the test acts on the first write.
 */

/**
 * The tenant without what differs between two starts of the local API: every client's secret is
 * generated at start, and the example declares none.
 */
function comparable(state: TenantState): unknown {
  const copy = structuredClone(state);
  for (const client of copy.clients) delete (client as Record<string, unknown>).client_secret;
  return copy;
}

/** A management API write: what the provider sends to change the tenant. */
function isWrite(request: TenantApiRequest): boolean {
  return request.area === "management" && /^(PUT|PATCH|DELETE)$/.test(request.method);
}

/**
 * Whether a process is a dynamic provider host: node running @pulumi/pulumi's cmd/dynamic-provider,
 * which the CLI starts through the pulumi-resource-pulumi-nodejs launcher.
 */
function isProviderHost(p: ProcessInfo): boolean {
  return p.args.some((arg) => /[/\\]cmd[/\\]dynamic-provider[/\\]index\.js$/.test(arg));
}

/** URNs of the tenant's resources that an error diagnostic of the run was reported against. */
function failedResources(result: PulumiResult): string[] {
  return result.events.flatMap((event) => {
    const diagnostic = event.diagnosticEvent as { severity?: string; urn?: string } | undefined;
    const urn = diagnostic?.severity === "error" ? (diagnostic.urn ?? "") : "";
    return /:dynamic\/tenant:(PushProviderSelection|ClientSettings|EventStreamDeletion)::/.test(urn)
      ? [urn]
      : [];
  });
}

/** Pending operations in the stack's state file, as `type urn`. */
async function pendingOperations(stack: Stack): Promise<string[]> {
  const state = JSON.parse(await stack.stateText()) as {
    checkpoint: {
      latest?: { pending_operations?: Array<{ type: string; resource: { urn: string } }> };
    };
  };
  return (state.checkpoint.latest?.pending_operations ?? []).map(
    (op) => `${op.type} ${op.resource.urn}`,
  );
}

let reference: unknown;
beforeAll(
  async () => {
    const clean = await startStack(example("tenant"), tenantExampleConfig());
    try {
      const result = await clean.run("up");
      if (!result.ok) throw new Error(`the reference up failed: ${result.error}`);
      reference = comparable(clean.api.store.snapshot());
    } finally {
      await clean.stop();
    }
  },
  budget({ pulumi: 1 }),
);

let s: Stack | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

/** What a test does during the first up: the run's options, and what to do on each request. */
interface During {
  run?: StackRunOptions;
  onRequest?: (request: TenantApiRequest) => void;
}

/**
 * Runs `up` under the faults; if it fails, the error must be reported against a resource and the
 * second `up`, with the faults turned off, must succeed. Either way the tenant must end as the
 * reference.
 */
async function converges(
  options: TenantApiOptions,
  during: (stack: Stack) => During | Promise<During> = () => ({}),
): Promise<{ first: PulumiResult; second?: PulumiResult }> {
  let onRequest: ((request: TenantApiRequest) => void) | undefined;
  s = await startStack(example("tenant"), tenantExampleConfig(), {
    ...options,
    onRequest: (request) => onRequest?.(request),
  });
  const stack = s;
  const plan = await during(stack);
  onRequest = plan.onRequest;
  const first = await stack.run("up", plan.run ?? {});
  onRequest = undefined;
  let second: PulumiResult | undefined;
  if (!first.ok) {
    expect(failedResources(first), first.output).not.toEqual([]);
    stack.api.setFaults(null);
    stack.api.setRateLimit(null);
    second = await stack.run("up");
    expect(second.error).toBeUndefined();
    expect(second.ok).toBe(true);
  }
  expect(comparable(stack.api.store.snapshot())).toEqual(reference);
  return second ? { first, second } : { first };
}

/**
 * Another pipeline using the same tenant: GETs as fast as loopback allows, until told to stop or
 * 3,000 requests have gone (a bound, whatever happens).
 */
async function drainBucket(
  stack: Stack,
  token: string,
  storm: { done: boolean; sent: number },
): Promise<void> {
  const url = `${stack.api.baseUrl}/clients/${DEFAULT_SEED_IDS.spa}`;
  while (!storm.done && storm.sent < 3000) {
    storm.sent += 1;
    await fetch(url, { headers: { authorization: `Bearer ${token}` } }).then((r) =>
      r.arrayBuffer(),
    );
  }
}

// Each test converges in one up, or two.
describe("up under faults", { timeout: budget({ pulumi: 2 }) }, () => {
  it("converges with 20% 500/503 answers, 5% dropped connections and latency spikes", async () => {
    await converges({
      faults: { error: 0.2, drop: 0.05, latency: { min: 0, max: 300 } },
      random: 11,
    });
    const stats = s?.api.stats();
    expect(
      (stats?.dropped ?? 0) +
        Object.keys(stats?.counts ?? {}).filter((k) => / 50[03]$/.test(k)).length,
    ).toBeGreaterThan(0);
  });

  it("converges through a 429 storm caused by another client draining the tenant's bucket", async () => {
    const storm = { done: false, sent: 0 };
    let competitor: Promise<void> | undefined;
    await converges({ rateLimit: { rate: 10, burst: 5 } }, async (stack) => {
      const token = await fetchToken(stack.api, stack.api.readOnly);
      return {
        // The storm starts with the provider's first call, so that it drains the bucket while the
        // provider works, not while the CLI starts.
        onRequest: (request) => {
          if (competitor === undefined && request.area === "management") {
            competitor = drainBucket(stack, token, storm);
          }
        },
      };
    });
    storm.done = true;
    await competitor;
    expect(storm.sent).toBeGreaterThan(0);
    expect(
      Object.entries(s?.api.stats().counts ?? {}).some(([k, n]) => / 429$/.test(k) && n > 0),
    ).toBe(true);
  });

  it("converges when access tokens expire during the run", async () => {
    await converges(
      { tokenTtlSeconds: 1, faults: { latency: { min: 200, max: 400 } }, random: 3 },
      // Without the preview pass one provider host does all the work: a second token is a renewal.
      () => ({ run: { skipPreview: true } }),
    );
    expect(s?.api.stats().token).toBeGreaterThan(1);
  });

  it("converges after the provider host is killed in the middle of up", async () => {
    let cli = 0;
    let killed: ProcessInfo[] | undefined;
    const { first } = await converges(
      { faults: { latency: { min: 100, max: 200 } }, random: 5 },
      () => ({
        // Without the preview pass the one provider host is the update's.
        run: {
          skipPreview: true,
          onStart: (child) => {
            cli = child.pid ?? 0;
          },
        },
        onRequest: (request) => {
          if (killed !== undefined || cli === 0 || !isWrite(request)) return;
          killed = processTree(cli).filter(isProviderHost);
          for (const host of killed) killProcessTree(host.pid);
        },
      }),
    );
    expect(killed?.length).toBe(1);
    expect(first.ok).toBe(false);
  });

  it("converges when the tenant API restarts in the middle of up", async () => {
    let restarted: Promise<void> | undefined;
    await converges({ faults: { latency: { min: 100, max: 200 } }, random: 9 }, (stack) => ({
      run: { skipPreview: true },
      onRequest: (request) => {
        if (restarted === undefined && isWrite(request)) restarted = stack.api.restart();
      },
    }));
    expect(restarted).toBeDefined();
    await restarted;
  });
});

/**
 * A CI job killed mid-`up`: the CLI and every process it started (language host, program,
 * provider host; Pulumi puts each plugin in a process group of its own, so the whole tree is
 * killed) get SIGKILL when the tenant receives the first write. What Pulumi v3.259.0 leaves
 * behind with the file backend: the stack's lock file (the CLI never reached its deferred unlock),
 * the update's operations pending as "creating" in the state, and, when the kill cuts a checkpoint
 * write, an empty attributes file next to the checkpoint.
 */
// The killed up, then up to two more runs and two `pulumi cancel`s.
describe("up killed with SIGKILL after the tenant received its first write", {
  timeout: budget({ pulumi: 3, pulumiCommands: 2 }),
}, () => {
  const LOCKED =
    "the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end " +
    "or delete the lock file with `pulumi cancel`.";

  /**
   * The file backend's attributes file of the stack's checkpoint. The backend (gocloud's fileblob)
   * writes it with a plain create-and-write on every checkpoint save, not through a temporary file
   * as the checkpoint itself: a kill in between leaves it empty.
   */
  const attributesFile = (stack: Stack) => `${stack.project.stateFile}.attrs`;

  /** Starts the tenant example and runs an up that is killed at the tenant's first write. */
  async function killedUp(): Promise<{ stack: Stack; cli: number; killed: ProcessInfo[] }> {
    let cli = 0;
    let killed: ProcessInfo[] = [];
    s = await startStack(example("tenant"), tenantExampleConfig(), {
      onRequest: (request) => {
        if (killed.length === 0 && cli !== 0 && isWrite(request)) killed = killProcessTree(cli);
      },
    });
    const stack = s;
    const result = await stack.run("up", {
      skipPreview: true,
      onStart: (child) => {
        cli = child.pid ?? 0;
      },
    });
    expect(killed[0]?.pid).toBe(cli);
    expect(killed.filter(isProviderHost)).toHaveLength(1);
    expect(result.exitCode).toBe(128 + 9);
    // Whether the kill also cut a checkpoint write is up to the scheduler. If it did, the user
    // removes the empty attributes file first, as docs/guides/troubleshooting.md says (the test
    // below shows why).
    if ((await stat(attributesFile(stack))).size === 0) await rm(attributesFile(stack));
    return { stack, cli, killed };
  }

  /** `pulumi cancel`, which with the file backend deletes the stack's lock files. */
  async function cancel(stack: Stack): Promise<string> {
    return stack.project.cliCommand(["cancel", "--yes"]);
  }

  it("leaves the stack locked: the next up fails, sends nothing and names the lock and `pulumi cancel`", async () => {
    const { stack, cli } = await killedUp();
    stack.api.resetStats();
    const again = await stack.run("up");
    expect(again.exitCode).toBe(1);
    expect(again.error).toBe(LOCKED);
    expect(again.output).toMatch(
      new RegExp(
        `^  file://.+/\\.pulumi/locks/organization/tenant-example/e2e/[0-9a-f-]{36}\\.json\\S*: created by \\S+@\\S+ \\(pid ${cli}\\) at \\S+$`,
        "m",
      ),
    );
    expect(stack.api.stats().total).toBe(0);
  });

  it("makes every command fail with `failed to load checkpoint: EOF` when it cuts a checkpoint write, until the empty attributes file is removed", async () => {
    const { stack } = await killedUp();
    // The cut the kill may make, made for sure.
    await writeFile(attributesFile(stack), "");
    const up = await stack.run("up");
    expect(up.exitCode).toBe(1);
    expect(up.error).toBe("failed to load checkpoint: EOF");
    await expect(stack.project.cliCommand(["cancel", "--yes"])).rejects.toThrow(
      /^pulumi cancel --yes failed: error: failed to load checkpoint: EOF$/,
    );

    await rm(attributesFile(stack));
    expect(await stack.project.cliCommand(["cancel", "--yes"])).toBe(
      "The currently running update for 'e2e' has been canceled!\n",
    );
  });

  it("leaves its creates pending: after `pulumi cancel`, up warns of them, converges and keeps them", async () => {
    const { stack } = await killedUp();
    const pending = await pendingOperations(stack);
    expect(pending.length).toBeGreaterThan(0);
    for (const op of pending) expect(op).toMatch(/^creating urn:pulumi:e2e::tenant-example::/);

    expect(await cancel(stack)).toBe("The currently running update for 'e2e' has been canceled!\n");
    const up = await stack.run("up");
    expect(up.error).toBeUndefined();
    expect(up.ok).toBe(true);
    const listed = pending.map(
      (op) => `  * ${op.replace(/^creating /, "")}, interrupted while creating\n`,
    );
    expect(up.diagnostics).toContainEqual(
      `Attempting to deploy or update resources with ${pending.length} pending operations from previous deployment.\n${listed.join("")}` +
        "These resources are in an unknown state because the Pulumi CLI was interrupted while " +
        "waiting for changes to these resources to complete. You should confirm whether or not " +
        "the operations listed completed successfully by checking the state of the appropriate " +
        "provider. For example, if you are using AWS, you can confirm using the AWS Console.\n\n" +
        "Once you have confirmed the status of the interrupted operations, you can repair your " +
        "stack using `pulumi refresh` which will refresh the state from the provider you are " +
        "using and clear the pending operations if there are any.\n\n" +
        "Note that `pulumi refresh` will need to be run interactively to clear pending CREATE " +
        "operations.",
    );
    expect(comparable(stack.api.store.snapshot())).toEqual(reference);
    expect(await pendingOperations(stack)).toEqual(pending);
  });

  it("converges with nothing pending after `pulumi cancel`, `pulumi refresh --clear-pending-creates` and up", async () => {
    const { stack } = await killedUp();
    await cancel(stack);
    const refresh = await stack.run("refresh", { clearPendingCreates: true });
    expect(refresh.error).toBeUndefined();
    expect(refresh.ok).toBe(true);
    expect(await pendingOperations(stack)).toEqual([]);

    const up = await stack.run("up");
    expect(up.error).toBeUndefined();
    expect(up.ok).toBe(true);
    expect(up.diagnostics.filter((d) => d.includes("pending operations"))).toEqual([]);
    expect(comparable(stack.api.store.snapshot())).toEqual(reference);
    expect(await pendingOperations(stack)).toEqual([]);
  });
});
