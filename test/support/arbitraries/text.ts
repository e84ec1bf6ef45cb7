/**
 * Text and free-form JSON for the generators. Lengths are counted in code points throughout,
 * because that is how JSON Schema (and so the tenant API) counts `minLength` and `maxLength`.
 *
 * @module
 */

import fc from "fast-check";
import { UNKNOWN } from "../../../provider/unknown.js";

/**
 * Code points worth meeting in every string field: right-to-left letters and the override mark,
 * a combining accent and a zero-width joiner (which merge with their neighbours on screen but are
 * code points of their own), emoji from the astral planes (two UTF-16 units each), a skin-tone
 * modifier, and control characters that JSON must escape.
 */
export const AWKWARD_CODE_POINTS = [
  "é",
  "ß",
  "中",
  "ع",
  "א",
  "\u202e",
  "\u0301",
  "\u200d",
  "😀",
  "🏽",
  "\u0000",
  "\t",
  "\n",
  '"',
  "\\",
] as const;

/** One code point: mostly printable ASCII, sometimes an awkward one, sometimes any at all. */
export const codePoint: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...AWKWARD_CODE_POINTS) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
);

/** The number of code points of `value` (what JSON Schema calls its length). */
export function codePointLength(value: string): number {
  return [...value].length;
}

/** A string of `minLength` to `maxLength` code points. */
export function text(constraints: { minLength?: number; maxLength?: number } = {}) {
  return fc.string({ unit: codePoint, ...constraints });
}

/**
 * Keys that JavaScript treats specially. They are valid where keys are free (and have their own
 * tests in `properties-hostile.test.ts`), but the generic generators leave them out: the local
 * tenant API's JSON parser refuses `__proto__` outright, and HTTP clients drop them from bodies.
 */
export const PROTOTYPE_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

/** A key of a free-form map (`jwtConfiguration.scopes`, `addons.samlp.mappings`, ...). */
export const freeKey: fc.Arbitrary<string> = text({ maxLength: 12 }).filter(
  (key) => !PROTOTYPE_KEYS.includes(key),
);

const freeScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  // -0 does not survive JSON, so it could never come back equal.
  fc
    .double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 })
    .filter((x) => !Object.is(x, -0)),
  text({ maxLength: 12 }).filter((s) => s !== UNKNOWN),
);

/** Any JSON value, at most three levels deep, with plain objects. */
export const freeJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, withCrossShrink: true },
    freeScalar,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(freeKey, tie("value"), { maxKeys: 3, noNullPrototype: true }),
  ),
})).value;

/** Any JSON object (a free-form map). */
export const freeObject: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(freeKey, freeJson, {
  maxKeys: 4,
  noNullPrototype: true,
});
