/**
 * Where `pulumi-tenant audit` gets the clients it judges: the live tenant, through the clients'
 * reads (every list page, paced at the tenant's rate and retried; `read:clients` only; no write),
 * or a seed file, through the local tenant's own loader (its checks and its messages), with no
 * network at all. Thin: the judging is in `judge.ts`.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import type { WireClient } from "../api/client-read-policy.js";
import { type Progress, readClients } from "../clients/reads.js";
import type { TenantSettings } from "../config.js";
import { SeedError } from "../errors.js";
import { loadSeed } from "../local-tenant/seed.js";
import { AUDIT_WIRE_FIELDS } from "./judge.js";
import type { AuditedTenant } from "./report.js";

/** The clients to judge, and what is known of the tenant they belong to. */
export interface ReadClients {
  readonly clients: readonly WireClient[];
  readonly tenant: AuditedTenant;
  /** When they were read, ISO 8601. */
  readonly readAt: string | undefined;
}

/** A non-empty string, or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Every client of the live tenant, with the fields the rules judge: page 0, then every other page
 * at once under the tenant's pace. The tenant's name is the `tenant` field its clients answer.
 *
 * @throws {TenantError} from the API client: a 403 names the scope that is missing.
 */
export async function readLive(
  settings: TenantSettings,
  progress: Progress,
  now: () => Date,
): Promise<ReadClients> {
  const clients = await readClients(settings, { kind: "all" }, AUDIT_WIRE_FIELDS, progress);
  return {
    clients,
    tenant: { domain: settings.origin, name: text(clients.find((c) => text(c.tenant))?.tenant) },
    readAt: now().toISOString(),
  };
}

/**
 * The clients a seed file describes, as the local tenant started from it would answer them (fields
 * the seed leaves out get the platform's defaults), without the machine-to-machine clients the
 * local tenant adds for its own credentials when the seed names none: they are not the tenant's.
 * The tenant's domain, name and time are the seed's `takenFrom`, `tenant` and `takenAt`.
 *
 * @throws {SeedError} naming `--seed`, the file, and the JSON path of every problem, as the local
 *   tenant names them.
 */
export function readSeed(file: string): ReadClients {
  let loaded: ReturnType<typeof loadSeed>;
  try {
    loaded = loadSeed(file);
  } catch (error) {
    if (error instanceof SeedError) throw error.concerning("--seed");
    throw error;
  }
  // The loader has read and checked the file; its clients come first in the state, in order.
  const seed = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const own = Array.isArray(seed.clients) ? seed.clients.length : 0;
  return {
    clients: loaded.state.clients.slice(0, own),
    tenant: { domain: text(seed.takenFrom), name: text(seed.tenant) },
    readAt: text(seed.takenAt),
  };
}
