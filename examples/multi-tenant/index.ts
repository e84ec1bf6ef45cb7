/**
 * One program, two tenants: the settings of the customer portal and the dashboard, and the MFA
 * push provider, kept the same in staging and production. Each resource says which tenant it belongs to with its `tenant`
 * input; one connection object is shared by all the resources of a tenant. The stack config's
 * `tenant:*` keys are not used.
 *
 * Stack config (namespace `multi-tenant`; see docs/installation-configuration.md, "Several tenants"):
 *   stagingDomain, stagingClientId, stagingClientSecret (secret),
 *   stagingPortalClientId, stagingDashboardClientId; the same five keys for production
 *
 *   pulumi config set multi-tenant:stagingDomain acme-staging.tenants.example
 *   pulumi config set multi-tenant:stagingClientId 1tr6DRqvs3cJOBWmQlSZxslV6kmpkixc
 *   pulumi config set --secret multi-tenant:stagingClientSecret    # prompts; stored encrypted
 */
import * as pulumi from "@pulumi/pulumi";
import { ClientSettings, PushProviderSelection } from "pulumi-tenant";

const config = new pulumi.Config("multi-tenant");

for (const environment of ["staging", "production"]) {
  // The credentials stay secret: in the inputs, the outputs and the state, and the package makes
  // them secret even when given as plain strings. The domain shows in previews.
  const tenant = {
    domain: config.require(`${environment}Domain`),
    clientId: config.require(`${environment}ClientId`),
    clientSecret: config.requireSecret(`${environment}ClientSecret`),
  };

  new PushProviderSelection(`${environment}-mfa-push`, { tenant, provider: "sns" });

  new ClientSettings(`${environment}-portal`, {
    tenant,
    clientId: config.require(`${environment}PortalClientId`),
    description: "Customer portal (managed by the platform team)",
    callbacks: ["https://portal.example.com/callback"],
    jwtConfiguration: { lifetimeInSeconds: 3600 },
    // Only these keys are managed; the environment tells the two tenants' copies apart.
    clientMetadata: { owner: "platform-team", environment },
  });

  new ClientSettings(`${environment}-dashboard`, {
    tenant,
    clientId: config.require(`${environment}DashboardClientId`),
    allowedOrigins: ["https://dashboard.example.com"],
    webOrigins: ["https://dashboard.example.com"],
    callbacks: ["https://dashboard.example.com/callback"],
  });
}
