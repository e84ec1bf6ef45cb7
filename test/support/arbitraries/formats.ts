/**
 * Values of the tenant API's custom string formats, valid and invalid, written from the definitions
 * in docs/design/platform.md, "URL formats" (not from the predicates under test):
 *
 * - `absolute-uri-or-empty`: "" or an absolute URI with a scheme.
 * - `absolute-https-uri-with-placeholders-or-empty`: "" or an `https://` URI; `{placeholder}`
 *   allowed.
 * - `callback-url`: an absolute URL; custom schemes and `http://localhost` allowed; `*` allowed in
 *   a subdomain.
 * - `url-with-placeholders`: an absolute http(s) URL; `*` as a subdomain label and `{placeholder}`
 *   allowed; query and fragment ignored.
 * - `url-or-null` / `url`: an absolute http(s) URL (null is the schema type's business).
 *
 * The invalid values are only the forms those definitions plainly exclude (no scheme, the wrong
 * scheme, whitespace, a wildcard outside a subdomain, an unbalanced brace), so a rejected one is
 * a real rejection and not a matter of taste.
 *
 * @module
 */

import fc from "fast-check";
import type { FormatName } from "../../../provider/schema/formats.js";
import { text } from "./text.js";

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const tld = fc.stringMatching(/^[a-z]{2,6}$/);

/** A registrable domain with up to two subdomains, e.g. `app.eu.example.com`. */
export const domain: fc.Arbitrary<string> = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), tld)
  .map(([labels, top]) => [...labels, top].join("."));

const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const withPort = (host: fc.Arbitrary<string>) =>
  fc.tuple(host, port).map(([h, p]) => (p === undefined ? h : `${h}:${p}`));

const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{1,10}$/),
  // Anything at all, percent-encoded as a browser would send it.
  text({ minLength: 1, maxLength: 6 }).map(encodeURIComponent),
);
const path = fc.array(segment, { maxLength: 3 }).map((parts) => `/${parts.join("/")}`);

const placeholder = fc.stringMatching(/^[A-Za-z0-9_.-]{1,10}$/).map((name) => `{${name}}`);
const pathWithPlaceholders = fc
  .array(fc.oneof(segment, placeholder), { maxLength: 3 })
  .map((parts) => `/${parts.join("/")}`);

/** Anything after a `?` or `#`: the origin and logout URL formats ignore it, braces and all. */
const tail = fc.option(
  fc.tuple(fc.constantFrom("?", "#"), text({ maxLength: 10 })).map(([mark, rest]) => mark + rest),
  { nil: "" },
);

const scheme = (schemes: readonly string[]) => fc.constantFrom(...schemes);

function url(
  schemes: fc.Arbitrary<string>,
  host: fc.Arbitrary<string>,
  tailArb: fc.Arbitrary<string> = fc.constant(""),
) {
  return fc
    .tuple(schemes, withPort(host), path, tailArb)
    .map(([s, h, p, t]) => `${s}://${h}${p}${t}`);
}

/** `https://` or `http://` in any letter case: schemes are case-insensitive. */
const httpScheme = scheme(["https", "http", "HTTPS", "Http"]);

/** A host with `*` in one subdomain label: the whole label, or part of it when `partial`. */
function wildcardHost(partial: boolean) {
  const star = partial
    ? fc.oneof(
        fc.constant("*"),
        label.map((l) => `${l}-*`),
        label.map((l) => `*${l}`),
      )
    : fc.constant("*");
  return fc
    .tuple(
      star,
      domain.filter((d) => d.split(".").length >= 2),
    )
    .map(([s, d]) => `${s}.${d}`);
}

const customScheme = fc
  .tuple(fc.array(label, { minLength: 2, maxLength: 3 }), fc.constantFrom("://", ":/"))
  .map(([parts, sep]) => `${parts.map((p) => p.replace(/^[0-9-]+/, "x")).join(".")}${sep}`);

const VALID: Record<FormatName, fc.Arbitrary<string>> = {
  "absolute-uri-or-empty": fc.oneof(
    fc.constant(""),
    url(httpScheme, domain),
    label.map((l) => `urn:example:${l}`),
    fc.constant("data:image/png;base64,iVBORw0KGgo="),
    fc.tuple(customScheme, label).map(([s, l]) => `${s}${l}`),
  ),
  "absolute-https-uri-with-placeholders-or-empty": fc.oneof(
    fc.constant(""),
    fc
      .tuple(
        scheme(["https", "HTTPS"]),
        withPort(
          fc.oneof(
            domain,
            placeholder,
            placeholder.map((p) => `${p}.example.com`),
          ),
        ),
        pathWithPlaceholders,
      )
      .map(([s, h, p]) => `${s}://${h}${p}`),
  ),
  "callback-url": fc.oneof(
    url(httpScheme, fc.oneof(domain, wildcardHost(true))),
    url(scheme(["http"]), fc.constantFrom("localhost", "127.0.0.1")),
    fc.tuple(customScheme, path).map(([s, p]) => `${s}${p.slice(1)}`),
  ),
  "url-with-placeholders": fc.oneof(
    url(httpScheme, fc.oneof(domain, wildcardHost(false)), tail),
    fc
      .tuple(httpScheme, placeholder, domain, pathWithPlaceholders, tail)
      .map(([s, p, d, rest, t]) => `${s}://${p}.${d}${rest}${t}`),
  ),
  "url-or-null": url(httpScheme, domain),
  url: url(httpScheme, domain),
};

/** Inserts a space or a tab somewhere after the scheme. */
const withWhitespace = (valid: fc.Arbitrary<string>) =>
  fc.tuple(valid, fc.nat(), fc.constantFrom(" ", "\t")).map(([value, at, space]) => {
    const start = value.indexOf("//") + 2;
    const i = start + (at % Math.max(1, value.length - start));
    return `${value.slice(0, i)}${space}${value.slice(i)}`;
  });

const relative = fc.oneof(
  path,
  path.map((p) => p.slice(1)).filter((p) => p !== "" && !p.includes(":")),
  fc.tuple(domain, path).map(([d, p]) => `//${d}${p}`),
  fc.tuple(domain, path).map(([d, p]) => `${d}${p}`),
);

const INVALID: Record<FormatName, fc.Arbitrary<string>> = {
  "absolute-uri-or-empty": fc.oneof(
    relative,
    withWhitespace(url(httpScheme, domain)),
    fc.constantFrom(" ", "https://", "http://"),
  ),
  "absolute-https-uri-with-placeholders-or-empty": fc.oneof(
    url(scheme(["http", "ftp", "wss"]), domain),
    relative,
    fc.tuple(domain, path).map(([d, p]) => `https://{unclosed.${d}${p}`),
    withWhitespace(url(scheme(["https"]), domain)),
  ),
  "callback-url": fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 65535 }), path).map(([p, rest]) => `localhost:${p}${rest}`),
    relative.filter((r) => !r.startsWith("//")),
    url(scheme(["https"]), fc.constantFrom("*.com", "example.*", "*")),
    withWhitespace(url(scheme(["https"]), domain)),
  ),
  "url-with-placeholders": fc.oneof(
    url(scheme(["ftp", "wss", "file"]), domain),
    relative,
    url(
      scheme(["https"]),
      label.map((l) => `${l}*.example.com`),
    ),
    url(scheme(["https"]), fc.constantFrom("*.com", "example.*")),
    domain.map((d) => `https://{unclosed.${d}`),
    withWhitespace(url(scheme(["https"]), domain)),
  ),
  "url-or-null": fc.oneof(
    url(scheme(["ftp", "wss"]), domain),
    relative,
    label.map((l) => `urn:example:${l}`),
    url(scheme(["https"]), wildcardHost(false)),
    withWhitespace(url(scheme(["https"]), domain)),
  ),
  url: fc.oneof(
    url(scheme(["ftp", "wss"]), domain),
    relative,
    url(scheme(["https"]), wildcardHost(false)),
  ),
};

/** Values the format `name` accepts. */
export function validFormat(name: FormatName): fc.Arbitrary<string> {
  return VALID[name];
}

/** Values the format `name` rejects. */
export function invalidFormat(name: FormatName): fc.Arbitrary<string> {
  return INVALID[name];
}

/** Whether `name` is one of the custom formats these generators know. */
export function isKnownFormat(name: unknown): name is FormatName {
  return typeof name === "string" && Object.hasOwn(VALID, name);
}
