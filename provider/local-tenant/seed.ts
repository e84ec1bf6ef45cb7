/**
 * The tenant the server starts with: a built-in default, or a JSON seed file (`--seed FILE`),
 * hand-written or taken by `pulumi-tenant snapshot`. The format, its version and what a snapshot
 * leaves out are documented in docs/design/local-tenant.md ("Seed file format"). This file loads a seed;
 * the format and its checks, the defaults, the generated ids and the default tenant each have
 * their own file, and are handed on from here as the seed's one face.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { SeedError } from "../errors.js";
import { isPlainObject } from "../json.js";
import { type ClientKey, privateKeyJwtKeys } from "./client-keys.js";
import type { WireClient } from "./clients.js";
import { CREDENTIALS_FIELD } from "./clients.js";
import { DEFAULT_SEED } from "./default-seed.js";
import { generatedClients, newClientId } from "./generated.js";
import {
  CREDENTIAL_CLIENTS,
  type CredentialRole,
  DEFAULT_PUSH_PROVIDER,
  DEFAULT_TENANT,
  machineClient,
  withSeedSecret,
} from "./seed-defaults.js";
import {
  memberProblems,
  replacedFieldsProblems,
  type SeedClient,
  seedEventStreams,
  seedGrants,
  storedSeedClient,
  type TenantSeed,
  versionProblem,
} from "./seed-format.js";
import type { TenantState } from "./store.js";

export { DEFAULT_SEED, DEFAULT_SEED_IDS } from "./default-seed.js";
export { generatedClients, newClientId, newEventStreamId } from "./generated.js";
export { ADMIN_SCOPES, READ_ONLY_SCOPES } from "./seed-defaults.js";
export {
  SECRET_PLACEHOLDER,
  SEED_FORMAT_VERSION,
  type SeedClient,
  type TenantSeed,
} from "./seed-format.js";

/** A seed turned into the starting state, with the clients whose credentials are handed out. */
export interface LoadedSeed {
  /** The starting state of the tenant. */
  state: TenantState;
  /** The machine-to-machine client granted every scope. */
  adminClientId: string;
  /** The machine-to-machine client granted read scopes only. */
  readOnlyClientId: string;
}

/** Options of {@link loadSeed} that add to whatever seed is used. */
export interface SeedExtras {
  /**
   * How many {@link generatedClients} to add after the seed's own clients (and after the
   * machine-to-machine clients the seed gets when it names none); default 0. Their ids must not
   * clash with the seed's.
   */
  extraClients?: number | undefined;
  /**
   * A public key to register on the admin client, which then logs in by private key JWT only
   * (`client_authentication_methods.private_key_jwt` names it, no `token_endpoint_auth_method`,
   * as the platform keeps such a client).
   */
  adminKey?: ClientKey | undefined;
}

/** The clients of a seed as they are added, each checked, with the problems found on the way. */
class SeedClients {
  /** The clients added, as the tenant stores them, in order. */
  readonly list: WireClient[] = [];
  /** What was wrong with the clients refused, in order. */
  readonly problems: string[] = [];
  /** The JSON path each client id was first given at, to name it when an id repeats. */
  private readonly paths = new Map<string, string>();

  constructor(private readonly tenant: string) {}

  /** Adds the client found at `where` (an id generated if it has none); its id, or undefined. */
  add(seedClient: SeedClient, where: string): string | undefined {
    if (!isPlainObject(seedClient)) {
      this.problems.push(`${where}: must be an object`);
      return undefined;
    }
    const clientId = seedClient.client_id ?? newClientId();
    if (typeof clientId !== "string" || clientId === "") {
      this.problems.push(`${where}.client_id: must be a non-empty string`);
      return undefined;
    }
    const first = this.paths.get(clientId);
    if (first !== undefined) {
      this.problems.push(
        `${where}.client_id: ${JSON.stringify(clientId)} is already the id of ${first}`,
      );
      return undefined;
    }
    this.paths.set(clientId, where);
    const stored = storedSeedClient(withSeedSecret(seedClient), clientId, this.tenant, where);
    if (stored.problem !== undefined) {
      this.problems.push(stored.problem);
      return undefined;
    }
    this.list.push(stored.client);
    return clientId;
  }

  /**
   * The client whose credentials are handed out for `role`: the one the seed names, which must
   * have a secret (or keys for private key JWT) and a grant, or, when it names none, a machine
   * client added and granted.
   */
  credential(role: CredentialRole, wanted: string | undefined, grants: Map<string, string[]>) {
    const { name, scopes } = CREDENTIAL_CLIENTS[role];
    if (wanted === undefined) {
      const added = this.add(machineClient(undefined, name), role);
      if (added === undefined) return "";
      grants.set(added, [...scopes]);
      return added;
    }
    const client = this.list.find((c) => c.client_id === wanted);
    if (client === undefined)
      this.problems.push(`${role}: no seeded client has client_id ${wanted}`);
    else if (typeof client.client_secret !== "string" && privateKeyJwtKeys(client).length === 0) {
      this.problems.push(`${role}: client ${wanted} has no client_secret`);
    } else if (!grants.has(wanted)) this.problems.push(`${role}: client ${wanted} has no grant`);
    return wanted;
  }

  /** Registers `key` on the client `clientId` as its one way of logging in. */
  useKey(clientId: string, key: ClientKey): void {
    const client = this.list.find((c) => c.client_id === clientId);
    if (client === undefined) return;
    client[CREDENTIALS_FIELD] = [key];
    client.client_authentication_methods = { private_key_jwt: { credentials: [{ id: key.id }] } };
    delete client.token_endpoint_auth_method;
  }

  /** Adds `count` {@link generatedClients} after the others. */
  addGenerated(count: number): void {
    if (!Number.isInteger(count) || count < 0) {
      this.problems.push(`extraClients: must be a non-negative integer, got ${count}`);
      return;
    }
    generatedClients(count).forEach((client, index) => {
      this.add(client, `(generated clients)[${index}]`);
    });
  }

  /** The problems of grants given to a client the seed does not have. */
  unknownGrantees(grants: Map<string, string[]>): string[] {
    return [...grants.keys()]
      .filter((clientId) => !this.list.some((c) => c.client_id === clientId))
      .map((clientId) => `grants: no seeded client has client_id ${clientId}`);
  }
}

/** The JSON value of a seed file; a file that cannot be read or parsed is a {@link SeedError}. */
function readSeedFile(file: string, source: string): unknown {
  let text: string;
  try {
    text = readFileSync(resolve(file), "utf8");
  } catch (error) {
    throw new SeedError(`${source}: cannot read the file: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SeedError(`${source}: not JSON: ${(error as Error).message}`);
  }
}

/**
 * Reads a seed file (JSON) or takes a seed object, checks it, and builds the starting state.
 * `extras.extraClients` adds generated clients to it (for benchmarks of large tenants). Every
 * problem of the seed is named in one {@link SeedError}, in the order of the seed's members.
 */
export function loadSeed(
  seed: TenantSeed | string = DEFAULT_SEED,
  extras: SeedExtras = {},
): LoadedSeed {
  const source = typeof seed === "string" ? `invalid seed ${seed}` : "invalid seed";
  const raw = typeof seed === "string" ? readSeedFile(seed, source) : seed;
  if (!isPlainObject(raw)) throw new SeedError(`${source}: a seed must be a JSON object`);
  const input = raw as TenantSeed;
  const version = versionProblem(input.version);
  if (version !== undefined) throw new SeedError(`${source}: ${version}`);
  const tenant = input.tenant ?? DEFAULT_TENANT;
  const pushProvider = input.pushProvider ?? DEFAULT_PUSH_PROVIDER;
  const granted = seedGrants(input.grants);
  const clients = new SeedClients(tenant);
  if (Array.isArray(input.clients)) {
    input.clients.forEach((client, index) => {
      clients.add(client, `clients[${index}]`);
    });
  }
  const adminClientId = clients.credential("admin", input.admin, granted.grants);
  if (extras.adminKey !== undefined) clients.useKey(adminClientId, extras.adminKey);
  const readOnlyClientId = clients.credential("readOnly", input.readOnly, granted.grants);
  clients.addGenerated(extras.extraClients ?? 0);
  const streams = seedEventStreams(input.eventStreams);
  const problems = [
    ...memberProblems(input, tenant, pushProvider),
    ...granted.problems,
    ...clients.problems,
    ...clients.unknownGrantees(granted.grants),
    ...streams.problems,
    ...replacedFieldsProblems(input.replacedFields),
  ];
  if (problems.length > 0) throw new SeedError(`${source}: ${problems.join("; ")}`);
  const grants = [...granted.grants].map(([client_id, scope]) => ({ client_id, scope }));
  return {
    state: {
      tenant,
      pushProvider,
      clients: clients.list,
      eventStreams: streams.eventStreams,
      grants,
    },
    adminClientId,
    readOnlyClientId,
  };
}
