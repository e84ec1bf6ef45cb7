import type * as pulumi from "@pulumi/pulumi";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { CONNECTION_SETTINGS, STACK_TENANT_KEY } from "../../provider/connection/schema.js";
import {
  startTenantApi,
  type TenantApi,
  type TenantApiOptions,
} from "../../provider/local-tenant/index.js";
import { ClientSettingsProvider } from "../../provider/providers/client-settings.js";
import { EventStreamDeletionProvider } from "../../provider/providers/event-stream-deletion.js";
import { PushProviderSelectionProvider } from "../../provider/providers/push-provider-selection.js";

/** The three provider implementations, configured against one local tenant API. */
export interface Harness {
  readonly api: TenantApi;
  readonly push: PushProviderSelectionProvider;
  readonly clients: ClientSettingsProvider;
  readonly streams: EventStreamDeletionProvider;
  /**
   * Plays the start of another command. Pulumi runs each command in a new provider process, so
   * nothing one command read is served to the next: a test that changes the tenant out of band
   * and then reads, as a later `refresh` would, calls this in between.
   */
  newCommand(): Promise<void>;
  /**
   * The output a create or an update records for a resource without a `tenant` input: the stack
   * config's connection (provider/connection/change.ts, `stackTenantOutput`).
   */
  readonly recorded: Readonly<Record<string, unknown>>;
  /** Requests to the management API since the harness started (or the last `resetStats`). */
  apiCalls(): number;
  /** Requests by `METHOD /route` since the start. */
  calls(route: string): number;
  stop(): Promise<void>;
}

/** Stack config as the dynamic-provider host hands it to `configure`. */
export function stackConfig(values: Record<string, string>): pulumi.dynamic.Config {
  return {
    get: (key) => values[key],
    require: (key) => {
      const value = values[key];
      if (value === undefined) throw new Error(`Missing required configuration key: ${key}`);
      return value;
    },
  };
}

/** Stack config that authenticates as the tenant's read-only machine-to-machine client. */
export function readOnlyConfig(api: TenantApi): Record<string, string> {
  return {
    "tenant:domain": api.domain,
    "tenant:clientId": api.readOnly.clientId,
    "tenant:clientSecret": api.readOnly.clientSecret,
  };
}

/** What a resource records of the stack config `config` (see {@link Harness.recorded}). */
function recordedConnection(config: Record<string, string>): Record<string, unknown> {
  const members = CONNECTION_SETTINGS.flatMap((setting) => {
    const value = config[`tenant:${setting}`];
    return value === undefined ? [] : [[setting, value] as const];
  });
  return { [STACK_TENANT_KEY]: Object.fromEntries(members) };
}

/**
 * Starts a local tenant API and configures the providers for it, with its client credentials
 * (or the given config). Each test gets its own tenant: nothing leaks from one test to the next.
 */
export async function startHarness(
  options: TenantApiOptions & { config?: (api: TenantApi) => Record<string, string> } = {},
): Promise<Harness> {
  const api = await startTenantApi(options);
  const config =
    options.config?.(api) ??
    ({
      "tenant:domain": api.domain,
      "tenant:clientId": api.clientId,
      "tenant:clientSecret": api.clientSecret,
    } satisfies Record<string, string>);
  const push = new PushProviderSelectionProvider();
  const clients = new ClientSettingsProvider();
  const streams = new EventStreamDeletionProvider();
  // One configure is enough (the settings are per process), as in the provider host.
  await push.configure({ config: stackConfig(config) });
  return {
    api,
    push,
    clients,
    streams,
    newCommand: () => clients.configure({ config: stackConfig(config) }),
    recorded: recordedConnection(config),
    apiCalls: () => api.stats().api,
    calls: (route) => api.stats().byRoute[route] ?? 0,
    stop: () => api.stop(),
  };
}

/**
 * A fresh harness, so a fresh tenant, for each test: started before the test and handed to
 * `started`; after it, the harness `current` returns then is stopped, so a test may replace the
 * harness with one configured otherwise.
 */
export function useHarnessPerTest(
  started: (h: Harness) => void,
  current: () => Harness | undefined,
): void {
  beforeEach(async () => started(await startHarness()));
  afterEach(async () => {
    await current()?.stop();
  });
}

/** What {@link useFileHarness} hands a test file. */
export interface FileHarness {
  /** The harness, once the file's first test has started. */
  readonly h: () => Harness;
  /**
   * Puts the client back as seeded and starts a new command, as an out-of-band change between two
   * commands would be followed by a new provider process.
   */
  reset(): Promise<void>;
}

/**
 * One harness for a whole file whose tests all work on the client `clientId`: started before the
 * first test, stopped after the last, with {@link FileHarness.reset} for the tests (and property
 * runs) that must each meet the client as seeded.
 */
export function useFileHarness(clientId: string): FileHarness {
  let harness: Harness | undefined;
  let original: Record<string, unknown> | undefined;
  const h = (): Harness => {
    if (harness === undefined) throw new Error("the file's harness has not started yet");
    return harness;
  };
  beforeAll(async () => {
    harness = await startHarness();
    original = harness.api.store.getClient(clientId) as Record<string, unknown> | undefined;
  });
  afterAll(async () => {
    await harness?.stop();
  });
  return {
    h,
    reset: async () => {
      if (original !== undefined) h().api.store.putClient(original as never);
      await h().newCommand();
    },
  };
}
