import { isAxiosError } from "axios";

/**
 * A one-line description of a request that got no HTTP answer, built only from the error's code
 * and message. Axios errors also hold the request config (headers included, so the bearer token
 * and, for the token endpoint, the client secret in the body): none of that is read here, and the
 * axios error itself is never attached to the errors this package throws.
 */
export function describeTransportFailure(error: unknown): string {
  if (isAxiosError(error)) {
    const code = error.code ?? error.cause?.name;
    const message = error.message || "no answer";
    return code && !message.includes(code) ? `${code} (${message})` : message;
  }
  return error instanceof Error ? error.message : String(error);
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
