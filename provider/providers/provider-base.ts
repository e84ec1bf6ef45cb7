import type * as pulumi from "@pulumi/pulumi";
import { configuredOrigin, useStackConfig } from "../config.js";
import { type ConnectionChange, connectionChange } from "../connection/change.js";
import type { Props } from "../json.js";
import { checkInputs, type ResourceKind } from "../schema/index.js";

/** The methods of a dynamic provider this package implements, `configure` included. */
export type TenantProvider = Required<
  Pick<
    pulumi.dynamic.ResourceProvider,
    "configure" | "check" | "diff" | "create" | "read" | "update" | "delete"
  >
>;

/**
 * The parts every provider shares: configure stores the stack config, check validates against the
 * schema and reports every failure at once (it never throws, so the engine can print them all),
 * and diff learns what a change of the `tenant` input means.
 */
export abstract class TenantProviderBase {
  protected abstract readonly kind: ResourceKind;

  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    useStackConfig(req.config);
    return Promise.resolve();
  }

  check(_olds: unknown, news: Props): Promise<pulumi.dynamic.CheckResult> {
    return Promise.resolve(checkInputs(this.kind, news));
  }

  /**
   * What the change of the `tenant` input from `olds` to `news` means (see
   * {@link connectionChange}); a resource without one is in the stack config's tenant. Needs no
   * credentials, so a preview works without them.
   */
  protected connectionChange(olds: Props, news: Props): ConnectionChange {
    return connectionChange(olds, news, configuredOrigin());
  }
}
