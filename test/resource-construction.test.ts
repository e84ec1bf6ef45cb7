import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ClientSettings, EventStreamDeletion, PushProviderSelection } from "../provider/index.js";

/**
 * Constructing a resource in a program: each constructor turns V8's stack traces off while
 * `@pulumi/pulumi` makes the resource's promises (`pauseStackTraces`, provider/resources/
 * registration.ts; docs/design/decisions.md, "Stack traces while a resource is constructed"), and puts the
 * program's own limit back, whatever happens. The time it saves is measured by
 * `npm run bench -- adopt.ts`, not here.
 */

beforeAll(() => {
  // Registrations go to mocks: no engine, no provider call.
  pulumi.runtime.setMocks(
    { newResource: (args) => ({ id: args.name, state: args.inputs }), call: () => ({}) },
    "construction",
    "test",
    false,
  );
});

const PROGRAM_LIMIT = 37;
const original = Error.stackTraceLimit;
afterEach(() => {
  Error.stackTraceLimit = original;
});

const CONSTRUCTORS = [
  ["ClientSettings", () => new ClientSettings("web", { clientId: "abc", description: "x" })],
  ["PushProviderSelection", () => new PushProviderSelection("push", { provider: "sns" })],
  ["EventStreamDeletion", () => new EventStreamDeletion("old", { eventStreamId: "est_1" })],
] as const;

describe("constructing a resource", () => {
  it.each(CONSTRUCTORS)("%s leaves the program's stack trace limit as it was", (_, construct) => {
    Error.stackTraceLimit = PROGRAM_LIMIT;
    construct();
    expect(Error.stackTraceLimit).toBe(PROGRAM_LIMIT);
  });

  it("puts the program's stack trace limit back when the constructor throws", () => {
    Error.stackTraceLimit = PROGRAM_LIMIT;
    expect(() => new ClientSettings("", { clientId: "abc" })).toThrow(
      "Missing resource name argument (for URN creation)",
    );
    expect(Error.stackTraceLimit).toBe(PROGRAM_LIMIT);
  });

  it("gives an error the constructor throws a stack trace through the program's line", () => {
    let thrown: unknown;
    try {
      new ClientSettings("", { clientId: "abc" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).stack).toMatch(
      /^Error: Missing resource name argument \(for URN creation\)\n.*resource-construction\.test\.ts/s,
    );
  });

  it("gives the program's own errors their stack traces afterwards", () => {
    new ClientSettings("web", { clientId: "abc" });
    expect(new Error("the program's").stack).toContain("resource-construction.test.ts");
  });
});
