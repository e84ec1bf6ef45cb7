/**
 * Clients that log in by private key JWT (RFC 7523), as the platform keeps and checks them: the
 * public keys registered on a client (its `credentials`, as the platform's client credentials API
 * takes them), the ones `client_authentication_methods.private_key_jwt.credentials` names, and the
 * token endpoint's check of a client assertion against them (docs/design/local-tenant.md, "Private key
 * JWT"). Verified with `jose`, like the tenant's own access tokens (`auth.ts`).
 *
 * @module
 */

import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { CLIENT_ASSERTION_ALGS, isClientAssertionAlg } from "../api/client-assertion.js";
import { isPlainObject } from "../json.js";
import { loadJose } from "./auth.js";
import { CREDENTIALS_FIELD, type WireClient } from "./clients.js";
import { OAuthError } from "./errors.js";

/** A public key registered on a client. */
export interface ClientKey {
  /** Its id, which `client_authentication_methods` names. */
  id: string;
  credential_type: "public_key";
  /** The public key, PEM (SPKI or an X.509 certificate). */
  pem: string;
  /** The one algorithm assertions verified by it may use. */
  alg: string;
  name?: string;
}

/** Seconds of clock difference allowed on `iat` and `exp`, as the platform allows a caller. */
const ASSERTION_SKEW_SECONDS = 30;

/**
 * The longest an assertion may live (`exp - iat`), and the longest ago its `iat` may be, in
 * seconds (docs/design/local-tenant.md, "Private key JWT"). An assertion is one token request's worth
 * (the provider signs one for 60 seconds); one that lives for years is a stolen credential that
 * never goes stale, and its `jti` would have to be kept as long.
 *
 * @internal
 */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

/**
 * The most `jti`s kept at once. Each lives {@link MAX_ASSERTION_LIFETIME_SECONDS} at most, so this
 * is reached only past 33 token requests a second; then the oldest is forgotten first.
 *
 * @internal
 */
export const MAX_REMEMBERED_ASSERTIONS = 10_000;

/** How a seed client's keys read: the keys, or the problems at their JSON paths. */
export function seedClientKeys(
  value: unknown,
  where: string,
): { keys: ClientKey[]; problems: string[] } {
  if (value === undefined) return { keys: [], problems: [] };
  if (!Array.isArray(value)) return { keys: [], problems: [`${where}: must be an array`] };
  const keys: ClientKey[] = [];
  const problems: string[] = [];
  value.forEach((item: unknown, index) => {
    const at = `${where}[${index}]`;
    if (!isPlainObject(item)) {
      problems.push(`${at}: must be an object`);
      return;
    }
    if (item.credential_type !== "public_key") {
      problems.push(`${at}.credential_type: must be "public_key"`);
      return;
    }
    if (typeof item.alg !== "string" || !isClientAssertionAlg(item.alg)) {
      problems.push(`${at}.alg: must be one of ${CLIENT_ASSERTION_ALGS.join(", ")}`);
      return;
    }
    const pem = typeof item.pem === "string" ? item.pem : "";
    let type: string | undefined;
    try {
      type = createPublicKey(pem).asymmetricKeyType;
    } catch {
      type = undefined;
    }
    if (type === "rsa-pss") {
      // The provider refuses its private half too (`readPrivateKey`): the platform registers
      // plain RSA keys only, and PS256 signs with one.
      problems.push(
        `${at}.pem: is an RSA-PSS key; register a plain RSA public key (key type rsaEncryption), which PS256 signs with too`,
      );
      return;
    }
    if (type !== "rsa") {
      problems.push(`${at}.pem: must be an RSA public key or certificate, PEM`);
      return;
    }
    const id = typeof item.id === "string" && item.id !== "" ? item.id : `cred_${index}`;
    keys.push({
      id,
      credential_type: "public_key",
      pem,
      alg: item.alg,
      ...(typeof item.name === "string" ? { name: item.name } : {}),
    });
  });
  return { keys, problems };
}

/** The ids that `client_authentication_methods.private_key_jwt.credentials` names. */
export function privateKeyJwtCredentialIds(client: WireClient): string[] {
  const methods = client.client_authentication_methods;
  if (!isPlainObject(methods) || !isPlainObject(methods.private_key_jwt)) return [];
  const list = methods.private_key_jwt.credentials;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: unknown) =>
    isPlainObject(item) && typeof item.id === "string" ? [item.id] : [],
  );
}

/** The keys of `client` that `client_authentication_methods.private_key_jwt` names. */
export function privateKeyJwtKeys(client: WireClient): ClientKey[] {
  const ids = privateKeyJwtCredentialIds(client);
  const keys = Array.isArray(client[CREDENTIALS_FIELD])
    ? (client[CREDENTIALS_FIELD] as ClientKey[])
    : [];
  return keys.filter((key) => ids.includes(key.id));
}

/**
 * A key pair for a client that logs in by private key JWT: the private key (PKCS #8 PEM), for
 * the test to configure, and the credential to register on the client.
 */
export function newClientKeyPair(alg: string): { privateKeyPem: string; key: ClientKey } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    key: {
      id: "cred_deployment",
      credential_type: "public_key",
      name: "pulumi-tenant deployment",
      pem: publicKey.export({ type: "spki", format: "pem" }).toString(),
      alg,
    },
  };
}

/**
 * The `jti`s of assertions accepted and not yet expired: each is accepted once. Expired ones are
 * dropped at most once every {@link ASSERTION_SKEW_SECONDS} (not on every request, which would walk
 * the whole store each time), and never more than {@link MAX_REMEMBERED_ASSERTIONS} are kept.
 */
export class AssertionReplayGuard {
  /** Each `jti` (of its client) and the second its assertion expires, oldest accepted first. */
  private readonly seen = new Map<string, number>();
  /** When the expired ones are next dropped, in seconds. */
  private pruneAt = Number.NEGATIVE_INFINITY;

  /** How many `jti`s are kept now. */
  get size(): number {
    return this.seen.size;
  }

  /** Records `jti` of `clientId`, valid until `exp` (seconds); false when it was seen before. */
  accept(clientId: string, jti: string, exp: number, nowSeconds: number): boolean {
    if (nowSeconds >= this.pruneAt) {
      for (const [key, until] of this.seen) {
        if (until + ASSERTION_SKEW_SECONDS < nowSeconds) this.seen.delete(key);
      }
      this.pruneAt = nowSeconds + ASSERTION_SKEW_SECONDS;
    }
    const key = `${clientId} ${jti}`;
    if (this.seen.has(key)) return false;
    if (this.seen.size >= MAX_REMEMBERED_ASSERTIONS) {
      const oldest = this.seen.keys().next();
      if (oldest.done !== true) this.seen.delete(oldest.value);
    }
    this.seen.set(key, exp);
    return true;
  }
}

function refused(description: string): OAuthError {
  return new OAuthError(401, "invalid_client", description);
}

/** What {@link verifyClientAssertion} needs besides the assertion. */
export interface AssertionCheck {
  /** The client the assertion must be of (its keys, its id). */
  readonly client: WireClient;
  /** The one `aud` accepted: the tenant, `${domain}/`. */
  readonly audience: string;
  readonly nowMs: number;
  readonly replays: AssertionReplayGuard;
}

/**
 * Verifies a client assertion as the platform does: signed by one of the keys the client's
 * `private_key_jwt` names, with that key's algorithm; `iss` and `sub` the client id; `aud` the
 * tenant; `exp` and `iat` present and within {@link ASSERTION_SKEW_SECONDS}, at most
 * {@link MAX_ASSERTION_LIFETIME_SECONDS} apart and `iat` no older than that; a string `jti` not
 * seen before.
 *
 * @throws {OAuthError} `invalid_client` (401) with a description of what is wrong.
 */
export async function verifyClientAssertion(
  assertion: string,
  check: AssertionCheck,
): Promise<void> {
  const jose = await loadJose();
  const clientId = check.client.client_id;
  let alg: unknown;
  try {
    alg = jose.decodeProtectedHeader(assertion).alg;
  } catch {
    throw refused("client_assertion is not a well-formed JWT");
  }
  if (typeof alg !== "string" || !isClientAssertionAlg(alg)) {
    throw refused(
      `Algorithm ${String(alg)} is not allowed for client assertions; use one of ${CLIENT_ASSERTION_ALGS.join(", ")}`,
    );
  }
  const keys = privateKeyJwtKeys(check.client);
  const fitting = keys.filter((key) => key.alg === alg);
  if (fitting.length === 0) {
    throw refused(`Algorithm ${alg} does not match the algorithm of the client's credentials`);
  }
  let payload: Record<string, unknown> | undefined;
  for (const key of fitting) {
    try {
      ({ payload } = await jose.jwtVerify(assertion, createPublicKey(key.pem), {
        algorithms: [alg],
        clockTolerance: ASSERTION_SKEW_SECONDS,
        currentDate: new Date(check.nowMs),
        requiredClaims: ["iss", "sub", "aud", "exp", "iat", "jti"],
      }));
      break;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ERR_JWT_EXPIRED") throw refused("client_assertion has expired");
      if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED") {
        throw refused(
          `client_assertion is missing or has an invalid claim: ${(error as { claim?: unknown }).claim}`,
        );
      }
      if (code !== "ERR_JWS_SIGNATURE_VERIFICATION_FAILED") {
        throw refused("client_assertion is not a well-formed JWT");
      }
    }
  }
  if (payload === undefined) {
    throw refused("Invalid client_assertion signature: no credential of the client verifies it");
  }
  if (payload.iss !== clientId || payload.sub !== clientId) {
    throw refused("client_assertion iss and sub must be the client_id");
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(check.audience)) {
    throw refused(`client_assertion aud must be ${check.audience}`);
  }
  const nowSeconds = Math.floor(check.nowMs / 1000);
  // `jose` has checked that both are numbers (`requiredClaims`).
  const iat = Number(payload.iat);
  const exp = Number(payload.exp);
  if (iat > nowSeconds + ASSERTION_SKEW_SECONDS) {
    throw refused("client_assertion iat is in the future");
  }
  if (iat < nowSeconds - MAX_ASSERTION_LIFETIME_SECONDS - ASSERTION_SKEW_SECONDS) {
    throw refused(
      `client_assertion iat is more than ${MAX_ASSERTION_LIFETIME_SECONDS} seconds in the past`,
    );
  }
  if (exp - iat > MAX_ASSERTION_LIFETIME_SECONDS) {
    throw refused(
      `client_assertion lives ${exp - iat} seconds (exp - iat); the most the tenant takes is ${MAX_ASSERTION_LIFETIME_SECONDS}`,
    );
  }
  if (typeof payload.jti !== "string") throw refused("client_assertion jti must be a string");
  if (!check.replays.accept(clientId, payload.jti, exp, nowSeconds)) {
    throw refused("client_assertion jti has already been used");
  }
}
