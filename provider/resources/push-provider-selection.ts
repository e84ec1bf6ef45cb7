import * as pulumi from "@pulumi/pulumi";
import type { PushProviderSelectionInputs } from "../schema/push-provider-selection.js";
import { pauseStackTraces, type ResourceArgs, registration } from "./registration.js";

const KIND = "PushProviderSelection";

/**
 * The inputs of {@link PushProviderSelection}, each of which may be an Output, and the tenant to
 * select in (default: the stack config's).
 */
export type PushProviderSelectionArgs = ResourceArgs<PushProviderSelectionInputs>;

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
    const traces = pauseStackTraces();
    try {
      super(...registration(KIND, name, { ...args, priorProvider: undefined }, args.tenant, opts));
    } catch (error) {
      throw traces.failed(error);
    } finally {
      traces.resume();
    }
  }
}
