/**
 * What the serialized shims load, by package name, in Pulumi's dynamic-provider host
 * (`require("pulumi-tenant/runtime")`). One instance per process: every resource of every kind
 * shares the configuration, the token caches and the per-tenant rate limiters behind these.
 *
 * @module
 */

import { ClientSettingsProvider } from "./providers/client-settings.js";
import { EventStreamDeletionProvider } from "./providers/event-stream-deletion.js";
import type { TenantResourceCore } from "./providers/provider-base.js";
import { PushProviderSelectionProvider } from "./providers/push-provider-selection.js";
import type { ResourceKind } from "./schema/index.js";

/**
 * The core of each resource kind, which the dynamic face's shims and the plugin face
 * (`plugin/main.ts`) both call.
 */
export const providers: Readonly<Record<ResourceKind, TenantResourceCore>> = {
  PushProviderSelection: new PushProviderSelectionProvider(),
  ClientSettings: new ClientSettingsProvider(),
  EventStreamDeletion: new EventStreamDeletionProvider(),
};
