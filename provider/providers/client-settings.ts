import type * as pulumi from "@pulumi/pulumi";
import { apiClientGateway } from "../api/client-gateway.js";
import { startClientReadPass } from "../api/tenants.js";
import type { ConfigSource } from "../config.js";
import { keptStackTenant, withConnectionChange } from "../connection/change.js";
import { TenantApiError, TenantImportError } from "../errors.js";
import { declarationOf } from "../generate/adopt.js";
import { DEFAULT_FIELDS, wireFieldsToRead } from "../generate/fields.js";
import type { Props } from "../json.js";
import {
  clientUpdate,
  deletePriors,
  fieldsToPutBack,
  fieldsToRead,
  planCreate,
  planDelete,
  planDiff,
  planRead,
  planUpdate,
  putBackRefusal,
} from "../plan/client-settings.js";
import { declaredClient } from "../plan/declared.js";
import type { PriorEntry } from "../plan/prior-paths.js";
import { type Adopted, TenantProviderBase, type TenantResourceCore } from "./provider-base.js";
import { concerning, describeResource, runOperation, target } from "./run-operation.js";

const KIND = "ClientSettings";

/**
 * The implementation behind the `ClientSettings` resource (resources/client-settings.ts); usable
 * directly in tests. It turns the inputs once into what the program declares (`plan/declared.ts`)
 * and wires the pure plan (`plan/client-settings.ts`), which decides from that, to the gateway
 * (`api/client-gateway.ts`), which reads and writes the client.
 */
export class ClientSettingsProvider extends TenantProviderBase implements TenantResourceCore {
  protected readonly kind = KIND;

  /**
   * Also starts a new client read pass: the provider host configures once per command, and no
   * read of this command may be served from what an earlier one fetched (docs/client-reads.md).
   */
  override configure(req: { readonly config: ConfigSource }): Promise<void> {
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
        planDiff(declaredClient(news), olds),
        this.connectionChange(olds, news),
        "restore-old-first",
      ),
    );
  }

  create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
    return runOperation(target(KIND, inputs), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const declared = declaredClient(inputs);
      const { clientId } = declared;
      const live = await clients.getClient(clientId, fieldsToRead(declared));
      const plan = planCreate(declared, live);
      const outs = plan.report(await clients.patchClient(clientId, plan.send));
      return { id: clientId, outs: { ...outs, ...this.stackTenantOutput(inputs) } };
    });
  }

  read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult> {
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const live = await apiClientGateway(client, context).findClient(
        id,
        fieldsToRead(declaredClient(props)),
      );
      // The client itself is gone: so are its settings. The next `up` fails on the missing client.
      return live === undefined
        ? { id: "", props: {} }
        : { id, props: { ...planRead(props, live), ...keptStackTenant(props) } };
    });
  }

  /**
   * Adopts client `id` as it is: the inputs are its values of the fields `generate` declares by
   * default (`generate/fields.ts`), with what a program cannot declare left out as `generate`
   * leaves it out; the outputs are what create with those inputs stores, which sends nothing
   * because every declared value is the live one.
   *
   * @throws {TenantImportError} when the tenant has no client `id`.
   */
  adopt(id: string, props: Props): Promise<Adopted> {
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const live = await clients.findClient(id, wireFieldsToRead(DEFAULT_FIELDS));
      if (live === undefined) {
        throw new TenantImportError(
          `cannot import client ${id}: the tenant has no client with that id`,
        );
      }
      const inputs: Props = { clientId: id, ...declarationOf(live, DEFAULT_FIELDS).values };
      return { id, inputs, outs: planCreate(declaredClient(inputs), live).report(undefined) };
    });
  }

  update(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
    return runOperation(target(KIND, news, id), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const declared = declaredClient(news);
      const { clientId } = declared;
      const update = clientUpdate(declared, olds);
      const live = update.needsLive
        ? await clients.getClient(clientId, fieldsToRead(declared, update.removed))
        : undefined;
      const plan = planUpdate(update, live);
      const outs = plan.report(await clients.patchClient(clientId, plan.send));
      return { outs: { ...outs, ...this.stackTenantOutput(news) } };
    });
  }

  /**
   * Puts every owned path back to its prior: reads the live client (so that what the resource does
   * not own is sent as it is now, docs/decisions.md "What a resource owns") and PATCHes what
   * differs. Calls nothing when there is no prior to put back.
   */
  delete(id: string, props: Props): Promise<void> {
    const fields = fieldsToPutBack(props);
    if (fields.length === 0) return Promise.resolve();
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const live = await clients.findClient(id, fields);
      // A client deleted meanwhile has no settings left to restore.
      if (live === undefined) return;
      const send = planDelete(props, live);
      await naming(deletePriors(props), send, () =>
        clients.patchClient(id, send, { ifExists: true }),
      );
    });
  }
}

/**
 * Runs the PATCH of `body`; a 400 refusing the priors it puts back (`putBack`) is reported on
 * those paths and their priors, not on a field the program did not touch (docs/decisions.md,
 * "What a resource owns").
 */
async function naming<T>(
  putBack: readonly PriorEntry[],
  body: Record<string, unknown>,
  patch: () => Promise<T>,
): Promise<T> {
  try {
    return await patch();
  } catch (error) {
    const refusal = error instanceof TenantApiError && putBackRefusal(putBack, body, error);
    throw refusal || error;
  }
}
