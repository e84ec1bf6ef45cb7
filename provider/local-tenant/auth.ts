/**
 * Access tokens: RS256 JWTs signed with a key generated at start, verified for real with `jose`
 * (signature, expiry, audience, issuer), and the scope checks of the management API.
 *
 * `jose` 6 ships only ECMAScript modules and this project compiles to CommonJS, so it is loaded
 * with a dynamic `import()` once and cached.
 */

import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { ApiError } from "./errors.js";

// A type-only import declaration of an ES module from CommonJS needs a `resolution-mode`
// attribute, which Biome cannot parse there; import types accept it.
type Jose = typeof import("jose", { with: { "resolution-mode": "import" }});
type CryptoKey = import("jose", { with: { "resolution-mode": "import" }}).CryptoKey;
type JSONWebKeySet = import("jose", { with: { "resolution-mode": "import" }}).JSONWebKeySet;
type JWK = import("jose", { with: { "resolution-mode": "import" }}).JWK;
/** The claims of a verified token (jose's `JWTPayload`). */
export type JWTPayload = import("jose", { with: { "resolution-mode": "import" }}).JWTPayload;

let josePromise: Promise<Jose> | undefined;

/** The `jose` module, loaded once. */
export function loadJose(): Promise<Jose> {
  josePromise ??= import("jose");
  return josePromise;
}

/** Who called, as proven by a verified access token. */
export interface Principal {
  /** The client the token was issued to (`azp`, or `sub` without `@clients`). */
  clientId: string;
  /** The scopes the token carries. */
  scopes: ReadonlySet<string>;
  /** Every claim of the token. */
  claims: JWTPayload;
}

/** Options of {@link TokenAuthority.mint}. */
export interface MintOptions {
  /** Scopes the token carries. */
  scopes: readonly string[];
  /** Seconds until expiry from now; negative for a token that has already expired. Default 3600. */
  expiresIn?: number | undefined;
  /** Sign with a key this server does not publish (same `kid`): the signature check must fail. */
  signWithForeignKey?: boolean | undefined;
  /** Client the token names; default `"test-client"`. */
  clientId?: string | undefined;
  /** Audience claim; default the server's audience. */
  audience?: string | undefined;
  /** Issuer claim; default the server's issuer. */
  issuer?: string | undefined;
}

const ALG = "RS256";

/**
 * Issues and verifies the tenant's access tokens. The issuer and audience depend on the port,
 * known only once the server listens, so {@link TokenAuthority.setDomain} is called then.
 */
export class TokenAuthority {
  private domain = "";
  private foreignKey: Promise<CryptoKey> | undefined;

  private constructor(
    private readonly jose: Jose,
    private readonly privateKey: CryptoKey,
    private readonly publicJwk: JWK,
    private readonly clock: () => number,
  ) {}

  /** Generates the signing key. */
  static async create(clock: () => number): Promise<TokenAuthority> {
    const jose = await loadJose();
    const { privateKey, publicKey } = await jose.generateKeyPair(ALG);
    const jwk = await jose.exportJWK(publicKey);
    const kid = await jose.calculateJwkThumbprint(jwk);
    return new TokenAuthority(jose, privateKey, { ...jwk, kid, alg: ALG, use: "sig" }, clock);
  }

  /** Sets the tenant's URL with scheme (`http://127.0.0.1:43123`), from which iss and aud derive. */
  setDomain(domain: string): void {
    this.domain = domain;
  }

  /** The `iss` claim: the tenant URL with a trailing slash. */
  get issuer(): string {
    return `${this.domain}/`;
  }

  /** The management API's audience: `<domain>/api/v2/`. */
  get audience(): string {
    return `${this.domain}/api/v2/`;
  }

  /** The public key set served at `/.well-known/jwks.json`. */
  jwks(): JSONWebKeySet {
    return { keys: [{ ...this.publicJwk }] };
  }

  private nowSeconds(): number {
    return Math.floor(this.clock() / 1000);
  }

  /** Signs a token for a client with the given scopes, valid `ttlSeconds` from now. */
  async issue(clientId: string, scopes: readonly string[], ttlSeconds: number): Promise<string> {
    return this.sign({ clientId, scopes, expiresIn: ttlSeconds }, this.privateKey);
  }

  /** Signs a token outside the token endpoint, for tests of 401 and 403 answers. */
  async mint(options: MintOptions): Promise<string> {
    let key = this.privateKey;
    if (options.signWithForeignKey === true) {
      this.foreignKey ??= this.jose.generateKeyPair(ALG).then((pair) => pair.privateKey);
      key = await this.foreignKey;
    }
    return this.sign(options, key);
  }

  private async sign(options: MintOptions, key: CryptoKey): Promise<string> {
    const clientId = options.clientId ?? "test-client";
    const iat = this.nowSeconds();
    return new this.jose.SignJWT({
      scope: options.scopes.join(" "),
      gty: "client-credentials",
      azp: clientId,
    })
      .setProtectedHeader({ alg: ALG, typ: "JWT", kid: this.publicJwk.kid ?? "" })
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.audience ?? this.audience)
      .setSubject(`${clientId}@clients`)
      .setIssuedAt(iat)
      .setExpirationTime(iat + (options.expiresIn ?? 3600))
      .setJti(randomUUID())
      .sign(key);
  }

  /**
   * Verifies the `Authorization` header of a management API request and returns the caller.
   * Throws a 401 {@link ApiError} whose message says what is wrong: missing, malformed, expired,
   * badly signed, or meant for another audience or issuer.
   */
  async verify(authorization: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === "") {
      throw unauthorized("Missing authentication");
    }
    const match = /^Bearer +([^\s]+)\s*$/i.exec(authorization);
    const token = match?.[1];
    if (token === undefined) throw unauthorized("Bad HTTP authentication header format");
    const keySet = this.jose.createLocalJWKSet(this.jwks());
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await this.jose.jwtVerify(token, keySet, {
        algorithms: [ALG],
        issuer: this.issuer,
        audience: this.audience,
        currentDate: new Date(this.clock()),
      }));
    } catch (error) {
      throw unauthorized(verificationFailure(error));
    }
    const scopes = new Set(
      typeof claims.scope === "string" ? claims.scope.split(" ").filter((s) => s !== "") : [],
    );
    const azp = typeof claims.azp === "string" ? claims.azp : undefined;
    const clientId = azp ?? (claims.sub ?? "").replace(/@clients$/, "");
    return { clientId, scopes, claims };
  }
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, "invalid_token", message, {
    "www-authenticate": `Bearer error="invalid_token", error_description="${message}"`,
  });
}

/** Turns a jose failure into the sentence the 401 answer carries. */
function verificationFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const claim = (error as { claim?: unknown }).claim;
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return "Expired token";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "Invalid signature";
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "Invalid token: signing algorithm not allowed";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (claim === "aud") return "Bad audience";
      if (claim === "iss") return "Bad issuer";
      return `Invalid token: ${(error as Error).message}`;
    default:
      return "Invalid token: not a well-formed JWT";
  }
}

/**
 * Throws a 403 naming the scope when the caller lacks it. The platform's message says "any of"
 * because some routes accept one of several scopes; every route here needs exactly one.
 */
export function requireScope(principal: Principal, scope: string): void {
  if (!principal.scopes.has(scope)) {
    throw new ApiError(403, "insufficient_scope", `Insufficient scope, expected any of: ${scope}`);
  }
}

/** Whether the caller's token carries at least one of `scopes`. */
export function hasAnyScope(principal: Principal, scopes: readonly string[]): boolean {
  return scopes.some((scope) => principal.scopes.has(scope));
}

/** Compares two secrets in constant time (hashing first, so lengths need not match). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
