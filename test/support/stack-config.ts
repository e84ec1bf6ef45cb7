/**
 * The stack config of the programs the tests, the demo and the benchmarks run against a local
 * tenant API. Free of vitest, so that scripts run with tsx can use it too.
 */
import type { TenantApi } from "../../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../../provider/local-tenant/seed.js";
import type { ConfigValues } from "./pulumi.js";

/**
 * The stack config that connects to `api` with its admin client's credentials, as secrets: its
 * private key when the tenant was started with `privateKeyJwt`, else its secret.
 */
export function tenantConfig(api: TenantApi): ConfigValues {
  return {
    "tenant:domain": { value: api.domain },
    "tenant:clientId": { value: api.clientId },
    ...(api.clientAssertionPrivateKey === undefined
      ? { "tenant:clientSecret": { value: api.clientSecret, secret: true } }
      : {
          "tenant:clientAssertionPrivateKey": {
            value: api.clientAssertionPrivateKey,
            secret: true,
          },
        }),
  };
}

/**
 * Every text of `api`'s admin credentials that a state, an output or a log must never hold: its
 * secret, and with `privateKeyJwt` each line of its private key's PEM body and the base64 of its
 * DER on one line.
 */
export function credentialTexts(api: TenantApi): string[] {
  const pem = api.clientAssertionPrivateKey;
  if (pem === undefined) return [api.clientSecret];
  const body = pem.split("\n").filter((line) => line !== "" && !line.startsWith("-----"));
  return [api.clientSecret, body.join(""), ...body];
}

/** The stack config that the tenant example needs, for the default seed. */
export function tenantExampleConfig(): ConfigValues {
  return {
    "tenant-example:portalClientId": { value: DEFAULT_SEED_IDS.regularWeb },
    "tenant-example:dashboardClientId": { value: DEFAULT_SEED_IDS.spa },
    "tenant-example:staleEventStreamId": { value: DEFAULT_SEED_IDS.webhookStream },
  };
}
