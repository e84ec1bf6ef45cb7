/**
 * Property values as they travel between the program, the engine and the provider host: plain JSON
 * plus two markers the Pulumi SDK understands, the unknown sentinel (a value not known during
 * preview) and the secret wrapper (`{[sigKey]: secretSig, value}`). The engine keeps values in this
 * wire form everywhere, strips the secret wrappers before the provider host (which declares
 * `acceptSecrets: false`) and puts them back on what the host returns, as the real engine does.
 */

/** A JSON value that may contain secret wrappers and unknown sentinels. */
export type PropertyValue =
  | null
  | boolean
  | number
  | string
  | PropertyValue[]
  | { [key: string]: PropertyValue };

/** A resource's inputs or outputs. */
export type PropertyMap = Record<string, PropertyValue>;

/** The SDK's marker for a value that is not known during preview (pulumi/pulumi#6310). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** Key that marks an object as one of the SDK's special values. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** Signature of a secret value. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/** The input that holds a dynamic resource's serialized provider. */
export const PROVIDER_KEY = "__provider";

type SecretWrapper = { [SIG_KEY]: typeof SECRET_SIG; value: PropertyValue };

function isObject(v: PropertyValue | undefined): v is { [key: string]: PropertyValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when `v` is a secret wrapper. */
export function isSecret(v: PropertyValue | undefined): v is SecretWrapper {
  return isObject(v) && v[SIG_KEY] === SECRET_SIG;
}

/** Wraps `v` as a secret (idempotent). */
export function makeSecret(v: PropertyValue): PropertyValue {
  return isSecret(v) ? v : { [SIG_KEY]: SECRET_SIG, value: v };
}

/** The value inside a secret wrapper, or `v` itself. */
export function unwrapSecret(v: PropertyValue): PropertyValue {
  return isSecret(v) ? v.value : v;
}

/** `v` with every secret wrapper, at any depth, replaced by its value. */
export function stripSecrets(v: PropertyValue): PropertyValue {
  if (isSecret(v)) return stripSecrets(v.value);
  if (Array.isArray(v)) return v.map(stripSecrets);
  if (isObject(v)) {
    const out: PropertyMap = {};
    for (const [k, x] of Object.entries(v)) out[k] = stripSecrets(x);
    return out;
  }
  return v;
}

/** {@link stripSecrets} for a whole property map. */
export function stripSecretsMap(m: PropertyMap): PropertyMap {
  return stripSecrets(m) as PropertyMap;
}

/** True when `v` holds a secret anywhere. */
export function containsSecrets(v: PropertyValue | undefined): boolean {
  if (v === undefined) return false;
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecrets);
  if (isObject(v)) return Object.values(v).some(containsSecrets);
  return false;
}

/**
 * Copies the secretness of `ins` onto `outs`, the engine's `annotateSecrets`: where both hold an
 * object under the same key it recurses (so one secret field does not taint a whole structure),
 * otherwise an out value whose in counterpart contains a secret becomes a secret.
 */
export function annotateSecrets(outs: PropertyMap, ins: PropertyMap): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const [key, inValue] of Object.entries(ins)) {
    const outValue = result[key];
    if (outValue === undefined) continue;
    if (isObject(outValue) && !isSecret(outValue) && isObject(inValue) && !isSecret(inValue)) {
      result[key] = annotateSecrets(outValue, inValue);
    } else if (!isSecret(outValue) && containsSecrets(inValue)) {
      result[key] = makeSecret(outValue);
    }
  }
  return result;
}

/** Marks the named top-level properties of `outs` secret (`additionalSecretOutputs`). */
export function markSecretOutputs(outs: PropertyMap, names: readonly string[]): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const name of names) {
    const v = result[name];
    if (v !== undefined) result[name] = makeSecret(v);
  }
  return result;
}

/** Deep equality of two values, ignoring secretness (a value made secret is not a change). */
export function deepEqual(a: PropertyValue | undefined, b: PropertyValue | undefined): boolean {
  const x = a === undefined ? undefined : unwrapSecret(a);
  const y = b === undefined ? undefined : unwrapSecret(b);
  if (x === y) return true;
  if (Array.isArray(x) && Array.isArray(y)) {
    return x.length === y.length && x.every((v, i) => deepEqual(v, y[i]));
  }
  if (isObject(x) && isObject(y)) {
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    for (const k of keys) if (!deepEqual(x[k], y[k])) return false;
    return true;
  }
  return false;
}

/**
 * Top-level keys whose values differ between `olds` and `news`, ignoring `__provider` (the
 * serialized provider changes whenever its code does, which is not a change of the resource).
 * An unknown new value counts as a change, as it does in the engine's own input diff.
 */
export function changedKeys(olds: PropertyMap, news: PropertyMap): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  keys.delete(PROVIDER_KEY);
  return [...keys].filter((k) => news[k] === UNKNOWN || !deepEqual(olds[k], news[k])).sort();
}

/** Dotted paths (`outputs.token`, `inputs.nested.key`, `list[0]`) of the secrets inside `v`. */
export function secretPaths(v: PropertyValue, prefix: string): string[] {
  if (isSecret(v)) return [prefix];
  if (Array.isArray(v)) return v.flatMap((x, i) => secretPaths(x, `${prefix}[${i}]`));
  if (isObject(v)) {
    return Object.entries(v).flatMap(([k, x]) => secretPaths(x, prefix ? `${prefix}.${k}` : k));
  }
  return [];
}

/** Removes `undefined` members (protobuf Structs cannot carry them) by a JSON round trip. */
export function toPropertyMap(v: unknown): PropertyMap {
  if (v === undefined || v === null) return {};
  return JSON.parse(JSON.stringify(v)) as PropertyMap;
}

/**
 * Applies `ignoreChanges` paths (top-level names or dotted paths) by copying the old input values
 * over the new ones, as the engine does before it calls Check.
 */
export function applyIgnoreChanges(
  olds: PropertyMap,
  news: PropertyMap,
  paths: readonly string[],
): PropertyMap {
  if (paths.length === 0) return news;
  const result = structuredClone(news);
  for (const p of paths) {
    if (p === "*") return structuredClone(olds);
    const parts = p.split(".");
    let src: PropertyValue | undefined = olds;
    let dst: PropertyValue | undefined = result;
    for (const [i, part] of parts.entries()) {
      if (!isObject(src) || !isObject(dst)) break;
      if (i === parts.length - 1) {
        const old: PropertyValue | undefined = src[part];
        if (old === undefined) delete dst[part];
        else dst[part] = old;
      } else {
        src = src[part];
        dst = dst[part];
      }
    }
  }
  return result;
}
