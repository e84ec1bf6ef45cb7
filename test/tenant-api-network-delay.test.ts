/**
 * A local tenant a network away (docs/design/local-tenant.md, "A tenant a network away"): a relay in
 * front of the server holds every request on its way in and every answer on its way out, so an
 * answer's rate-limit headers are as old as over a real network, and the background load comes in
 * through the same delay.
 */

import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CommandUsageError } from "../provider/errors.js";
import {
  BackgroundLoad,
  type BackgroundTimer,
  deliveryAt,
  normalizeNetworkDelay,
  parseCliArgs,
  parseNetworkDelayFlag,
  RequestStats,
  startNetworkDelayRelay,
  startTenantApi,
  type TenantApi,
  TokenBucket,
} from "../provider/local-tenant/index.js";
import { clientRoute } from "./support/tenant-api-suite.js";
import { callApi, fetchToken } from "./support/test-client.js";

let api: TenantApi | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

describe("the network delay's settings", () => {
  it("reads --network-delay as a fixed delay or a range, in ms each way", () => {
    expect(parseNetworkDelayFlag("50")).toEqual({ minMs: 50, maxMs: 50 });
    expect(parseNetworkDelayFlag("20-80")).toEqual({ minMs: 20, maxMs: 80 });
  });

  it("refuses a range that runs backwards, naming the flag", () => {
    expect(() => parseNetworkDelayFlag("80-20")).toThrow(
      new CommandUsageError(
        '--network-delay must be "MS" or "MIN-MAX", whole ms each way from 0 to 60000, got "80-20"',
      ),
    );
  });

  it("refuses a negative delay in the option, naming the option", () => {
    expect(() => normalizeNetworkDelay({ minMs: -1 })).toThrow(
      new CommandUsageError(
        "networkDelay needs 0 <= minMs <= maxMs <= 60000 (ms each way), got -1--1",
      ),
    );
  });

  it("passes the flag to the server's options", () => {
    expect(parseCliArgs(["--network-delay", "50"])).toMatchObject({
      networkDelay: { minMs: 50, maxMs: 50 },
    });
  });

  it("delivers a chunk after its delay but never before the one read before it", () => {
    expect(deliveryAt(1000, 50, 0)).toBe(1050);
    expect(deliveryAt(1010, 10, 1050)).toBe(1050);
  });
});

describe("a local tenant a network away", () => {
  it("holds a request on its way in and its answer on its way out", async () => {
    const arrived: number[] = [];
    const left: number[] = [];
    api = await startTenantApi({
      networkDelay: { minMs: 60 },
      onRequest: () => arrived.push(Date.now()),
      onAnswer: () => left.push(Date.now()),
    });
    const token = await fetchToken(api);
    const sent = Date.now();
    const answer = await callApi(api, "GET", clientRoute(api.clients[0] as string), { token });
    const received = Date.now();
    expect(answer.status).toBe(200);
    // The second request and answer of the run (the first is the token's).
    expect((arrived[1] as number) - sent).toBeGreaterThanOrEqual(59);
    expect(received - (left[1] as number)).toBeGreaterThanOrEqual(59);
  });

  it("reports the lowest level the bucket reached", async () => {
    api = await startTenantApi({ rateLimit: { rate: 1, burst: 5 } });
    const token = await fetchToken(api);
    expect(api.stats().bucketLowest).toBe(null);
    const started = Date.now();
    for (let n = 0; n < 3; n += 1) {
      await callApi(api, "GET", clientRoute(api.clients[0] as string), { token });
    }
    // Three of five tokens taken; the bucket refills at 1 a second meanwhile, so its lowest level
    // is 2 plus what came back while the three requests ran (however slow the machine).
    const refilled = (Date.now() - started) / 1000;
    expect(api.stats().bucketLowest).toBeGreaterThanOrEqual(2);
    expect(api.stats().bucketLowest).toBeLessThanOrEqual(2 + refilled);
  });

  it("refuses a network delay on an address beyond loopback", async () => {
    await expect(startTenantApi({ host: "0.0.0.0", networkDelay: { minMs: 10 } })).rejects.toThrow(
      new CommandUsageError(
        "a network delay is for a tenant on loopback; listening on 0.0.0.0, the network is real",
      ),
    );
  });

  it("relays a connection the server closes without an answer as a closed connection", async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const relay = await startNetworkDelayRelay({
      host: "127.0.0.1",
      port: 0,
      target: (server.address() as net.AddressInfo).port,
      draw: () => 20,
    });
    try {
      const closed = await new Promise<boolean>((resolve) => {
        const socket = net.connect(relay.port, "127.0.0.1", () =>
          socket.write("GET / HTTP/1.1\r\n\r\n"),
        );
        socket.on("error", () => undefined);
        socket.on("close", () => resolve(true));
      });
      expect(closed).toBe(true);
    } finally {
      await relay.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the background load a network away", () => {
  it("takes each request's token after its own delay on the way in", () => {
    let now = 0;
    const timers: { at: number; run: () => void }[] = [];
    const timer: BackgroundTimer = (run, delayMs) => {
      timers.push({ at: now + delayMs, run });
      return () => undefined;
    };
    const bucket = new TokenBucket(() => now, { rate: 1, burst: 10 });
    const stats = new RequestStats();
    const delays = [30, 70, 50];
    const load = new BackgroundLoad(
      { bucket, stats, clock: () => now, timer, delay: () => delays.shift() ?? 0 },
      { rate: 3, burst: 3 },
    );
    load.start();
    // The burst is due after one period (1 s); its three requests then travel 30, 70 and 50 ms.
    now = 1000;
    timers.shift()?.run();
    expect(stats.snapshot().background.total).toBe(0);
    // The next burst's timer is due at 2000 ms; the three before it are the requests on their way.
    const onTheWay = timers.filter((t) => t.at < 2000);
    expect(onTheWay.map((t) => t.at)).toEqual([1030, 1070, 1050]);
    for (const t of onTheWay) t.run();
    expect(stats.snapshot().background.total).toBe(3);
    load.stop();
  });
});
