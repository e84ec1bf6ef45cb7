/**
 * The example of each resource that its description in the package schema carries, the same
 * program in TypeScript, Python, Go and YAML, in the `{{% examples %}}` shortcodes from which the
 * Registry's API pages and the SDKs' docs are made (DESIGN.md's docs section, docs/_index.md). The
 * docs test (test/docs.test.ts) type-checks each block against the package and the generated
 * SDKs, so an example that stops compiling fails the build.
 *
 * @module
 */

import type { ResourceKind } from "../schema/index.js";

/** One resource's example, in each language the Registry's chooser shows. */
interface ResourceExample {
  /** The example's heading. */
  readonly title: string;
  readonly typescript: string;
  readonly python: string;
  readonly go: string;
  readonly yaml: string;
}

/** The languages of an example, in the order the Registry lists them. */
const LANGUAGES = ["typescript", "python", "go", "yaml"] as const;

/** A Go program around `body`, the statements of its `pulumi.Run` function. */
function goProgram(body: string): string {
  return [
    "package main",
    "",
    "import (",
    '\t"github.com/pulumi-tenant/pulumi-tenant/sdk/go/tenant"',
    '\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"',
    ")",
    "",
    "func main() {",
    "\tpulumi.Run(func(ctx *pulumi.Context) error {",
    body,
    "\t})",
    "}",
  ].join("\n");
}

/**
 * Each resource's example, in every language the Registry's chooser shows. Exported for the docs
 * test, which type-checks each block against the package.
 *
 * @internal
 */
export const RESOURCE_EXAMPLES: Readonly<Record<ResourceKind, ResourceExample>> = {
  PushProviderSelection: {
    title: "MFA push notifications through Amazon SNS",
    typescript: [
      'import { PushProviderSelection } from "pulumi-tenant";',
      "",
      'new PushProviderSelection("mfa-push", { provider: "sns" });',
    ].join("\n"),
    python: [
      "import pulumi_tenant as tenant",
      "",
      'tenant.PushProviderSelection("mfa-push", provider="sns")',
    ].join("\n"),
    go: goProgram(
      [
        '\t\t_, err := tenant.NewPushProviderSelection(ctx, "mfa-push", &tenant.PushProviderSelectionArgs{',
        '\t\t\tProvider: pulumi.String("sns"),',
        "\t\t})",
        "\t\treturn err",
      ].join("\n"),
    ),
    yaml: [
      "resources:",
      "  mfa-push:",
      "    type: tenant:index:PushProviderSelection",
      "    properties:",
      "      provider: sns",
    ].join("\n"),
  },
  ClientSettings: {
    title: "A client's callbacks, token lifetime and refresh token rotation",
    typescript: [
      'import { ClientSettings } from "pulumi-tenant";',
      "",
      'new ClientSettings("portal", {',
      '  clientId: "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1",',
      '  callbacks: ["https://portal.example.com/callback"],',
      "  jwtConfiguration: { lifetimeInSeconds: 3600 },",
      '  refreshToken: { rotationType: "rotating", expirationType: "expiring" },',
      "});",
    ].join("\n"),
    python: [
      "import pulumi_tenant as tenant",
      "",
      "tenant.ClientSettings(",
      '    "portal",',
      '    client_id="OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1",',
      '    callbacks=["https://portal.example.com/callback"],',
      "    jwt_configuration=tenant.ClientSettingsJwtConfigurationArgs(lifetime_in_seconds=3600),",
      "    refresh_token=tenant.ClientSettingsRefreshTokenArgs(",
      '        rotation_type="rotating", expiration_type="expiring"',
      "    ),",
      ")",
    ].join("\n"),
    go: goProgram(
      [
        '\t\t_, err := tenant.NewClientSettings(ctx, "portal", &tenant.ClientSettingsArgs{',
        '\t\t\tClientId:         pulumi.String("OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1"),',
        '\t\t\tCallbacks:        pulumi.StringArray{pulumi.String("https://portal.example.com/callback")},',
        "\t\t\tJwtConfiguration: &tenant.ClientSettingsJwtConfigurationArgs{LifetimeInSeconds: pulumi.Int(3600)},",
        "\t\t\tRefreshToken: &tenant.ClientSettingsRefreshTokenArgs{",
        '\t\t\t\tRotationType:   pulumi.String("rotating"),',
        '\t\t\t\tExpirationType: pulumi.String("expiring"),',
        "\t\t\t},",
        "\t\t})",
        "\t\treturn err",
      ].join("\n"),
    ),
    yaml: [
      "resources:",
      "  portal:",
      "    type: tenant:index:ClientSettings",
      "    properties:",
      "      clientId: OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1",
      "      callbacks: [https://portal.example.com/callback]",
      "      jwtConfiguration:",
      "        lifetimeInSeconds: 3600",
      "      refreshToken:",
      "        rotationType: rotating",
      "        expirationType: expiring",
    ].join("\n"),
  },
  EventStreamDeletion: {
    title: "A retired event stream that must not come back",
    typescript: [
      'import { EventStreamDeletion } from "pulumi-tenant";',
      "",
      'new EventStreamDeletion("retired-webhook", { eventStreamId: "est_O84nSDdMeE4qFON6OlztEs" });',
    ].join("\n"),
    python: [
      "import pulumi_tenant as tenant",
      "",
      'tenant.EventStreamDeletion("retired-webhook", event_stream_id="est_O84nSDdMeE4qFON6OlztEs")',
    ].join("\n"),
    go: goProgram(
      [
        '\t\t_, err := tenant.NewEventStreamDeletion(ctx, "retired-webhook", &tenant.EventStreamDeletionArgs{',
        '\t\t\tEventStreamId: pulumi.String("est_O84nSDdMeE4qFON6OlztEs"),',
        "\t\t})",
        "\t\treturn err",
      ].join("\n"),
    ),
    yaml: [
      "resources:",
      "  retired-webhook:",
      "    type: tenant:index:EventStreamDeletion",
      "    properties:",
      "      eventStreamId: est_O84nSDdMeE4qFON6OlztEs",
    ].join("\n"),
  },
};

/**
 * The `{{% examples %}}` section of `kind`'s description: one `{{% example %}}` with a fenced
 * block per language, as Pulumi's schema tooling and the Registry read it.
 */
export function examplesSection(kind: ResourceKind): string {
  const example = RESOURCE_EXAMPLES[kind];
  const blocks = LANGUAGES.map((language) => `\`\`\`${language}\n${example[language]}\n\`\`\``);
  return [
    "{{% examples %}}",
    "## Example Usage",
    "",
    "{{% example %}}",
    `### ${example.title}`,
    "",
    blocks.join("\n\n"),
    "",
    "{{% /example %}}",
    "{{% /examples %}}",
  ].join("\n");
}
