/**
 * Turns Ajv's errors into failures a person can act on: the full path of the property as the
 * caller spells it (`callbacks[2]`, `jwtConfiguration.lifetimeInSeconds`, `clientMetadata["a b"]`)
 * and a reason in plain words, never Ajv's own wording. Values of sensitive fields are never
 * echoed; other echoed values are shortened.
 *
 * @module
 */

import type { ErrorObject } from "ajv";
import { closest, distance } from "fastest-levenshtein";
import { plural } from "../text.js";
import { isUnknown } from "../unknown.js";
import type { FormatName } from "./formats.js";
import { isSchemaNode, type SchemaNode } from "./kinds.js";

/**
 * One failure: where, and what is wrong. The one failure shape of this package; `check` hands it
 * to Pulumi as `{property, reason}`, the local tenant API words its 400 answers from it.
 */
export interface PathFailure {
  /** Path of the offending value, `""` for the root. */
  readonly path: string;
  /** What is wrong, as a sentence fragment that follows the path. */
  readonly reason: string;
}

/**
 * A failure as Pulumi's `check` result carries it, `{property, reason}`, given the resource's
 * inputs `news` and the top-level inputs whose values may be printed (`printable`).
 *
 * Pulumi prints a failure that names a property with the input of exactly that name, in clear
 * (`property clientSecrett value {...} has a problem`), even a value marked secret, and prints a
 * failure with an empty `property` as the reason alone (docs/design/decisions.md, "Check failures never
 * sit on a value that holds a secret"). So a failure whose path is a top-level input that may hold
 * a secret (a sensitive one, one with a sensitive member, one the schema does not know) names no
 * property, and its reason starts with the path (`clientSecrett: is not a known property`). A
 * nested path (`tenant.clientSecret`) is no input's name, so Pulumi prints nothing for it.
 */
export function toCheckFailure(
  failure: PathFailure,
  news: Readonly<Record<string, unknown>>,
  printable: ReadonlySet<string>,
): { property: string; reason: string } {
  const { path, reason } = failure;
  const printed = path !== "" && Object.hasOwn(news, path) && !printable.has(path);
  return printed ? { property: "", reason: `${path}: ${reason}` } : { property: path, reason };
}

/** How {@link toFailures} treats the value it describes. */
export interface FailureOptions {
  /** Drop failures on Pulumi's unknown placeholder (during preview), at any depth. */
  readonly skipUnknowns: boolean;
  /**
   * Properties whose values, and every value inside them, must never be echoed, as dotted paths
   * of keys (`clientSecret`, `addons`, `tenant.apiToken`).
   */
  readonly sensitive: readonly string[];
}

/** The longest echoed string, in characters, before it is shortened with `...`. */
const MAX_ECHO_LENGTH = 80;

const FORMAT_REASONS: Record<FormatName, string> = {
  "absolute-uri-or-empty": "must be an absolute URI with a scheme, or empty",
  "absolute-https-uri-with-placeholders-or-empty":
    "must be an https:// URL ({placeholders} allowed), or empty",
  "callback-url":
    'must be an absolute URL such as https://app.example.com/callback or com.example.app://callback ("*" allowed in a subdomain)',
  "url-with-placeholders":
    'must be an absolute http(s) URL ("*" allowed as a subdomain, {placeholders} allowed)',
  "url-or-null": "must be an absolute http(s) URL or null",
  url: "must be an absolute http(s) URL",
};

type Segment = { readonly key: string; readonly index: boolean };

function decodePointer(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function segmentsOf(root: unknown, keys: readonly string[]): Segment[] {
  const segments: Segment[] = [];
  let value: unknown = root;
  for (const key of keys) {
    const index = Array.isArray(value);
    segments.push({ key, index });
    value =
      value !== null && typeof value === "object"
        ? (value as Record<string, unknown>)[key]
        : undefined;
  }
  return segments;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `callbacks`, index `2` → `callbacks[2]`; keys that are not identifiers as `clientMetadata["a b"]`. */
function formatPath(segments: readonly Segment[]): string {
  let path = "";
  for (const { key, index } of segments) {
    if (index) path += `[${key}]`;
    else if (!IDENTIFIER.test(key)) path += `[${JSON.stringify(key)}]`;
    else path += path === "" ? key : `.${key}`;
  }
  return path;
}

function valuesAlong(root: unknown, keys: readonly string[]): unknown[] {
  const values: unknown[] = [root];
  let value: unknown = root;
  for (const key of keys) {
    value =
      value !== null && typeof value === "object"
        ? (value as Record<string, unknown>)[key]
        : undefined;
    values.push(value);
  }
  return values;
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  null: "null",
};

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * A value as a reason shows it: strings quoted and cut after {@link MAX_ECHO_LENGTH} characters
 * (`"https://..."...`), numbers, booleans and null as written, objects and arrays by their kind only.
 */
function echo(value: unknown): string {
  if (typeof value === "string") {
    const chars = [...value];
    return chars.length > MAX_ECHO_LENGTH
      ? `${JSON.stringify(chars.slice(0, MAX_ECHO_LENGTH - 3).join(""))}...`
      : JSON.stringify(value);
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return String(value);
  }
  return ARTICLE[typeOf(value)] ?? typeOf(value);
}

function list(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}

/**
 * The nearest of `candidates` to `name`, if any is close: the same letters ignoring case and
 * separators (`oidc_conformant` → `oidcConformant`), else the closest by edit distance when at most
 * a third of the candidate's length (and at least 1) apart.
 */
function suggest(name: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const loose = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
  const same = candidates.find((candidate) => loose(candidate) === loose(name));
  if (same !== undefined) return same;
  const lowered = candidates.map((candidate) => candidate.toLowerCase());
  const nearest = closest(name.toLowerCase(), lowered);
  const found = candidates[lowered.indexOf(nearest)];
  if (found === undefined) return undefined;
  const allowed = Math.max(1, Math.floor(found.length / 3));
  return distance(name.toLowerCase(), nearest) <= allowed ? found : undefined;
}

function types(schema: SchemaNode): string[] {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === "string" ? [type] : [];
}

function numberReason(schema: SchemaNode, got: string): string {
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  const kind = types(schema).includes("integer") ? "an integer" : "a number";
  if (min !== undefined && max !== undefined) return `must be ${kind} from ${min} to ${max}${got}`;
  if (min !== undefined) return `must be at least ${min}${got}`;
  return `must be at most ${max}${got}`;
}

function lengthReason(
  schema: SchemaNode,
  keyword: string,
  value: unknown,
  reveal: boolean,
): string {
  const length = typeof value === "string" ? [...value].length : 0;
  const got = reveal ? ` (got ${length})` : "";
  const min = typeof schema.minLength === "number" ? schema.minLength : undefined;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
  if (min !== undefined && min === max) return `must be exactly ${plural(min, "character")}${got}`;
  if (keyword === "minLength") return `must be at least ${plural(min ?? 0, "character")}${got}`;
  return `must be at most ${plural(max ?? 0, "character")}${got}`;
}

function reasonFor(error: ErrorObject, reveal: boolean): string {
  const schema: SchemaNode = isSchemaNode(error.parentSchema) ? error.parentSchema : {};
  const value: unknown = error.data;
  const got = reveal ? ` (got ${echo(value)})` : "";
  switch (error.keyword) {
    case "type": {
      const expected = list(types(schema).map((t) => ARTICLE[t] ?? t));
      const isFraction = typeof value === "number" && types(schema).includes("integer");
      const actual = isFraction && reveal ? String(value) : typeOf(value);
      return `must be ${expected} (got ${actual})`;
    }
    case "enum": {
      const allowed = (Array.isArray(schema.enum) ? schema.enum : []).map((v) => JSON.stringify(v));
      return `must be one of ${allowed.join(", ")}${got}`;
    }
    case "const":
      return `must be ${JSON.stringify(schema.const)}${got}`;
    case "minLength":
    case "maxLength":
      return lengthReason(schema, error.keyword, value, reveal);
    case "pattern": {
      const custom = schema["x-pattern-reason"];
      return typeof custom === "string"
        ? custom
        : `must match the pattern ${String(schema.pattern)}`;
    }
    case "format": {
      const format = String(schema.format) as FormatName;
      return `${FORMAT_REASONS[format] ?? `must be in the format ${format}`}${got}`;
    }
    case "minimum":
    case "maximum":
      return numberReason(schema, got);
    case "minItems":
    case "maxItems": {
      const limit = Number((error.params as { limit: number }).limit);
      const count = Array.isArray(value) ? value.length : 0;
      const bound = error.keyword === "minItems" ? "at least" : "at most";
      return `must have ${bound} ${plural(limit, "item")} (got ${count})`;
    }
    case "minProperties":
    case "maxProperties": {
      const limit = Number((error.params as { limit: number }).limit);
      const count = value !== null && typeof value === "object" ? Object.keys(value).length : 0;
      const bound = error.keyword === "minProperties" ? "at least" : "at most";
      return `must have ${bound} ${plural(limit, "property", "properties")} (got ${count})`;
    }
    default:
      return error.message ?? "is invalid";
  }
}

function candidateNames(error: ErrorObject): string[] {
  const schema = isSchemaNode(error.parentSchema) ? error.parentSchema : {};
  return isSchemaNode(schema.properties) ? Object.keys(schema.properties) : [];
}

/** Whether the value at `keys` is, or is inside, one of the `sensitive` paths. */
function isSensitive(keys: readonly string[], sensitive: readonly string[]): boolean {
  return keys.some((_, i) => sensitive.includes(keys.slice(0, i + 1).join(".")));
}

/**
 * Ajv's errors on `root` as failures, in Ajv's order:
 * - a missing property and an unknown one are reported at their own path (`is required`, `is not a
 *   known property; did you mean "x"?`); a bad key of a map at the key's path (`key must ...`);
 * - an `enum` failure replaces the `type` failure at the same path (one failure per mistake);
 * - with `skipUnknowns`, a failure whose value, or any value above it, is the unknown placeholder
 *   is dropped.
 */
export function toFailures(
  errors: readonly ErrorObject[],
  root: unknown,
  options: FailureOptions,
): PathFailure[] {
  const enumPaths = new Set(errors.filter((e) => e.keyword === "enum").map((e) => e.instancePath));
  const failures: PathFailure[] = [];
  for (const error of errors) {
    if (error.keyword === "propertyNames") continue;
    if (error.keyword === "type" && enumPaths.has(error.instancePath)) continue;
    const keys = decodePointer(error.instancePath);
    if (options.skipUnknowns && valuesAlong(root, keys).some(isUnknown)) continue;
    const reveal = !isSensitive(keys, options.sensitive);
    const at = segmentsOf(root, keys);
    const propertyName = (error as ErrorObject & { propertyName?: string }).propertyName;
    if (error.keyword === "required") {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      failures.push({
        path: formatPath([...at, { key: missing, index: false }]),
        reason: "is required",
      });
    } else if (error.keyword === "additionalProperties") {
      const extra = String((error.params as { additionalProperty: string }).additionalProperty);
      const nearest = suggest(extra, candidateNames(error));
      const hint = nearest === undefined ? "" : `; did you mean ${JSON.stringify(nearest)}?`;
      failures.push({
        path: formatPath([...at, { key: extra, index: false }]),
        reason: `is not a known property${hint}`,
      });
    } else if (propertyName !== undefined) {
      failures.push({
        path: formatPath([...at, { key: propertyName, index: false }]),
        reason: `key ${reasonFor({ ...error, data: propertyName }, true)}`,
      });
    } else {
      failures.push({ path: formatPath(at), reason: reasonFor(error, reveal) });
    }
  }
  return failures;
}
