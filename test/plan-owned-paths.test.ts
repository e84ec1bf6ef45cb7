/**
 * What a ClientSettings resource owns of its client (provider/plan/owned-paths.ts): the paths its
 * declared values name, in the wire's spelling, and whether two sets of them share a path.
 */

import { describe, expect, it } from "vitest";
import { overlaps, ownedPaths } from "../provider/plan/owned-paths.js";
import { UNKNOWN } from "../provider/unknown.js";

describe("ownedPaths", () => {
  it("owns a top-level scalar, null or array as one value", () => {
    expect(
      ownedPaths({ description: "Portal", cross_origin_loc: null, callbacks: ["https://a/cb"] }),
    ).toEqual([["description"], ["cross_origin_loc"], ["callbacks"]]);
  });

  it("owns each declared key of an object at any depth, never the object whole", () => {
    expect(
      ownedPaths({
        jwt_configuration: { lifetime_in_seconds: 600, scopes: { "read:a": {}, "write:b": "x" } },
      }),
    ).toEqual([
      ["jwt_configuration", "lifetime_in_seconds"],
      ["jwt_configuration", "scopes", "read:a"],
      ["jwt_configuration", "scopes", "write:b"],
    ]);
  });

  it("owns each key of a map and each add-on's declared members", () => {
    expect(
      ownedPaths({
        client_metadata: { team: "identity" },
        addons: { wsfed: {}, samlp: { audience: "urn:a" } },
      }),
    ).toEqual([
      ["client_metadata", "team"],
      ["addons", "wsfed"],
      ["addons", "samlp", "audience"],
    ]);
  });

  it("owns an empty declared object as one value: its presence", () => {
    expect(ownedPaths({ addons: {}, mobile: { ios: {} } })).toEqual([
      ["addons"],
      ["mobile", "ios"],
    ]);
  });

  it("owns an array inside an object as one value", () => {
    expect(ownedPaths({ mobile: { android: { sha256_cert_fingerprints: ["AA", "BB"] } } })).toEqual(
      [["mobile", "android", "sha256_cert_fingerprints"]],
    );
  });

  it("owns a value still unknown at preview at the path where it stands", () => {
    expect(ownedPaths({ jwt_configuration: { alg: UNKNOWN }, description: UNKNOWN })).toEqual([
      ["jwt_configuration", "alg"],
      ["description"],
    ]);
  });

  it("keeps a map key such as __proto__ as a plain key", () => {
    const metadata = JSON.parse('{"__proto__": "x", "constructor": "y"}') as unknown;
    expect(ownedPaths({ client_metadata: metadata })).toEqual([
      ["client_metadata", "__proto__"],
      ["client_metadata", "constructor"],
    ]);
  });
});

describe("overlaps", () => {
  it("finds no shared path between disjoint keys of one object", () => {
    const a = ownedPaths({ jwt_configuration: { lifetime_in_seconds: 600 } });
    const b = ownedPaths({ jwt_configuration: { alg: "HS256" } });
    expect(overlaps(a, b)).toEqual([]);
  });

  it("finds the same path declared by both", () => {
    const a = ownedPaths({ client_metadata: { team: "a" }, sso: true });
    const b = ownedPaths({ client_metadata: { team: "b" } });
    expect(overlaps(a, b)).toEqual([
      [
        ["client_metadata", "team"],
        ["client_metadata", "team"],
      ],
    ]);
  });

  it("counts a path inside another as shared, in either order", () => {
    const whole = ownedPaths({ addons: {} });
    const member = ownedPaths({ addons: { wsfed: {} } });
    expect(overlaps(whole, member)).toEqual([[["addons"], ["addons", "wsfed"]]]);
    expect(overlaps(member, whole)).toEqual([[["addons", "wsfed"], ["addons"]]]);
  });

  it("does not take a key that merely begins like another for a shared path", () => {
    expect(overlaps([["client_metadata", "team"]], [["client_metadata", "teams"]])).toEqual([]);
  });
});
