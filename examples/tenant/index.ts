/**
 * The configuration of one tenant, as a platform team would keep it in its repository.
 *
 * Stack config (see README):
 *   tenant:domain, and tenant:apiToken or tenant:clientId + tenant:clientSecret (as secrets)
 *   tenant-example:portalClientId      the regular web application
 *   tenant-example:dashboardClientId   the single-page application
 *   tenant-example:staleEventStreamId  an event stream that must not exist any more
 */
import * as pulumi from "@pulumi/pulumi";
import { ClientSettings, EventStreamDeletion, PushProviderSelection } from "pulumi-tenant";

const config = new pulumi.Config("tenant-example");

// MFA push notifications go through Amazon SNS (the platform's own push service is `guardian`).
new PushProviderSelection("mfa-push", { provider: "sns" });

const portal = new ClientSettings("portal", {
  clientId: config.require("portalClientId"),
  description: "Customer portal (managed by the platform team)",
  callbacks: ["https://portal.example.com/callback"],
  allowedLogoutUrls: ["https://portal.example.com/"],
  webOrigins: ["https://portal.example.com"],
  // Short-lived ID tokens; the platform keeps the signing algorithm it has.
  jwtConfiguration: { lifetimeInSeconds: 3600 },
  refreshToken: {
    rotationType: "rotating",
    expirationType: "expiring",
    tokenLifetime: 2_592_000,
    idleTokenLifetime: 1_296_000,
  },
  // Only these keys are managed; other metadata keys of the client stay as they are.
  clientMetadata: { owner: "platform-team", costCenter: "cc-1042" },
});

const dashboard = new ClientSettings("dashboard", {
  clientId: config.require("dashboardClientId"),
  allowedOrigins: ["https://dashboard.example.com"],
  webOrigins: ["https://dashboard.example.com"],
  callbacks: ["https://dashboard.example.com/callback"],
  oidcConformant: true,
  // Members must pick their organization after logging in.
  organizationUsage: "require",
  organizationRequireBehavior: "post_login_prompt",
});

// An old webhook stream that was replaced: make sure it stays gone.
new EventStreamDeletion("retired-webhook", {
  eventStreamId: config.require("staleEventStreamId"),
});

export const portalCallbacks = portal.callbacks;
export const dashboardOrganizationUsage = dashboard.organizationUsage;
