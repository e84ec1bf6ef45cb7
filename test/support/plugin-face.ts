/**
 * The plugin's face over fresh cores, configured as the engine's Configure would configure it
 * against a local tenant, the secret wrapped as the engine wraps it: the one set-up the plugin
 * face's unit tests share.
 */
import { secret } from "../../provider/plugin/engine-values.js";
import { PluginFace } from "../../provider/plugin/plugin-face.js";
import { ClientSettingsProvider } from "../../provider/providers/client-settings.js";
import { EventStreamDeletionProvider } from "../../provider/providers/event-stream-deletion.js";
import { PushProviderSelectionProvider } from "../../provider/providers/push-provider-selection.js";

/** What the face needs of a running local tenant. */
interface TenantAddress {
  readonly domain: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/** A face over fresh cores, configured for `api`. */
export async function configuredFace(api: TenantAddress): Promise<PluginFace> {
  const face = new PluginFace({
    PushProviderSelection: new PushProviderSelectionProvider(),
    ClientSettings: new ClientSettingsProvider(),
    EventStreamDeletion: new EventStreamDeletionProvider(),
  });
  await face.configure({
    domain: api.domain,
    clientId: api.clientId,
    clientSecret: secret(api.clientSecret),
  });
  return face;
}
