/**
 * The local tenant's server runs on packages that programs do not need (Fastify, its form-body
 * plugin, jose; selfsigned for TLS). They are optional peer dependencies of pulumi-tenant, so a
 * project that only declares resources installs none of them (docs/guides/testing-your-program.md,
 * "Testing your own program", gives the sizes). This module says which are missing before anything
 * loads them, so the user reads which packages to install rather than `Cannot find module`.
 *
 * It loads none of them itself.
 *
 * @module
 */

import { LocalTenantError } from "../errors.js";

/** What the server always needs. */
const SERVER_PEERS = ["fastify", "@fastify/formbody", "jose"] as const;
/** What `tls: true` needs too. */
const TLS_PEERS = ["selfsigned"] as const;

function isInstalled(name: string): boolean {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    // Some packages do not export their manifest: resolving the entry is the fallback.
    try {
      require.resolve(name);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Checks that the server's optional peer dependencies are installed.
 *
 * @throws {LocalTenantError} naming every missing package and the command that installs them.
 */
export function requireServerPeers(options: { readonly tls?: boolean | undefined } = {}): void {
  const wanted: readonly string[] =
    options.tls === true ? [...SERVER_PEERS, ...TLS_PEERS] : SERVER_PEERS;
  const missing = wanted.filter((name) => !isInstalled(name));
  if (missing.length === 0) return;
  throw new LocalTenantError(
    `the local tenant needs ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} ` +
      `not installed: run npm install --save-dev ${missing.join(" ")} (optional peer ` +
      "dependencies of pulumi-tenant, which programs that do not test need not install)",
  );
}
