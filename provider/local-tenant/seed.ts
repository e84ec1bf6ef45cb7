/**
 * The tenant the server starts with: a built-in default, or a JSON seed file (`--seed FILE`),
 * hand-written or taken by `pulumi-tenant snapshot`. The format, its version and what a snapshot
 * leaves out are documented in docs/local-tenant.md ("Seed file format").
 */

import { createHash, randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { SeedError } from "../errors.js";
import { isPlainObject } from "../json.js";
import type { PathFailure } from "../schema/check-failures.js";
import { PUSH_PROVIDERS } from "../schema/index.js";
import {
  RESPONSE_ONLY_FIELDS,
  storedClientRuleFailures,
  type WireClient,
  withResponseDefaults,
} from "./clients.js";
import type { ClientGrant, PushProvider, TenantState, WireEventStream } from "./store.js";
import { validateWire } from "./wire.js";

/** Every scope the routes of this server check (docs/platform.md). */
export const ADMIN_SCOPES: readonly string[] = [
  "read:clients",
  "update:clients",
  "update:client_keys",
  "read:client_keys",
  "read:guardian_factors",
  "update:guardian_factors",
  "read:event_streams",
  "delete:event_streams",
];

/** The scopes of the read-only machine-to-machine client, which tests use to provoke 403s. */
export const READ_ONLY_SCOPES: readonly string[] = [
  "read:clients",
  "read:guardian_factors",
  "read:event_streams",
];

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
   * client with a `client_secret` and a grant. Left out: one is added, granted {@link ADMIN_SCOPES}.
   */
  admin?: string | undefined;
  /** Same for the read-only client. Left out: one is added, granted {@link READ_ONLY_SCOPES}. */
  readOnly?: string | undefined;
}

/** A seed turned into the starting state, with the clients whose credentials are handed out. */
export interface LoadedSeed {
  /** The starting state of the tenant. */
  state: TenantState;
  /** The machine-to-machine client granted every scope. */
  adminClientId: string;
  /** The machine-to-machine client granted read scopes only. */
  readOnlyClientId: string;
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

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random string of letters and digits, the alphabet of the platform's ids and secrets. */
function randomAlphanumeric(length: number): string {
  let out = "";
  for (let i = 0; i < length; i += 1) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** A new client id: 32 letters and digits, as on the platform. */
export function newClientId(): string {
  return randomAlphanumeric(32);
}

/** A new event stream id: `est_` and 22 letters and digits (26 characters). */
export function newEventStreamId(): string {
  return `est_${randomAlphanumeric(22)}`;
}

/**
 * Letters and digits derived from `text` (SHA-256, then base 62 digit by digit): the same text
 * always gives the same string, so generated tenants are the same on every run.
 */
function derivedAlphanumeric(text: string, length: number): string {
  let out = "";
  for (let round = 0; out.length < length; round += 1) {
    const digest = createHash("sha256").update(`${round}:${text}`).digest();
    for (const byte of digest) {
      // 248 = 4 * 62: dropping the bytes above it keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % ALPHANUMERIC.length];
    }
  }
  return out;
}

/** The kinds of application {@link generatedClients} cycles through. */
const GENERATED_KINDS = [
  { app_type: "regular_web", token_endpoint_auth_method: "client_secret_post" },
  { app_type: "spa", token_endpoint_auth_method: "none" },
  { app_type: "native", token_endpoint_auth_method: "none" },
  { app_type: "non_interactive", token_endpoint_auth_method: "client_secret_post" },
] as const;

/**
 * `count` plausible clients for large-tenant benchmarks (`extraClients`, `--clients N`): a regular
 * web app, a SPA, a native app and a machine-to-machine client in turn, with callbacks, origins
 * and grant types that fit their kind. Everything is derived from the index, secrets included, so
 * `generatedClients(n)[i]` is the same client on every run and for every `n > i`.
 */
export function generatedClients(count: number): SeedClient[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = GENERATED_KINDS[i % GENERATED_KINDS.length] ?? GENERATED_KINDS[0];
    const number = String(i + 1).padStart(5, "0");
    const host = `https://app-${number}.example.com`;
    const client: SeedClient = {
      client_id: derivedAlphanumeric(`generated client ${i}`, 32),
      name: `Generated ${kind.app_type} application ${number}`,
      description: `Generated for large-tenant benchmarks (${number})`,
      app_type: kind.app_type,
      is_first_party: true,
      oidc_conformant: true,
      token_endpoint_auth_method: kind.token_endpoint_auth_method,
    };
    if (kind.app_type === "non_interactive") {
      client.grant_types = ["client_credentials"];
    } else {
      client.callbacks = [`${host}/callback`];
      client.allowed_logout_urls = [`${host}/`];
      client.grant_types = ["authorization_code", "refresh_token"];
      if (kind.app_type === "spa") client.web_origins = [host];
    }
    if (kind.token_endpoint_auth_method !== "none") {
      client.client_secret = derivedAlphanumeric(`generated secret ${i}`, 64);
    }
    return client;
  });
}

/** A new client secret: 64 characters, as on the platform. */
function newClientSecret(): string {
  return randomAlphanumeric(64);
}

/** The fixed ids of the default seed, so tests can name the client they mean. */
export const DEFAULT_SEED_IDS = {
  /** A first-party regular web application, not OIDC conformant. */
  regularWeb: "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1",
  /** A single-page application, OIDC conformant. */
  spa: "T4qndmP50BA6aztVxtRVWGxCwFgWDETX",
  /** A third-party client with `third_party_security_mode: "strict"`. */
  strictThirdParty: "GYbdYoorpmT36DCgXSvFh0bSV7shxf65",
  /** The machine-to-machine client granted every scope. */
  admin: "1tr6DRqvs3cJOBWmQlSZxslV6kmpkixc",
  /** The machine-to-machine client granted read scopes only. */
  readOnly: "MNrMcw3g0NtAWxQ8mBpWPMCNFYrHfifU",
  /** The webhook event stream. */
  webhookStream: "est_O84nSDdMeE4qFON6OlztEs",
  /** The EventBridge event stream. */
  eventBridgeStream: "est_xdvcIfQlk0R2Hlls2DfZCl",
} as const;

function machineClient(clientId: string | undefined, name: string): SeedClient {
  return {
    client_id: clientId,
    name,
    description: "Machine-to-machine application that calls the management API",
    app_type: "non_interactive",
    is_first_party: true,
    oidc_conformant: true,
    grant_types: ["client_credentials"],
    token_endpoint_auth_method: "client_secret_post",
    custom_login_page_on: true,
  };
}

/** The default tenant: three applications, two machine-to-machine clients, two event streams. */
export const DEFAULT_SEED: TenantSeed = {
  tenant: "local-tenant",
  pushProvider: "guardian",
  clients: [
    {
      client_id: DEFAULT_SEED_IDS.regularWeb,
      name: "Customer Portal",
      description: "Server-rendered customer portal",
      app_type: "regular_web",
      is_first_party: true,
      oidc_conformant: false,
      callbacks: ["https://portal.example.com/callback", "http://localhost:3000/callback"],
      allowed_logout_urls: ["https://portal.example.com/"],
      web_origins: ["https://portal.example.com"],
      grant_types: ["authorization_code", "refresh_token", "implicit"],
      token_endpoint_auth_method: "client_secret_post",
      client_metadata: { team: "identity", tier: "gold" },
      logo_uri: "",
      initiate_login_uri: "https://portal.example.com/login",
    },
    {
      client_id: DEFAULT_SEED_IDS.spa,
      name: "Dashboard SPA",
      description: "Single-page dashboard",
      app_type: "spa",
      is_first_party: true,
      oidc_conformant: true,
      callbacks: ["https://dashboard.example.com/callback"],
      allowed_origins: ["https://dashboard.example.com"],
      web_origins: ["https://dashboard.example.com"],
      allowed_logout_urls: ["https://dashboard.example.com/"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
      cross_origin_authentication: true,
      refresh_token: {
        rotation_type: "rotating",
        expiration_type: "expiring",
        leeway: 0,
        token_lifetime: 2592000,
        infinite_token_lifetime: false,
        idle_token_lifetime: 1296000,
        infinite_idle_token_lifetime: false,
      },
    },
    {
      client_id: DEFAULT_SEED_IDS.strictThirdParty,
      name: "Partner Integration",
      description: "Third-party partner application",
      app_type: "regular_web",
      is_first_party: false,
      oidc_conformant: true,
      third_party_security_mode: "strict",
      redirection_policy: "open_redirect_protection",
      callbacks: ["https://partner.example.net/oauth/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_basic",
    },
    machineClient(DEFAULT_SEED_IDS.admin, "Tenant API admin (seeded)"),
    machineClient(DEFAULT_SEED_IDS.readOnly, "Tenant API read-only (seeded)"),
  ],
  eventStreams: [
    {
      id: DEFAULT_SEED_IDS.webhookStream,
      name: "audit-webhook",
      status: "enabled",
      subscriptions: [{ event_type: "user.created" }, { event_type: "user.deleted" }],
      destination: {
        type: "webhook",
        configuration: {
          webhook_endpoint: "https://hooks.example.com/tenant-events",
          webhook_authorization: { method: "bearer" },
        },
      },
      created_at: "2025-01-15T09:30:00.000Z",
      updated_at: "2025-01-15T09:30:00.000Z",
    },
    {
      id: DEFAULT_SEED_IDS.eventBridgeStream,
      name: "analytics-eventbridge",
      status: "enabled",
      subscriptions: [{ event_type: "user.updated" }],
      destination: {
        type: "eventbridge",
        configuration: { aws_account_id: "123456789012", aws_region: "us-east-1" },
      },
      created_at: "2025-02-03T14:05:00.000Z",
      updated_at: "2025-02-03T14:05:00.000Z",
    },
  ],
  grants: [
    { client_id: DEFAULT_SEED_IDS.admin, scope: [...ADMIN_SCOPES] },
    { client_id: DEFAULT_SEED_IDS.readOnly, scope: [...READ_ONLY_SCOPES] },
  ],
  admin: DEFAULT_SEED_IDS.admin,
  readOnly: DEFAULT_SEED_IDS.readOnly,
};

/** `clients[0].callbacks[2]: reason; ...`: each failure at its JSON path from the seed's root. */
function describe(failures: readonly PathFailure[], where: string): string {
  return failures
    .map((f) => {
      const path =
        f.path === "" ? where : f.path.startsWith("[") ? `${where}${f.path}` : `${where}.${f.path}`;
      return `${path}: ${f.reason}`;
    })
    .join("; ");
}

/** Whether a client authenticates with a secret, so the seed must give it one. */
function isConfidential(client: SeedClient): boolean {
  return (
    client.app_type === "non_interactive" ||
    (client.token_endpoint_auth_method !== undefined &&
      client.token_endpoint_auth_method !== null &&
      client.token_endpoint_auth_method !== "none")
  );
}

/** Options of {@link loadSeed} that add to whatever seed is used. */
export interface SeedExtras {
  /**
   * How many {@link generatedClients} to add after the seed's own clients (and after the
   * machine-to-machine clients the seed gets when it names none); default 0. Their ids must not
   * clash with the seed's.
   */
  extraClients?: number | undefined;
}

/**
 * Reads a seed file (JSON) or takes a seed object, checks it, and builds the starting state.
 * `extras.extraClients` adds generated clients to it (for benchmarks of large tenants).
 */
export function loadSeed(
  seed: TenantSeed | string = DEFAULT_SEED,
  extras: SeedExtras = {},
): LoadedSeed {
  let raw: unknown = seed;
  const source = typeof seed === "string" ? `invalid seed ${seed}` : "invalid seed";
  if (typeof seed === "string") {
    let text: string;
    try {
      text = readFileSync(resolve(seed), "utf8");
    } catch (error) {
      throw new SeedError(`${source}: cannot read the file: ${(error as Error).message}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new SeedError(`${source}: not JSON: ${(error as Error).message}`);
    }
  }
  if (!isPlainObject(raw)) throw new SeedError(`${source}: a seed must be a JSON object`);
  const input = raw as TenantSeed;
  const version = input.version ?? SEED_FORMAT_VERSION;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw new SeedError(
      `${source}: version: must be a positive integer (got ${JSON.stringify(version)})`,
    );
  }
  if (version > SEED_FORMAT_VERSION) {
    throw new SeedError(
      `${source}: version: ${version} is newer than this pulumi-tenant reads ` +
        `(${SEED_FORMAT_VERSION}); upgrade pulumi-tenant to load it`,
    );
  }
  const problems: string[] = [];
  const known = new Set([
    "version",
    "takenFrom",
    "takenAt",
    "replacedFields",
    "tenant",
    "pushProvider",
    "clients",
    "eventStreams",
    "grants",
    "admin",
    "readOnly",
  ]);
  for (const key of Object.keys(input)) {
    if (!known.has(key)) problems.push(`${key}: is not a seed member`);
  }

  const tenant = input.tenant ?? "local-tenant";
  if (typeof tenant !== "string" || tenant === "")
    problems.push("tenant: must be a non-empty string");
  const pushProvider = input.pushProvider ?? "guardian";
  if (!PUSH_PROVIDERS.includes(pushProvider)) {
    problems.push(`pushProvider: must be one of ${PUSH_PROVIDERS.join(", ")}`);
  }

  const clients: WireClient[] = [];
  const seedClients = input.clients ?? [];
  if (!Array.isArray(seedClients)) problems.push("clients: must be an array");
  const grants = new Map<string, string[]>();
  for (const [index, grant] of (input.grants ?? []).entries()) {
    if (
      !isPlainObject(grant) ||
      typeof grant.client_id !== "string" ||
      !Array.isArray(grant.scope)
    ) {
      problems.push(`grants[${index}]: must be {client_id: string, scope: string[]}`);
      continue;
    }
    grants.set(grant.client_id, grant.scope.map(String));
  }

  const clientPaths = new Map<string, string>();
  const addClient = (seedClient: SeedClient, where: string): string | undefined => {
    if (!isPlainObject(seedClient)) {
      problems.push(`${where}: must be an object`);
      return undefined;
    }
    const clientId = seedClient.client_id ?? newClientId();
    if (typeof clientId !== "string" || clientId === "") {
      problems.push(`${where}.client_id: must be a non-empty string`);
      return undefined;
    }
    const first = clientPaths.get(clientId);
    if (first !== undefined) {
      problems.push(
        `${where}.client_id: ${JSON.stringify(clientId)} is already the id of ${first}`,
      );
      return undefined;
    }
    clientPaths.set(clientId, where);
    const withSecret: SeedClient = { ...seedClient };
    if (withSecret.client_secret === SECRET_PLACEHOLDER) delete withSecret.client_secret;
    if (withSecret.client_secret === undefined && isConfidential(withSecret)) {
      withSecret.client_secret = newClientSecret();
    }
    // Seeds go through the same schema as PATCH bodies, so the state never holds what the API
    // itself would refuse; response-only fields are not part of that schema.
    const settable = Object.fromEntries(
      Object.entries(withSecret).filter(([field]) => !RESPONSE_ONLY_FIELDS.includes(field)),
    );
    const failures = [...validateWire("clientUpdate", settable)];
    if (typeof withSecret.name !== "string") failures.push({ path: "name", reason: "is required" });
    const client = withResponseDefaults({ ...withSecret, client_id: clientId }, tenant);
    failures.push(...storedClientRuleFailures(client, {}, client));
    if (failures.length > 0) {
      problems.push(describe(failures, where));
      return undefined;
    }
    clients.push(client);
    return clientId;
  };

  if (Array.isArray(seedClients)) {
    seedClients.forEach((client, index) => {
      addClient(client, `clients[${index}]`);
    });
  }

  const credentialClient = (
    role: "admin" | "readOnly",
    name: string,
    scopes: readonly string[],
  ): string => {
    const wanted = input[role];
    if (wanted === undefined) {
      const added = addClient(machineClient(undefined, name), role);
      if (added === undefined) return "";
      grants.set(added, [...scopes]);
      return added;
    }
    const client = clients.find((c) => c.client_id === wanted);
    if (client === undefined) problems.push(`${role}: no seeded client has client_id ${wanted}`);
    else if (typeof client.client_secret !== "string") {
      problems.push(`${role}: client ${wanted} has no client_secret`);
    } else if (!grants.has(wanted)) problems.push(`${role}: client ${wanted} has no grant`);
    return wanted;
  };
  const adminClientId = credentialClient("admin", "Tenant API admin (seeded)", ADMIN_SCOPES);
  const readOnlyClientId = credentialClient(
    "readOnly",
    "Tenant API read-only (seeded)",
    READ_ONLY_SCOPES,
  );

  const extraClients = extras.extraClients ?? 0;
  if (!Number.isInteger(extraClients) || extraClients < 0) {
    problems.push(`extraClients: must be a non-negative integer, got ${extraClients}`);
  } else {
    generatedClients(extraClients).forEach((client, index) => {
      addClient(client, `(generated clients)[${index}]`);
    });
  }

  for (const clientId of grants.keys()) {
    if (!clients.some((c) => c.client_id === clientId)) {
      problems.push(`grants: no seeded client has client_id ${clientId}`);
    }
  }

  const eventStreams: WireEventStream[] = [];
  const streamPaths = new Map<string, string>();
  const seedStreams = input.eventStreams ?? [];
  if (!Array.isArray(seedStreams)) problems.push("eventStreams: must be an array");
  else {
    seedStreams.forEach((item, index) => {
      const stream = typeof item === "string" ? { id: item } : item;
      const where =
        typeof item === "string" ? `eventStreams[${index}]` : `eventStreams[${index}].id`;
      if (!isPlainObject(stream) || typeof stream.id !== "string") {
        problems.push(`eventStreams[${index}]: must be an id or an object with a string id`);
        return;
      }
      const failures = validateWire("eventStreamId", stream.id);
      const first = streamPaths.get(stream.id);
      if (failures.length > 0) {
        problems.push(`${describe(failures, where)} (${JSON.stringify(stream.id)})`);
      } else if (first !== undefined) {
        problems.push(`${where}: ${JSON.stringify(stream.id)} is already the id of ${first}`);
      } else {
        streamPaths.set(stream.id, `eventStreams[${index}]`);
        eventStreams.push(structuredClone(stream));
      }
    });
  }

  const replaced = input.replacedFields ?? [];
  if (!Array.isArray(replaced) || replaced.some((path) => typeof path !== "string")) {
    problems.push("replacedFields: must be an array of strings");
  }
  if (problems.length > 0) throw new SeedError(`${source}: ${problems.join("; ")}`);
  return {
    state: {
      tenant,
      pushProvider,
      clients,
      eventStreams,
      grants: [...grants].map(([client_id, scope]) => ({ client_id, scope })),
    },
    adminClientId,
    readOnlyClientId,
  };
}
