/**
 * The credentials of a connection and their rules: exactly one way of authenticating (an API
 * token, a client secret or a private key), the client id with the latter two, a signing
 * algorithm the platform accepts and a private key of its type. No message quotes a credential.
 *
 * @module
 */

import type { KeyObject } from "node:crypto";
import {
  CLIENT_ASSERTION_ALGS,
  type ClientAssertionAlg,
  DEFAULT_CLIENT_ASSERTION_ALG,
  isClientAssertionAlg,
  readPrivateKey,
} from "../api/client-assertion.js";
import {
  type ConnectionNaming,
  type ConnectionProblem,
  type ConnectionValues,
  given,
} from "./values.js";

/** The settings that are each one way of proving who the provider is. */
const AUTH_METHODS = ["apiToken", "clientSecret", "clientAssertionPrivateKey"] as const;

/** What a connection proves itself with, once its rules hold; undefined while a value is unknown. */
type Proof =
  | { readonly kind: "apiToken"; readonly token: string }
  | { readonly kind: "clientSecret"; readonly secret: string }
  | { readonly kind: "privateKey"; readonly key: KeyObject; readonly alg: ClientAssertionAlg };

/**
 * The rules of the credentials: exactly one way of authenticating (an API token, a client secret
 * or a private key), the client id with the latter two (`missing`: what may yet come from the
 * environment, or be needed only by an operation), a signing algorithm the platform accepts and a
 * private key of that algorithm's type (`problems`). No message quotes a credential.
 */
export function credentialsOf(
  values: ConnectionValues,
  naming: ConnectionNaming,
): { missing: ConnectionProblem[]; problems: ConnectionProblem[]; proof: Proof | undefined } {
  const { names, howTo } = naming;
  const missing: ConnectionProblem[] = [];
  const problems: ConnectionProblem[] = [];
  const methods = AUTH_METHODS.filter((method) => given(values[method]).kind !== "absent");
  const hasId = given(values.clientId).kind !== "absent";
  const [method, second] = methods;
  if (second !== undefined) {
    // At a credential, not at the whole connection: a check failure never sits on a value that
    // holds a secret (docs/design/decisions.md).
    problems.push({
      setting: second,
      message:
        `pulumi-tenant has more than one way of authenticating: ` +
        `${methods.map((m) => names[m]).join(" and ")} are ${methods.length === 2 ? "both" : "all"} set; keep exactly one of ` +
        `${names.clientAssertionPrivateKey}, ${names.clientSecret} or ${names.apiToken}`,
    });
  } else if (method === undefined) {
    missing.push(
      hasId
        ? {
            setting: "clientSecret",
            message:
              `pulumi-tenant has incomplete client credentials: ${names.clientAssertionPrivateKey} ` +
              `or ${names.clientSecret} is missing; ${howTo}`,
          }
        : { setting: undefined, message: `pulumi-tenant has no credentials: ${howTo}` },
    );
  } else if (method !== "apiToken" && !hasId) {
    missing.push({
      setting: "clientId",
      message: `pulumi-tenant has incomplete client credentials: ${names.clientId} is missing; ${howTo}`,
    });
  }

  const algGiven = given(values.clientAssertionSigningAlg);
  let alg: ClientAssertionAlg | undefined = DEFAULT_CLIENT_ASSERTION_ALG;
  if (algGiven.kind === "opaque") alg = undefined;
  else if (algGiven.kind === "text") {
    if (isClientAssertionAlg(algGiven.text)) alg = algGiven.text;
    else {
      alg = undefined;
      problems.push({
        setting: "clientAssertionSigningAlg",
        message:
          `${names.clientAssertionSigningAlg} "${algGiven.text}" is not an algorithm the platform ` +
          `accepts for client assertions; use one of ${CLIENT_ASSERTION_ALGS.join(", ")}`,
      });
    }
  }
  const pem = given(values.clientAssertionPrivateKey);
  let key: KeyObject | undefined;
  if (pem.kind === "text" && alg !== undefined) {
    const read = readPrivateKey(pem.text, alg);
    if ("key" in read) key = read.key;
    else {
      problems.push({
        setting: "clientAssertionPrivateKey",
        message: `${names.clientAssertionPrivateKey} ${read.problem}`,
      });
    }
  }
  if (missing.length > 0 || problems.length > 0) return { missing, problems, proof: undefined };
  const apiToken = given(values.apiToken);
  const secret = given(values.clientSecret);
  const proof: Proof | undefined =
    apiToken.kind === "text"
      ? { kind: "apiToken", token: apiToken.text }
      : secret.kind === "text"
        ? { kind: "clientSecret", secret: secret.text }
        : key !== undefined && alg !== undefined
          ? { kind: "privateKey", key, alg }
          : undefined;
  return { missing, problems, proof };
}

/**
 * The problems of the credentials `values` give, leaving out a missing one (a preview needs no
 * credentials, and a missing one may come from the environment): more than one way of
 * authenticating, a signing algorithm the platform does not accept, a private key that does not fit
 * it. What `check` and the plugin's `CheckConfig` report of the stack config, so that these fail at
 * preview, before any request.
 */
export function givenCredentialProblems(
  values: ConnectionValues,
  naming: ConnectionNaming,
): ConnectionProblem[] {
  return credentialsOf(values, naming).problems;
}
