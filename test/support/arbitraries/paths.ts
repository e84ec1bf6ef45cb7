/**
 * Paths into an input, and the way `check` spells them (`callbacks[2]`,
 * `jwtConfiguration.lifetimeInSeconds`, `clientMetadata["a b"]`). Written here from the documented
 * convention of `CheckFailure.property`, not imported from the code under test, so that a change of
 * spelling there fails the properties instead of silently moving with them.
 *
 * @module
 */

/** One step of a path: an object key, or an array index (`index: true`). */
export interface Segment {
  readonly key: string;
  readonly index: boolean;
}

/** An object-key step. */
export const keyStep = (key: string): Segment => ({ key, index: false });

/** An array-index step. */
export const indexStep = (index: number): Segment => ({ key: String(index), index: true });

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A path as the user spells it: identifiers joined with `.`, indexes in brackets, and any key that
 * is not an identifier as a quoted JSON string in brackets.
 */
export function formatPath(segments: readonly Segment[]): string {
  let path = "";
  for (const { key, index } of segments) {
    if (index) path += `[${key}]`;
    else if (!IDENTIFIER.test(key)) path += `[${JSON.stringify(key)}]`;
    else path += path === "" ? key : `.${key}`;
  }
  return path;
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

/**
 * A copy of `root` with the value at `path` replaced by `value` (`value` itself for an empty path).
 * Only the containers along the path are copied. Keys are defined, not assigned, so that a key such
 * as `__proto__` stays an ordinary own property.
 */
export function setAt(root: unknown, path: readonly Segment[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (!isContainer(root)) throw new TypeError(`no container at ${formatPath([head])}`);
  const copy: Record<string, unknown> | unknown[] = Array.isArray(root) ? [...root] : { ...root };
  const child = Object.hasOwn(root, head.key)
    ? (root as Record<string, unknown>)[head.key]
    : undefined;
  Object.defineProperty(copy, head.key, {
    value: setAt(child, rest, value),
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}
