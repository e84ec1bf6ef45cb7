import type * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { SENSITIVE_CONNECTION_SETTINGS } from "../provider/connection/schema.js";
import { clientSettingsSchema } from "../provider/schema/client-settings.js";
import { checkInputs, type ResourceKind, sensitiveMemberNames } from "../provider/schema/index.js";

const SECRET = "check-failure-secret-Zx9Vb7";

/** Settings that are valid for each resource, so that only what a test adds can fail. */
const VALID: Record<ResourceKind, Record<string, unknown>> = {
  PushProviderSelection: { provider: "sns" },
  ClientSettings: { clientId: "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1" },
  EventStreamDeletion: { eventStreamId: "est_O84nSDdMeE4qFON6OlztEs" },
};
const KINDS = Object.keys(VALID) as ResourceKind[];

/**
 * Every name the schemas annotate `"x-sensitive"`: the client's fields and key material
 * (`clientSecret`, `addons`, `storageAccessKey`, ...) and the connection's credentials.
 */
const SENSITIVE_NAMES = [
  ...new Set([...sensitiveMemberNames(clientSettingsSchema), ...SENSITIVE_CONNECTION_SETTINGS]),
];

/** Misspellings a hand makes: a letter doubled, one dropped, two swapped, snake case, capitals. */
function misspellings(name: string): string[] {
  const swapped = `${name[0] ?? ""}${name[2] ?? ""}${name[1] ?? ""}${name.slice(3)}`;
  const snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return [
    ...new Set([`${name}${name.at(-1)}`, name.slice(0, -1), swapped, snake, name.toUpperCase()]),
  ].filter((spelling) => spelling !== name);
}

/**
 * What the pulumi CLI prints for a failure of `check` on a resource with inputs `news`: a failure
 * that names a property is printed with the input of exactly that name (none for a nested path),
 * one that names none with its reason alone (docs/design/decisions.md, "Check failures never sit on a
 * value that holds a secret").
 */
function printed(news: Record<string, unknown>, failure: pulumi.dynamic.CheckFailure): string {
  if (failure.property === "") return `has a problem: ${failure.reason}`;
  const value = Object.hasOwn(news, failure.property)
    ? JSON.stringify(news[failure.property])
    : "<nil>";
  return `property ${failure.property} value {${value}} has a problem: ${failure.reason}`;
}

/** The lines the CLI prints for the failures of `news`, which must not be empty. */
function printedFailures(kind: ResourceKind, news: Record<string, unknown>): string[] {
  const failures = checkInputs(kind, news).failures;
  expect(failures).not.toEqual([]);
  return failures.map((failure) => printed(news, failure));
}

const cases = KINDS.flatMap((kind) =>
  SENSITIVE_NAMES.flatMap((name) => misspellings(name).map((spelling) => ({ kind, spelling }))),
);

describe("a check failure and a secret", () => {
  it.each(cases)(
    "never prints a value given as $spelling at the top level of $kind",
    ({ kind, spelling }) => {
      const lines = printedFailures(kind, { ...VALID[kind], [spelling]: SECRET });
      for (const line of lines) expect(line).not.toContain(SECRET);
    },
  );

  it.each(cases)(
    "never prints a value given as $spelling in the tenant input of $kind",
    ({ kind, spelling }) => {
      const news = {
        ...VALID[kind],
        tenant: { domain: "acme.tenants.example", [spelling]: SECRET },
      };
      for (const line of printedFailures(kind, news)) expect(line).not.toContain(SECRET);
    },
  );

  it.each(SENSITIVE_NAMES)(
    "never prints a value given as a misspelling of %s inside an add-on",
    (name) => {
      for (const spelling of misspellings(name)) {
        const news = { ...VALID.ClientSettings, addons: { samlp: { [spelling]: SECRET } } };
        for (const line of printedFailures("ClientSettings", news)) {
          expect(line).not.toContain(SECRET);
        }
      }
    },
  );

  it("never prints a sensitive input of the wrong type", () => {
    const news = { ...VALID.ClientSettings, clientSecret: [SECRET], encryptionKey: SECRET };
    for (const line of printedFailures("ClientSettings", news)) expect(line).not.toContain(SECRET);
  });

  it("reports a misspelt top-level secret with no property and the path first in the reason", () => {
    expect(
      checkInputs("ClientSettings", { ...VALID.ClientSettings, clientSecrett: SECRET }).failures,
    ).toEqual([
      {
        property: "",
        reason: 'clientSecrett: is not a known property; did you mean "clientSecret"?',
      },
    ]);
  });

  it("reports a tenant input without credentials with no property, as it may hold a misspelt one", () => {
    expect(
      checkInputs("EventStreamDeletion", {
        ...VALID.EventStreamDeletion,
        tenant: { domain: "acme.tenants.example", apiTokn: SECRET },
      }).failures.map(({ property }) => property),
    ).toEqual(["tenant.apiTokn", ""]);
  });

  it("keeps the property of a failure at an input that holds no secret, and at a nested path", () => {
    expect(
      checkInputs("ClientSettings", {
        ...VALID.ClientSettings,
        name: "",
        tenant: { domain: "acme.tenants.example", apiToken: SECRET, clientSecrt: SECRET },
      }).failures,
    ).toEqual([
      { property: "name", reason: "must be at least 1 character (got 0)" },
      {
        property: "tenant.clientSecrt",
        reason: 'is not a known property; did you mean "clientSecret"?',
      },
    ]);
  });
});
