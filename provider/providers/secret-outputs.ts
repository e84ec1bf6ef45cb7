import { STACK_TENANT_KEY } from "../connection/schema.js";
import { SENSITIVE_CLIENT_FIELDS } from "../schema/client-settings.js";
import type { ResourceKind } from "../schema/kinds.js";

/**
 * The outputs each resource keeps secret, whichever face registered it: the sensitive client
 * fields (`"x-sensitive"` in the schema) and what a resource remembers to restore on delete
 * (`prior`, `priorProvider`), since a remembered value can be as secret as the value itself, and
 * the stack config's connection a resource records (credentials included). The
 * dynamic face lists them as `additionalSecretOutputs`; the plugin face wraps them as secrets in
 * what it returns. A module of its own, with no import of the core, because a program loads it.
 */
export const SECRET_OUTPUTS: Readonly<Record<ResourceKind, readonly string[]>> = {
  PushProviderSelection: ["priorProvider", STACK_TENANT_KEY],
  ClientSettings: [...SENSITIVE_CLIENT_FIELDS, "prior", STACK_TENANT_KEY],
  EventStreamDeletion: [STACK_TENANT_KEY],
};

/**
 * The outputs a resource has besides its inputs, which a program may read, described for the
 * plugin's schema (`prior` is bookkeeping for delete, not for programs, so it is not listed).
 */
export const OUTPUT_ONLY: Readonly<
  Record<
    ResourceKind,
    Readonly<Record<string, { readonly type: "string"; readonly description: string }>>
  >
> = {
  PushProviderSelection: {
    priorProvider: {
      type: "string",
      description:
        "The provider selected before this resource existed, restored on delete; absent if none was.",
    },
  },
  ClientSettings: {},
  EventStreamDeletion: {},
};
