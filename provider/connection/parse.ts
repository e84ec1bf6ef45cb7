/**
 * A connection to one tenant (where, and as whom) and the rules it must follow, whichever way it
 * is given: the stack config and environment (`config.ts`) or a resource's `tenant` input. One
 * function states the rules for both, so both say the same thing, each naming a setting the way
 * its user spells it (`tenant:domain` in stack config, `tenant.domain` in a program). The rules'
 * parts are the domain's (`origin.ts`) and the credentials' (`credentials.ts`); how the values
 * are given and named is `values.ts`.
 *
 * @module
 */

import type { Connection, Credentials } from "../api/settings.js";
import { TenantConfigError } from "../errors.js";
import { isPlainObject } from "../json.js";
import { credentialsOf } from "./credentials.js";
import { originOf } from "./origin.js";
import {
  type ConnectionNaming,
  type ConnectionProblem,
  type ConnectionValues,
  given,
} from "./values.js";

/**
 * The members of a resource's `tenant` input as {@link ConnectionValues}, or undefined when the
 * resource has none (it uses the stack config). A value that is not an object gives no values, so
 * it fails as "not configured".
 */
export function connectionValues(tenant: unknown): ConnectionValues | undefined {
  if (tenant === undefined || tenant === null) return undefined;
  return isPlainObject(tenant) ? (tenant as ConnectionValues) : {};
}

/**
 * Every rule `values` break, in the order the stack config path has always reported them (the
 * domain first), empty when the connection is complete. Empty and blank strings count as not
 * set, so `TENANT_API_TOKEN=` in a CI job does not shadow the client credentials. Never throws.
 */
export function connectionProblems(
  values: ConnectionValues,
  naming: ConnectionNaming,
): ConnectionProblem[] {
  return evaluate(values, naming).problems;
}

/**
 * The connection `values` describe: the domain as an origin, and the API token, else the client
 * credentials (their token URL and default audience derived from the origin).
 *
 * @throws {TenantConfigError} with the message of the first of {@link connectionProblems}.
 */
export function resolveConnection(values: ConnectionValues, naming: ConnectionNaming): Connection {
  const { problems, connection } = evaluate(values, naming);
  const [first] = problems;
  if (first !== undefined) throw new TenantConfigError(first.message);
  if (connection === undefined) {
    // Only unknown values leave no connection and no problem; they never reach an operation.
    throw new TenantConfigError(`${naming.names.domain} is not known yet`);
  }
  return connection;
}

function evaluate(
  values: ConnectionValues,
  naming: ConnectionNaming,
): { problems: ConnectionProblem[]; connection: Connection | undefined } {
  const problems: ConnectionProblem[] = [];
  const { names, howTo } = naming;
  const domain = given(values.domain);
  let origin: string | undefined;
  if (domain.kind === "absent") {
    problems.push({ setting: "domain", message: `pulumi-tenant is not configured: ${howTo}` });
  } else if (domain.kind === "text") {
    const parsed = originOf(domain.text, names.domain);
    if ("origin" in parsed) origin = parsed.origin;
    else problems.push({ setting: "domain", message: parsed.message });
  }

  const credentialRules = credentialsOf(values, naming);
  problems.push(...credentialRules.missing, ...credentialRules.problems);
  if (problems.length > 0 || origin === undefined) return { problems, connection: undefined };
  const { proof } = credentialRules;

  const baseUrl = `${origin}/api/v2`;
  const clientId = given(values.clientId);
  const audience = given(values.audience);
  const client = {
    audience: audience.kind === "text" ? audience.text : `${baseUrl}/`,
    tokenUrl: `${origin}/oauth/token`,
  };
  let credentials: Credentials | undefined;
  if (proof?.kind === "apiToken") {
    credentials = { kind: "apiToken", token: proof.token };
  } else if (proof !== undefined && clientId.kind === "text") {
    credentials =
      proof.kind === "clientSecret"
        ? {
            kind: "clientCredentials",
            clientId: clientId.text,
            clientSecret: proof.secret,
            ...client,
          }
        : {
            kind: "privateKeyJwt",
            clientId: clientId.text,
            privateKey: proof.key,
            alg: proof.alg,
            ...client,
            assertionAudience: `${origin}/`,
            settings: {
              key: names.clientAssertionPrivateKey,
              alg: names.clientAssertionSigningAlg,
            },
          };
  }
  return {
    problems,
    connection: credentials === undefined ? undefined : { origin, baseUrl, credentials },
  };
}
