import * as pulumi from "@pulumi/pulumi";
import type { OperationContext, TenantApiClient } from "../api/client.js";
import type { Props } from "../json.js";
import { connectionOutput, withConnectionChange } from "../plan/connection.js";
import { NAME_KEY } from "../resource-name.js";
import { type PushProviderSelectionInputs, TENANT_KEY } from "../schema/index.js";
import { type TenantProvider, TenantProviderBase } from "./provider-base.js";
import {
  connectionInput,
  shimFor,
  type TenantConnectionArgs,
  TYPE_MODULE,
  withSecretOutputs,
} from "./registration.js";
import { runOperation, target } from "./run-operation.js";

const KIND = "PushProviderSelection";
/** The tenant's one push provider selection, relative to the API base. */
const SELECTION_PATH = "/guardian/factors/push-notification/selected-provider";

/**
 * The inputs of {@link PushProviderSelection}, each of which may be an Output, and the tenant to
 * select in (default: the stack config's).
 */
export type PushProviderSelectionArgs = {
  [K in keyof PushProviderSelectionInputs]: pulumi.Input<PushProviderSelectionInputs[K]>;
} & { readonly tenant?: TenantConnectionArgs };

/** One of the push notification providers the platform knows. */
export type PushProvider = PushProviderSelectionInputs["provider"];

/**
 * Selects which push notification provider the tenant's MFA push factor uses
 * (`PUT /guardian/factors/push-notification/selected-provider`).
 *
 * - create: reads the current selection and remembers it, then selects `provider` (no write when
 *   it is already selected);
 * - update: selects the new provider;
 * - refresh: reads the live selection, so a change made in the dashboard shows up as drift and the
 *   next `up` selects `provider` again;
 * - delete: selects the remembered provider again. Use Pulumi's `retainOnDelete` to keep the
 *   selection when the resource leaves the program.
 *
 * The id is the tenant's host: a tenant has exactly one selection, so declare one of these per
 * tenant (two would fight over it).
 *
 * `tenant` selects in that tenant instead of the stack config's. A new domain (another tenant)
 * replaces the resource: the old tenant gets its prior selection back first, then the new one is
 * selected; new credentials for the same tenant are an update that sends nothing.
 */
export class PushProviderSelection extends pulumi.dynamic.Resource {
  /** The selected provider, as the tenant last reported it. */
  declare readonly provider: pulumi.Output<PushProvider>;
  /** The provider selected before this resource existed, restored on delete; null if none was. Secret. */
  declare readonly priorProvider: pulumi.Output<PushProvider | null>;

  constructor(name: string, args: PushProviderSelectionArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      shimFor(KIND),
      name,
      {
        ...args,
        [TENANT_KEY]: connectionInput(args.tenant),
        [NAME_KEY]: name,
        priorProvider: undefined,
      },
      withSecretOutputs(opts, ["priorProvider"]),
      TYPE_MODULE,
      KIND,
    );
  }
}

/** The implementation behind {@link PushProviderSelection}; usable directly in tests. */
export class PushProviderSelectionProvider extends TenantProviderBase implements TenantProvider {
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
