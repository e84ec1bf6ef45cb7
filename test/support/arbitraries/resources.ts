/**
 * Valid and invalid inputs of the three resources, built by walking their schemas (see `walk.ts`),
 * plus what the schemas alone cannot say: the cross-field rule of `ClientSettings`, and ids that
 * look like the platform's own.
 *
 * @module
 */

import fc from "fast-check";
import { clientSettingsSchema } from "../../../provider/schema/client-settings.js";
import { eventStreamDeletionSchema } from "../../../provider/schema/event-stream-deletion.js";
import { NAME_KEY } from "../../../provider/schema/index.js";
import { pushProviderSelectionSchema } from "../../../provider/schema/push-provider-selection.js";
import { keyStep } from "./paths.js";
import {
  type InvalidCase,
  invalidInputs,
  mutation,
  type SchemaNode,
  sparseValidFor,
  validFor,
} from "./walk.js";

/** The schemas as the walker sees them. */
export const SCHEMA_NODES = {
  ClientSettings: clientSettingsSchema as unknown as SchemaNode,
  PushProviderSelection: pushProviderSelectionSchema as unknown as SchemaNode,
  EventStreamDeletion: eventStreamDeletionSchema as unknown as SchemaNode,
} as const;

type Inputs = Record<string, unknown>;

/**
 * Sometimes the reserved keys the engine and the resource classes add (the resource's name,
 * `__provider`):
 * `check` must keep them and never validate them.
 */
function withReservedKeys(inputs: fc.Arbitrary<Inputs>): fc.Arbitrary<Inputs> {
  return fc
    .tuple(
      inputs,
      fc.record(
        {
          [NAME_KEY]: fc.string({ minLength: 1, maxLength: 8 }),
          // The property the dynamic-provider host adds to every resource.
          __provider: fc.constant("proxy"),
        },
        { requiredKeys: [], noNullPrototype: true },
      ),
    )
    .map(([fields, reserved]) => ({ ...fields, ...reserved }));
}

/**
 * Spec 4.2 rule 3, which no single field's schema can state: a program that declares both
 * `organizationRequireBehavior: "post_login_prompt"` and `oidcConformant` must declare it true.
 */
function obeyPostLoginPromptRule(inputs: Inputs): Inputs {
  return inputs.organizationRequireBehavior === "post_login_prompt" &&
    inputs.oidcConformant === false
    ? { ...inputs, oidcConformant: true }
    : inputs;
}

/** Valid `ClientSettings` inputs: `clientId` and any subset of the 56 client fields. */
export function validClientSettings(): fc.Arbitrary<Inputs> {
  return withReservedKeys(
    (validFor(SCHEMA_NODES.ClientSettings) as fc.Arbitrary<Inputs>).map(obeyPostLoginPromptRule),
  );
}

/**
 * Invalid `ClientSettings` inputs, one mutation each (see `invalidInputs`), including breaking the
 * post-login-prompt rule, which `check` reports at `organizationRequireBehavior`.
 */
export function invalidClientSettings(): fc.Arbitrary<InvalidCase> {
  // A few other fields beside the mutated one: unrelated valid fields must not add failures, and
  // the valid property already puts all 56 fields together.
  const valid = withReservedKeys(
    sparseValidFor(SCHEMA_NODES.ClientSettings, 4).map(obeyPostLoginPromptRule),
  );
  return invalidInputs(SCHEMA_NODES.ClientSettings, {
    valid,
    rootMutations: (input) => [
      {
        kind: "cross-field rule broken",
        arbitrary: fc.constant(
          mutation(
            "cross-field rule broken",
            { ...input, organizationRequireBehavior: "post_login_prompt", oidcConformant: false },
            [keyStep("organizationRequireBehavior")],
          ),
        ),
      },
    ],
  });
}

/** Valid `PushProviderSelection` inputs. */
export function validPushProviderSelection(): fc.Arbitrary<Inputs> {
  return withReservedKeys(validFor(SCHEMA_NODES.PushProviderSelection) as fc.Arbitrary<Inputs>);
}

/** Invalid `PushProviderSelection` inputs, one mutation each. */
export function invalidPushProviderSelection(): fc.Arbitrary<InvalidCase> {
  return invalidInputs(SCHEMA_NODES.PushProviderSelection, {
    valid: validPushProviderSelection(),
  });
}

const ALPHANUMERIC = /^[A-Za-z0-9]{22}$/;

/** An id as the platform makes them: `est_` and 22 letters and digits. */
export const platformEventStreamId: fc.Arbitrary<string> = fc
  .stringMatching(ALPHANUMERIC)
  .map((tail) => `est_${tail}`);

/**
 * Valid `EventStreamDeletion` inputs: ids as the platform makes them, and any other string of
 * exactly 26 code points (the schema's only rule), awkward characters included.
 */
export function validEventStreamDeletion(): fc.Arbitrary<Inputs> {
  return withReservedKeys(
    fc.oneof(
      platformEventStreamId.map((eventStreamId) => ({ eventStreamId })),
      validFor(SCHEMA_NODES.EventStreamDeletion) as fc.Arbitrary<Inputs>,
    ),
  );
}

/** Invalid `EventStreamDeletion` inputs, one mutation each. */
export function invalidEventStreamDeletion(): fc.Arbitrary<InvalidCase> {
  return invalidInputs(SCHEMA_NODES.EventStreamDeletion, { valid: validEventStreamDeletion() });
}
