/**
 * The provider's own login by private key JWT (RFC 7523, `private_key_jwt`): the algorithms a
 * client assertion may be signed with, the reading of the private key, and the assertion itself.
 * Signed with Node.js's own `crypto`, not `jose`: `jose` is an optional peer dependency that only
 * the local tenant needs, and the provider must log in wherever it runs (docs/design/decisions.md,
 * "Client assertions: signed with Node.js's crypto").
 *
 * @module
 */

import { constants, createPrivateKey, type KeyObject, randomUUID, sign } from "node:crypto";

/**
 * The algorithms the platform accepts for client assertions (docs/design/platform.md, "Client
 * assertions").
 */
export const CLIENT_ASSERTION_ALGS = ["RS256", "RS384", "PS256"] as const;

/** One of {@link CLIENT_ASSERTION_ALGS}. */
export type ClientAssertionAlg = (typeof CLIENT_ASSERTION_ALGS)[number];

/** The algorithm a private key signs with when none is set, as in the other tools. */
export const DEFAULT_CLIENT_ASSERTION_ALG: ClientAssertionAlg = "RS256";

/** What `client_assertion_type` says: the assertion is a JWT bearer assertion (RFC 7523 §2.2). */
export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/**
 * Seconds an assertion is valid after it is signed: one token request's worth. Short, so that an
 * assertion copied from the wire is worth nothing a minute later (the platform also refuses a
 * `jti` it has seen).
 *
 * @internal
 */
export const CLIENT_ASSERTION_LIFETIME_SECONDS = 60;

/** The smallest RSA modulus the platform takes for a client's public key, in bits. */
const MIN_RSA_BITS = 2048;

/** How each algorithm signs: the digest, and the padding (PSS with a salt of the digest's size). */
const SIGNERS: Readonly<
  Record<ClientAssertionAlg, { readonly digest: string; readonly pss: boolean }>
> = {
  RS256: { digest: "sha256", pss: false },
  RS384: { digest: "sha384", pss: false },
  PS256: { digest: "sha256", pss: true },
};

/** Whether `alg` is one of {@link CLIENT_ASSERTION_ALGS}. */
export function isClientAssertionAlg(alg: string): alg is ClientAssertionAlg {
  return (CLIENT_ASSERTION_ALGS as readonly string[]).includes(alg);
}

/**
 * The private key `pem` holds, fit to sign `alg`; or why not, as the end of a sentence that names
 * the setting (`tenant:clientAssertionPrivateKey is not ...`). The reason never quotes the key,
 * nor the parser's message (which may).
 */
export function readPrivateKey(
  pem: string,
  alg: ClientAssertionAlg,
): { readonly key: KeyObject } | { readonly problem: string } {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    return {
      problem:
        "is not a PEM private key (it must begin with -----BEGIN PRIVATE KEY----- or " +
        "-----BEGIN RSA PRIVATE KEY-----; a public key or a certificate is registered on the " +
        "client, not set here)",
    };
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    return { problem: "is not a readable PEM private key (its body is damaged or encrypted)" };
  }
  const type = key.asymmetricKeyType;
  // An RSA-PSS key may be restricted to one digest and salt, which `sign` refuses at token time
  // (ERR_OSSL_DIGEST_NOT_ALLOWED); the platform registers plain RSA public keys only, and PS256
  // signs with a plain RSA key as well. So a plain RSA key only, refused here, at the check.
  if (type === "rsa-pss") {
    return {
      problem: `is an RSA-PSS key; ${alg} signs with a plain RSA private key (its PEM's key type rsaEncryption), the kind the platform registers`,
    };
  }
  if (type !== "rsa") {
    return {
      problem: `is ${type === undefined ? "not an asymmetric key" : `an ${type.toUpperCase()} key`}; ${alg} signs with an RSA private key`,
    };
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) {
    return {
      problem: `is an RSA key of ${bits} bits; the platform takes ${MIN_RSA_BITS} bits or more`,
    };
  }
  return { key };
}

/** What an assertion says and how it is signed. */
export interface ClientAssertionClaims {
  /** `iss` and `sub`. */
  readonly clientId: string;
  /** `aud`: the tenant as the platform expects it, `https://{domain}/`. */
  readonly audience: string;
  readonly alg: ClientAssertionAlg;
  readonly key: KeyObject;
}

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString("base64url");
}

/**
 * A client assertion: a JWT with `iss` and `sub` the client id, `aud`, a unique `jti`, `iat` now
 * and `exp` {@link CLIENT_ASSERTION_LIFETIME_SECONDS} later, signed with `alg`.
 */
export function signClientAssertion(
  claims: ClientAssertionClaims,
  nowMs: number,
  jti: string = randomUUID(),
): string {
  const iat = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: claims.alg, typ: "JWT" }));
  const payload = base64url(
    JSON.stringify({
      iss: claims.clientId,
      sub: claims.clientId,
      aud: claims.audience,
      jti,
      iat,
      exp: iat + CLIENT_ASSERTION_LIFETIME_SECONDS,
    }),
  );
  const signing = `${header}.${payload}`;
  const { digest, pss } = SIGNERS[claims.alg];
  const signature = sign(
    digest,
    Buffer.from(signing),
    pss
      ? {
          key: claims.key,
          padding: constants.RSA_PKCS1_PSS_PADDING,
          saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
        }
      : claims.key,
  );
  return `${signing}.${base64url(signature)}`;
}
