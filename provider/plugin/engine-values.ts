/**
 * Values as the engine sends them to a provider plugin and wants them back: plain JSON, where a
 * secret is an object carrying Pulumi's secret signature around its value, and a value not known
 * yet (during a preview) is the string `UNKNOWN` (unknown.ts). The core works on plain
 * values; the plugin face unwraps what arrives and wraps what goes back, so that no secret leaves
 * the provider as plaintext (docs/design/plugin.md, "Secrets").
 *
 * @module
 */

import { isPlainObject, type Props } from "../json.js";

/** The key that marks an object as one of Pulumi's special values. */
const SIGNATURE_KEY = "4dabf18193072939515e22adb298388d";
/** Its value for a secret. */
const SECRET_SIGNATURE = "1b47061264138c4ac30d75fd1eb44270";

/**
 * Whether `value` is a secret as the engine wraps it.
 *
 * @internal
 */
export function isSecret(value: unknown): value is { readonly value: unknown } {
  return isPlainObject(value) && value[SIGNATURE_KEY] === SECRET_SIGNATURE;
}

/** `value` wrapped as a secret (left as it is when it already is one, or when it is absent). */
export function secret(value: unknown): unknown {
  if (value === undefined || value === null || isSecret(value)) return value;
  return { [SIGNATURE_KEY]: SECRET_SIGNATURE, value };
}

/** What {@link unwrap} makes of a property bag. */
export interface Unwrapped {
  /** The values with every secret replaced by its plaintext, at any depth. */
  readonly plain: Props;
  /** The top-level properties that held a secret somewhere inside them. */
  readonly secretKeys: ReadonlySet<string>;
}

/**
 * The plaintext of a property bag the engine sent, and which of its top-level properties were
 * secret anywhere inside: those stay secret in everything the plugin returns from them.
 */
export function unwrap(props: Props): Unwrapped {
  const secretKeys = new Set<string>();
  const plain: Props = {};
  for (const [key, value] of Object.entries(props)) {
    const found = { secret: false };
    plain[key] = reveal(value, found);
    if (found.secret) secretKeys.add(key);
  }
  return { plain, secretKeys };
}

function reveal(value: unknown, found: { secret: boolean }): unknown {
  if (isSecret(value)) {
    found.secret = true;
    return reveal(value.value, found);
  }
  if (Array.isArray(value)) return value.map((item) => reveal(item, found));
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v, found)]));
}

/**
 * `props` as the engine takes them back: each property named in `secretKeys` wrapped as a secret
 * whole, and undefined members left out at every depth (the engine refuses a struct holding
 * undefined).
 */
export function wrap(props: Props, secretKeys: Iterable<string>): Props {
  const secrets = new Set(secretKeys);
  const wrapped: Props = {};
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined) continue;
    const defined = withoutUndefined(value);
    wrapped[key] = secrets.has(key) ? secret(defined) : defined;
  }
  return wrapped;
}

function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutUndefined(item) ?? null);
  if (!isPlainObject(value)) return value;
  const kept: Props = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined) kept[key] = withoutUndefined(member);
  }
  return kept;
}
