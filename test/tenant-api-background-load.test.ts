/**
 * The local tenant's background load (docs/design/local-tenant.md, "Background load"): the tenant's other
 * callers take tokens from the management API's bucket, on a schedule of bursts, and are counted
 * apart from the program's requests. Driven by a manual clock and timer: no test waits.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { CommandUsageError, LocalTenantError } from "../provider/errors.js";
import {
  BackgroundLoad,
  type BackgroundTimer,
  burstDueAt,
  burstsDueBy,
  DEFAULT_SEED_IDS,
  normalizeBackgroundLoad,
  RequestStats,
  startTenantApi,
  type TenantApi,
  type TenantApiOptions,
  TokenBucket,
} from "../provider/local-tenant/index.js";
import { clientRoute, expectErrorAnswer } from "./support/tenant-api-suite.js";
import { callApi, fetchToken } from "./support/test-client.js";

const START = Date.UTC(2030, 0, 1, 12, 0, 0);
const WEB = clientRoute(DEFAULT_SEED_IDS.regularWeb);

/** A clock and a timer that move only when the test says so. */
class ManualTime {
  now = START;
  private readonly pending = new Set<{ at: number; run: () => void }>();

  readonly clock = (): number => this.now;

  readonly timer: BackgroundTimer = (run, delayMs) => {
    const entry = { at: this.now + delayMs, run };
    this.pending.add(entry);
    return () => this.pending.delete(entry);
  };

  /** Timers waiting to fire. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Moves the clock by `ms`, firing each timer due on the way at its own time. */
  advance(ms: number): void {
    const target = this.now + ms;
    for (let fired = 0; fired < 100_000; fired += 1) {
      const next = [...this.pending].sort((a, b) => a.at - b.at)[0];
      if (next === undefined || next.at > target) {
        this.now = target;
        return;
      }
      this.pending.delete(next);
      this.now = Math.max(this.now, next.at);
      next.run();
    }
    throw new Error("more than 100000 timers fired in one advance");
  }

  /** Moves the clock by `ms` without firing anything: the process was held (a debugger, a sleep). */
  hold(ms: number): void {
    this.now += ms;
  }
}

describe("the schedule of the background's bursts", () => {
  it("puts the first burst one period after the start and the next a period apart", () => {
    const load = { rate: 2, burst: 4 };
    expect([1, 2, 3].map((n) => burstDueAt(load, START, n) - START)).toEqual([2000, 4000, 6000]);
  });

  it("counts no burst due before the first period has passed", () => {
    const load = { rate: 2, burst: 4 };
    expect(burstsDueBy(load, START, START - 5000)).toBe(0);
    expect(burstsDueBy(load, START, START + 1999)).toBe(0);
  });

  it("counts the bursts due by a time, the one due at that very millisecond included", () => {
    const load = { rate: 3, burst: 1 };
    expect(burstsDueBy(load, START, START + 1000)).toBe(3);
    expect(burstsDueBy(load, START, START + 1332)).toBe(3);
    expect(burstsDueBy(load, START, START + Math.ceil(burstDueAt(load, 0, 4)))).toBe(4);
  });

  it("evenly spaces the requests with the default burst of 1", () => {
    expect(normalizeBackgroundLoad({ rate: 3 })).toEqual({ rate: 3, burst: 1 });
  });
});

describe("background load settings", () => {
  it("refuses a rate that is not greater than 0, naming backgroundLoad", () => {
    expect(() => normalizeBackgroundLoad({ rate: 0 })).toThrow(
      new CommandUsageError(
        "backgroundLoad: rate must be a number greater than 0 and at most 10000 (requests a second), got 0",
      ),
    );
  });

  it("refuses a rate above 10000 requests a second", () => {
    expect(() => normalizeBackgroundLoad({ rate: 10_001 })).toThrow(
      "backgroundLoad: rate must be a number greater than 0 and at most 10000",
    );
  });

  it("refuses a burst that is not a whole number of requests", () => {
    expect(() => normalizeBackgroundLoad({ rate: 3, burst: 1.5 })).toThrow(
      new CommandUsageError("backgroundLoad: burst must be an integer from 1 to 10000, got 1.5"),
    );
  });

  it("refuses settings that are not an object", () => {
    expect(() => normalizeBackgroundLoad(3 as never)).toThrow(
      new CommandUsageError("backgroundLoad must be an object { rate, burst }, got 3"),
    );
  });

  it("leaves a running load as it was when new settings are refused", () => {
    const time = new ManualTime();
    const stats = new RequestStats();
    const bucket = new TokenBucket(time.clock, null);
    const load = new BackgroundLoad(
      { bucket, stats, clock: time.clock, timer: time.timer },
      {
        rate: 1,
      },
    );
    load.start();
    expect(() => load.configure({ rate: -1 })).toThrow(CommandUsageError);
    time.advance(2000);
    expect(load.current()).toEqual({ rate: 1, burst: 1 });
    expect(stats.snapshot().background.total).toBe(2);
  });
});

describe("the background load against a token bucket", () => {
  const time = new ManualTime();
  let stats: RequestStats;
  let load: BackgroundLoad | undefined;

  function started(
    rateLimit: { rate: number; burst: number } | null,
    settings: { rate: number; burst?: number } | null,
  ): { bucket: TokenBucket; load: BackgroundLoad } {
    time.now = START;
    stats = new RequestStats();
    const bucket = new TokenBucket(time.clock, rateLimit);
    load = new BackgroundLoad({ bucket, stats, clock: time.clock, timer: time.timer }, settings);
    load.start();
    return { bucket, load };
  }

  afterEach(() => {
    load?.stop();
  });

  it("sends nothing before the first period has passed", () => {
    started({ rate: 1, burst: 10 }, { rate: 3 });
    time.advance(333);
    expect(stats.snapshot().background).toEqual({ total: 0, allowed: 0, refused: 0 });
  });

  it("takes one token from the bucket per request, so the program finds fewer left", () => {
    const { bucket } = started({ rate: 0.1, burst: 10 }, { rate: 2 });
    time.advance(1000);
    expect(stats.snapshot().background).toEqual({ total: 2, allowed: 2, refused: 0 });
    expect(bucket.take().remaining).toBe(7);
  });

  it("sends burst requests together every burst / rate seconds", () => {
    started(null, { rate: 2, burst: 4 });
    time.advance(1999);
    expect(stats.snapshot().background.total).toBe(0);
    time.advance(1);
    expect(stats.snapshot().background.total).toBe(4);
    time.advance(2000);
    expect(stats.snapshot().background.total).toBe(8);
  });

  it("counts the requests the empty bucket refuses under refused, and none in the program's counters", () => {
    started({ rate: 0.1, burst: 2 }, { rate: 1, burst: 3 });
    time.advance(3000);
    const snapshot = stats.snapshot();
    expect(snapshot.background).toEqual({ total: 3, allowed: 2, refused: 1 });
    expect(snapshot).toMatchObject({ total: 0, api: 0, byStatus: {}, counts: {} });
  });

  it("never refuses without a rate limit", () => {
    started(null, { rate: 100 });
    time.advance(1000);
    expect(stats.snapshot().background).toEqual({ total: 100, allowed: 100, refused: 0 });
  });

  it("sends nothing more once stopped, however much time passes", () => {
    const { load } = started(null, { rate: 1 });
    time.advance(2000);
    load.stop();
    time.advance(60_000);
    expect(stats.snapshot().background.total).toBe(2);
    expect(time.waiting).toBe(0);
  });

  it("starts the schedule again from now when its settings are replaced", () => {
    const { load } = started(null, { rate: 1 });
    time.advance(1500);
    load.configure({ rate: 2, burst: 2 });
    time.advance(999);
    expect(stats.snapshot().background.total).toBe(1);
    time.advance(1);
    expect(stats.snapshot().background.total).toBe(3);
    expect(time.waiting).toBe(1);
  });

  it("ends with null settings, leaving no timer", () => {
    const { load } = started(null, { rate: 1 });
    load.configure(null);
    time.advance(5000);
    expect(load.current()).toBeNull();
    expect(stats.snapshot().background.total).toBe(0);
    expect(time.waiting).toBe(0);
  });

  it("starts no timer without settings", () => {
    started(null, null);
    expect(time.waiting).toBe(0);
  });

  it("catches up the bursts of the last 10 s when its timer fires late, and skips older ones", () => {
    started(null, { rate: 1 });
    time.hold(60_000);
    time.advance(0);
    expect(stats.snapshot().background.total).toBe(10);
    time.advance(1000);
    expect(stats.snapshot().background.total).toBe(11);
  });

  it("is counted from zero again after the counters are reset", () => {
    started(null, { rate: 1 });
    time.advance(3000);
    stats.reset();
    time.advance(1000);
    expect(stats.snapshot().background).toEqual({ total: 1, allowed: 1, refused: 0 });
  });
});

describe("Node's timer of the background load", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is unref'd, so that it never keeps a process alive, and cleared by stop()", () => {
    const setTimer = vi.spyOn(globalThis, "setTimeout");
    const clearTimer = vi.spyOn(globalThis, "clearTimeout");
    const stats = new RequestStats();
    const load = new BackgroundLoad(
      { bucket: new TokenBucket(Date.now, null), stats, clock: Date.now },
      { rate: 0.001 },
    );
    load.start();
    expect(setTimer).toHaveBeenCalledTimes(1);
    const timer = setTimer.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    load.stop();
    expect(clearTimer).toHaveBeenCalledWith(timer);
  });
});

describe("the local tenant with a background load", () => {
  const time = new ManualTime();
  const apis: TenantApi[] = [];

  async function started(options: TenantApiOptions): Promise<{ api: TenantApi; token: string }> {
    time.now = START;
    const api = await startTenantApi({
      random: 11,
      clock: time.clock,
      backgroundTimer: time.timer,
      ...options,
    });
    apis.push(api);
    return { api, token: await fetchToken(api) };
  }

  afterEach(async () => {
    await Promise.all(apis.splice(0).map((api) => api.stop()));
  });

  it("shows the background's reads in the x-ratelimit-remaining of the program's next answer", async () => {
    const { api, token } = await started({
      rateLimit: { rate: 1, burst: 10 },
      backgroundLoad: { rate: 1, burst: 5 },
    });
    time.advance(5000);
    const answer = await callApi(api, "GET", WEB, { token });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("refuses the background with 429 once the program has drained the bucket, counting it apart", async () => {
    const { api, token } = await started({
      rateLimit: { rate: 0.1, burst: 3 },
      backgroundLoad: { rate: 1 },
    });
    for (let i = 0; i < 3; i += 1) {
      expect((await callApi(api, "GET", WEB, { token })).status).toBe(200);
    }
    time.advance(3000);
    const stats = api.stats();
    expect(stats.background).toEqual({ total: 3, allowed: 0, refused: 3 });
    expect(stats).toMatchObject({ api: 3, token: 1, byStatus: { "200": 4 } });
  });

  it("serves the background's counters at GET /__tenant-api/stats and resets them with the program's", async () => {
    const { api } = await started({ backgroundLoad: { rate: 2 } });
    time.advance(1000);
    const outside = await callApi(api, "GET", "/__tenant-api/stats");
    expect(outside.body).toMatchObject({ background: { total: 2, allowed: 2, refused: 0 } });
    expect((await callApi(api, "DELETE", "/__tenant-api/stats")).status).toBe(204);
    expect(api.stats().background).toEqual({ total: 0, allowed: 0, refused: 0 });
  });

  it("sets the background load from outside with POST /__tenant-api/background-load, and ends it with {}", async () => {
    const { api } = await started({});
    const set = await callApi(api, "POST", "/__tenant-api/background-load", {
      json: { rate: 3, burst: 3 },
    });
    expect(set.body).toEqual({ backgroundLoad: { rate: 3, burst: 3 } });
    time.advance(1000);
    expect(api.stats().background.total).toBe(3);
    const ended = await callApi(api, "POST", "/__tenant-api/background-load", { json: {} });
    expect(ended.body).toEqual({ backgroundLoad: null });
    expect((await callApi(api, "GET", "/__tenant-api/background-load")).body).toEqual({
      backgroundLoad: null,
    });
    expect(time.waiting).toBe(0);
  });

  it("answers 400 invalid_body naming the setting for a background load it cannot use", async () => {
    const { api } = await started({});
    const answer = await callApi(api, "POST", "/__tenant-api/background-load", {
      json: { rate: 3, burst: 0 },
    });
    expectErrorAnswer(
      answer,
      400,
      "invalid_body",
      "backgroundLoad: burst must be an integer from 1 to 10000, got 0",
    );
  });

  it("stops the background's timer when the server stops, and refuses to start it again", async () => {
    const { api } = await started({ backgroundLoad: { rate: 1 } });
    expect(time.waiting).toBe(1);
    await api.stop();
    expect(time.waiting).toBe(0);
    expect(() => api.setBackgroundLoad({ rate: 1 })).toThrow(
      new LocalTenantError("the tenant API has been stopped"),
    );
  });

  it("refuses an invalid backgroundLoad before listening, naming the option", async () => {
    await expect(startTenantApi({ backgroundLoad: { rate: Number.NaN } })).rejects.toThrow(
      new CommandUsageError(
        "backgroundLoad: rate must be a number greater than 0 and at most 10000 (requests a second), got NaN",
      ),
    );
  });
});
