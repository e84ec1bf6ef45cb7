/**
 * The custom string formats of the tenant API (docs/design/platform.md, "URL formats").
 * Each is a plain predicate on a string; `null` never reaches them (the schemas allow it through
 * `type`). Registered with Ajv under the names below.
 *
 * @module
 */

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const WHITESPACE = /\s/;
const PLACEHOLDER = /\{[A-Za-z0-9_.-]+\}/g;
const PLACEHOLDER_STAND_IN = "placeholder";

function parse(value: string): URL | undefined {
  if (WHITESPACE.test(value)) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isHttp(url: URL): boolean {
  return url.protocol === "http:" || url.protocol === "https:";
}

/** Replaces every `{placeholder}`; a brace left over afterwards is an unbalanced one. */
function withoutPlaceholders(value: string): string | undefined {
  const replaced = value.replace(PLACEHOLDER, PLACEHOLDER_STAND_IN);
  return /[{}]/.test(replaced) ? undefined : replaced;
}

/**
 * Whether every `*` of `hostname` sits in a subdomain label, that is in a label followed by at
 * least two more (`*.example.com`, `app-*.eu.example.com`, not `example.*` or `*.com`). With
 * `wholeLabel`, a label that holds a `*` must be exactly `*`.
 */
function wildcardsInSubdomain(hostname: string, wholeLabel: boolean): boolean {
  const labels = hostname.split(".");
  return labels.every(
    (label, i) => !label.includes("*") || (i < labels.length - 2 && (!wholeLabel || label === "*")),
  );
}

/**
 * `absolute-uri-or-empty`: the empty string, or an absolute URI with a scheme (`https://...`,
 * `data:...`, `urn:...`). No whitespace.
 *
 * @internal
 */
export function isAbsoluteUriOrEmpty(value: string): boolean {
  if (value === "") return true;
  return SCHEME.test(value) && parse(value) !== undefined;
}

/**
 * `absolute-https-uri-with-placeholders-or-empty`: the empty string, or an `https://` URL with a
 * host. `{placeholder}` segments (letters, digits, `_`, `.`, `-` between braces) may stand anywhere,
 * including in the host (`https://{domain}/login`); an unbalanced brace is rejected.
 *
 * @internal
 */
export function isAbsoluteHttpsUriWithPlaceholdersOrEmpty(value: string): boolean {
  if (value === "") return true;
  if (!/^https:\/\//i.test(value)) return false;
  const concrete = withoutPlaceholders(value);
  const url = concrete === undefined ? undefined : parse(concrete);
  return url !== undefined && url.protocol === "https:" && url.hostname !== "";
}

/**
 * `callback-url`: an absolute URL. Any scheme is accepted, so native apps may use custom schemes
 * (`com.example.app://callback`, `com.example.app:/callback` as RFC 8252 writes them), and
 * `http://localhost` works for development. The scheme must be followed by `/`, which rejects a
 * bare `localhost:3000` (that would parse as the scheme `localhost`). For http(s), `*` may appear in
 * a subdomain label (`https://*.example.com/callback`), never in the registrable domain.
 *
 * @internal
 */
export function isCallbackUrl(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\//.test(value)) return false;
  const url = parse(value);
  if (url === undefined) return false;
  if (!isHttp(url)) return true;
  return url.hostname !== "" && wildcardsInSubdomain(url.hostname, false);
}

/**
 * `url-with-placeholders`: an absolute `http://` or `https://` URL, as used in origin and logout URL
 * lists. `*` may be a whole subdomain label (`https://*.example.com`) and `{placeholder}` segments
 * may stand anywhere. The query and the fragment are not considered by the platform, so nothing in
 * them can make the value invalid.
 *
 * @internal
 */
export function isUrlWithPlaceholders(value: string): boolean {
  const withoutQuery = value.replace(/[?#].*$/s, "");
  if (!/^https?:\/\//i.test(withoutQuery)) return false;
  const concrete = withoutPlaceholders(withoutQuery);
  const url = concrete === undefined ? undefined : parse(concrete);
  return url !== undefined && url.hostname !== "" && wildcardsInSubdomain(url.hostname, true);
}

/**
 * `url` and `url-or-null`: an absolute `http://` or `https://` URL with a host. (The `null` of
 * `url-or-null` is admitted by the schema's `type`, since formats only ever see strings.)
 *
 * @internal
 */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  const url = parse(value);
  return url !== undefined && url.hostname !== "" && !url.hostname.includes("*");
}

/** The custom formats by the name the schemas use in `format`. */
export const FORMATS = {
  "absolute-uri-or-empty": isAbsoluteUriOrEmpty,
  "absolute-https-uri-with-placeholders-or-empty": isAbsoluteHttpsUriWithPlaceholdersOrEmpty,
  "callback-url": isCallbackUrl,
  "url-with-placeholders": isUrlWithPlaceholders,
  "url-or-null": isHttpUrl,
  url: isHttpUrl,
} as const satisfies Record<string, (value: string) => boolean>;

/** Name of one of the custom {@link FORMATS}. */
export type FormatName = keyof typeof FORMATS;
