/**
 * What the URL rules of the policy pack see in a URL: its scheme and host, read with a pattern
 * rather than the WHATWG parser, because the platform's URLs may hold wildcards (`*.example.com`)
 * and placeholders (`{organization_name}`) that a parser rejects or rewrites.
 *
 * @module
 */

import { isLoopbackHost } from "../connection/origin.js";
import { type ClientSettingsField, clientSettingsSchema } from "../schema/client-settings.js";

/** The formats of the fields that send a user somewhere or let an origin in (docs/design/policy.md). */
const REDIRECT_FORMATS: ReadonlySet<string> = new Set([
  "callback-url",
  "url-with-placeholders",
  "absolute-https-uri-with-placeholders-or-empty",
]);

/**
 * The client fields whose values are redirect targets or allowed origins: `callbacks`,
 * `allowedLogoutUrls`, `webOrigins`, `allowedOrigins` (lists) and `initiateLoginUri` (one URL),
 * found in the schema by their format, so a new URL field of that kind is judged without a change
 * here. `logoUri` and `crossOriginLoc` have other formats: no user is sent to them.
 */
export const REDIRECT_URL_FIELDS: readonly ClientSettingsField[] = (
  Object.entries(clientSettingsSchema.properties) as [ClientSettingsField, unknown][]
)
  .filter(([, schema]) => {
    const node = schema as { format?: string; items?: { format?: string } };
    return REDIRECT_FORMATS.has(node.format ?? node.items?.format ?? "");
  })
  .map(([field]) => field);

/**
 * The scheme and host of a URL, lower-cased; undefined for a text that is no absolute URL.
 *
 * @internal
 */
export function schemeAndHost(url: string): { scheme: string; host: string } | undefined {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:[^/?#@]*@)?(\[[^\]]*\]|[^/?#:]*)/i.exec(url);
  if (!match?.[1] || match[2] === undefined) return undefined;
  return { scheme: match[1].toLowerCase(), host: match[2].toLowerCase() };
}

/**
 * What the URL rules find in one URL: plain http to a host that is not loopback (unless the host
 * is in `allowedHosts`), a loopback host (the same test as the tenant connection's, so both agree
 * on what loopback is), a wildcard. A text that is no absolute URL has nothing to find: `check`
 * has judged its format already.
 */
export function urlFindings(
  url: string,
  allowedHosts: readonly string[] = [],
): { plainHttp: boolean; loopback: boolean; wildcard: boolean } {
  const parts = schemeAndHost(url);
  const loopback = parts !== undefined && isLoopbackHost(parts.host);
  return {
    plainHttp: parts?.scheme === "http" && !loopback && !allowedHosts.includes(parts.host),
    loopback,
    wildcard: url.includes("*"),
  };
}
