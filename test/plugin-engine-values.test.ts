import { describe, expect, it } from "vitest";
import { isSecret, secret, unwrap, wrap } from "../provider/plugin/engine-values.js";

/** Values between the engine and the plugin: secrets unwrapped on the way in, wrapped on the way out. */

describe("engine values", () => {
  it("unwraps secrets at any depth and says which top-level properties held one", () => {
    const { plain, secretKeys } = unwrap({
      a: secret("x"),
      b: { deep: [1, secret({ k: "y" })] },
      c: "plain",
    });
    expect(plain).toEqual({ a: "x", b: { deep: [1, { k: "y" }] }, c: "plain" });
    expect([...secretKeys]).toEqual(["a", "b"]);
  });

  it("wraps the named properties whole and leaves the others as they are", () => {
    expect(wrap({ a: "x", b: { k: 1 }, c: 2 }, ["a", "b", "missing"])).toEqual({
      a: secret("x"),
      b: secret({ k: 1 }),
      c: 2,
    });
  });

  it("leaves undefined out at every depth, since the engine refuses it", () => {
    expect(wrap({ a: undefined, b: { k: undefined, l: 1 }, c: [undefined] }, [])).toEqual({
      b: { l: 1 },
      c: [null],
    });
  });

  it("does not wrap a secret twice, nor an absent value", () => {
    expect(secret(secret("x"))).toEqual(secret("x"));
    expect([secret(null), secret(undefined)]).toEqual([null, undefined]);
    expect(isSecret(secret("x"))).toBe(true);
  });
});
