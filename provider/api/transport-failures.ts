import { isAxiosError } from "axios";

/**
 * The kinds of failure of a request that got no HTTP answer, by what the user can do about them:
 * the first four cannot heal by retrying (the same address gives the same answer), `timeout` is a
 * server that accepted the connection and did not answer within the request timeout, `transient`
 * is everything that may heal (a reset connection, a DNS server that did not answer).
 */
type TransportFailureKind =
  | "refused"
  | "unknownHost"
  | "tlsProtocol"
  | "untrustedCertificate"
  | "timeout"
  | "transient";

/** The kind of a failure by its Node.js or axios error code. */
function kindOf(code: string): TransportFailureKind {
  if (code === "ECONNREFUSED") return "refused";
  if (code === "ENOTFOUND") return "unknownHost";
  if (code === "EPROTO" || code.startsWith("ERR_SSL_")) return "tlsProtocol";
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS/.test(code)) return "untrustedCertificate";
  if (code === "ECONNABORTED" || code === "ETIMEDOUT") return "timeout";
  return "transient";
}

/** The error's code: axios's own, else its cause's (`SELF_SIGNED_CERT_IN_CHAIN`, ...). */
function codeOf(error: unknown): string {
  if (!isAxiosError(error)) return "";
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return error.code ?? cause?.code ?? cause?.name ?? "";
}

/**
 * Whether retrying the request could change its outcome: not for a refused connection, an
 * unknown host, a TLS handshake with a server that does not speak TLS, an untrusted certificate
 * (the same address answers the same way a second later), nor for a server that let the request
 * time out (waiting the timeout again would only double the silence). The request timeout is
 * the bound on a server that does not answer (docs/guides/commands.md, "When the tenant cannot be
 * reached").
 */
export function mayHeal(error: unknown): boolean {
  return kindOf(codeOf(error)) === "transient";
}

/** `http://host:port` for `https://host:port` (the local tenant without `--tls`). */
function asHttp(address: string): string {
  return address.replace(/^https:/, "http:");
}

/**
 * What happened to a request to `address` (an origin) that got no HTTP answer, with the low-level
 * code and the likely fix, as the end of a sentence that names the request and the address
 * (`GET /clients could not reach http://127.0.0.1:1: ...`). Built only from the error's code and
 * message: axios errors also hold the request config (headers included, so the bearer token and,
 * for the token endpoint, the client secret in the body), none of which is read here, and the
 * axios error itself is never attached to the errors this package throws.
 *
 * @example `the connection was refused (ECONNREFUSED): is the tenant running at that address and port?`
 */
export function describeTransportFailure(error: unknown, address: string): string {
  if (!isAxiosError(error)) return error instanceof Error ? error.message : String(error);
  const code = codeOf(error);
  switch (kindOf(code)) {
    case "refused":
      return `the connection was refused (${code}): is the tenant running at that address and port?`;
    case "unknownHost":
      return `no such host (${code}): check the spelling of the domain`;
    case "tlsProtocol":
      return (
        `it does not answer in TLS (${code}): a local tenant started without --tls is reached ` +
        `with http://, e.g. ${asHttp(address)}`
      );
    case "untrustedCertificate":
      return (
        `its certificate is not trusted (${code}): for a local tenant started with --tls, set ` +
        "NODE_EXTRA_CA_CERTS to the caFile it printed; else check the CA bundle"
      );
    default: {
      const message = error.message || "no answer";
      return code && !message.includes(code) ? `${code} (${message})` : message;
    }
  }
}

/**
 * The line a command (or a Pulumi run, as info) gets when a failed attempt is retried: what
 * failed, that it may heal, and when the next attempt leaves.
 *
 * @example `GET /clients: 503 from http://127.0.0.1:4000; retrying in 1 s (retry 1 of 8)`
 */
export function retryNotice(
  what: string,
  error: unknown,
  retry: { readonly number: number; readonly of: number; readonly delayMs: number },
): string {
  const status = isAxiosError(error) ? error.response?.status : undefined;
  const failure =
    status === undefined ? `no answer (${codeOf(error) || "no code"})` : `answered ${status}`;
  const seconds = Math.max(1, Math.round(retry.delayMs / 1000));
  return (
    `${what}: ${failure}, which may heal; retrying in ${seconds} s ` +
    `(retry ${retry.number} of ${retry.of})`
  );
}

/** True when the request was given up on by its own timeout (not by a deadline abort). */
export function isTimeout(error: unknown): boolean {
  return isAxiosError(error) && (error.code === "ECONNABORTED" || error.code === "ETIMEDOUT");
}

/** True when the request was abandoned because its signal aborted (the operation deadline). */
export function isCanceled(error: unknown): boolean {
  return isAxiosError(error) && error.code === "ERR_CANCELED";
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as `signal` aborts; the
 * promise itself goes on (others may be waiting for it).
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
