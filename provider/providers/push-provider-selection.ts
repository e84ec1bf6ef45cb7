import type * as pulumi from "@pulumi/pulumi";
import type { TenantApiClient } from "../api/client.js";
import type { OperationContext } from "../api/operation.js";
import { connectionOutput, withConnectionChange } from "../connection/change.js";
import { TenantImportError } from "../errors.js";
import type { Props } from "../json.js";
import { NAME_KEY } from "../schema/index.js";
import { type Adopted, TenantProviderBase, type TenantResourceCore } from "./provider-base.js";
import { runOperation, target } from "./run-operation.js";

const KIND = "PushProviderSelection";

/** The tenant's one push provider selection, relative to the API base. */
const SELECTION_PATH = "/guardian/factors/push-notification/selected-provider";

/**
 * The implementation behind the `PushProviderSelection` resource (resources/push-provider-
 * selection.ts); usable directly in tests.
 */
export class PushProviderSelectionProvider
  extends TenantProviderBase
  implements TenantResourceCore
{
  protected readonly kind = KIND;

  /**
   * A new provider is an update. A move to another tenant replaces, deleting first: the old
   * tenant's prior selection is put back before the new tenant is read, so that even two domains
   * of one tenant (which cannot be told apart) end with the declared selection.
   */
  diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
    return Promise.resolve(
      withConnectionChange(
        { changes: olds.provider !== news.provider, replaces: [] },
        this.connectionChange(olds, news),
        "restore-old-first",
      ),
    );
  }

  create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
    return runOperation(target(KIND, inputs), async ({ client, context, settings }) => {
      const current = await client.call<{ provider?: string }>(context, {
        method: "GET",
        path: SELECTION_PATH,
      });
      const prior = current.data.provider ?? null;
      const provider =
        prior === inputs.provider ? prior : await this.select(client, context, inputs.provider);
      return {
        id: new URL(settings.origin).host,
        outs: {
          [NAME_KEY]: inputs[NAME_KEY],
          provider,
          priorProvider: prior,
          ...connectionOutput(inputs),
          ...this.stackTenantOutput(inputs),
        },
      };
    });
  }

  read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult> {
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const live = await client.call<{ provider?: string }>(context, {
        method: "GET",
        path: SELECTION_PATH,
      });
      return { id, props: { ...props, provider: live.data.provider ?? null } };
    });
  }

  /**
   * Adopts the tenant's selection as it is: the id is the tenant's host, as create gives it. The
   * prior provider is the live one, so a later delete leaves the selection as it was adopted.
   *
   * @throws {TenantImportError} when `id` is not the configured tenant's host, or the tenant has
   *   no provider selected (there is nothing to declare).
   */
  adopt(id: string, props: Props): Promise<Adopted> {
    return runOperation(target(KIND, props, id), async ({ client, context, settings }) => {
      const host = new URL(settings.origin).host;
      if (id !== host) {
        throw new TenantImportError(
          `cannot import selection ${JSON.stringify(id)}: its id is the tenant's host, ${host}`,
        );
      }
      const live = await client.call<{ provider?: string }>(context, {
        method: "GET",
        path: SELECTION_PATH,
      });
      const provider = live.data.provider;
      if (typeof provider !== "string") {
        throw new TenantImportError(
          `cannot import selection ${host}: the tenant has no push provider selected`,
        );
      }
      return { id, inputs: { provider }, outs: { provider, priorProvider: provider } };
    });
  }

  /** Selects the new provider; sends nothing when only the connection changed. */
  update(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
    return runOperation(target(KIND, news, id), async ({ client, context }) => ({
      outs: {
        [NAME_KEY]: news[NAME_KEY],
        provider:
          olds.provider === news.provider
            ? olds.provider
            : await this.select(client, context, news.provider),
        priorProvider: olds.priorProvider ?? null,
        ...connectionOutput(news),
        ...this.stackTenantOutput(news),
      },
    }));
  }

  delete(id: string, props: Props): Promise<void> {
    const prior = props.priorProvider;
    // Nothing was selected before this resource: there is no selection to go back to.
    if (typeof prior !== "string" || prior === props.provider) return Promise.resolve();
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      await this.select(client, context, prior);
    });
  }

  private async select(
    client: TenantApiClient,
    context: OperationContext,
    provider: unknown,
  ): Promise<unknown> {
    const answer = await client.call<{ provider?: string }>(context, {
      method: "PUT",
      path: SELECTION_PATH,
      body: { provider },
    });
    return answer.data.provider ?? provider;
  }
}
