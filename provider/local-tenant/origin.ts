/**
 * Whom the control routes (`/__tenant-api/…`, the console's included) answer: requests made to the
 * local tenant's own address, and from its own pages (docs/design/local-tenant.md, "The console").
 *
 * They need no token from loopback, so a page of another site must not reach them through the
 * developer's browser. Two ways are closed here. DNS rebinding: a site's name made to resolve to
 * 127.0.0.1 puts its page on this server's socket with its own name in `Host`, so a request is
 * answered only when `Host` names the address the server listens on, the address the connection
 * reached, or `localhost`. A request sent across origins: a browser sends `Origin` with every
 * request but a plain GET of the same origin, so a request whose `Origin` is not this server's own
 * is refused; one with no `Origin` comes from no page (a program, `curl`) and is judged as before.
 */

import { ApiError } from "./errors.js";

/** What a request says of where it was sent, and where it arrived. */
export interface RequestPlace {
  /** The `Host` header. */
  host: string | undefined;
  /** The `Origin` header: a browser's page that sent it. */
  origin: string | undefined;
  /** `http` or `https`: how the server listens. */
  protocol: string;
  /** The address the connection reached (the socket's local address). */
  localAddress: string | undefined;
  /** The address the server was told to listen on (`--host`), when it was given one. */
  listenHost: string | undefined;
}

/** The longest part of a refused header that an answer repeats. */
const SHOWN_LENGTH = 100;

/** A name or address as compared: lower case, without IPv6 brackets or an IPv4-in-IPv6 prefix. */
function normalHost(host: string): string {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(bare) ? bare.slice("::ffff:".length) : bare;
}

/** The host name of a `Host` header (without its port), or undefined when it is not one. */
function hostName(host: string): string | undefined {
  const name = /^(\[[0-9a-f:.]+\]|[^:[\]/?#@\s]+)(?::\d{1,5})?$/i.exec(host)?.[1];
  return name === undefined ? undefined : normalHost(name);
}

/** Whether `place.host` names this server: its listening address, the one reached, localhost. */
function isOwnHost(place: RequestPlace): boolean {
  const name = place.host === undefined ? undefined : hostName(place.host);
  if (name === undefined) return false;
  const own = ["localhost", place.localAddress, place.listenHost].flatMap((address) =>
    address === undefined ? [] : [normalHost(address)],
  );
  return own.includes(name);
}

/** Whether `place.origin` is this server's own: its scheme and the `Host` it was sent to. */
function isOwnOrigin(place: RequestPlace): boolean {
  if (place.origin === undefined) return true;
  try {
    return new URL(place.origin).origin === new URL(`${place.protocol}://${place.host}`).origin;
  } catch {
    return false;
  }
}

/**
 * The 403 a control request gets when it was not sent to this server's own address or not from
 * its own origin (see the module's comment); undefined when it may be answered.
 */
export function foreignPlaceError(place: RequestPlace): ApiError | undefined {
  if (!isOwnHost(place)) {
    const host = JSON.stringify((place.host ?? "").slice(0, SHOWN_LENGTH));
    return new ApiError(
      403,
      "forbidden",
      `The local tenant's console and control routes answer only at the address it listens on or at localhost, not at ${host}`,
    );
  }
  if (!isOwnOrigin(place)) {
    const origin = JSON.stringify((place.origin ?? "").slice(0, SHOWN_LENGTH));
    return new ApiError(
      403,
      "forbidden",
      `The local tenant's console and control routes take requests from the console's own origin only, not from ${origin}`,
    );
  }
  return undefined;
}
