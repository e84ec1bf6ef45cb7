/**
 * The stack config of the programs the tests, the demo and the benchmarks run against a local
 * tenant API. Free of vitest, so that scripts run with tsx can use it too.
 */
import type { TenantApi } from "../../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../../provider/local-tenant/seed.js";
import type { ConfigValues } from "./pulumi.js";

/** The stack config that connects to `api` with its client credentials (the secret a secret). */
export function tenantConfig(api: TenantApi): ConfigValues {
  return {
    "tenant:domain": { value: api.domain },
    "tenant:clientId": { value: api.clientId },
    "tenant:clientSecret": { value: api.clientSecret, secret: true },
  };
}

/** The stack config that the tenant example needs, for the default seed. */
export function tenantExampleConfig(): ConfigValues {
  return {
    "tenant-example:portalClientId": { value: DEFAULT_SEED_IDS.regularWeb },
    "tenant-example:dashboardClientId": { value: DEFAULT_SEED_IDS.spa },
    "tenant-example:staleEventStreamId": { value: DEFAULT_SEED_IDS.webhookStream },
  };
}
