import { describe, expect, it } from "vitest";
import {
  type Harness,
  readOnlyConfig,
  startHarness,
  useHarnessPerTest,
} from "./support/harness.js";

const ROUTE = "/api/v2/guardian/factors/push-notification/selected-provider";
let h: Harness;
useHarnessPerTest(
  (started) => (h = started),
  () => h,
);

const named = { __resourceName: "push" };

describe("PushProviderSelection against the local tenant API", () => {
  it("selects the provider on create and remembers the one selected before", async () => {
    const created = await h.push.create({ ...named, provider: "sns" });
    expect(created).toEqual({
      id: new URL(h.api.domain).host,
      outs: { ...named, provider: "sns", priorProvider: "guardian", ...h.recorded },
    });
    expect(h.api.store.getProvider()).toBe("sns");
  });

  it("sends no PUT when the provider is already selected", async () => {
    await h.push.create({ ...named, provider: "guardian" });
    expect(h.calls(`PUT ${ROUTE}`)).toBe(0);
  });

  it("reports no change when the provider is the same", async () => {
    const diff = await h.push.diff("x", { provider: "sns" }, { provider: "sns" });
    expect(diff.changes).toBe(false);
  });

  it("reports a change, without replacement, when the provider differs", async () => {
    const diff = await h.push.diff("x", { provider: "sns" }, { provider: "direct" });
    expect(diff).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("selects the new provider on update and keeps the prior one", async () => {
    const { id, outs } = await h.push.create({ ...named, provider: "sns" });
    const updated = await h.push.update(id, outs, { ...named, provider: "direct" });
    expect(updated.outs).toEqual({
      ...named,
      provider: "direct",
      priorProvider: "guardian",
      ...h.recorded,
    });
    expect(h.api.store.getProvider()).toBe("direct");
  });

  it("reads the live provider, so a change made elsewhere shows up as drift", async () => {
    const { id, outs } = await h.push.create({ ...named, provider: "sns" });
    h.api.store.setProvider("direct");
    const read = await h.push.read(id, outs);
    expect(read.props?.provider).toBe("direct");
    const diff = await h.push.diff(id, read.props ?? {}, { ...named, provider: "sns" });
    expect(diff.changes).toBe(true);
  });

  it("puts the prior provider back on delete", async () => {
    const { id, outs } = await h.push.create({ ...named, provider: "sns" });
    await h.push.delete(id, outs);
    expect(h.api.store.getProvider()).toBe("guardian");
  });

  it("fails with the missing scope when its credentials may only read", async () => {
    await h.stop();
    h = await startHarness({ config: readOnlyConfig });
    await expect(h.push.create({ ...named, provider: "sns" })).rejects.toThrowError(
      `PushProviderSelection "push": PUT /guardian/factors/push-notification/selected-provider failed with 403 insufficient_scope: needs update:guardian_factors`,
    );
  });
});
