/**
 * `pulumi-tenant snapshot --out tenant-seed.json`: reads a live tenant with read-only credentials
 * (the clients, the push provider, the event stream ids) through the clients' reads, as `generate`
 * does, so it is paged and paced the same way, and writes a seed the local tenant loads
 * (docs/design/local-tenant.md, "Seed file format"). No secret and no key material is written: the command never asks for
 * `client_secret` or `encryption_key`, and writes a placeholder where a secret belongs (a
 * confidential client's `client_secret`, an add-on's key), naming each replaced field.
 *
 * This module loads no part of the server (no Fastify): a snapshot is taken where the tests do
 * not run.
 *
 * @module
 */

import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { tenantPaceOf } from "../api/tenants.js";
import { ADDON_KEY_MATERIAL, wireFieldsToRead } from "../clients/catalogue.js";
import { readEventStreamIds, readTenant } from "../clients/reads.js";
import { commandLineProblem } from "../command/line.js";
import {
  CREDENTIAL_OPTIONS,
  CREDENTIAL_USAGE,
  credentialConfig,
  PACING_USAGE,
  QUIET_USAGE,
} from "../command/options.js";
import { checkFileOutput } from "../command/output.js";
import type { ConfigSource } from "../config.js";
import { resolveCommandSettings } from "../config.js";
import {
  COMMAND_EXIT,
  CommandUsageError,
  exitStatusOf,
  SnapshotOutputError,
  TenantError,
} from "../errors.js";
import { isPlainObject } from "../json.js";
import { startProgress } from "../progress.js";
import { CLIENT_SETTINGS_FIELDS, PUSH_PROVIDERS } from "../schema/index.js";
import { RESPONSE_ONLY_FIELDS, type WireClient } from "./clients.js";
import {
  loadSeed,
  SECRET_PLACEHOLDER,
  SEED_FORMAT_VERSION,
  type SeedClient,
  type TenantSeed,
} from "./seed.js";
import type { PushProvider } from "./store.js";
import { validateWire } from "./wire.js";

/** `--help`. */
const USAGE = `Usage: pulumi-tenant snapshot --out FILE [options]

Reads the live tenant (clients, the push provider, the event stream ids) and writes a seed for the
local tenant (pulumi-tenant/testing, pulumi-tenant local-tenant). Secrets and key material are
never written: they are replaced by placeholders, and the command names each replaced field.

Options:
  --out FILE              the seed file to write (JSON)
  --force                 overwrite FILE if it exists
${CREDENTIAL_USAGE}
${PACING_USAGE}
${QUIET_USAGE}
  -h, --help              this text

Scopes needed: read:clients, read:guardian_factors, read:event_streams.
`;

/** What the command was asked to do. */
interface SnapshotOptions {
  readonly out: string;
  readonly force: boolean;
  readonly config: ConfigSource;
  /** `--quiet`: no progress. */
  readonly quiet: boolean;
}

function parseSnapshotArgs(args: readonly string[]): SnapshotOptions | "help" {
  let values: ReturnType<typeof parse>["values"];
  try {
    ({ values } = parse(args));
  } catch (error) {
    throw new CommandUsageError(commandLineProblem(error, USAGE));
  }
  if (values.help === true) return "help";
  if (values.out === undefined || values.out.trim() === "") {
    throw new CommandUsageError("--out FILE is required: the seed file to write");
  }
  return {
    out: values.out,
    force: values.force === true,
    config: credentialConfig(values),
    quiet: values.quiet === true,
  };
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      out: { type: "string" },
      force: { type: "boolean" },
      quiet: { type: "boolean", short: "q" },
      ...CREDENTIAL_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
  });
}

/** What a snapshot read. */
interface SnapshotReads {
  /** The clients, in the tenant's order, as the list answered them. */
  readonly clients: readonly WireClient[];
  /** The selected push provider, as answered. */
  readonly pushProvider: unknown;
  /** Every event stream id. */
  readonly eventStreamIds: readonly string[];
  /** The tenant's domain, as configured. */
  readonly takenFrom: string;
  /** When, ISO 8601. */
  readonly takenAt: string;
}

/** Whether a client authenticates with a secret (the seed loader's rule, docs/design/local-tenant.md). */
function isConfidential(client: WireClient): boolean {
  const method = client.token_endpoint_auth_method;
  return client.app_type === "non_interactive" || (typeof method === "string" && method !== "none");
}

/**
 * A client's fields that the local tenant would refuse, each with why: values the platform holds
 * but no PATCH may set (an empty `organization_discovery_methods`, docs/design/platform.md "Limits").
 * The seed leaves them out, so that it loads; the command names each.
 */
function refusedFields(client: SeedClient): Map<string, string> {
  const settable = Object.fromEntries(
    Object.entries(client).filter(([field]) => !RESPONSE_ONLY_FIELDS.includes(field)),
  );
  const refused = new Map<string, string>();
  for (const failure of validateWire("clientUpdate", settable)) {
    const field = failure.path.split(/[.[]/, 1)[0] ?? "";
    if (field !== "" && !refused.has(field)) refused.set(field, failure.reason);
  }
  return refused;
}

/**
 * The seed of what was read, with every secret replaced: a confidential client's `client_secret`
 * and each add-on key ({@link ADDON_KEY_MATERIAL}) become {@link SECRET_PLACEHOLDER}; the
 * `encryption_key` was never read. `replacedFields` lists the JSON path of each replacement;
 * `leftOut` says which values the local tenant would refuse and were left out. Pure: the same
 * reads give the same seed.
 */
function seedOfReads(reads: SnapshotReads): { seed: TenantSeed; leftOut: string[] } {
  const replaced: string[] = [];
  const leftOut: string[] = [];
  const clients = reads.clients.map((client, index): SeedClient => {
    const where = `clients[${index}]`;
    const { tenant: _tenant, client_secret: _secret, encryption_key: _key, ...rest } = client;
    const seedClient: SeedClient = { ...rest };
    if (isPlainObject(seedClient.addons)) {
      seedClient.addons = Object.fromEntries(
        Object.entries(seedClient.addons).map(([member, settings]) => {
          if (!isPlainObject(settings)) return [member, settings];
          return [
            member,
            Object.fromEntries(
              Object.entries(settings).map(([key, value]) => {
                if (!ADDON_KEY_MATERIAL.has(key)) return [key, value];
                replaced.push(`${where}.addons.${member}.${key}`);
                return [key, SECRET_PLACEHOLDER];
              }),
            ),
          ];
        }),
      );
    }
    if (isConfidential(client)) {
      seedClient.client_secret = SECRET_PLACEHOLDER;
      replaced.push(`${where}.client_secret`);
    }
    for (const [field, why] of refusedFields(seedClient)) {
      delete seedClient[field];
      leftOut.push(`${where}.${field} (${why})`);
    }
    return seedClient;
  });
  const tenantName = reads.clients.find((c) => typeof c.tenant === "string")?.tenant;
  const seed: TenantSeed = {
    version: SEED_FORMAT_VERSION,
    takenFrom: reads.takenFrom,
    takenAt: reads.takenAt,
    replacedFields: replaced,
  };
  if (typeof tenantName === "string" && tenantName !== "") seed.tenant = tenantName;
  if ((PUSH_PROVIDERS as readonly unknown[]).includes(reads.pushProvider)) {
    seed.pushProvider = reads.pushProvider as PushProvider;
  }
  seed.clients = clients;
  seed.eventStreams = [...reads.eventStreamIds];
  return { seed, leftOut };
}

/** Every client field but the secret ones, plus `tenant` (the seed's tenant name). */
function fieldsToRead(): string[] {
  return [...wireFieldsToRead(CLIENT_SETTINGS_FIELDS), "tenant"];
}

/** Where the command writes and what it reads from its process. */
export interface SnapshotIo {
  /** The path written. */
  readonly stdout: (text: string) => void;
  /** Progress, the replaced fields, errors. */
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** The time of the snapshot; default now. */
  readonly now?: () => Date;
  /** Whether stderr is a terminal: a progress bar there, a line every few seconds elsewhere. */
  readonly stderrIsTerminal?: boolean;
}

/**
 * Runs the command with the arguments after `snapshot` and returns the exit status
 * ({@link COMMAND_EXIT}): 0 written, 2 the command line, the settings or the file is wrong (the
 * file checked before the first request), 3 the tenant could not be read. The seed is checked by the local
 * tenant's own loader before it is written, so a file that is written loads.
 */
export async function runSnapshot(args: readonly string[], io: SnapshotIo): Promise<number> {
  const say = (line: string) => io.stderr(`${line}\n`);
  try {
    const options = parseSnapshotArgs(args);
    if (options === "help") {
      io.stdout(USAGE);
      return 0;
    }
    const settings = resolveCommandSettings(options.config, io.env);
    // Before the first request: a wrong --out must not wait for the whole tenant to be read.
    await checkFileOutput("--out", options.out, options.force);
    const progress = startProgress({
      command: "snapshot",
      write: io.stderr,
      terminal: io.stderrIsTerminal === true,
      quiet: options.quiet,
      pace: () => tenantPaceOf(settings),
    });
    const [reads, eventStreamIds] = await Promise.all([
      readTenant(settings, { kind: "all" }, fieldsToRead(), (done, pages, total) =>
        progress.page(done, pages, total),
      ),
      readEventStreamIds(settings),
    ]).finally(() => progress.end());
    const { seed, leftOut } = seedOfReads({
      clients: reads.clients,
      pushProvider: reads.pushProvider,
      eventStreamIds,
      takenFrom: settings.origin,
      takenAt: (io.now ?? (() => new Date()))().toISOString(),
    });
    loadSeed(seed);
    const path = resolve(options.out);
    try {
      await writeFile(path, `${JSON.stringify(seed, null, 2)}\n`, {
        flag: options.force ? "w" : "wx",
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SnapshotOutputError(
        code === "EEXIST"
          ? `${path} already exists; pass --force to overwrite it, or choose another --out`
          : `cannot write ${path}: ${(error as Error).message}`,
      );
    }
    for (const field of leftOut) say(`left out ${field}: the local tenant refuses it in a PATCH`);
    const replaced = seed.replacedFields ?? [];
    say(
      `replaced ${replaced.length} secret ${replaced.length === 1 ? "field" : "fields"} by placeholders` +
        `${replaced.length === 0 ? "" : `: ${replaced.join(", ")}`}`,
    );
    say(
      `took ${seed.clients?.length ?? 0} clients, the push provider and ` +
        `${eventStreamIds.length} event stream ids from ${settings.origin}`,
    );
    io.stdout(`${path}\n`);
    return 0;
  } catch (error) {
    if (error instanceof TenantError) {
      say(`pulumi-tenant snapshot: ${error.message}`);
      return exitStatusOf(error);
    }
    say(`pulumi-tenant snapshot: unexpected failure: ${(error as Error)?.stack ?? String(error)}`);
    return COMMAND_EXIT.failed;
  }
}
