/**
 * A network between the program and the local tenant (docs/design/local-tenant.md, "A tenant a network
 * away"): a loopback TCP relay in front of the server that holds every chunk of bytes a drawn
 * time on its way in and another on its way out, keeping their order.
 *
 * On loopback an answer comes back in a millisecond, so its `x-ratelimit-remaining` is as fresh
 * as it can be; from a pipeline, a tenant in another region is 30 to 200 ms a round trip away and
 * every answer's headers are that old when they are read. Delaying at the connection, not in a
 * route, is what makes them old: the bucket is read when the request reaches the server, and the
 * answer then travels back for its own delay, exactly as over a real network. (The `latency`
 * fault, by contrast, waits before the route and answers at once: a slow server, not a far one.)
 * The relay passes the bytes through untouched, so TLS works through it.
 *
 * When a chunk is delivered is a pure function ({@link deliveryAt}); the relay only keeps a queue
 * and one timer per direction. It does not push back on a fast sender (what is read is queued):
 * the answers of a management API are small, and the relay serves tests and benchmarks.
 *
 * @module
 */

import { randomInt } from "node:crypto";
import net from "node:net";
import { CommandUsageError } from "../errors.js";
import { isLoopback } from "./context.js";
import { createRandom } from "./faults.js";

/** Delay each way, in milliseconds, drawn uniformly from `[minMs, maxMs]` for every chunk. */
export interface NetworkDelayOptions {
  /** The shortest delay each way; at least 0. */
  minMs: number;
  /** The longest delay each way; default `minMs` (a fixed delay). */
  maxMs?: number | undefined;
}

/** Network delay settings with the maximum filled in. */
export interface ResolvedNetworkDelay {
  readonly minMs: number;
  readonly maxMs: number;
}

/** The longest delay accepted each way: a minute, far beyond any real round trip. */
const MAX_NETWORK_DELAY_MS = 60_000;

/**
 * Checks network delay settings and fills in the maximum. The messages name the option
 * (`networkDelay`); the command names its flag itself.
 *
 * @throws {CommandUsageError} unless `0 <= minMs <= maxMs <= 60000`.
 */
export function normalizeNetworkDelay(options: NetworkDelayOptions): ResolvedNetworkDelay {
  if (typeof options !== "object" || options === null) {
    throw new CommandUsageError(`networkDelay must be an object { minMs, maxMs }, got ${options}`);
  }
  const { minMs } = options;
  const maxMs = options.maxMs ?? minMs;
  const valid = (n: unknown): n is number =>
    typeof n === "number" && Number.isFinite(n) && n >= 0 && n <= MAX_NETWORK_DELAY_MS;
  if (!valid(minMs) || !valid(maxMs) || maxMs < minMs) {
    throw new CommandUsageError(
      `networkDelay needs 0 <= minMs <= maxMs <= ${MAX_NETWORK_DELAY_MS} (ms each way), ` +
        `got ${String(minMs)}-${String(maxMs)}`,
    );
  }
  return { minMs, maxMs };
}

/**
 * `--network-delay MS` or `MIN-MAX` (ms each way) as the `networkDelay` option.
 *
 * @throws {CommandUsageError} naming the flag for anything else.
 */
export function parseNetworkDelayFlag(text: string): ResolvedNetworkDelay {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  const minMs = Number(match?.[1]);
  const maxMs = match?.[2] === undefined ? minMs : Number(match[2]);
  if (match === null || maxMs < minMs || maxMs > MAX_NETWORK_DELAY_MS) {
    throw new CommandUsageError(
      `--network-delay must be "MS" or "MIN-MAX", whole ms each way from 0 to ${MAX_NETWORK_DELAY_MS}, got "${text}"`,
    );
  }
  return { minMs, maxMs };
}

/** A network delay in use: its settings, and one draw of a delay in ms per call. */
export interface NetworkDelay {
  readonly settings: ResolvedNetworkDelay;
  readonly draw: () => number;
}

/**
 * The network delay the options ask for, or undefined for none. It draws from its own sequence
 * (seeded from `random`, the fault injection's seed, when given), so that seeded faults draw the
 * same whether or not a delay is set.
 *
 * @throws {CommandUsageError} for bad settings ({@link normalizeNetworkDelay}).
 */
export function networkDelayOf(
  options: NetworkDelayOptions | null | undefined,
  random: number | undefined,
): NetworkDelay | undefined {
  if (options === undefined || options === null) return undefined;
  const settings = normalizeNetworkDelay(options);
  const next = createRandom((random ?? randomInt(2 ** 31)) + 1);
  return { settings, draw: () => settings.minMs + next() * (settings.maxMs - settings.minMs) };
}

/**
 * When a chunk read at `now` with a drawn delay of `drawnMs` is delivered: after its delay, but
 * never before the chunk read before it on the same connection and direction (`previousAt`), as
 * TCP keeps bytes in order whatever each packet's delay.
 */
export function deliveryAt(now: number, drawnMs: number, previousAt: number): number {
  return Math.max(now + drawnMs, previousAt);
}

/** What travels one direction of a connection: bytes, the end of the stream, or a reset. */
type Delivery = Buffer | "end" | "reset";

/**
 * One direction of a relayed connection: what `from` reads reaches `to` after its delay, in
 * order. The stream's end and an abrupt close (a dropped connection) travel the same way.
 */
class DelayedDirection {
  private readonly queue: { at: number; what: Delivery }[] = [];
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly to: net.Socket,
    private readonly draw: () => number,
  ) {}

  push(what: Delivery): void {
    const now = Date.now();
    this.lastAt = deliveryAt(now, this.draw(), this.lastAt);
    this.queue.push({ at: this.lastAt, what });
    this.arm();
  }

  /** Drops what has not been delivered (the other side is gone). */
  cancel(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  private arm(): void {
    const head = this.queue[0];
    if (this.timer !== undefined || head === undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.deliverDue();
      },
      Math.max(0, head.at - Date.now()),
    );
  }

  private deliverDue(): void {
    const now = Date.now();
    while (this.queue[0] !== undefined && this.queue[0].at <= now) {
      const { what } = this.queue.shift() as { what: Delivery };
      if (this.to.destroyed) continue;
      if (what === "end") this.to.end();
      else if (what === "reset") this.to.resetAndDestroy();
      else this.to.write(what);
    }
    this.arm();
  }
}

/** A running relay. */
export interface NetworkDelayRelay {
  /** The port it listens on: the one clients use. */
  readonly port: number;
  /** Stops listening and closes every relayed connection. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` and relays every connection to port `target` of 127.0.0.1, each chunk
 * delayed by its own draw in each direction.
 *
 * @param draw - one delay in ms per call ({@link NetworkDelay.draw}).
 * @throws {CommandUsageError} for a `host` that is not loopback: through the relay every caller
 *   comes from loopback, which the server's control routes trust, and beyond loopback the
 *   network is real anyway.
 */
export async function startNetworkDelayRelay(options: {
  host: string;
  port: number;
  target: number;
  draw: () => number;
}): Promise<NetworkDelayRelay> {
  if (options.host !== "localhost" && !isLoopback(options.host)) {
    throw new CommandUsageError(
      `a network delay is for a tenant on loopback; listening on ${options.host}, the network is real`,
    );
  }
  const sockets = new Set<net.Socket>();
  // Half-open on both sides: an end read from one side travels behind its bytes, and the socket
  // must stay writable until the other side's delayed bytes and end have arrived.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ host: "127.0.0.1", port: options.target, allowHalfOpen: true });
    const toServer = new DelayedDirection(upstream, options.draw);
    const toClient = new DelayedDirection(client, options.draw);
    for (const [socket, onward, back] of [
      [client, toServer, toClient],
      [upstream, toClient, toServer],
    ] as const) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on("data", (chunk: Buffer) => onward.push(chunk));
      socket.on("end", () => onward.push("end"));
      socket.on("error", () => onward.push("reset"));
      socket.on("close", () => {
        sockets.delete(socket);
        back.cancel();
      });
    }
  });
  server.listen({ host: options.host, port: options.port });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
