import { describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import {
  type Harness,
  readOnlyConfig,
  startHarness,
  useHarnessPerTest,
} from "./support/harness.js";

let h: Harness;
useHarnessPerTest(
  (started) => (h = started),
  () => h,
);

const stream = DEFAULT_SEED_IDS.webhookStream;
const named = { __resourceName: "old-webhook" };

describe("EventStreamDeletion against the local tenant API", () => {
  it("deletes the event stream on create", async () => {
    const created = await h.streams.create({ ...named, eventStreamId: stream });
    expect(created).toEqual({
      id: stream,
      outs: { ...named, eventStreamId: stream, ...h.recorded },
    });
    expect(h.api.store.eventStreamExists(stream)).toBe(false);
  });

  it("counts an event stream that is already gone as deleted", async () => {
    h.api.store.deleteEventStream(stream);
    const created = await h.streams.create({ ...named, eventStreamId: stream });
    expect(created.id).toBe(stream);
  });

  it("stays in sync on refresh while the stream is gone", async () => {
    const { id, outs } = await h.streams.create({ ...named, eventStreamId: stream });
    expect(await h.streams.read(id, outs)).toEqual({ id, props: outs });
  });

  it("leaves the state on refresh when the stream exists again, so the next up deletes it", async () => {
    const { id, outs } = await h.streams.create({ ...named, eventStreamId: stream });
    h.api.store.putEventStream({ id: stream });
    expect(await h.streams.read(id, outs)).toEqual({ id: "", props: {} });
  });

  it("replaces the resource when the event stream id changes", async () => {
    const diff = await h.streams.diff(
      stream,
      { eventStreamId: stream },
      { eventStreamId: DEFAULT_SEED_IDS.eventBridgeStream },
    );
    expect(diff).toEqual({
      changes: true,
      replaces: ["eventStreamId"],
      deleteBeforeReplace: false,
    });
  });

  it("sends nothing on delete: a deleted stream cannot be restored", async () => {
    const { id, outs } = await h.streams.create({ ...named, eventStreamId: stream });
    const before = h.apiCalls();
    await h.streams.delete(id, outs);
    expect(h.apiCalls()).toBe(before);
  });

  it("fails with the missing scope when its credentials may only read", async () => {
    await h.stop();
    h = await startHarness({ config: readOnlyConfig });
    await expect(h.streams.create({ ...named, eventStreamId: stream })).rejects.toThrowError(
      `EventStreamDeletion "old-webhook": DELETE /event-streams/${stream} failed with 403 insufficient_scope: needs delete:event_streams`,
    );
  });
});
