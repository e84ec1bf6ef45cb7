import type * as pulumi from "@pulumi/pulumi";
import {
  type ConfigSource,
  configuredConnection,
  configuredOrigin,
  stackSettingFailuresOnce,
  useStackConfig,
} from "../config.js";
import {
  type ConnectionChange,
  connectionChange,
  stackTenantOutput,
} from "../connection/change.js";
import type { Props } from "../json.js";
import { checkInputs, type ResourceKind } from "../schema/index.js";

/**
 * The methods of a dynamic provider this package implements, `configure` taking any
 * {@link ConfigSource} (the stack config of the dynamic-provider host is one).
 */
export type TenantProvider = Required<
  Pick<pulumi.dynamic.ResourceProvider, "check" | "diff" | "create" | "read" | "update" | "delete">
> & {
  configure(req: { readonly config: ConfigSource }): Promise<void>;
};

/**
 * What `pulumi import` adopts (docs/design/plugin.md, "Import"): the resource's id, the inputs a program
 * declares to keep it as it is, and the outputs a create with those inputs would have stored.
 */
export interface Adopted {
  readonly id: string;
  readonly inputs: Props;
  readonly outs: Props;
}

/**
 * The core of one resource kind, which both faces call: the dynamic provider's methods (the
 * dynamic face, resources/), and `adopt`, which only the plugin face can offer (Pulumi cannot
 * import a dynamic resource: docs/design/plugin.md).
 */
export interface TenantResourceCore extends TenantProvider {
  /**
   * Reads the live resource with id `id` and returns what adopting it as it is takes; writes
   * nothing. `props` holds only the resource's name, for the errors.
   *
   * @throws {TenantError} when there is nothing to adopt under that id.
   */
  adopt(id: string, props: Props): Promise<Adopted>;
}

/**
 * The parts every provider shares: configure stores the stack config, check validates against the
 * schema and reports every failure at once (it never throws, so the engine can print them all),
 * and diff learns what a change of the `tenant` input means.
 */
export abstract class TenantProviderBase {
  protected abstract readonly kind: ResourceKind;

  /**
   * Takes the settings: the stack config from the dynamic-provider host, or the provider's
   * configuration from the plugin face; both are read through {@link ConfigSource}.
   */
  configure(req: { readonly config: ConfigSource }): Promise<void> {
    useStackConfig(req.config);
    return Promise.resolve();
  }

  /**
   * The inputs' failures, and, at the first resource checked of a run only, those of the stack
   * config's pacing and credential settings, which a preview judges: the other resources' checks
   * leave them out, and the run still fails before any request ({@link stackSettingFailuresOnce}).
   */
  check(_olds: unknown, news: Props): Promise<pulumi.dynamic.CheckResult> {
    const checked = checkInputs(this.kind, news);
    const config = stackSettingFailuresOnce();
    if (config.length === 0) return Promise.resolve(checked);
    return Promise.resolve({ ...checked, failures: [...checked.failures, ...config] });
  }

  /**
   * What the change of the `tenant` input from `olds` to `news` means (see
   * {@link connectionChange}); a resource without one is in the stack config's tenant. Needs no
   * credentials, so a preview works without them.
   */
  protected connectionChange(olds: Props, news: Props): ConnectionChange {
    return connectionChange(olds, news, configuredOrigin());
  }

  /**
   * The output a create or an update with inputs `props` records when they have no `tenant`: the
   * stack config's connection, so that a later move of the stack config's tenant can put this one
   * back (see {@link stackTenantOutput}).
   */
  protected stackTenantOutput(props: Props): Props {
    return stackTenantOutput(props, configuredConnection());
  }
}
