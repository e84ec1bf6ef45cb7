import { describe, expect, it } from "vitest";
import { matchesDeclared, overlay, project } from "../provider/plan/compare.js";
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

describe("overlay", () => {
  it("keeps the live keys the program does not declare", () => {
    expect(
      overlay({ lifetimeInSeconds: 36000, alg: "RS256" }, { lifetimeInSeconds: 3600 }),
    ).toEqual({ lifetimeInSeconds: 3600, alg: "RS256" });
  });

  it("replaces arrays instead of merging them", () => {
    expect(overlay({ flows: ["a", "b"] }, { flows: ["c"] })).toEqual({ flows: ["c"] });
  });

  it("keeps a __proto__ key as a plain key instead of changing the prototype", () => {
    const merged = overlay(JSON.parse('{"__proto__": {"polluted": true}}'), { a: 1 }) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
