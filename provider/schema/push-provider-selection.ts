import type { FromSchema } from "json-schema-to-ts";

/** The push notification providers the platform knows (docs/design/platform.md, "Push providers"). */
export const PUSH_PROVIDERS = ["guardian", "sns", "direct"] as const;

/**
 * Inputs of `PushProviderSelection` (docs/design/platform.md, "The three operations"): exactly one
 * required `provider`; nothing
 * else is allowed, as in the API's request body.
 */
export const pushProviderSelectionSchema = {
  type: "object",
  description: "The push notification provider the tenant uses for the multi-factor push factor.",
  properties: {
    provider: {
      type: "string",
      enum: PUSH_PROVIDERS,
      description:
        "`guardian` (the platform's own), `sns` (Amazon SNS) or `direct` (APNs and FCM directly).",
    },
  },
  required: ["provider"],
  additionalProperties: false,
} as const;

/** The plain (already resolved) inputs of `PushProviderSelection`, derived from its schema. */
export type PushProviderSelectionInputs = FromSchema<typeof pushProviderSelectionSchema>;
