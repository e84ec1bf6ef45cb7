/**
 * The one way a connection's domain becomes an origin: a host means `https://host`, a value with
 * a scheme is an origin, and plain `http://` is accepted only to a loopback host (the local tenant
 * API), so that a bearer token never crosses a network unencrypted.
 *
 * @module
 */

import { type ConnectionValues, given } from "./values.js";

/**
 * The origin `domain` stands for: `acme.tenants.example` means `https://acme.tenants.example`;
 * a value with a scheme is taken as an origin. Paths are refused rather than guessed at:
 * `https://host/api/v2` would otherwise become `https://host/api/v2/api/v2`.
 *
 * @returns the origin, or the message that says why `domain` (called `name`) is not one.
 *
 * @internal
 */
export function originOf(domain: string, name: string): { origin: string } | { message: string } {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(domain) ? domain : `https://${domain}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { message: `${name} "${domain}" is not a host name or an https:// origin` };
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") {
    return {
      message:
        `${name} "${domain}" must be a host (acme.tenants.example) or an origin ` +
        "(https://acme.tenants.example), without a path, query or credentials",
    };
  }
  if (url.protocol === "http:") {
    if (!isLoopbackHost(url.hostname)) {
      return {
        message:
          `${name} "${domain}" uses plain http:// to a host that is not loopback; ` +
          "the management API must be reached over https:// (http:// is accepted only for " +
          "127.0.0.0/8, ::1 and localhost, i.e. the local tenant API)",
      };
    }
  } else if (url.protocol !== "https:") {
    return {
      message: `${name} "${domain}" has the scheme ${url.protocol.slice(0, -1)}; use https://`,
    };
  }
  return { origin: url.origin };
}

/**
 * The origin of the tenant `values` name, or undefined when their domain is absent, not known yet
 * or not valid: the one way a domain becomes an origin, for the connection's parse, for diff's
 * comparison of tenants and for the stack config's tenant.
 */
export function originOfValues(values: ConnectionValues): string | undefined {
  const domain = given(values.domain);
  if (domain.kind !== "text") return undefined;
  const parsed = originOf(domain.text, "domain");
  return "origin" in parsed ? parsed.origin : undefined;
}

/** True for `localhost`, any 127.0.0.0/8 address and `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host === "::1") return true;
  const octets = host.split(".");
  return (
    octets.length === 4 &&
    octets[0] === "127" &&
    octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)
  );
}
