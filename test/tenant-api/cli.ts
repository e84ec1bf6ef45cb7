/**
 * Command line entry of the local tenant API:
 *
 *   npm run tenant-api -- --port 0 [--host H] [--seed FILE] [--clients N] [--rate-limit R --burst B]
 *                         [--faults SPEC] [--token-ttl SECONDS] [--random N] [--tls]
 *
 * Prints ONE JSON line on stdout (URLs, credentials, seeded ids; see README.md), then serves until
 * SIGINT or SIGTERM and exits 0. Wrong arguments exit 2 with a message on stderr.
 */

import { parseArgs } from "node:util";
import { startTenantApi, type TenantApi, type TenantApiOptions } from "./server.js";

const USAGE = `usage: tenant-api [--port N] [--host H] [--seed FILE] [--clients N] [--rate-limit R [--burst B]]
                  [--faults error=0.2,drop=0.05,latency=0-300] [--token-ttl SECONDS]
                  [--random N] [--tls]`;

/** The line printed on stdout once the server listens. */
export interface CliReadyLine {
  /** `${domain}/api/v2`. */
  baseUrl: string;
  /** What a user puts in `tenant:domain`. */
  domain: string;
  /** The token endpoint. */
  tokenUrl: string;
  /** The audience to ask tokens for. */
  audience: string;
  /** Id of the machine-to-machine client granted every scope. */
  clientId: string;
  /** Its secret. */
  clientSecret: string;
  /** Its scopes. */
  scopes: string[];
  /** The read-only machine-to-machine client. */
  readOnly: { clientId: string; clientSecret: string; scopes: string[] };
  /** Ids of the seeded clients. */
  clients: string[];
  /** Ids of the seeded event streams. */
  eventStreams: string[];
  /** Name of the tenant. */
  tenant: string;
  /** The counters, from outside (loopback only). */
  statsUrl: string;
  /** With `--tls`: the CA certificate file to trust. */
  caFile?: string;
  /** Process id, to signal the server. */
  pid: number;
}

class UsageError extends Error {}

function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new UsageError(`--${name} must be an integer of at least ${min}, got "${value}"`);
  }
  return Number(value);
}

/** Turns the command line into {@link startTenantApi} options. */
export function parseCliArgs(argv: readonly string[]): TenantApiOptions {
  let values: ReturnType<typeof parse>["values"];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const options: TenantApiOptions = {
    port: integer("port", values.port, 0) ?? 0,
    host: values.host,
    seed: values.seed,
    extraClients: integer("clients", values.clients, 0),
    faults: values.faults,
    tokenTtlSeconds: integer("token-ttl", values["token-ttl"], 1),
    random: integer("random", values.random, 0),
    tls: values.tls === true,
  };
  const rateText = values["rate-limit"];
  const burst = integer("burst", values.burst, 1);
  if (rateText !== undefined) {
    const rate = Number(rateText);
    if (!Number.isFinite(rate) || rate <= 0) {
      throw new UsageError(`--rate-limit must be a number greater than 0, got "${rateText}"`);
    }
    options.rateLimit = { rate, burst };
  } else if (burst !== undefined) {
    throw new UsageError("--burst needs --rate-limit");
  }
  return options;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      seed: { type: "string" },
      clients: { type: "string" },
      "rate-limit": { type: "string" },
      burst: { type: "string" },
      faults: { type: "string" },
      "token-ttl": { type: "string" },
      random: { type: "string" },
      tls: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** The JSON line describing a running server. */
export function readyLine(api: TenantApi): CliReadyLine {
  const line: CliReadyLine = {
    baseUrl: api.baseUrl,
    domain: api.domain,
    tokenUrl: api.tokenUrl,
    audience: api.audience,
    clientId: api.clientId,
    clientSecret: api.clientSecret,
    scopes: api.scopes,
    readOnly: api.readOnly,
    clients: api.clients,
    eventStreams: api.eventStreams,
    tenant: api.tenant,
    statsUrl: `${api.domain}/__tenant-api/stats`,
    pid: process.pid,
  };
  if (api.caFile !== undefined) line.caFile = api.caFile;
  return line;
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let options: TenantApiOptions;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    process.stderr.write(`tenant-api: ${(error as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  let api: TenantApi;
  try {
    api = await startTenantApi(options);
  } catch (error) {
    process.stderr.write(`tenant-api: ${(error as Error).message}\n`);
    process.exitCode = error instanceof RangeError || error instanceof SyntaxError ? 2 : 1;
    return;
  }
  let stopping = false;
  const shutdown = (): void => {
    if (stopping) return;
    stopping = true;
    api.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`tenant-api: stopping failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  // `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by tsx),
  // and a second signal must not fall through to the default handler, which exits with 130/143.
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  process.stdout.write(`${JSON.stringify(readyLine(api))}\n`);
}

// Run only as a program, not when a test imports `parseCliArgs` (vitest has no `require`).
if (typeof require !== "undefined" && require.main === module) {
  void main(process.argv.slice(2));
}
