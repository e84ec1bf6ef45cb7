/**
 * The program under test: the settings a platform team keeps for its tenant. `tenant.test.ts`
 * runs it against a local copy of the tenant (a seed taken with `pulumi-tenant snapshot`).
 */
import { ClientSettings, EventStreamDeletion, PushProviderSelection } from "pulumi-tenant";

// MFA push notifications go through Amazon SNS.
new PushProviderSelection("mfa-push", { provider: "sns" });

// The customer portal: where users are sent back to, and short-lived ID tokens.
new ClientSettings("portal", {
  clientId: "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1",
  callbacks: ["https://portal.example.com/callback"],
  oidcConformant: true,
  jwtConfiguration: { lifetimeInSeconds: 3600 },
  clientMetadata: { owner: "platform-team" },
});

// The retired audit webhook must stay deleted.
new EventStreamDeletion("retired-webhook", { eventStreamId: "est_O84nSDdMeE4qFON6OlztEs" });
