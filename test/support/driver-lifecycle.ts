/**
 * The lifecycle every example driver must pass (examples/go, examples/python; docs/design/plugin.md,
 * "What is proven here"), asserted step by step on a {@link DriverStack}: preview with no API call,
 * up, the drift gate passing, then failing with exit code 7 after a hand edit in the tenant and
 * writing nothing, `up` with refresh repairing it, no credential or prior value in the state, the
 * stack export, the outputs or the output, and destroy putting the tenant back as it was.
 */
import { expect } from "vitest";
import { DEFAULT_SEED_IDS } from "../../provider/local-tenant/seed.js";
import type { DriverStack } from "./driver-stack.js";
import { writesTo } from "./e2e.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;

/** What differs between the examples: how many resources they declare, the drift sentence. */
export interface DriverLifecycle {
  /** The resources a first `up` creates, the stack itself among them. */
  readonly creates: number;
  /** The sentence the driver prints on stderr when the gate finds drift. */
  readonly driftSentence: string;
}

/** Runs the lifecycle on `stack` and returns the outputs of its runs, for the caller's own checks. */
export async function expectDriverLifecycle(
  stack: DriverStack,
  expected: DriverLifecycle,
): Promise<string[]> {
  const before = stack.api.store.snapshot();
  stack.api.resetStats();

  const preview = await stack.run("preview");
  expect(preview.exitCode, preview.output).toBe(0);
  expect(preview.result).toEqual({ operation: "preview", changes: { create: expected.creates } });
  expect(stack.api.stats().api, "a preview calls no API").toBe(0);

  const up = await stack.run("up");
  expect(up.exitCode, up.output).toBe(0);
  expect(up.result).toEqual({
    operation: "up",
    changes: { create: expected.creates },
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
  expect(gate.stderr).toContain(expected.driftSentence);
  expect(writesTo(stack.api), "the gate writes nothing").toBe(writes);

  const repair = await stack.run("up", { refresh: true });
  expect(repair.exitCode, repair.output).toBe(0);
  expect(stack.api.store.getClient(PORTAL)).toMatchObject({
    callbacks: ["https://portal.example.com/callback"],
  });

  const state = await stack.stateText();
  const exported = await stack.exportText();
  expect(state).toContain("tenant:index:ClientSettings");
  const runs = [preview, up, clean, gate, repair];
  for (const [what, text] of [
    ["the state", state],
    ["the stack export", exported],
    ["the outputs", JSON.stringify(up.result?.outputs)],
    ...runs.map((r) => [`the output of ${r.result?.operation}`, r.output]),
  ] as const) {
    expect(text, `${what} holds the client secret`).not.toContain(stack.api.clientSecret);
    // What delete restores is a secret: the portal's old description must not be readable.
    expect(text, `${what} holds a prior value`).not.toContain("Server-rendered customer portal");
  }

  const destroy = await stack.run("destroy");
  expect(destroy.exitCode, destroy.output).toBe(0);
  expect(destroy.result).toEqual({
    operation: "destroy",
    changes: { delete: expected.creates },
  });
  const { eventStreams: _after, ...after } = stack.api.store.snapshot();
  const { eventStreams: _before, ...restored } = before;
  expect(after, "destroy puts the tenant back").toEqual(restored);
  return [...runs, destroy].map((r) => r.output);
}

/**
 * A bad input (an event stream id of 9 characters, through the driver's `STALE_EVENT_STREAM_ID`)
 * fails the preview of `stack`, naming the resource and the property, with nothing sent to the
 * tenant. `stack` must have been started with that id.
 */
export async function expectBadInputRefused(stack: DriverStack): Promise<void> {
  stack.api.resetStats();
  const preview = await stack.run("preview");
  expect(preview.exitCode).toBe(1);
  expect(preview.output).toContain(
    "tenant:index:EventStreamDeletion resource 'retired-webhook': property eventStreamId value {est_short} has a problem: must be exactly 26 characters (got 9)",
  );
  expect(stack.api.stats().api, "a refused preview calls no API").toBe(0);
}

/** The driver's setting that makes {@link expectBadInputRefused}'s bad input. */
export const BAD_INPUT_ENV = { STALE_EVENT_STREAM_ID: "est_short" } as const;
