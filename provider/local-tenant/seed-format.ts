/**
 * The seed file format (docs/design/local-tenant.md "Seed file format"): its members, its version, and
 * the checks of what a seed holds. Each check returns the problems it finds at their JSON paths
 * from the seed's root instead of throwing, so one load names every problem of a seed at once.
 */

import { isPlainObject } from "../json.js";
import type { PathFailure } from "../schema/check-failures.js";
import { PUSH_PROVIDERS } from "../schema/index.js";
import { privateKeyJwtKeys, seedClientKeys } from "./client-keys.js";
import {
  CREDENTIALS_FIELD,
  RESPONSE_ONLY_FIELDS,
  storedClientRuleFailures,
  type WireClient,
  withResponseDefaults,
} from "./clients.js";
import type { ClientGrant, PushProvider, WireEventStream } from "./store.js";
import { validateWire } from "./wire.js";

/** A client in a seed: wire form; `client_id` and any response field may be left out. */
export interface SeedClient {
  /** Generated (32 letters and digits) when left out. */
  client_id?: string | undefined;
  /** Every other field, as on the wire. */
  [field: string]: unknown;
}

/** The seed file format (JSON). Every member is optional. */
export interface TenantSeed {
  /** The format version, {@link SEED_FORMAT_VERSION}; left out, the current one. */
  version?: number | undefined;
  /** Where a snapshot was taken: the tenant's domain. Informational. */
  takenFrom?: string | undefined;
  /** When a snapshot was taken, ISO 8601. Informational. */
  takenAt?: string | undefined;
  /** JSON paths of the values a snapshot replaced by {@link SECRET_PLACEHOLDER} or left out. */
  replacedFields?: string[] | undefined;
  /** Tenant name, shown in each client's `tenant` field; default `"local-tenant"`. */
  tenant?: string | undefined;
  /** Selected push provider; default `"guardian"`. */
  pushProvider?: PushProvider | undefined;
  /** Clients, in wire form; response fields left out get the platform's defaults. */
  clients?: SeedClient[] | undefined;
  /** Event streams: ids (26 characters) or records with an `id`. */
  eventStreams?: Array<string | WireEventStream> | undefined;
  /** Scopes granted to clients for the management API. */
  grants?: ClientGrant[] | undefined;
  /**
   * Id of the machine-to-machine client whose credentials are handed out. It must be a seeded
   * client with a `client_secret` and a grant. Left out: one is added, granted every scope the
   * routes check.
   */
  admin?: string | undefined;
  /** Same for the read-only client. Left out: one is added, granted the read scopes. */
  readOnly?: string | undefined;
}

/**
 * The seed format this version of the package writes and reads. A seed without `version` is read
 * as this one (hand-written seeds may leave it out); a higher one is refused, because its meaning
 * is not known here.
 */
export const SEED_FORMAT_VERSION = 1;

/**
 * What `pulumi-tenant snapshot` writes in place of a secret or key material: a seed never holds
 * the live value. A confidential client whose `client_secret` is this placeholder gets a fresh
 * random secret when the seed is loaded, as one without a secret does.
 */
export const SECRET_PLACEHOLDER = "<replaced by pulumi-tenant snapshot>";

/** Every member of {@link TenantSeed}; the compiler keeps the two in step. */
const SEED_MEMBERS: Record<keyof TenantSeed, true> = {
  version: true,
  takenFrom: true,
  takenAt: true,
  replacedFields: true,
  tenant: true,
  pushProvider: true,
  clients: true,
  eventStreams: true,
  grants: true,
  admin: true,
  readOnly: true,
};

/**
 * Why a seed's `version` cannot be read, if it cannot: it must be a positive integer no higher
 * than {@link SEED_FORMAT_VERSION}, since a newer format's meaning is not known here.
 */
export function versionProblem(version: unknown): string | undefined {
  const read = version ?? SEED_FORMAT_VERSION;
  if (typeof read !== "number" || !Number.isInteger(read) || read < 1) {
    return `version: must be a positive integer (got ${JSON.stringify(read)})`;
  }
  if (read > SEED_FORMAT_VERSION) {
    return (
      `version: ${read} is newer than this pulumi-tenant reads ` +
      `(${SEED_FORMAT_VERSION}); upgrade pulumi-tenant to load it`
    );
  }
  return undefined;
}

/**
 * The problems of a seed's own members, clients and grants aside: a member the format does not
 * have (a typo would otherwise be ignored), an empty tenant name, an unknown push provider,
 * clients that are no list. `tenant` and `pushProvider` are the seed's, defaults filled in.
 */
export function memberProblems(seed: object, tenant: unknown, pushProvider: unknown): string[] {
  const problems = Object.keys(seed)
    .filter((key) => !Object.hasOwn(SEED_MEMBERS, key))
    .map((key) => `${key}: is not a seed member`);
  if (typeof tenant !== "string" || tenant === "") {
    problems.push("tenant: must be a non-empty string");
  }
  if (!PUSH_PROVIDERS.includes(pushProvider as PushProvider)) {
    problems.push(`pushProvider: must be one of ${PUSH_PROVIDERS.join(", ")}`);
  }
  const clients = (seed as TenantSeed).clients ?? [];
  if (!Array.isArray(clients)) problems.push("clients: must be an array");
  return problems;
}

/** A seed's grants by client id, and the grants that are not `{client_id, scope}`. */
export function seedGrants(grants: TenantSeed["grants"]): {
  grants: Map<string, string[]>;
  problems: string[];
} {
  const byClient = new Map<string, string[]>();
  const problems: string[] = [];
  for (const [index, grant] of (grants ?? []).entries()) {
    if (
      !isPlainObject(grant) ||
      typeof grant.client_id !== "string" ||
      !Array.isArray(grant.scope)
    ) {
      problems.push(`grants[${index}]: must be {client_id: string, scope: string[]}`);
      continue;
    }
    byClient.set(grant.client_id, grant.scope.map(String));
  }
  return { grants: byClient, problems };
}

/** `clients[0].callbacks[2]: reason; ...`: each failure at its JSON path from the seed's root. */
function describeFailures(failures: readonly PathFailure[], where: string): string {
  return failures
    .map((f) => {
      const path =
        f.path === "" ? where : f.path.startsWith("[") ? `${where}${f.path}` : `${where}.${f.path}`;
      return `${path}: ${f.reason}`;
    })
    .join("; ");
}

/**
 * A seeded client as the tenant stores it (the response fields it leaves out filled with the
 * platform's defaults), and the problem at `where` if the API would refuse it: seeds go through
 * the same schema as PATCH bodies and the stored-client rules, so the state never holds what the
 * API itself would refuse (docs/design/local-tenant.md "Seed file format").
 */
export function storedSeedClient(
  seedClient: SeedClient,
  clientId: string,
  tenant: string,
  where: string,
): { client: WireClient; problem?: string } {
  // Response-only fields are not part of the PATCH schema, nor are the registered keys (the
  // platform's client credentials API holds them), which are checked on their own.
  const { [CREDENTIALS_FIELD]: credentials, ...fields } = seedClient;
  const settable = Object.fromEntries(
    Object.entries(fields).filter(([field]) => !RESPONSE_ONLY_FIELDS.includes(field)),
  );
  const failures = [...validateWire("clientUpdate", settable)];
  if (typeof seedClient.name !== "string") failures.push({ path: "name", reason: "is required" });
  const client = withResponseDefaults({ ...fields, client_id: clientId }, tenant);
  failures.push(...storedClientRuleFailures(client, {}, client));
  const keys = seedClientKeys(credentials, `${where}.${CREDENTIALS_FIELD}`);
  if (credentials !== undefined) client[CREDENTIALS_FIELD] = keys.keys;
  // A client that logs in by private key JWT has no token endpoint method: the platform leaves the
  // field out (a null sent removes it, docs/design/local-tenant.md, "How a PATCH applies").
  if (privateKeyJwtKeys(client).length > 0 && seedClient.token_endpoint_auth_method == null) {
    delete client.token_endpoint_auth_method;
  }
  const problems = [
    ...(failures.length > 0 ? [describeFailures(failures, where)] : []),
    // Ids that name no registered key are kept (a snapshot has the ids, never the keys): they
    // verify nothing, as on the platform.
    ...keys.problems,
  ];
  return problems.length > 0 ? { client, problem: problems.join("; ") } : { client };
}

/**
 * A seed's event streams (an id stands for `{id}`), and the problems of those that have no valid
 * id (26 characters) or repeat one; those are left out.
 */
export function seedEventStreams(streams: TenantSeed["eventStreams"]): {
  eventStreams: WireEventStream[];
  problems: string[];
} {
  const items = streams ?? [];
  if (!Array.isArray(items))
    return { eventStreams: [], problems: ["eventStreams: must be an array"] };
  const eventStreams: WireEventStream[] = [];
  const problems: string[] = [];
  const paths = new Map<string, string>();
  items.forEach((item, index) => {
    const stream = typeof item === "string" ? { id: item } : item;
    const where = typeof item === "string" ? `eventStreams[${index}]` : `eventStreams[${index}].id`;
    if (!isPlainObject(stream) || typeof stream.id !== "string") {
      problems.push(`eventStreams[${index}]: must be an id or an object with a string id`);
      return;
    }
    const failures = validateWire("eventStreamId", stream.id);
    const first = paths.get(stream.id);
    if (failures.length > 0) {
      problems.push(`${describeFailures(failures, where)} (${JSON.stringify(stream.id)})`);
    } else if (first !== undefined) {
      problems.push(`${where}: ${JSON.stringify(stream.id)} is already the id of ${first}`);
    } else {
      paths.set(stream.id, `eventStreams[${index}]`);
      eventStreams.push(structuredClone(stream));
    }
  });
  return { eventStreams, problems };
}

/** The problem of a seed's `replacedFields`, informational but a list of JSON paths if given. */
export function replacedFieldsProblems(replaced: unknown): string[] {
  const list = replaced ?? [];
  return !Array.isArray(list) || list.some((path) => typeof path !== "string")
    ? ["replacedFields: must be an array of strings"]
    : [];
}
