/**
 * What a generated program declares, decided from what the tenant answered: one `ClientSettings`
 * per client with its id and the chosen fields exactly as the tenant holds them (each client's
 * declaration is the clients' own, `clients/declaration.ts`), named after the client, and one
 * `PushProviderSelection`. Pure: the reads happen elsewhere (`clients/reads.ts`), the text
 * elsewhere (`project.ts`).
 *
 * @module
 */

import type { WireClient } from "../api/client-read-policy.js";
import { SECRET_FIELDS } from "../clients/catalogue.js";
import { type ClientDeclaration, declarationOf } from "../clients/declaration.js";
import { type ClientSettingsField, PUSH_PROVIDERS } from "../schema/index.js";

/** One adopted client: the resource to declare. */
export interface AdoptedClient extends ClientDeclaration {
  /** The Pulumi resource name, from the client's name. */
  readonly resourceName: string;
}

/** Everything a generated program declares. */
export interface ProgramPlan {
  /** The selected push provider, or undefined when the tenant answered none the schema knows. */
  readonly pushProvider: string | undefined;
  readonly clients: readonly AdoptedClient[];
  /** Notes about the whole program (secret fields left out, push provider left out). */
  readonly notes: readonly string[];
}

/** Longest resource name taken from a client's name, before any suffix. */
const MAX_NAME_LENGTH = 48;

/**
 * The readable part of a resource name: the client's name lowercased, accents dropped, every run
 * of other characters one `-` (`Customer Portal` → `customer-portal`), cut to a few dozen
 * characters; `client` when nothing is left.
 *
 * @internal
 */
export function slugOf(name: unknown): string {
  const text = typeof name === "string" ? name : "";
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, "");
  return slug === "" ? "client" : slug;
}

/**
 * Resource names for clients, in the order given (the tenant's creation order): the slug of the
 * name, and for a later client whose slug is taken, the slug and the first 8 characters of its id
 * (the whole id if that is taken too). The first client keeps the plain name, so a client created
 * later with the same name never renames an adopted one. Names depend only on the clients, so an
 * unchanged tenant gives the same names on every run.
 *
 * @internal
 */
export function resourceNames(
  clients: readonly { readonly clientId: string; readonly name: unknown }[],
): string[] {
  const taken = new Set<string>();
  return clients.map(({ clientId, name }) => {
    const slug = slugOf(name);
    const candidates = [slug, `${slug}-${clientId.slice(0, 8)}`, `${slug}-${clientId}`];
    // The whole id is unique among clients; the counter only guards against a name that happens
    // to look like another client's suffixed one.
    let chosen = candidates.find((candidate) => !taken.has(candidate));
    for (let n = 2; chosen === undefined && n <= clients.length + 1; n += 1) {
      const numbered = `${slug}-${clientId}-${n}`;
      if (!taken.has(numbered)) chosen = numbered;
    }
    const result = chosen ?? `${slug}-${clientId}-${clients.length + 2}`;
    taken.add(result);
    return result;
  });
}

/**
 * The whole program: the clients (already selected, in the order to declare them) and the push
 * provider as the tenant answered it. `declared` holds declarations already made of some clients
 * with the same `fields`, by client id ({@link declarationOf}): generate makes them as the pages
 * arrive, in the time the rate limit has the next page wait, so that only the names (which depend
 * on every client) are left for the end.
 */
export function planProgram(input: {
  readonly clients: readonly WireClient[];
  readonly pushProvider: unknown;
  readonly fields: readonly ClientSettingsField[];
  readonly declared?: ReadonlyMap<string, ClientDeclaration>;
}): ProgramPlan {
  const names = resourceNames(
    input.clients.map((client) => ({ clientId: client.client_id, name: client.name })),
  );
  const clients = input.clients.map((client, index) => ({
    resourceName: names[index] ?? client.client_id,
    ...(input.declared?.get(client.client_id) ?? declarationOf(client, input.fields)),
  }));
  const notes: string[] = [];
  for (const field of input.fields) {
    const secret = SECRET_FIELDS[field];
    if (secret !== undefined) {
      notes.push(
        `${field} left out of every client: ${secret.what} is secret and never written. To ` +
          `manage it, declare ${field}: ${secret.read}("<client>-${field}") (config being a ` +
          `pulumi.Config) and set it with \`pulumi config set --secret <client>-${field}\``,
      );
    }
  }
  const known = (PUSH_PROVIDERS as readonly unknown[]).includes(input.pushProvider);
  if (!known) {
    notes.push(
      `PushProviderSelection left out: the tenant answered no known push provider ` +
        `(expected one of ${PUSH_PROVIDERS.join(", ")})`,
    );
  }
  return {
    pushProvider: known ? (input.pushProvider as string) : undefined,
    clients,
    notes,
  };
}
