import { TenantConfigError } from "./errors.js";

/**
 * Where settings come from: the stack config the engine hands to the provider's `configure`
 * (keys `tenant:domain`, ...), then the `TENANT_*` environment variables.
 */
export interface ConfigSource {
  /** The value of a namespaced stack config key (`tenant:domain`), or undefined. */
  get(key: string): string | undefined;
}

/** How the provider authenticates to the tenant management API. */
export type Credentials =
  | { readonly kind: "apiToken"; readonly token: string }
  | {
      readonly kind: "clientCredentials";
      readonly clientId: string;
      readonly clientSecret: string;
      readonly audience: string;
      readonly tokenUrl: string;
    };

/** Everything the API client needs to reach one tenant. */
export interface TenantSettings {
  /** `https://host[:port]` (or `http://` for a loopback host). */
  readonly origin: string;
  /** `${origin}/api/v2`: every API path is relative to it. */
  readonly baseUrl: string;
  readonly credentials: Credentials;
  /** Bound on a single HTTP attempt. */
  readonly requestTimeoutMs: number;
  /** Bound on a whole provider operation, retries and rate-limit waits included. */
  readonly operationTimeoutMs: number;
}

/** The stack config keys and their environment fallbacks, in one place for the docs and errors. */
export const CONFIG_KEYS = {
  domain: { key: "tenant:domain", env: "TENANT_DOMAIN" },
  apiToken: { key: "tenant:apiToken", env: "TENANT_API_TOKEN" },
  clientId: { key: "tenant:clientId", env: "TENANT_CLIENT_ID" },
  clientSecret: { key: "tenant:clientSecret", env: "TENANT_CLIENT_SECRET" },
  audience: { key: "tenant:audience", env: "TENANT_AUDIENCE" },
  requestTimeout: { key: "tenant:requestTimeoutSeconds", env: "TENANT_REQUEST_TIMEOUT_SECONDS" },
  operationTimeout: {
    key: "tenant:operationTimeoutSeconds",
    env: "TENANT_OPERATION_TIMEOUT_SECONDS",
  },
} as const;

/** 30 s per attempt: the platform answers in well under a second; anything longer is stuck. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * 10 min per operation: long enough for a resource that waits its turn behind hundreds of others
 * at a free tenant's 2 requests per second, short enough that a pipeline never hangs.
 */
export const DEFAULT_OPERATION_TIMEOUT_MS = 600_000;

const HOW_TO_CONFIGURE =
  "set tenant:domain (or TENANT_DOMAIN) and either tenant:apiToken (TENANT_API_TOKEN) or " +
  "tenant:clientId and tenant:clientSecret (TENANT_CLIENT_ID, TENANT_CLIENT_SECRET), " +
  "e.g. `pulumi config set tenant:domain acme.tenants.example` and " +
  "`pulumi config set --secret tenant:clientSecret ...`";

/**
 * Reads the tenant settings: stack config first, environment second. Empty strings count as
 * unset, so `TENANT_API_TOKEN=` in a CI job does not shadow the client credentials.
 *
 * @throws {TenantConfigError} when the domain or the credentials are missing, when the domain is
 *   not a host or an origin, or when it asks for plain `http://` to a host that is not loopback
 *   (a bearer token must never cross a network unencrypted).
 */
export function resolveSettings(
  config: ConfigSource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): TenantSettings {
  const read = (name: keyof typeof CONFIG_KEYS): string | undefined => {
    const { key, env: envName } = CONFIG_KEYS[name];
    const value = config?.get(key) ?? env[envName];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };

  const domain = read("domain");
  if (!domain) {
    throw new TenantConfigError(`pulumi-tenant is not configured: ${HOW_TO_CONFIGURE}`);
  }
  const origin = parseDomain(domain);
  const baseUrl = `${origin}/api/v2`;

  const apiToken = read("apiToken");
  const clientId = read("clientId");
  const clientSecret = read("clientSecret");
  let credentials: Credentials;
  if (apiToken) {
    credentials = { kind: "apiToken", token: apiToken };
  } else if (clientId && clientSecret) {
    credentials = {
      kind: "clientCredentials",
      clientId,
      clientSecret,
      audience: read("audience") ?? `${baseUrl}/`,
      tokenUrl: `${origin}/oauth/token`,
    };
  } else if (clientId || clientSecret) {
    const missing = clientId ? "tenant:clientSecret" : "tenant:clientId";
    throw new TenantConfigError(
      `pulumi-tenant has incomplete client credentials: ${missing} is missing; ${HOW_TO_CONFIGURE}`,
    );
  } else {
    throw new TenantConfigError(`pulumi-tenant has no credentials: ${HOW_TO_CONFIGURE}`);
  }

  return {
    origin,
    baseUrl,
    credentials,
    requestTimeoutMs: readSeconds(
      "requestTimeout",
      read("requestTimeout"),
      DEFAULT_REQUEST_TIMEOUT_MS,
    ),
    operationTimeoutMs: readSeconds(
      "operationTimeout",
      read("operationTimeout"),
      DEFAULT_OPERATION_TIMEOUT_MS,
    ),
  };
}

function readSeconds(
  name: keyof typeof CONFIG_KEYS,
  value: string | undefined,
  fallbackMs: number,
): number {
  if (value === undefined) return fallbackMs;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new TenantConfigError(
      `${CONFIG_KEYS[name].key} must be a positive number of seconds (got "${value}")`,
    );
  }
  return Math.round(seconds * 1000);
}

/**
 * `acme.tenants.example` means `https://acme.tenants.example`; a value with a scheme is taken as
 * an origin. Paths are refused rather than guessed at: `https://host/api/v2` would otherwise
 * become `https://host/api/v2/api/v2`.
 */
export function parseDomain(domain: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(domain) ? domain : `https://${domain}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TenantConfigError(
      `tenant:domain "${domain}" is not a host name or an https:// origin`,
    );
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") {
    throw new TenantConfigError(
      `tenant:domain "${domain}" must be a host (acme.tenants.example) or an origin ` +
        `(https://acme.tenants.example), without a path, query or credentials`,
    );
  }
  if (url.protocol === "http:") {
    if (!isLoopbackHost(url.hostname)) {
      throw new TenantConfigError(
        `tenant:domain "${domain}" uses plain http:// to a host that is not loopback; ` +
          "the management API must be reached over https:// (http:// is accepted only for " +
          "127.0.0.0/8, ::1 and localhost, i.e. the local tenant API)",
      );
    }
  } else if (url.protocol !== "https:") {
    throw new TenantConfigError(
      `tenant:domain "${domain}" has the scheme ${url.protocol.slice(0, -1)}; use https://`,
    );
  }
  return url.origin;
}

/** True for `localhost`, any 127.0.0.0/8 address and `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host === "::1") return true;
  const octets = host.split(".");
  return (
    octets.length === 4 &&
    octets[0] === "127" &&
    octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)
  );
}

let configSource: ConfigSource | undefined;
let cachedSettings: TenantSettings | undefined;

/**
 * Remembers the stack config the engine passed to a provider's `configure`. Synchronous on
 * purpose: the dynamic-provider host starts `configure` and may run another call of the same
 * provider before that promise settles, so nothing may happen after an `await` here.
 */
export function useStackConfig(config: ConfigSource | undefined): void {
  configSource = config;
  cachedSettings = undefined;
}

/**
 * The settings for this process, resolved on first use (so that `check` and `diff`, which never
 * call the API, work in a preview without credentials).
 *
 * @throws {TenantConfigError} as {@link resolveSettings}.
 */
export function currentSettings(): TenantSettings {
  cachedSettings ??= resolveSettings(configSource);
  return cachedSettings;
}
