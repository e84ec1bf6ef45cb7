import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/index.js";
import { fromWire, toWire } from "../provider/local-tenant/wire.js";
import { MAX_DEPTH } from "../provider/schema/check.js";
import { checkInputs, NAME_KEY } from "../provider/schema/index.js";
import { type Harness, useFileHarness } from "./support/harness.js";

/**
 * Hostile values: very long strings, deep nesting, prototype keys and unicode, through `check`,
 * the wire mapping and (where it matters) a create against the local tenant API. The prototype-key
 * and deep-nesting cases were bugs when this suite was written (keys silently dropped, a stack
 * overflow reported as a network error); they stay here as regression tests.
 */

const TARGET = DEFAULT_SEED_IDS.strictThirdParty;
const MEGABYTE = 1_000_000;
/** Generous for a 2-core machine; the work itself takes tens of milliseconds. */
const QUICK_MS = 2000;

const file = useFileHarness(TARGET);
let h: Harness;
beforeEach(() => {
  h = file.h();
});
afterEach(() => file.reset());

const client = (fields: Record<string, unknown>) => ({ clientId: TARGET, ...fields });
const failuresOf = (fields: Record<string, unknown>) =>
  checkInputs("ClientSettings", client(fields)).failures;

/** Runs `work` and returns its result with the milliseconds it took. */
function timed<T>(work: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = work();
  return { result, ms: performance.now() - start };
}

/** An object `depth` levels deep: `{ a: { a: ... {} } }`. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

/** An array `depth` levels deep: `[[...[]]]`. */
function nestedArray(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

/** JSON with own `__proto__` keys, as deserialisation (not an object literal) makes them. */
const parsed = (json: string) => JSON.parse(json) as Record<string, unknown>;

/** Whether anything reached `Object.prototype`, whichever way it was attempted. */
function expectPrototypeUntouched(): void {
  const probe: Record<string, unknown> = {};
  expect(probe.polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
  expect(typeof probe.toString).toBe("function");
}

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

/**
 * Every way a payload could try to reach `Object.prototype` through a free-form place. Written as
 * JSON text: in an object literal, `__proto__:` would set the literal's prototype, not make a key.
 */
const POLLUTING = parsed(`{
  "clientId": "${TARGET}",
  "jwtConfiguration": { "scopes": { "__proto__": { "polluted": "scopes" } } },
  "oidcBackchannelLogout": {
    "__proto__": { "polluted": "logout" },
    "constructor": { "prototype": { "polluted": "constructor" } }
  },
  "addons": {
    "__proto__": { "url": "addon" },
    "samlp": { "mappings": { "__proto__": { "polluted": "mappings" } } }
  },
  "nativeSocialLogin": { "__proto__": { "enabled": true } }
}`);

describe("check on very long strings", () => {
  it("rejects a 1 MB description quickly, at description, without echoing it", () => {
    const { result, ms } = timed(() => failuresOf({ description: "x".repeat(MEGABYTE) }));
    expect(result).toEqual([
      { property: "description", reason: "must be at most 140 characters (got 1000000)" },
    ]);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it("rejects a 1 MB metadata value at its key, with the length and not the value", () => {
    expect(failuresOf({ clientMetadata: { note: "x".repeat(MEGABYTE) } })).toEqual([
      { property: "clientMetadata.note", reason: "must be at most 255 characters (got 1000000)" },
    ]);
  });

  it("rejects a 1 MB callback URL, echoing only its first 77 characters", () => {
    const url = `https://example.com/${"a".repeat(MEGABYTE)} x`;
    const [failure, ...more] = failuresOf({ callbacks: ["https://ok.example.com/cb", url] });
    expect(more).toEqual([]);
    expect(failure).toEqual({
      property: "callbacks[1]",
      reason:
        'must be an absolute URL such as https://app.example.com/callback or com.example.app://callback ("*" allowed in a subdomain) ' +
        `(got ${JSON.stringify(url.slice(0, 77))}...)`,
    });
  });

  it("rejects a 1 MB metadata key at a path that names it, with a reason that does not", () => {
    const key = "k".repeat(MEGABYTE);
    const failures = failuresOf({ clientMetadata: { [key]: "v" } });
    expect(failures).toEqual([
      {
        property: `clientMetadata.${key}`,
        reason: "key must be at most 255 characters (got 1000000)",
      },
    ]);
  });

  it("accepts a 1 MB name, which neither the spec nor the schema bounds", () => {
    expect(failuresOf({ name: "n".repeat(MEGABYTE) })).toEqual([]);
  });

  it("reports a 1 MB client secret of the wrong type without echoing any of it", () => {
    expect(failuresOf({ clientSecret: ["s".repeat(MEGABYTE)] })).toEqual([
      { property: "", reason: "clientSecret: must be a string (got array)" },
    ]);
  });
});

describe("check on deep nesting", () => {
  const DEPTH = 100_000;

  const TOO_DEEP = `must not be nested more than ${MAX_DEPTH} levels deep`;

  it.each([
    [
      "jwtConfiguration",
      "jwtConfiguration.scopes",
      { jwtConfiguration: { scopes: nested(DEPTH) } },
    ],
    ["addons", "addons.samlp.mappings", { addons: { samlp: { mappings: nested(DEPTH) } } }],
    ["oidcBackchannelLogout", "oidcBackchannelLogout", { oidcBackchannelLogout: nested(DEPTH) }],
    [
      "sessionTransfer",
      "sessionTransfer.allowedAuthenticationMethods",
      { sessionTransfer: { allowedAuthenticationMethods: nestedArray(DEPTH) } },
    ],
    ["addons", "a product addon", { addons: { someProduct: nested(DEPTH) } }],
    ["jwtConfiguration", "a typed member", { jwtConfiguration: { alg: nested(DEPTH) } }],
  ])("refuses 100,000 levels at %s (in %s), quickly", (field, _place, fields) => {
    const { result, ms } = timed(() => failuresOf(fields));
    // `addons` holds key material: Pulumi would print its value with a failure that names it.
    expect(result).toEqual([
      field === "addons"
        ? { property: "", reason: `${field}: ${TOO_DEEP}` }
        : { property: field, reason: TOO_DEEP },
    ]);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it(`accepts ${MAX_DEPTH} levels in a free-form map`, () => {
    expect(failuresOf({ jwtConfiguration: { scopes: nested(MAX_DEPTH - 2) } })).toEqual([]);
  });

  it("maps 100,000 levels to the wire and back quickly, without walking below the free-form map", () => {
    const scopes = nested(DEPTH);
    const { result, ms } = timed(() => {
      const wire = toWire("ClientSettings", client({ jwtConfiguration: { scopes } }));
      return fromWire("ClientSettings", wire);
    });
    const back = result.jwtConfiguration as { scopes: Record<string, unknown> };
    // The same object one level down: the map is copied, its values are passed through untouched.
    // (Compared as a boolean: a failing toBe would try to print 100,000 levels.)
    expect(back.scopes.a === scopes.a).toBe(true);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it("refuses 5,000 levels, which JSON cannot encode, at check rather than at create", () => {
    expect(failuresOf({ jwtConfiguration: { scopes: nested(5000) } })).toEqual([
      { property: "jwtConfiguration", reason: TOO_DEEP },
    ]);
  });
});

describe("prototype keys", () => {
  it("accepts __proto__, constructor, prototype and toString as clientMetadata keys, as the key rules allow", () => {
    const metadata = parsed('{"__proto__":"p","constructor":"c","prototype":"q","toString":"t"}');
    expect(failuresOf({ clientMetadata: metadata })).toEqual([]);
  });

  it("rejects a __proto__ metadata key holding an object at clientMetadata.__proto__", () => {
    const metadata = parsed('{"__proto__":{"polluted":"metadata"}}');
    expect(failuresOf({ clientMetadata: metadata })).toEqual([
      { property: "clientMetadata.__proto__", reason: "must be a string (got object)" },
    ]);
  });

  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])(
    "rejects %s as an unknown member of a closed object",
    (key) => {
      const jwtConfiguration = parsed(`{"${key}":{"polluted":"jwt"}}`);
      expect(failuresOf({ jwtConfiguration })).toEqual([
        { property: `jwtConfiguration.${key}`, reason: "is not a known property" },
      ]);
    },
  );

  it.each(["constructor", "toString", "hasOwnProperty", "valueOf"])(
    "rejects %s as an unknown top-level property",
    (key) => {
      expect(failuresOf(parsed(`{"${key}":"x"}`))).toEqual([
        { property: "", reason: `${key}: is not a known property` },
      ]);
    },
  );

  it("treats a top-level __proto__ like the other reserved __ keys: kept by check, never sent", () => {
    const news = parsed(`{"clientId":"${TARGET}","__proto__":{"polluted":"root"}}`);
    const { inputs, failures } = checkInputs("ClientSettings", news);
    expect(failures).toEqual([]);
    expect(Object.hasOwn(inputs, "__proto__")).toBe(true);
    expect(toWire("ClientSettings", news)).toEqual({});
  });

  it("leaves Object.prototype untouched through check, toWire and fromWire", () => {
    checkInputs("ClientSettings", POLLUTING);
    const wire = toWire("ClientSettings", POLLUTING);
    fromWire("ClientSettings", parsed(JSON.stringify(wire)));
    fromWire(
      "ClientSettings",
      parsed('{"client_metadata":{"__proto__":{"polluted":"answer"}},"__proto__":{"polluted":1}}'),
    );
    expectPrototypeUntouched();
  });

  it("leaves Object.prototype untouched through a create against the local tenant API", async () => {
    const metadata = parsed('{"__proto__":"p","constructor":"c","toString":"t","valueOf":"v"}');
    // Whatever the outcome, nothing may reach Object.prototype. (Today toWire drops the __proto__
    // keys on the way, and the local tenant API's JSON parser refuses the body for the
    // constructor.prototype it still holds.)
    await Promise.allSettled([
      h.clients.create({ ...POLLUTING, [NAME_KEY]: "hostile", clientMetadata: metadata }),
    ]);
    expectPrototypeUntouched();
  });

  it("stores toString, hasOwnProperty and valueOf metadata keys through a create", async () => {
    const clientMetadata = { toString: "t", hasOwnProperty: "h", valueOf: "v" };
    await h.clients.create({ [NAME_KEY]: "hostile", ...client({ clientMetadata }) });
    expect(h.api.store.getClient(TARGET)?.client_metadata).toEqual(clientMetadata);
  });

  it("sends a __proto__ metadata key as a plain key", () => {
    const wire = toWire("ClientSettings", client({ clientMetadata: parsed('{"__proto__":"p"}') }));
    expect(JSON.stringify(wire)).toBe('{"client_metadata":{"__proto__":"p"}}');
  });

  it("stores constructor and prototype metadata keys through a create", async () => {
    const clientMetadata = { constructor: "c", prototype: "q" };
    await h.clients.create({ [NAME_KEY]: "hostile", ...client({ clientMetadata }) });
    expect(h.api.store.getClient(TARGET)?.client_metadata).toEqual(clientMetadata);
  });

  it("remembers as absent the prior of a toString metadata key the client lacked", async () => {
    const { outs } = await h.clients.create({
      [NAME_KEY]: "hostile",
      ...client({ clientMetadata: { toString: "t" } }),
    });
    // The client was created without metadata, which the platform then does not answer at all.
    expect(outs.prior).toEqual({
      paths: [{ path: ["client_metadata", "toString"], absentBelow: 0 }],
    });
  });

  it("removes on delete a toString metadata key that create added", async () => {
    const { outs } = await h.clients.create({
      [NAME_KEY]: "hostile",
      ...client({ clientMetadata: { toString: "t" } }),
    });
    await h.clients.delete(TARGET, outs);
    expect(h.api.store.getClient(TARGET)?.client_metadata).toEqual({});
  });
});

describe("unicode", () => {
  const FAMILY = "👨‍👩‍👧‍👦"; // 7 code points, 11 UTF-16 units, 1 grapheme

  it("counts a description's length in code points, as JSON Schema does: 140 emoji pass", () => {
    expect(failuresOf({ description: "😀".repeat(140) })).toEqual([]);
  });

  it("rejects 141 emoji, counting code points and not UTF-16 units", () => {
    expect(failuresOf({ description: "😀".repeat(141) })).toEqual([
      { property: "description", reason: "must be at most 140 characters (got 141)" },
    ]);
  });

  it("counts a combining mark as a code point of its own", () => {
    expect(failuresOf({ description: "e\u0301".repeat(71) })).toEqual([
      { property: "description", reason: "must be at most 140 characters (got 142)" },
    ]);
  });

  it("counts every code point of a joined emoji sequence, though it shows as one", () => {
    expect([...FAMILY].length).toBe(7);
    expect(failuresOf({ description: FAMILY.repeat(20) })).toEqual([]);
    expect(failuresOf({ description: FAMILY.repeat(21) })).toEqual([
      { property: "description", reason: "must be at most 140 characters (got 147)" },
    ]);
  });

  it("accepts right-to-left text, the override mark and lookalikes of < and > in a name", () => {
    expect(failuresOf({ name: "\u202eتطبيق עברית ＜tag＞ ‹x› ﹤y﹥" })).toEqual([]);
  });

  it("rejects a metadata key with a letter outside ASCII, which the schema reads the spec's letters as", () => {
    expect(failuresOf({ clientMetadata: { clé: "v" } })).toEqual([
      {
        property: 'clientMetadata["clé"]',
        reason:
          'key must contain only letters, digits, spaces, tabs and the characters :,-+=_*?"/()<>@',
      },
    ]);
  });

  it("stores names and descriptions exactly as written, with no normalisation", async () => {
    const name = "Cafe\u0301 \u202eبرنامج\u202c ☕";
    const description = `${FAMILY} e\u0301 ${"😀".repeat(100)}`;
    await h.clients.create({ [NAME_KEY]: "unicode", ...client({ name, description }) });
    const stored = h.api.store.getClient(TARGET);
    expect([stored?.name, stored?.description]).toEqual([name, description]);
  });

  it("refuses an event stream id with a lone surrogate at check, before any request", () => {
    const eventStreamId = `\ud800${"a".repeat(25)}`;
    expect(checkInputs("EventStreamDeletion", { eventStreamId }).failures).toEqual([
      {
        property: "eventStreamId",
        reason: "must be valid Unicode text (it holds a lone surrogate)",
      },
    ]);
  });
});
