/**
 * A provider operation's context: the resource it speaks for and the deadline that bounds all of
 * its calls, made once per operation and handed to every call of it (`TenantApiClient.call`).
 *
 * @module
 */

import type { TenantSettings } from "./settings.js";

/**
 * What a provider operation runs under: the resource it speaks for (every error names it) and
 * the deadline that bounds all of its calls.
 */
export interface OperationContext {
  /** `ClientSettings "web"`: how errors name the resource. */
  readonly resource: string;
  /** Aborts when the operation's deadline passes. */
  readonly signal: AbortSignal;
  /** The deadline, for the error message. */
  readonly deadlineMs: number;
  /**
   * When the deadline passes (ms since the epoch): a wait the tenant asks for that ends later is
   * not waited for, the operation fails at once saying so. Unbounded when absent.
   */
  readonly deadlineAt?: number;
}

/**
 * Starts an operation under a deadline. The returned context's signal aborts after
 * `settings.operationTimeoutMs`; its timer does not keep the process alive.
 */
export function startOperation(settings: TenantSettings, resource: string): OperationContext {
  return {
    resource,
    signal: AbortSignal.timeout(settings.operationTimeoutMs),
    deadlineMs: settings.operationTimeoutMs,
    deadlineAt: Date.now() + settings.operationTimeoutMs,
  };
}
