import * as pulumi from "@pulumi/pulumi";
import type { Props } from "../json.js";
// The schema's modules, not its index: a program needs no validator (docs/design/decisions.md).
import {
  type ClientSettingsField,
  type ClientSettingsInputs,
  SENSITIVE_CLIENT_FIELDS,
} from "../schema/client-settings.js";
import { pauseStackTraces, type ResourceArgs, registration } from "./registration.js";

const KIND = "ClientSettings";

/**
 * The inputs of {@link ClientSettings}, each of which may be an Output, and the tenant the client
 * is in (default: the stack config's).
 */
export type ClientSettingsArgs = ResourceArgs<ClientSettingsInputs>;

/**
 * The outputs: each field the program declares, as the tenant last reported it. A field the program
 * does not declare has no output property (undefined): it is not managed, so there is nothing to
 * report, and every output property costs Pulumi's runtime several promises per resource, which
 * adds up to seconds in a stack of hundreds of clients.
 */
export type ClientSettingsOutputs = {
  readonly [K in ClientSettingsField]?: pulumi.Output<ClientSettingsInputs[K]>;
};

/**
 * Manages some settings of an existing client (application) of the tenant
 * (`PATCH /clients/{id}`). It owns exactly the paths the program declares: a top-level field, each
 * declared key of an object at any depth (so each key of `clientMetadata`, `addons` and
 * `jwtConfiguration.scopes`), a list as one value (docs/design/decisions.md, "What a resource owns").
 * Every other path is sent as it is live at that moment.
 *
 * - create: reads the client, remembers the current value of every owned path (or that it had
 *   none), and PATCHes the declared fields whose value differs. It adopts the client: no import
 *   is needed.
 * - update: PATCHes what changed; a path removed from the program, at any depth, is a change and
 *   goes back to the value it had before this resource managed it (or away, if it had none).
 * - refresh: reads the live values of the declared fields, so a change made elsewhere shows up as
 *   drift and the next `up` puts the declared value back.
 * - delete: puts every owned path back over the live client. Use Pulumi's `retainOnDelete` to keep
 *   the settings when the resource leaves the program.
 *
 * Declared objects are compared on the keys the program declares (the platform adds defaults
 * inside them) and sent merged over the live object, because the platform replaces a top-level
 * object whole. `clientMetadata` is merged key by key by the platform, so only the declared keys
 * are sent (null removes a key that did not exist before). `encryptionKey` and
 * `clientAuthenticationMethods` need credentials with `read:client_keys`: without it they are
 * refused before anything is sent, at preview already when the credentials' token shows its scopes.
 * `clientSecret`, `appType` and `redirectionPolicy` cannot be put back to "none": when the client
 * had none, a removal or delete leaves them, and the run warns naming the path.
 *
 * `thirdPartySecurityMode` is fixed when a client is created: a change fails the preview (diff),
 * and a declared value that differs from the live one fails create, before anything is sent.
 *
 * Changing `clientId` replaces the resource: the new client is adopted, then the old one restored.
 * Changing `tenant.domain` (another tenant) replaces it too, the other way round: the old client is
 * restored first. New credentials for the same tenant are an update that sends nothing.
 */
export interface ClientSettings extends ClientSettingsOutputs {}
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above only adds the output properties that the constructor registers (one per client field), typed from the schema instead of restated by hand.
export class ClientSettings extends pulumi.dynamic.Resource {
  /** The id of the managed client. */
  declare readonly clientId: pulumi.Output<string>;

  constructor(name: string, args: ClientSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    const traces = pauseStackTraces();
    try {
      const props: Props = { prior: undefined };
      for (const [key, value] of Object.entries(args)) {
        if (value === undefined) continue;
        // Inputs of sensitive fields are secret too, not only the outputs: Pulumi stores inputs
        // in the state as well.
        props[key] = SENSITIVE_CLIENT_FIELDS.includes(key as ClientSettingsField)
          ? pulumi.secret(value)
          : value;
      }
      super(...registration(KIND, name, props, args.tenant, opts));
    } catch (error) {
      throw traces.failed(error);
    } finally {
      traces.resume();
    }
  }
}
