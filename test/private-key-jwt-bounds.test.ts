/**
 * The bounds of a private key JWT login (docs/design/local-tenant.md, "Private key JWT"): the local
 * tenant takes an assertion that lives a few minutes at most and was signed no longer ago than
 * that, keeps each `jti` only until its assertion expires and never more than a bounded number of
 * them; the provider takes a plain RSA private key only, the one kind every one of the three
 * algorithms signs with.
 */

import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { readPrivateKey } from "../provider/api/client-assertion.js";
import {
  AssertionReplayGuard,
  MAX_ASSERTION_LIFETIME_SECONDS,
  MAX_REMEMBERED_ASSERTIONS,
  seedClientKeys,
} from "../provider/local-tenant/client-keys.js";
import { startTenantApi } from "../provider/local-tenant/server.js";
import type { TenantApi } from "../provider/local-tenant/tenant-api.js";
import { callApi } from "./support/test-client.js";

const NOW = Date.UTC(2030, 0, 1);
const NOW_SECONDS = NOW / 1000;
const DAY = 86_400;

let api: TenantApi | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

/** A tenant whose deployment client logs in by private key JWT, at a fixed time. */
async function tenant(): Promise<TenantApi> {
  api = await startTenantApi({ privateKeyJwt: true, clock: () => NOW });
  return api;
}

/** An assertion of the deployment client with the claims given over the right ones. */
async function assertion(started: TenantApi, claims: Record<string, unknown>): Promise<string> {
  const { SignJWT } = await import("jose");
  const key = createPrivateKey(started.clientAssertionPrivateKey ?? "");
  return new SignJWT({
    iss: started.clientId,
    sub: started.clientId,
    aud: `${started.domain}/`,
    jti: `jti-${Math.random()}`,
    iat: NOW_SECONDS,
    exp: NOW_SECONDS + 60,
    ...claims,
  })
    .setProtectedHeader({ alg: "RS256" })
    .sign(key);
}

async function tokenRequest(started: TenantApi, jwt: string) {
  const answer = await callApi(started, "POST", "/oauth/token", {
    form: {
      grant_type: "client_credentials",
      audience: started.audience,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: jwt,
    },
  });
  return [answer.status, answer.body];
}

const refusal = (description: string) => [
  401,
  { error: "invalid_client", error_description: description },
];

describe("the local tenant's bounds on a client assertion", () => {
  it("issues a token for an assertion that lives the five minutes it allows", async () => {
    const started = await tenant();
    const jwt = await assertion(started, { exp: NOW_SECONDS + MAX_ASSERTION_LIFETIME_SECONDS });
    expect((await tokenRequest(started, jwt))[0]).toBe(200);
  });

  it("refuses an assertion whose exp is a hundred years after its iat", async () => {
    const started = await tenant();
    const jwt = await assertion(started, { exp: NOW_SECONDS + 100 * 365 * DAY });
    expect(await tokenRequest(started, jwt)).toEqual(
      refusal(
        "client_assertion lives 3153600000 seconds (exp - iat); the most the tenant takes is 300",
      ),
    );
  });

  it("refuses an assertion signed ten days ago, although its exp is still ahead", async () => {
    const started = await tenant();
    const jwt = await assertion(started, { iat: NOW_SECONDS - 10 * DAY, exp: NOW_SECONDS + 60 });
    expect(await tokenRequest(started, jwt)).toEqual(
      refusal("client_assertion iat is more than 300 seconds in the past"),
    );
  });

  it("refuses an assertion whose jti is not a string with a sentence that says so", async () => {
    const started = await tenant();
    const jwt = await assertion(started, { jti: 12345 });
    expect(await tokenRequest(started, jwt)).toEqual(
      refusal("client_assertion jti must be a string"),
    );
  });
});

describe("AssertionReplayGuard", () => {
  it("forgets a jti once its assertion has expired, with the clock difference allowed", () => {
    const guard = new AssertionReplayGuard();
    expect(guard.accept("client", "a", NOW_SECONDS + 60, NOW_SECONDS)).toBe(true);
    expect(guard.accept("client", "a", NOW_SECONDS + 60, NOW_SECONDS + 1)).toBe(false);
    expect(guard.size).toBe(1);
    expect(guard.accept("client", "b", NOW_SECONDS + 200, NOW_SECONDS + 120)).toBe(true);
    expect(guard.size).toBe(1);
  });

  it(`remembers at most ${MAX_REMEMBERED_ASSERTIONS} jtis, however many arrive before any expires`, () => {
    const guard = new AssertionReplayGuard();
    for (let n = 0; n < MAX_REMEMBERED_ASSERTIONS + 10; n += 1) {
      expect(guard.accept("client", `jti-${n}`, NOW_SECONDS + 300, NOW_SECONDS)).toBe(true);
    }
    expect(guard.size).toBe(MAX_REMEMBERED_ASSERTIONS);
    // The latest are still refused a second time.
    expect(
      guard.accept(
        "client",
        `jti-${MAX_REMEMBERED_ASSERTIONS + 9}`,
        NOW_SECONDS + 300,
        NOW_SECONDS,
      ),
    ).toBe(false);
  });
});

describe("the private key a login signs with", () => {
  it("refuses an RSA-PSS key restricted to its own digest at the check, for every algorithm", () => {
    const pem = generateKeyPairSync("rsa-pss", {
      modulusLength: 2048,
      hashAlgorithm: "sha512",
      mgf1HashAlgorithm: "sha512",
    }).privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    for (const alg of ["RS256", "RS384", "PS256"] as const) {
      expect(readPrivateKey(pem, alg)).toEqual({
        problem: `is an RSA-PSS key; ${alg} signs with a plain RSA private key (its PEM's key type rsaEncryption), the kind the platform registers`,
      });
    }
  });

  it("refuses an unrestricted RSA-PSS key too, which the local tenant's seed cannot register", () => {
    const pem = generateKeyPairSync("rsa-pss", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    }) as string;
    expect(readPrivateKey(pem, "PS256")).toEqual({
      problem:
        "is an RSA-PSS key; PS256 signs with a plain RSA private key (its PEM's key type rsaEncryption), the kind the platform registers",
    });
  });

  it("takes a plain RSA key for PS256", () => {
    const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    }) as string;
    const read = readPrivateKey(pem, "PS256");
    expect("key" in read && read.key.asymmetricKeyType).toBe("rsa");
  });
});

describe("the public key a seed registers", () => {
  it("refuses an RSA-PSS public key with a sentence that names its kind", () => {
    const pem = generateKeyPairSync("rsa-pss", { modulusLength: 2048 }).publicKey.export({
      type: "spki",
      format: "pem",
    }) as string;
    const read = seedClientKeys(
      [{ credential_type: "public_key", alg: "PS256", pem }],
      "credentials",
    );
    expect(read).toEqual({
      keys: [],
      problems: [
        "credentials[0].pem: is an RSA-PSS key; register a plain RSA public key (key type rsaEncryption), which PS256 signs with too",
      ],
    });
  });
});
