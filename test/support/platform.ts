/**
 * Values of the platform written out from docs/design/platform.md, not from the schema, so that the
 * tests that compare the schema with them can notice a value missing from it.
 */

/** The eight `app_type` values the platform names ("Client fields"). */
export const PLATFORM_APP_TYPES = [
  "native",
  "spa",
  "regular_web",
  "non_interactive",
  "resource_server",
  "express_configuration",
  "sso_integration",
  "oag",
];
