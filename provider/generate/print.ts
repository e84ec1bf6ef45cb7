/**
 * A deterministic printer of JSON values as TypeScript literals, laid out as the repository's
 * formatter (Biome: 2-space indent, 100 columns, double quotes, trailing commas) lays them out, so
 * a generated program is already formatted and reformatting it changes nothing
 * (`test/generate.test.ts` checks that with Biome itself).
 *
 * Why hand-written rather than Biome's API: the package would need the formatter at run time (a
 * native binary per platform) to print a handful of literals. The rules used, which are those of
 * Prettier that Biome follows:
 * - an object literal written with a line break after `{` stays expanded, so every non-empty
 *   object is printed expanded, one member per line;
 * - an array goes on one line when it fits, else one element per line; an array of several
 *   objects (or arrays) of several members always breaks;
 * - a string that does not fit after its key moves to the next line, indented (keys of more than
 *   two characters);
 * - strings take double quotes unless they hold more double than single quotes; keys are quoted
 *   only when they are not identifiers.
 *
 * @module
 */

import { isPlainObject } from "../json.js";

/** The line width the layout targets. */
const LINE_WIDTH = 100;
const INDENT = "  ";

/**
 * A string literal: JSON's escapes (control characters, lone surrogates, backslashes), in double
 * quotes, or in single quotes when the text holds more `"` than `'` (fewer escapes).
 */
export function printString(text: string): string {
  const json = JSON.stringify(text);
  const doubles = (text.match(/"/g) ?? []).length;
  const singles = (text.match(/'/g) ?? []).length;
  if (doubles <= singles) return json;
  // Re-quote JSON's escaped text token by token: `\"` loses its backslash, `'` gains one.
  const body = json
    .slice(1, -1)
    .replace(/\\.|'/g, (token) => (token === "'" ? "\\'" : token === '\\"' ? '"' : token));
  return `'${body}'`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * An object key: bare when it is an identifier, else a string literal. `__proto__` is written as a
 * computed key: as a plain or quoted key it would set the object's prototype, not a member.
 */
function printKey(key: string): string {
  if (key === "__proto__") return `[${printString(key)}]`;
  return IDENTIFIER.test(key) ? key : printString(key);
}

/** A scalar's literal (string, number, boolean, null). */
function printScalar(value: unknown): string {
  if (typeof value === "string") return printString(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean") return String(value);
  return "null";
}

function isNonEmptyComposite(value: unknown): boolean {
  return Array.isArray(value)
    ? value.length > 1
    : isPlainObject(value) && Object.keys(value).length > 1;
}

/** The one-line form of a value, or undefined when it must break (a non-empty object inside). */
function flat(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    if (value.length > 1 && value.every(isNonEmptyComposite)) return undefined;
    const items: string[] = [];
    for (const item of value) {
      const printed = flat(item);
      if (printed === undefined) return undefined;
      items.push(printed);
    }
    return `[${items.join(", ")}]`;
  }
  if (isPlainObject(value)) return Object.keys(value).length === 0 ? "{}" : undefined;
  return printScalar(value);
}

/** The lines of an expanded object's members, at `depth`, each ending with a comma. */
export function printMembers(value: Record<string, unknown>, depth: number): string[] {
  return Object.entries(value).flatMap(([key, member]) => printMember(key, member, depth));
}

/** One `key: value,` member at `depth`, as one or more lines. */
export function printMember(key: string, value: unknown, depth: number): string[] {
  const pad = INDENT.repeat(depth);
  const head = `${pad}${printKey(key)}:`;
  return printAfter(head, value, depth, key.length > 2);
}

/**
 * `value` printed after `head` (a key and colon, or nothing for an array element), ending with a
 * comma. `canMoveDown`: a scalar that does not fit may go on the next line.
 */
function printAfter(head: string, value: unknown, depth: number, canMoveDown: boolean): string[] {
  const pad = INDENT.repeat(depth);
  const space = head.endsWith(":") ? " " : "";
  const open = `${head}${space}`;
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    return [`${open}{`, ...printMembers(value, depth + 1), `${pad}},`];
  }
  const oneLine = flat(value);
  if (oneLine !== undefined && open.length + oneLine.length + 1 <= LINE_WIDTH) {
    return [`${open}${oneLine},`];
  }
  if (Array.isArray(value)) {
    return [
      `${open}[`,
      ...value.flatMap((item) => printAfter(INDENT.repeat(depth + 1), item, depth + 1, false)),
      `${pad}],`,
    ];
  }
  const scalar = printScalar(value);
  if (canMoveDown) return [head, `${pad}${INDENT}${scalar},`];
  return [`${open}${scalar},`];
}
