/**
 * The errors of the local tenant API's start (`pulumi-tenant local-tenant`, `startLocalTenant`):
 * a seed it cannot load, an address it cannot listen on. Its options are checked as a command's
 * (`CommandUsageError`, `commands.ts`).
 *
 * @module
 */

import { ErrorCodes, errorKind } from "./root.js";

/**
 * A seed of the local tenant cannot be used: unreadable, not JSON, of a newer format version, or
 * holding what the platform would refuse (a client twice, an event stream id that is not 26
 * characters, ...). The message names the file (when there is one), the JSON path of every
 * problem and the problem; the local tenant does not start (docs/design/local-tenant.md, "Seed file
 * format").
 *
 * @example `invalid seed tenant-seed.json: clients[1].client_id: "D" is already the id of clients[0]`
 */
export class SeedError extends errorKind("SeedError", ErrorCodes.seed) {}

/**
 * The local tenant could not start for a reason other than its seed or its options: the port is
 * in use, the address cannot be listened on. Nothing is left listening.
 */
export class LocalTenantError extends errorKind("LocalTenantError", ErrorCodes.localTenant) {}
