import type { FromSchema } from "json-schema-to-ts";

/**
 * Inputs of `EventStreamDeletion`: the identifier of the stream to delete, exactly 26 characters,
 * e.g. `est_` followed by 22 letters and digits (docs/design/platform.md, "Event streams").
 */
export const eventStreamDeletionSchema = {
  type: "object",
  description: "An event stream that must not exist.",
  properties: {
    eventStreamId: {
      type: "string",
      minLength: 26,
      maxLength: 26,
      // A lone surrogate cannot be put in a URL path: refuse it here, at preview.
      pattern: "^[^\\uD800-\\uDFFF]*$",
      "x-pattern-reason": "must be valid Unicode text (it holds a lone surrogate)",
      description: "Identifier of the event stream to delete; exactly 26 characters.",
    },
  },
  required: ["eventStreamId"],
  additionalProperties: false,
} as const;

/** The plain (already resolved) inputs of `EventStreamDeletion`, derived from its schema. */
export type EventStreamDeletionInputs = FromSchema<typeof eventStreamDeletionSchema>;
