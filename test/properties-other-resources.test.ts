import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type InvalidCase,
  invalidEventStreamDeletion,
  invalidPushProviderSelection,
  PROPERTY_SEED,
  validEventStreamDeletion,
  validPushProviderSelection,
} from "./support/arbitraries/index.js";
import { failurePath } from "./support/check-failures.js";
import { type Harness, startHarness } from "./support/harness.js";

const INVALID_RUNS = 500;
const VALID_RUNS = 300;

const PUT_PROVIDER = "PUT /api/v2/guardian/factors/push-notification/selected-provider";
const DELETE_STREAM = "DELETE /api/v2/event-streams/:id";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

type CheckFn = (news: Record<string, unknown>) => Promise<{ property: string; reason: string }[]>;

/** Runs `check` on every generated invalid case; every failure must be at the mutated path. */
async function expectEachRejectedAtItsPath(
  cases: fc.Arbitrary<InvalidCase>,
  check: CheckFn,
): Promise<number> {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(cases, async ({ input, property }) => {
      runs += 1;
      const failures = await check(input);
      expect(failures).not.toEqual([]);
      for (const failure of failures) expect(failurePath(failure)).toBe(property);
    }),
    { seed: PROPERTY_SEED, numRuns: INVALID_RUNS },
  );
  return runs;
}

/** Every generated invalid input is refused by `provider.check`, and no request is sent. */
async function expectRejectedWithoutCallingTheApi(
  invalid: Parameters<typeof expectEachRejectedAtItsPath>[0],
  provider: Pick<Harness["push"], "check">,
): Promise<void> {
  const before = h.api.stats().total;
  const runs = await expectEachRejectedAtItsPath(
    invalid,
    async (news) => (await provider.check({}, news)).failures ?? [],
  );
  expect(runs).toBe(INVALID_RUNS);
  expect(h.api.stats().total).toBe(before);
}

/** Every generated valid input passes `provider.check`, then `apply` checks its effect. */
async function expectAcceptedAndApplied(
  valid: fc.Arbitrary<Record<string, unknown>>,
  provider: Pick<Harness["push"], "check">,
  apply: (inputs: Record<string, unknown>) => Promise<void>,
): Promise<void> {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(valid, async (inputs) => {
      runs += 1;
      expect((await provider.check({}, inputs)).failures ?? []).toEqual([]);
      await apply(inputs);
    }),
    { seed: PROPERTY_SEED, numRuns: VALID_RUNS },
  );
  expect(runs).toBe(VALID_RUNS);
}

describe("PushProviderSelection on generated inputs", () => {
  it("rejects 500 invalid inputs at exactly the mutated property, without calling the API", async () => {
    await expectRejectedWithoutCallingTheApi(invalidPushProviderSelection(), h.push);
  });

  it("accepts 300 valid inputs in check, and the provider selects each one in the tenant", async () => {
    await expectAcceptedAndApplied(validPushProviderSelection(), h.push, async (inputs) => {
      h.api.store.setProvider("guardian");
      const { outs } = await h.push.create(inputs);
      expect(outs.provider).toBe(inputs.provider);
      expect(h.api.store.getProvider()).toBe(inputs.provider);
    });
    expect(h.api.stats().counts[`${PUT_PROVIDER} 400`]).toBeUndefined();
  });
});

describe("EventStreamDeletion on generated inputs", () => {
  it("rejects 500 invalid inputs at exactly the mutated property, without calling the API", async () => {
    await expectRejectedWithoutCallingTheApi(invalidEventStreamDeletion(), h.streams);
  });

  it("accepts 300 valid ids in check, and the provider deletes the stream with exactly that id", async () => {
    await expectAcceptedAndApplied(validEventStreamDeletion(), h.streams, async (inputs) => {
      const id = String(inputs.eventStreamId);
      // The stream exists, so only a path that reaches the server intact (encoded, routed and
      // decoded back to the same 26 code points) can delete it.
      h.api.store.putEventStream({ id });
      await h.streams.create(inputs);
      expect(h.api.store.eventStreamExists(id)).toBe(false);
    });
    expect(h.api.stats().counts[`${DELETE_STREAM} 400`]).toBeUndefined();
  });
});
