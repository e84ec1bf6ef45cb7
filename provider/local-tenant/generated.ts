/**
 * Ids and secrets the local tenant makes up, in the platform's alphabet: random ones for what a
 * seed leaves out, and derived ones for the generated clients of large-tenant benchmarks, which
 * must be the same on every run (docs/design/local-tenant.md "Seed file format").
 */

import { createHash, randomInt } from "node:crypto";
import type { SeedClient } from "./seed-format.js";

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random string of letters and digits, the alphabet of the platform's ids and secrets. */
function randomAlphanumeric(length: number): string {
  let out = "";
  for (let i = 0; i < length; i += 1) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** A new client id: 32 letters and digits, as on the platform. */
export function newClientId(): string {
  return randomAlphanumeric(32);
}

/** A new event stream id: `est_` and 22 letters and digits (26 characters). */
export function newEventStreamId(): string {
  return `est_${randomAlphanumeric(22)}`;
}

/**
 * A new client secret: 64 characters, as on the platform. A seed never holds a live secret, so a
 * confidential client gets a fresh one on every load (docs/design/local-tenant.md "Seed file format").
 */
export function newClientSecret(): string {
  return randomAlphanumeric(64);
}

/**
 * Letters and digits derived from `text` (SHA-256, then base 62 digit by digit): the same text
 * always gives the same string, so generated tenants are the same on every run.
 */
function derivedAlphanumeric(text: string, length: number): string {
  let out = "";
  for (let round = 0; out.length < length; round += 1) {
    const digest = createHash("sha256").update(`${round}:${text}`).digest();
    for (const byte of digest) {
      // 248 = 4 * 62: dropping the bytes above it keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % ALPHANUMERIC.length];
    }
  }
  return out;
}

/** The kinds of application {@link generatedClients} cycles through. */
const GENERATED_KINDS = [
  { app_type: "regular_web", token_endpoint_auth_method: "client_secret_post" },
  { app_type: "spa", token_endpoint_auth_method: "none" },
  { app_type: "native", token_endpoint_auth_method: "none" },
  { app_type: "non_interactive", token_endpoint_auth_method: "client_secret_post" },
] as const;

/**
 * `count` plausible clients for large-tenant benchmarks (`extraClients`, `--clients N`): a regular
 * web app, a SPA, a native app and a machine-to-machine client in turn, with callbacks, origins
 * and grant types that fit their kind. Everything is derived from the index, secrets included, so
 * `generatedClients(n)[i]` is the same client on every run and for every `n > i`.
 */
export function generatedClients(count: number): SeedClient[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = GENERATED_KINDS[i % GENERATED_KINDS.length] ?? GENERATED_KINDS[0];
    const number = String(i + 1).padStart(5, "0");
    const host = `https://app-${number}.example.com`;
    const client: SeedClient = {
      client_id: derivedAlphanumeric(`generated client ${i}`, 32),
      name: `Generated ${kind.app_type} application ${number}`,
      description: `Generated for large-tenant benchmarks (${number})`,
      app_type: kind.app_type,
      is_first_party: true,
      oidc_conformant: true,
      token_endpoint_auth_method: kind.token_endpoint_auth_method,
    };
    if (kind.app_type === "non_interactive") {
      client.grant_types = ["client_credentials"];
    } else {
      client.callbacks = [`${host}/callback`];
      client.allowed_logout_urls = [`${host}/`];
      client.grant_types = ["authorization_code", "refresh_token"];
      if (kind.app_type === "spa") client.web_origins = [host];
    }
    if (kind.token_endpoint_auth_method !== "none") {
      client.client_secret = derivedAlphanumeric(`generated secret ${i}`, 64);
    }
    return client;
  });
}
