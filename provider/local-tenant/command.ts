/**
 * `pulumi-tenant local-tenant`: the local tenant for pipelines and shells (`npm run tenant-api`
 * is this command). It parses the flags into the options of {@link startTenantApi} (the one parser
 * of the local tenant's options: `startLocalTenant` takes the same options as an object), prints ONE
 * JSON line on stdout (domain, credentials, seeded ids; docs/design/local-tenant.md), then serves until
 * SIGINT or SIGTERM and exits 0; or, given `-- COMMAND`, runs the command against it and exits with
 * the command's status. A wrong command line, a seed or a port it cannot use exit 2
 * (docs/guides/commands.md, "Exit statuses"), each with one line on stderr and nothing started.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { constants as osConstants } from "node:os";
import { parseArgs } from "node:util";
import { commandLineProblem } from "../command-line.js";
import { COMMAND_EXIT, CommandUsageError, exitStatusOf, TenantError } from "../errors.js";
import { MAX_BACKGROUND_BURST, MAX_BACKGROUND_RATE } from "./background-load.js";
import { PATCH_MODELS, type PatchModel } from "./client-patch.js";
import { isLoopback } from "./context.js";
import { parseNetworkDelayFlag } from "./network-delay.js";
import { startTenantApi, type TenantApi, type TenantApiOptions } from "./server.js";

/** `--help`. */
const USAGE = `Usage: pulumi-tenant local-tenant [options] [-- COMMAND ARGS...]

Starts the local tenant (docs/design/local-tenant.md), prints one JSON line (domain, credentials,
seeded ids), and serves until SIGINT or SIGTERM. With -- COMMAND, runs the command instead with
TENANT_DOMAIN, TENANT_CLIENT_ID and TENANT_CLIENT_SECRET set, stops, and exits with its status.

Options:
  --port N                 port to listen on; 0 picks a free one (default 0)
  --host H                 address to listen on (default 127.0.0.1; localhost with --tls)
  --seed FILE              the tenant to start with: a seed file, e.g. from pulumi-tenant snapshot
  --clients N              add N generated clients to the seed
  --rate-limit R           management API rate limit, R requests a second (default off)
  --burst B                bucket capacity (needs --rate-limit; default R rounded up)
  --background-load N      other callers of the tenant: N reads a second taking tokens from the
                           same bucket, counted apart (stats.background; default off)
  --background-burst K     K of those reads together every K/N seconds (needs
                           --background-load; default 1, evenly spaced)
  --network-delay MS[-MS]  a tenant a network away: hold every request and every answer MS (or
                           a draw from MIN-MAX) ms each way, the background's included
                           (default off)
  --faults SPEC            error=0.2,drop=0.05,latency=0-300 (default off)
  --quirks SPEC            answer as a tenant we did not write may, e.g. clock-offset=-2,
                           reset-down,write-bucket=4/8,per-minute=120,headers-missing-every=5,
                           gateway-every=25,repeated-headers,retry-after=30,pages-without-total
                           (default none; docs/design/local-tenant.md); keep=PATH (repeatable)
                           makes a client PATCH leave that wire path as stored
  --patch-model MODEL      merge or replace: how a client PATCH applies an object at a path the
                           platform's recorded traffic leaves undecided (addons, refresh_token,
                           oidc_logout, ...); recorded paths apply as recorded (default merge)
  --token-ttl SECONDS      lifetime of issued tokens (default 86400)
  --random N               seed of the fault injection's random numbers
  --tls                    serve HTTPS with a generated CA (its file is printed as caFile)
  -h, --help               this text
`;

/** The line printed on stdout once the server listens; `consoleUrl` first, for a person reading it. */
export interface CliReadyLine {
  /** The console: a page that shows the tenant and the requests live (docs/design/local-tenant.md). */
  consoleUrl: string;
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
  /**
   * Ids of the tenant's clients, the first {@link LISTED_CLIENTS} of them: `--clients 2000` would
   * make the line 70 KB (`GET /api/v2/clients` lists them all).
   */
  clients: string[];
  /** How many clients the tenant has, listed or not. */
  clientCount: number;
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

function integer(
  name: string,
  value: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
) {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new CommandUsageError(`--${name} must be an integer ${range}, got "${value}"`);
  }
  return Number(value);
}

function parse(argv: readonly string[]) {
  try {
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
        "background-load": { type: "string" },
        "background-burst": { type: "string" },
        "network-delay": { type: "string" },
        faults: { type: "string" },
        quirks: { type: "string" },
        "patch-model": { type: "string" },
        "token-ttl": { type: "string" },
        random: { type: "string" },
        tls: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    throw new CommandUsageError(commandLineProblem(error, USAGE));
  }
}

/**
 * `--background-load N [--background-burst K]` as the `backgroundLoad` option; undefined without
 * them. The range is the option's (`normalizeBackgroundLoad`), said with the flag's name.
 */
function backgroundLoadFlags(
  rateText: string | undefined,
  burstText: string | undefined,
): TenantApiOptions["backgroundLoad"] {
  const burst = integer("background-burst", burstText, 1, MAX_BACKGROUND_BURST);
  if (rateText === undefined) {
    if (burst !== undefined)
      throw new CommandUsageError("--background-burst needs --background-load");
    return undefined;
  }
  const rate = Number(rateText);
  if (rateText.trim() === "" || !Number.isFinite(rate) || rate <= 0 || rate > MAX_BACKGROUND_RATE) {
    throw new CommandUsageError(
      `--background-load must be a number greater than 0 and at most ${MAX_BACKGROUND_RATE} ` +
        `(requests a second), got "${rateText}"`,
    );
  }
  return { rate, burst: burst ?? 1 };
}

/** `--patch-model MODEL` as the `patchModel` option; undefined without it. */
function patchModelFlag(value: string | undefined): PatchModel | undefined {
  if (value === undefined) return undefined;
  if (!(PATCH_MODELS as readonly string[]).includes(value)) {
    throw new CommandUsageError(
      `--patch-model must be ${PATCH_MODELS.join(" or ")}, got "${value}"`,
    );
  }
  return value as PatchModel;
}

/**
 * Turns the command line into {@link startTenantApi} options. Returns `"help"` for `-h`/`--help`.
 *
 * @throws {CommandUsageError} for an unknown flag, a missing or bad value, `--burst` or
 *   `--background-burst` alone.
 */
export function parseCliArgs(argv: readonly string[]): TenantApiOptions | "help" {
  const values = parse(argv);
  if (values.help === true) return "help";
  const options: TenantApiOptions = {
    port: integer("port", values.port, 0, 65535) ?? 0,
    host: values.host,
    seed: values.seed,
    extraClients: integer("clients", values.clients, 0),
    faults: values.faults,
    quirks: values.quirks,
    patchModel: patchModelFlag(values["patch-model"]),
    tokenTtlSeconds: integer("token-ttl", values["token-ttl"], 1),
    random: integer("random", values.random, 0),
    tls: values.tls === true,
  };
  const rateText = values["rate-limit"];
  const burst = integer("burst", values.burst, 1);
  if (rateText !== undefined) {
    const rate = Number(rateText);
    if (!Number.isFinite(rate) || rate <= 0) {
      throw new CommandUsageError(
        `--rate-limit must be a number greater than 0, got "${rateText}"`,
      );
    }
    options.rateLimit = { rate, burst };
  } else if (burst !== undefined) {
    throw new CommandUsageError("--burst needs --rate-limit");
  }
  const backgroundLoad = backgroundLoadFlags(values["background-load"], values["background-burst"]);
  if (backgroundLoad !== undefined) options.backgroundLoad = backgroundLoad;
  const delayText = values["network-delay"];
  if (delayText !== undefined) options.networkDelay = parseNetworkDelayFlag(delayText);
  return options;
}

/** The client ids the ready line lists at most. */
const LISTED_CLIENTS = 20;

/** The JSON line describing a running server. */
function readyLine(api: TenantApi): CliReadyLine {
  const line: CliReadyLine = {
    consoleUrl: api.consoleUrl,
    baseUrl: api.baseUrl,
    domain: api.domain,
    tokenUrl: api.tokenUrl,
    audience: api.audience,
    clientId: api.clientId,
    clientSecret: api.clientSecret,
    scopes: api.scopes,
    readOnly: api.readOnly,
    clients: api.clients.slice(0, LISTED_CLIENTS),
    clientCount: api.clients.length,
    eventStreams: api.eventStreams,
    tenant: api.tenant,
    statsUrl: `${api.domain}/__tenant-api/stats`,
    pid: process.pid,
  };
  if (api.caFile !== undefined) line.caFile = api.caFile;
  return line;
}

/**
 * The line for a person, on stderr once the server listens (stdout has the JSON line for
 * programs): where the tenant is, its console, what it holds, how to stop it.
 */
function readableLine(
  api: Pick<TenantApi, "domain" | "consoleUrl" | "tenant" | "clients" | "caFile">,
): string {
  const trust =
    api.caFile === undefined ? "" : `; trust its CA with NODE_EXTRA_CA_CERTS=${api.caFile}`;
  return (
    `pulumi-tenant local-tenant: tenant ${api.tenant} at ${api.domain} with ` +
    `${api.clients.length === 1 ? "1 client" : `${api.clients.length} clients`}; console ` +
    `${api.consoleUrl}${trust}; stop with Ctrl-C\n`
  );
}

/**
 * The line written on stderr at stop when a background load ran, so that a pipeline's log says
 * what the run did to the tenant's other callers; undefined without a background load.
 *
 * @example
 * ```
 * pulumi-tenant local-tenant: background load 3/s: 71 requests, 0 refused with 429 (the
 * program's: 412 API requests, 3 refused with 429)
 * ```
 */
export function backgroundSummary(
  api: Pick<TenantApi, "stats" | "backgroundLoad">,
): string | undefined {
  const load = api.backgroundLoad();
  if (load === null) return undefined;
  const { background, api: programRequests, byStatus } = api.stats();
  const burst = load.burst === 1 ? "" : `, ${load.burst} at a time`;
  return (
    `pulumi-tenant local-tenant: background load ${load.rate}/s${burst}: ` +
    `${background.total} requests, ${background.refused} refused with 429 ` +
    `(the program's: ${programRequests} API requests, ${byStatus["429"] ?? 0} refused with 429)\n`
  );
}

/**
 * The line written on stderr when the tenant listens beyond loopback (`--host` another address or
 * name), so that nobody leaves it reachable from other machines without knowing; undefined on
 * loopback. Beyond loopback, the management API and the console answer others only with a token,
 * the other control routes not at all (docs/design/local-tenant.md, "The console").
 *
 * @internal
 */
export function beyondLoopbackWarning(host: string | undefined): string | undefined {
  if (host === undefined || host.toLowerCase() === "localhost" || isLoopback(host)) {
    return undefined;
  }
  return (
    `pulumi-tenant local-tenant: warning: listening on ${host}, beyond loopback: other machines ` +
    "can reach this tenant (its console and management API answer them with a token only)\n"
  );
}

/** Where the command writes. */
export interface LocalTenantIo {
  /** The ready line. */
  readonly stdout: (text: string) => void;
  /** Errors. */
  readonly stderr: (text: string) => void;
}

/** Resolves on the first SIGINT or SIGTERM, and keeps listening so a second one is swallowed. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    // `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by tsx),
    // and a second signal must not fall through to the default handler, which exits with 130/143.
    process.on("SIGINT", () => resolve());
    process.on("SIGTERM", () => resolve());
  });
}

/**
 * The exit status of a command that ended with `code` or was ended by `signal`: its own status, or
 * 128 plus the signal's number, as a shell reports it (130 for SIGINT, 143 for SIGTERM).
 */
function statusOfExit(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal === null ? undefined : osConstants.signals[signal];
  return number === undefined ? COMMAND_EXIT.failed : 128 + number;
}

/**
 * Runs `command` with the tenant's `TENANT_DOMAIN`, `TENANT_CLIENT_ID` and `TENANT_CLIENT_SECRET`
 * (the package's environment fallbacks, docs/installation-configuration.md) added to this process's
 * environment, its output passed through, and resolves with its exit status once it is gone
 * ({@link statusOfExit}; 2 when it could not start): one command for a pipeline that starts the
 * tenant, runs the tests against it and stops it (docs/design/local-tenant.md, "Starting it").
 *
 * SIGINT and SIGTERM sent to this process are passed to the command, and this process waits for
 * it to end: a cancelled CI job must not leave the tests running against a tenant that is gone.
 */
function runAgainst(
  api: TenantApi,
  command: readonly string[],
  io: LocalTenantIo,
): Promise<number> {
  const [program = "", ...rest] = command;
  return new Promise((resolve) => {
    const child = spawn(program, rest, {
      stdio: "inherit",
      env: {
        ...process.env,
        TENANT_DOMAIN: api.domain,
        TENANT_CLIENT_ID: api.clientId,
        TENANT_CLIENT_SECRET: api.clientSecret,
        ...(api.caFile === undefined ? {} : { NODE_EXTRA_CA_CERTS: api.caFile }),
      },
    });
    const pass = (signal: NodeJS.Signals) => () => {
      child.kill(signal);
    };
    const onInt = pass("SIGINT");
    const onTerm = pass("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    const done = (status: number) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(status);
    };
    child.on("error", (error) => {
      io.stderr(`pulumi-tenant local-tenant: cannot run ${program}: ${error.message}\n`);
      done(COMMAND_EXIT.usage);
    });
    child.on("exit", (code, signal) => done(statusOfExit(code, signal)));
  });
}

/**
 * Runs the command with the arguments after `local-tenant`: starts the server, prints its line,
 * and resolves with the exit status once a signal has stopped it (0), or at once when the command
 * line, the seed or the port is wrong (2).
 */
export async function runLocalTenant(args: readonly string[], io: LocalTenantIo): Promise<number> {
  const dashes = args.indexOf("--");
  const command = dashes === -1 ? [] : args.slice(dashes + 1);
  let api: TenantApi;
  try {
    if (dashes !== -1 && command.length === 0) {
      throw new CommandUsageError("-- must be followed by the command to run against the tenant");
    }
    const options = parseCliArgs(dashes === -1 ? args : args.slice(0, dashes));
    if (options === "help") {
      io.stdout(USAGE);
      return 0;
    }
    api = await startTenantApi(options);
    const warning = beyondLoopbackWarning(options.host);
    if (warning !== undefined) io.stderr(warning);
  } catch (error) {
    if (error instanceof TenantError) {
      // One line, not the whole usage after it: the line names the flag; --help has the rest.
      io.stderr(`pulumi-tenant local-tenant: ${error.message}\n`);
      return exitStatusOf(error);
    }
    throw error;
  }
  let code = 0;
  if (command.length > 0) {
    code = await runAgainst(api, command, io);
  } else {
    const stopped = stopSignal();
    io.stdout(`${JSON.stringify(readyLine(api))}\n`);
    io.stderr(readableLine(api));
    await stopped;
  }
  try {
    await api.stop();
    const summary = backgroundSummary(api);
    if (summary !== undefined) io.stderr(summary);
    return code;
  } catch (error) {
    io.stderr(`pulumi-tenant local-tenant: stopping failed: ${(error as Error).message}\n`);
    return COMMAND_EXIT.failed;
  }
}
