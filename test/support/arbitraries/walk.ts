/**
 * Generators derived by walking a resource's JSON Schema: valid values for any schema node, the
 * places ("sites") inside a generated value where a mutation can be made, and the mutations each
 * node's keywords call for. The walker knows a fixed list of keywords and throws on any other, so
 * a constraint added to a schema cannot be silently ignored by the properties.
 *
 * Walking the schema (rather than restating the 57 ClientSettings inputs by hand) means that
 * every field, nested member and list item is exercised, and a new field is covered the day it is
 * added.
 * What the walk cannot catch (a constraint missing from the schema altogether) is covered by
 * {@link constraintsOf}, which the tests compare with a table written from the spec.
 *
 * @module
 */

import fc from "fast-check";
import { isPlainObject } from "../../../provider/json.js";
import { isSchemaNode, type SchemaNode } from "../../../provider/schema/kinds.js";
import { UNKNOWN } from "../../../provider/unknown.js";
import { invalidFormat, isKnownFormat, validFormat } from "./formats.js";
import { formatPath, indexStep, keyStep, type Segment, setAt } from "./paths.js";
import { codePoint, freeJson, freeObject, PROTOTYPE_KEYS, text } from "./text.js";

export type { SchemaNode };

/** The keywords that constrain a value, as {@link constraintsOf} reports them. */
const CONSTRAINT_KEYWORDS = [
  "type",
  "enum",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "minItems",
  "maxProperties",
  "additionalProperties",
  "required",
] as const;

/**
 * Every keyword the walker understands: the constraints, the keywords that lead to nested schemas,
 * and annotations (`description`, `x-...`), which change nothing.
 */
const KNOWN_KEYWORDS = new Set<string>([
  ...CONSTRAINT_KEYWORDS,
  ...["items", "properties", "propertyNames", "description"],
  ...[
    "x-wire-keys",
    "x-wire-null-values",
    "x-sensitive",
    "x-pattern-reason",
    "x-strategy",
    "x-patch",
  ],
]);

/** The kinds of mutation, as the coverage counts name them. */
export const MUTATION_KINDS = [
  "wrong type",
  "fraction for an integer",
  "value outside the enum",
  "too short",
  "too long",
  "pattern broken",
  "bad format",
  "below the minimum",
  "above the maximum",
  "empty array",
  "unknown property",
  "too many properties",
  "key too long",
  "key with a forbidden character",
  "required property missing",
  "cross-field rule broken",
] as const;

/** One of {@link MUTATION_KINDS}. */
export type MutationKind = (typeof MUTATION_KINDS)[number];

/** A mutation of one site: the value that replaces the site's, and where it must fail. */
export interface Mutation {
  readonly kind: MutationKind;
  /** Replaces the value of the site. */
  readonly value: unknown;
  /** Appended to the site's path to give the expected failure path (a key added, say). */
  readonly at: readonly Segment[];
}

/** A mutation that can be made, before its random parts are drawn. */
export interface Candidate {
  readonly kind: MutationKind;
  readonly arbitrary: fc.Arbitrary<Mutation>;
}

/** A place in a generated value where a mutation can be made. */
export interface Site {
  readonly path: readonly Segment[];
  readonly schema: SchemaNode;
  readonly value: unknown;
}

function checked(schema: SchemaNode): SchemaNode {
  for (const keyword of Object.keys(schema)) {
    if (!KNOWN_KEYWORDS.has(keyword)) {
      throw new Error(`the schema walker does not know the keyword "${keyword}"; teach it`);
    }
  }
  return schema;
}

function typesOf(schema: SchemaNode): string[] {
  const { type } = schema;
  if (Array.isArray(type)) return type.map(String);
  return typeof type === "string" ? [type] : [];
}

function propertiesOf(schema: SchemaNode): Record<string, SchemaNode> {
  return isSchemaNode(schema.properties) ? (schema.properties as Record<string, SchemaNode>) : {};
}

function num(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

/**
 * The single-character class of a pattern of the form `^[...]*$`, the only form the schemas use
 * (a name without `<` or `>`, a metadata key of listed characters). Anything else is refused, so
 * that a new pattern gets a generator of its own rather than a wrong one.
 */
function characterClass(pattern: unknown): RegExp {
  const match = typeof pattern === "string" ? /^\^(\[.+\])\*\$$/.exec(pattern) : null;
  if (match?.[1] === undefined) {
    throw new Error(`the schema walker only knows patterns of the form ^[...]*$, not ${pattern}`);
  }
  return new RegExp(`^${match[1]}$`, "u");
}

const units = new Map<unknown, fc.Arbitrary<string>>();

/**
 * One code point of the pattern's class: from the class itself (fast-check reads the regular
 * expression), or any of {@link codePoint} that it admits. A negated class (`[^<>]`) admits nearly
 * everything, so the filter alone is enough there, and much cheaper than fast-check's own way.
 */
function unitOf(pattern: unknown): fc.Arbitrary<string> {
  let unit = units.get(pattern);
  if (unit === undefined) {
    const one = characterClass(pattern);
    const admitted = codePoint.filter((c) => one.test(c));
    unit = one.source.startsWith("^[^") ? admitted : fc.oneof(fc.stringMatching(one), admitted);
    units.set(pattern, unit);
  }
  return unit;
}

/** Strings of the pattern's class (ASCII from the class itself, plus any code point it admits). */
function patterned(pattern: unknown, minLength: number, maxLength: number | undefined) {
  const unit = unitOf(pattern);
  const normal = fc.string({ unit, minLength, maxLength: maxLength ?? minLength + 20 });
  return maxLength === undefined
    ? normal
    : fc.oneof(
        { weight: 4, arbitrary: normal },
        { weight: 1, arbitrary: fc.string({ unit, minLength: maxLength, maxLength }) },
      );
}

/** Characters that break most patterns; filtered against the pattern where used. */
const BREAKERS = [
  "<",
  ">",
  ".",
  "!",
  "#",
  "[",
  "%",
  "&",
  "é",
  "😀",
  "\n",
  "\u0000",
  "~",
  "|",
  "\uD800",
  "\uDFFF",
];

/** The key arbitrary of an object's extra members: its `propertyNames`, or any free key. */
function keysOf(schema: SchemaNode): fc.Arbitrary<string> {
  const declared = propertiesOf(schema);
  const names = schema.propertyNames;
  const base = isSchemaNode(names)
    ? patterned(checked(names).pattern, num(names.minLength) ?? 0, num(names.maxLength))
    : text({ maxLength: 12 });
  return base.filter((key) => !Object.hasOwn(declared, key) && !PROTOTYPE_KEYS.includes(key));
}

/** Valid values of a schema node. */
export function validFor(schema: SchemaNode): fc.Arbitrary<unknown> {
  let valid = validCache.get(schema);
  if (valid === undefined) {
    checked(schema);
    const types = typesOf(schema);
    valid = Array.isArray(schema.enum)
      ? fc.constantFrom(...(schema.enum as unknown[]))
      : types.length === 0
        ? freeJson
        : fc.oneof(...types.map((type) => validOfType(schema, type)));
    validCache.set(schema, valid);
  }
  return valid;
}

/**
 * Arbitraries are immutable, so one per schema node is enough; building them anew for every
 * generated case (the invalid inputs pick a node per case) would cost more than the cases.
 */
const validCache = new WeakMap<SchemaNode, fc.Arbitrary<unknown>>();

function validOfType(schema: SchemaNode, type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({
        min: num(schema.minimum) ?? -(2 ** 31),
        max: num(schema.maximum) ?? 2 ** 31 - 1,
      });
    case "string":
      return validString(schema);
    case "array":
      return validArray(schema);
    case "object":
      return validObject(schema);
    default:
      throw new Error(`the schema walker does not know the type "${type}"`);
  }
}

function validString(schema: SchemaNode): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = num(schema.maxLength);
  if (schema.format !== undefined) {
    if (!isKnownFormat(schema.format)) throw new Error(`unknown format ${String(schema.format)}`);
    return validFormat(schema.format);
  }
  if (schema.pattern !== undefined) return patterned(schema.pattern, minLength, maxLength);
  const normal = text({ minLength, ...(maxLength === undefined ? {} : { maxLength }) });
  // The longest allowed value is where an off-by-one hides, so it gets a share of its own.
  return maxLength === undefined
    ? normal
    : fc.oneof(
        { weight: 4, arbitrary: normal },
        { weight: 1, arbitrary: text({ minLength: maxLength, maxLength }) },
      );
}

function validArray(schema: SchemaNode): fc.Arbitrary<unknown[]> {
  const minLength = num(schema.minItems) ?? 0;
  const items = isSchemaNode(schema.items) ? validFor(schema.items) : freeJson;
  return fc.array(items, { minLength, maxLength: Math.max(minLength, 3) });
}

function validObject(schema: SchemaNode): fc.Arbitrary<Record<string, unknown>> {
  const properties = propertiesOf(schema);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const model = Object.fromEntries(
    Object.entries(properties).map(([key, member]) => [key, validFor(member)]),
  );
  const declared = fc.record(model, { requiredKeys: required, noNullPrototype: true });
  const extra = schema.additionalProperties;
  if (extra === false) return declared;
  if (
    extra === undefined &&
    Object.keys(properties).length === 0 &&
    !isSchemaNode(schema.propertyNames)
  )
    return freeObject;
  const values = isSchemaNode(extra) ? validFor(extra) : freeJson;
  const maxKeys = num(schema.maxProperties);
  const dictionary = (minKeys: number, max: number) =>
    fc.dictionary(keysOf(schema), values, { minKeys, maxKeys: max, noNullPrototype: true });
  // As with lengths, a full map (exactly maxProperties keys) is a case of its own.
  const extras =
    maxKeys === undefined
      ? dictionary(0, 3)
      : fc.oneof({ weight: 3, arbitrary: dictionary(0, maxKeys) }, dictionary(maxKeys, maxKeys));
  return fc
    .tuple(declared, extras)
    .map(([members, more]) => ({ ...members, ...more }) as Record<string, unknown>);
}

/**
 * Valid objects of an object schema with its required properties and at most `maxOptional` of the
 * optional ones: a cheaper base for mutations than {@link validFor}, whose objects carry about half
 * of the 56 client fields each time.
 */
export function sparseValidFor(
  schema: SchemaNode,
  maxOptional: number,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = propertiesOf(schema);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const optional = Object.keys(properties).filter((key) => !required.includes(key));
  return fc.shuffledSubarray(optional, { maxLength: maxOptional }).chain((chosen) => {
    const keys = [...required, ...chosen];
    const model = Object.fromEntries(
      keys.map((key) => [key, validFor(properties[key] as SchemaNode)]),
    );
    return fc.record(model, { noNullPrototype: true });
  });
}

/** Every site of `value` (valid for `schema`), the value itself first, at `path`. */
export function sitesOf(schema: SchemaNode, value: unknown, path: readonly Segment[]): Site[] {
  const sites: Site[] = [{ path, schema, value }];
  if (Array.isArray(value) && isSchemaNode(schema.items)) {
    const items = schema.items;
    value.forEach((item, i) => {
      sites.push(...sitesOf(items, item, [...path, indexStep(i)]));
    });
  } else if (isPlainObject(value) && typesOf(schema).includes("object")) {
    const properties = propertiesOf(schema);
    for (const [key, member] of Object.entries(value)) {
      const memberSchema = Object.hasOwn(properties, key)
        ? properties[key]
        : isSchemaNode(schema.additionalProperties)
          ? schema.additionalProperties
          : undefined;
      if (memberSchema !== undefined)
        sites.push(...sitesOf(memberSchema, member, [...path, keyStep(key)]));
    }
  }
  return sites;
}

/** A JSON value of each type, to stand in for a value of the wrong type. */
const OF_TYPE: Record<string, fc.Arbitrary<unknown>> = {
  string: text({ maxLength: 10 }).filter((s) => s !== UNKNOWN),
  integer: fc.integer({ min: -1000, max: 1000 }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(freeJson, { maxLength: 2 }),
  object: freeObject,
};

function wrongTypes(schema: SchemaNode): fc.Arbitrary<unknown>[] {
  const allowed = new Set(typesOf(schema));
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) allowed.add("null");
  const wrong: fc.Arbitrary<unknown>[] = [];
  for (const [type, arbitrary] of Object.entries(OF_TYPE)) {
    if (allowed.has(type)) continue;
    if (type === "integer" && allowed.has("number")) continue;
    // A whole number is an integer whatever JSON calls it: only fractions are wrong for integers.
    if (type === "number" && allowed.has("integer")) continue;
    wrong.push(arbitrary);
  }
  return wrong;
}

/** Near misses of a known name (another spelling, a typo) or a name like none of them. */
function unknownNames(known: readonly string[]): fc.Arbitrary<string> {
  const cacheKey = known.join("\u0000");
  let names = unknownNamesCache.get(cacheKey);
  if (names === undefined) {
    names = buildUnknownNames(known);
    unknownNamesCache.set(cacheKey, names);
  }
  return names;
}

const unknownNamesCache = new Map<string, fc.Arbitrary<string>>();

function buildUnknownNames(known: readonly string[]): fc.Arbitrary<string> {
  const misspelt =
    known.length === 0
      ? []
      : [
          fc.tuple(fc.constantFrom(...known), fc.nat()).map(([name, i]) => {
            const at = i % name.length;
            return name.slice(0, at) + name.slice(at + 1);
          }),
          fc
            .constantFrom(...known)
            .map((name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)),
          fc.constantFrom(...known).map((name) => `${name}s`),
        ];
  return fc
    .oneof(fc.stringMatching(/^[a-z][A-Za-z0-9]{0,11}$/), ...misspelt)
    .filter(
      (name) =>
        name !== "" &&
        !known.includes(name) &&
        !name.startsWith("__") &&
        !PROTOTYPE_KEYS.includes(name),
    );
}

/** A mutation of `kind` that puts `value` in place of the site's, expected to fail at `at`. */
export function mutation(
  kind: MutationKind,
  value: unknown,
  at: readonly Segment[] = [],
): Mutation {
  return { kind, value, at };
}

/** A candidate whose failure is expected at the site itself. */
function inPlace(kind: MutationKind, values: fc.Arbitrary<unknown>): Candidate {
  return { kind, arbitrary: values.map((value) => mutation(kind, value)) };
}

/** Inserts one of `characters` at a random place of `value`. */
function insertOneOf(value: string, characters: readonly string[]): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...characters), fc.nat()).map(([c, i]) => {
    const chars = [...value];
    chars.splice(i % (chars.length + 1), 0, c);
    return chars.join("");
  });
}

/**
 * The mutations the keywords of the site's schema call for, each making the value invalid in
 * exactly one way, at the site itself or at the key it adds.
 */
export function mutationsAt(site: Site): Candidate[] {
  const { schema, value } = site;
  const out: Candidate[] = [];
  const wrong = wrongTypes(schema);
  if (typesOf(schema).length > 0 && wrong.length > 0) {
    out.push(inPlace("wrong type", fc.oneof(...wrong)));
  }
  if (typesOf(schema).includes("integer")) {
    const min = num(schema.minimum) ?? -1000;
    const max = num(schema.maximum) ?? 1000;
    out.push(
      inPlace(
        "fraction for an integer",
        fc.integer({ min, max: max - 1 }).map((n) => n + 0.5),
      ),
    );
  }
  if (Array.isArray(schema.enum)) {
    const allowed = schema.enum as unknown[];
    const strings = allowed.filter((v): v is string => typeof v === "string");
    const nearMisses =
      strings.length === 0
        ? []
        : [
            fc.constantFrom(...strings).map((v) => v.toUpperCase()),
            fc.constantFrom(...strings).map((v) => ` ${v}`),
            fc.constantFrom(...strings).map((v) => v.replace(/_/g, "-")),
          ];
    out.push(
      inPlace(
        "value outside the enum",
        fc
          .oneof(text({ maxLength: 12 }), ...nearMisses)
          .filter((v) => !allowed.includes(v) && v !== UNKNOWN),
      ),
    );
  }
  const minLength = num(schema.minLength);
  if (minLength !== undefined && minLength > 0) {
    out.push(inPlace("too short", text({ maxLength: minLength - 1 })));
  }
  const maxLength = num(schema.maxLength);
  if (maxLength !== undefined) {
    out.push(inPlace("too long", text({ minLength: maxLength + 1, maxLength: maxLength + 20 })));
  }
  if (schema.pattern !== undefined && typeof value === "string") {
    const one = characterClass(schema.pattern);
    out.push(
      inPlace(
        "pattern broken",
        insertOneOf(
          value,
          BREAKERS.filter((c) => !one.test(c)),
        ),
      ),
    );
  }
  if (isKnownFormat(schema.format)) out.push(inPlace("bad format", invalidFormat(schema.format)));
  const minimum = num(schema.minimum);
  if (minimum !== undefined) {
    out.push(inPlace("below the minimum", fc.integer({ min: minimum - 10_000, max: minimum - 1 })));
  }
  const maximum = num(schema.maximum);
  if (maximum !== undefined) {
    out.push(inPlace("above the maximum", fc.integer({ min: maximum + 1, max: maximum + 10_000 })));
  }
  if ((num(schema.minItems) ?? 0) > 0) out.push(inPlace("empty array", fc.constant([])));
  if (isPlainObject(value)) out.push(...objectMutations(schema, value));
  return out;
}

function objectMutations(schema: SchemaNode, value: Record<string, unknown>): Candidate[] {
  const out: Candidate[] = [];
  const known = Object.keys(propertiesOf(schema));
  if (schema.additionalProperties === false) {
    out.push({
      kind: "unknown property",
      arbitrary: fc
        .tuple(
          unknownNames(known),
          freeJson.filter((v) => v !== UNKNOWN),
        )
        .map(([key, member]) =>
          mutation("unknown property", { ...value, [key]: member }, [keyStep(key)]),
        ),
    });
  }
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  if (required.length > 0) {
    out.push({
      kind: "required property missing",
      arbitrary: fc.constantFrom(...required).map((key) => {
        const { [key]: _removed, ...rest } = value;
        return mutation("required property missing", rest, [keyStep(key)]);
      }),
    });
  }
  const maxProperties = num(schema.maxProperties);
  const memberValues = isSchemaNode(schema.additionalProperties)
    ? validFor(schema.additionalProperties)
    : freeJson;
  if (maxProperties !== undefined) {
    const missing = maxProperties + 1 - Object.keys(value).length;
    out.push(
      inPlace(
        "too many properties",
        fc
          .uniqueArray(fc.tuple(keysOf(schema), memberValues), {
            minLength: missing,
            maxLength: missing,
            selector: ([key]) => key,
          })
          .filter((entries) => entries.every(([key]) => !Object.hasOwn(value, key)))
          .map((entries) => ({ ...value, ...Object.fromEntries(entries) })),
      ),
    );
  }
  const names = schema.propertyNames;
  if (isSchemaNode(names)) {
    // When the map is full, the bad key replaces a member, so that the count stays within bounds.
    const withKey = (key: string, member: unknown) => {
      const kept = Object.entries(value);
      if (maxProperties !== undefined && kept.length >= maxProperties) kept.pop();
      return { ...Object.fromEntries(kept), [key]: member };
    };
    const nameMax = num(names.maxLength);
    if (nameMax !== undefined) {
      out.push({
        kind: "key too long",
        arbitrary: fc
          .tuple(patterned(names.pattern, nameMax + 1, nameMax + 20), memberValues)
          .map(([key, member]) => mutation("key too long", withKey(key, member), [keyStep(key)])),
      });
    }
    if (names.pattern !== undefined) {
      const one = characterClass(names.pattern);
      const breakers = BREAKERS.filter((c) => !one.test(c));
      out.push({
        kind: "key with a forbidden character",
        arbitrary: fc
          .tuple(
            patterned(names.pattern, 0, 10).chain((key) => insertOneOf(key, breakers)),
            memberValues,
          )
          .map(([bad, member]) =>
            mutation("key with a forbidden character", withKey(bad, member), [keyStep(bad)]),
          ),
      });
    }
  }
  return out;
}

/**
 * One invalid case: a valid input with exactly one mutation, the path `check` must report, and
 * labels for the coverage counts.
 */
export interface InvalidCase {
  readonly input: Record<string, unknown>;
  /** The expected `property` of the failure, as the user spells it. */
  readonly property: string;
  /** The same path, step by step. */
  readonly path: readonly Segment[];
  readonly kind: MutationKind;
  /** The top-level property the mutation was made in, or `(root)`. */
  readonly field: string;
}

/** Options of {@link invalidInputs}. */
export interface InvalidOptions {
  /** Valid inputs to mutate; default {@link validFor} of the schema. */
  readonly valid?: fc.Arbitrary<Record<string, unknown>>;
  /** Mutations of the whole input beyond those the root's keywords call for. */
  readonly rootMutations?: (input: Record<string, unknown>) => Candidate[];
}

/** The name {@link InvalidCase.field} gives mutations of the whole input. */
export const ROOT = "(root)";

/** A candidate mutation at a site. */
interface Option {
  readonly site: Site;
  readonly candidate: Candidate;
}

/**
 * Picks a mutation: first a kind, uniformly among the kinds on offer, then one of the options of
 * that kind. Choosing the kind first keeps the rare kinds (a pattern, a key) from drowning under
 * the "wrong type" that every site allows.
 */
function pickMutation(
  options: readonly Option[],
): fc.Arbitrary<{ site: Site; mutation: Mutation }> {
  const byKind = new Map<MutationKind, Option[]>();
  for (const option of options) {
    byKind.set(option.candidate.kind, [...(byKind.get(option.candidate.kind) ?? []), option]);
  }
  return fc
    .constantFrom(...byKind.values())
    .chain((ofKind) => fc.constantFrom(...ofKind))
    .chain(({ site, candidate }) => candidate.arbitrary.map((m) => ({ site, mutation: m })));
}

/**
 * The top-level property to mutate (or the root), each weighted by how many kinds of constraint
 * its subtree holds: a boolean offers only "wrong type", `clientMetadata` five kinds more, and the
 * rarer kinds would otherwise see only a handful of cases in thousands.
 */
function fieldChoice(schema: SchemaNode, extraRootMutations: boolean): fc.Arbitrary<string> {
  const weightOf = (member: SchemaNode) =>
    1 +
    new Set(
      constraintsOf(member)
        .map((c) => c.keyword)
        .filter((k) => k !== "type"),
    ).size;
  const rootKinds =
    1 + (schema.additionalProperties === false ? 1 : 0) + (extraRootMutations ? 1 : 0);
  return fc.oneof(
    { weight: rootKinds, arbitrary: fc.constant(ROOT) },
    ...Object.entries(propertiesOf(schema)).map(([key, member]) => ({
      weight: weightOf(member),
      arbitrary: fc.constant(key),
    })),
  );
}

/**
 * Invalid inputs of a resource: a valid input, a top-level property chosen uniformly (or the root),
 * a freshly generated valid value for it, then one mutation of one site inside that value (see
 * {@link pickMutation}). Choosing the property first spreads the cases evenly over the fields,
 * however deep or wide each one is.
 */
export function invalidInputs(
  schema: SchemaNode,
  options: InvalidOptions = {},
): fc.Arbitrary<InvalidCase> {
  const valid = options.valid ?? (validFor(schema) as fc.Arbitrary<Record<string, unknown>>);
  const properties = propertiesOf(schema);
  return fc
    .tuple(valid, fieldChoice(schema, options.rootMutations !== undefined))
    .chain(([base, field]) => {
      if (field === ROOT) {
        // Only what concerns the whole input: an unknown or missing property, a cross-field rule.
        const site: Site = { path: [], schema, value: base };
        const candidates = [
          ...objectMutations(schema, base),
          ...(options.rootMutations?.(base) ?? []),
        ];
        return pickMutation(candidates.map((candidate) => ({ site, candidate }))).map((picked) =>
          toCase(picked.site, picked.mutation, field),
        );
      }
      const member = properties[field] as SchemaNode;
      return validFor(member).chain((fieldValue) => {
        const input = { ...base, [field]: fieldValue };
        const sites = sitesOf(member, fieldValue, [keyStep(field)]);
        return pickMutation(
          sites.flatMap((site) => mutationsAt(site).map((candidate) => ({ site, candidate }))),
        ).map((picked) => toCase(picked.site, picked.mutation, field, input));
      });
    });
}

function toCase(
  site: Site,
  m: Mutation,
  field: string,
  root?: Record<string, unknown>,
): InvalidCase {
  const input = (root === undefined ? m.value : setAt(root, site.path, m.value)) as Record<
    string,
    unknown
  >;
  const path = [...site.path, ...m.at];
  return { input, property: formatPath(path), path, kind: m.kind, field };
}

/**
 * One constraint of a schema, at a path template: `callbacks[]`, `clientMetadata{}`,
 * `clientMetadata{key}`.
 */
export interface Constraint {
  readonly path: string;
  readonly keyword: string;
  readonly value: unknown;
}

/**
 * Every constraint of a schema with the path template it applies to. Items are written `[]`,
 * members of a map `{}`, and the keys of a map `{key}`.
 */
export function constraintsOf(schema: SchemaNode, path = ""): Constraint[] {
  checked(schema);
  const found: Constraint[] = [];
  for (const keyword of CONSTRAINT_KEYWORDS) {
    const value = schema[keyword];
    if (value === undefined) continue;
    if (keyword === "additionalProperties" && value !== false) continue;
    found.push({ path, keyword, value });
  }
  for (const [key, member] of Object.entries(propertiesOf(schema))) {
    found.push(...constraintsOf(member, path === "" ? key : `${path}.${key}`));
  }
  if (isSchemaNode(schema.items)) found.push(...constraintsOf(schema.items, `${path}[]`));
  if (isSchemaNode(schema.additionalProperties)) {
    found.push(...constraintsOf(schema.additionalProperties, `${path}{}`));
  }
  if (isSchemaNode(schema.propertyNames))
    found.push(...constraintsOf(schema.propertyNames, `${path}{key}`));
  return found;
}
