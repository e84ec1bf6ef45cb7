import { describe, expect, it } from "vitest";
import { heldAt, holds, matchesDeclared } from "../provider/plan/compare.js";
import { project } from "../provider/plan/outputs.js";
import { UNKNOWN } from "../provider/unknown.js";

describe("matchesDeclared", () => {
  it("ignores keys the platform added inside a declared object", () => {
    expect(
      matchesDeclared(
        { lifetimeInSeconds: 3600, alg: "RS256", secretEncoded: false },
        { lifetimeInSeconds: 3600 },
      ),
    ).toBe(true);
  });

  it("sees a difference in a declared nested key", () => {
    expect(matchesDeclared({ lifetimeInSeconds: 7200 }, { lifetimeInSeconds: 3600 })).toBe(false);
  });

  it("compares arrays whole and in order", () => {
    expect(matchesDeclared(["a", "b"], ["a", "b"])).toBe(true);
    expect(matchesDeclared(["a", "b", "c"], ["a", "b"])).toBe(false);
    expect(matchesDeclared(["b", "a"], ["a", "b"])).toBe(false);
  });

  it("treats an absent live value as null", () => {
    expect(matchesDeclared(undefined, null)).toBe(true);
    expect(matchesDeclared(undefined, "x")).toBe(false);
  });

  it("never matches a value that is unknown during preview", () => {
    expect(matchesDeclared("anything", UNKNOWN)).toBe(false);
    expect(matchesDeclared({ a: 1 }, { a: UNKNOWN })).toBe(false);
  });
});

describe("project", () => {
  it("keeps only the declared keys of a live object, recursively", () => {
    expect(
      project(
        { rotationType: "rotating", leeway: 0, policies: [{ audience: "a" }] },
        { rotationType: "non-rotating", policies: [] },
      ),
    ).toEqual({ rotationType: "rotating", policies: [{ audience: "a" }] });
  });

  it("shows a declared key the live object lacks as null", () => {
    expect(project({}, { team: "x" })).toEqual({ team: null });
  });
});

describe("holds", () => {
  it("takes nothing, or a null, as holding a removal or a null sent", () => {
    expect(holds(undefined, undefined)).toBe(true);
    expect(holds(null, null)).toBe(true);
    expect(holds("none", null)).toBe(false);
  });

  it("takes an empty object as something: an add-on enabled with no settings", () => {
    expect(holds({}, undefined)).toBe(false);
    expect(holds({}, {})).toBe(true);
    expect(holds(undefined, {})).toBe(false);
  });

  it("takes the empty string sent as held by the empty string or by nothing", () => {
    expect(holds("", "")).toBe(true);
    expect(holds(undefined, "")).toBe(true);
    expect(holds("https://a.example", "")).toBe(false);
  });

  it("compares anything else as a declared value is compared", () => {
    expect(holds({ alg: "RS256", extra: 1 }, { alg: "RS256" })).toBe(true);
    expect(holds(["a", "b"], ["a"])).toBe(false);
  });
});

describe("heldAt", () => {
  it("finds a value down a path, and nothing past a value that is not an object", () => {
    expect(heldAt({ a: { b: 1 } }, ["a", "b"])).toBe(1);
    expect(heldAt({ a: 1 }, ["a", "b"])).toBeUndefined();
    expect(heldAt({}, ["__proto__"])).toBeUndefined();
  });
});
