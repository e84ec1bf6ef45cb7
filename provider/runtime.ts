/**
 * What the serialized shims load, by package name, in Pulumi's dynamic-provider host
 * (`require("pulumi-tenant/runtime")`). One instance per process: every resource of every kind
 * shares the configuration, the token caches and the per-tenant rate limiters behind these.
 *
 * @module
 */

import { ClientSettingsProvider } from "./providers/client-settings.js";
import { EventStreamDeletionProvider } from "./providers/event-stream-deletion.js";
import type { TenantProvider } from "./providers/provider-base.js";
import { PushProviderSelectionProvider } from "./providers/push-provider-selection.js";
import type { ResourceKind } from "./schema/index.js";

/** The provider implementation of each resource kind. */
export const providers: Readonly<Record<ResourceKind, TenantProvider>> = {
  PushProviderSelection: new PushProviderSelectionProvider(),
  ClientSettings: new ClientSettingsProvider(),
  EventStreamDeletion: new EventStreamDeletionProvider(),
};
