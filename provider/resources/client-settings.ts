import * as pulumi from "@pulumi/pulumi";
import {
  apiClientGateway,
  type ClientGateway,
  startClientReadPass,
  type WireClient,
} from "../api/client-gateway.js";
import type { Props } from "../json.js";
import {
  fieldsToRead,
  planCreate,
  planDelete,
  planDiff,
  planRead,
  planUpdate,
  updateNeedsLive,
} from "../plan/client-settings.js";
import { withConnectionChange } from "../plan/connection.js";
import { describeResource, NAME_KEY } from "../resource-name.js";
import {
  type ClientSettingsField,
  type ClientSettingsInputs,
  SENSITIVE_CLIENT_FIELDS,
  TENANT_KEY,
} from "../schema/index.js";
import { type TenantProvider, TenantProviderBase } from "./provider-base.js";
import {
  connectionInput,
  shimFor,
  type TenantConnectionArgs,
  TYPE_MODULE,
  withSecretOutputs,
} from "./registration.js";
import { concerning, runOperation, target } from "./run-operation.js";

const KIND = "ClientSettings";

/**
 * The inputs of {@link ClientSettings}, each of which may be an Output, and the tenant the client
 * is in (default: the stack config's).
 */
export type ClientSettingsArgs = {
  [K in keyof ClientSettingsInputs]: pulumi.Input<ClientSettingsInputs[K]>;
} & { readonly tenant?: TenantConnectionArgs };

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
 * (`PATCH /clients/{id}`). Only the fields the program declares are ever sent.
 *
 * - create: reads the client, remembers the current value of every declared field, and PATCHes
 *   the declared fields whose value differs. It adopts the client: no import is needed.
 * - update: PATCHes only the fields whose value changed; a field removed from the program goes
 *   back to the value it had before this resource managed it.
 * - refresh: reads the live values of the declared fields, so a change made elsewhere shows up as
 *   drift and the next `up` puts the declared value back.
 * - delete: PATCHes every remembered value back. Use Pulumi's `retainOnDelete` to keep the
 *   settings when the resource leaves the program.
 *
 * Declared objects are compared on the keys the program declares (the platform adds defaults
 * inside them) and sent merged over the live object, because the platform replaces a top-level
 * object whole: keys the program does not declare keep their values. `clientMetadata` is merged
 * key by key by the platform, so only the declared keys are sent (null removes a key that did not
 * exist before).
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
    const props: Props = { prior: undefined, [NAME_KEY]: name };
    for (const [key, value] of Object.entries(args)) {
      if (value === undefined) continue;
      // Inputs of sensitive fields are secret too, not only the outputs: Pulumi stores inputs in
      // the state as well.
      props[key] = SENSITIVE_CLIENT_FIELDS.includes(key as ClientSettingsField)
        ? pulumi.secret(value)
        : value;
    }
    if (args.tenant !== undefined) props[TENANT_KEY] = connectionInput(args.tenant);
    super(
      shimFor(KIND),
      name,
      props,
      withSecretOutputs(opts, [...SENSITIVE_CLIENT_FIELDS, "prior"]),
      TYPE_MODULE,
      KIND,
    );
  }
}

/**
 * The implementation behind {@link ClientSettings}; usable directly in tests. It wires the pure
 * plan (`plan/client-settings.ts`), which decides, to the gateway (`api/client-gateway.ts`), which
 * reads and writes the client.
 */
export class ClientSettingsProvider extends TenantProviderBase implements TenantProvider {
  protected readonly kind = KIND;

  /**
   * Also starts a new client read pass: the provider host configures once per command, and no
   * read of this command may be served from what an earlier one fetched (docs/client-reads.md).
   */
  override configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    startClientReadPass();
    return super.configure(req);
  }

  /**
   * Replaces on a new `clientId` (adopting the new client first) or another tenant (restoring the
   * old client first, so that even two domains of one tenant end with the declared settings);
   * otherwise reports a change when a declared field differs from its last known value, a field
   * left the program, or the connection changed. Makes no API call.
   *
   * @throws {ImmutableFieldError} when `thirdPartySecurityMode` would change on the same client.
   */
  diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
    return concerning(describeResource(KIND, news), () =>
      withConnectionChange(
        planDiff(olds, news),
        this.connectionChange(olds, news),
        "restore-old-first",
      ),
    );
  }

  create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
    return runOperation(target(KIND, inputs), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const clientId = String(inputs.clientId);
      const plan = planCreate(inputs, await clients.getClient(clientId, fieldsToRead(inputs)));
      return { id: clientId, outs: plan.report(await patch(clients, clientId, plan.send)) };
    });
  }

  read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult> {
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const live = await apiClientGateway(client, context).findClient(id, fieldsToRead(props));
      // The client itself is gone: so are its settings. The next `up` fails on the missing client.
      return live === undefined ? { id: "", props: {} } : { id, props: planRead(props, live) };
    });
  }

  update(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
    return runOperation(target(KIND, news, id), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const clientId = String(news.clientId);
      const live = updateNeedsLive(olds, news)
        ? await clients.getClient(clientId, fieldsToRead(news))
        : undefined;
      const plan = planUpdate(olds, news, live);
      return { outs: plan.report(await patch(clients, clientId, plan.send)) };
    });
  }

  delete(id: string, props: Props): Promise<void> {
    const send = planDelete(props);
    if (Object.keys(send).length === 0) return Promise.resolve();
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      // A client deleted meanwhile has no settings left to restore.
      await apiClientGateway(client, context).patchClient(id, send, { ifExists: true });
    });
  }
}

/** PATCHes `body` unless it is empty; the client as answered, or undefined when nothing came. */
function patch(
  clients: ClientGateway,
  clientId: string,
  body: Readonly<Record<string, unknown>>,
): Promise<WireClient | undefined> {
  if (Object.keys(body).length === 0) return Promise.resolve(undefined);
  return clients.patchClient(clientId, body);
}
