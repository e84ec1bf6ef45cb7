/**
 * How a value of a client is shown in a message (a refused put-back, a write the tenant did not
 * hold): as JSON, shortened past a length so that one long value does not drown the sentence.
 * Callers leave sensitive values out before they get here.
 *
 * @module
 */

/** How long a value may be shown in a message before it is shortened. */
const SHOWN = 60;

/** `value` as a message shows it: JSON, shortened with the length it had. */
export function shownValue(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  if (text.length <= SHOWN) return text;
  if (typeof value === "string") {
    // The opening quote kept, the closing one after the ellipsis: still reads as a string.
    return `${JSON.stringify(value.slice(0, SHOWN)).slice(0, -1)}…", ${value.length} characters`;
  }
  return `${text.slice(0, SHOWN)}…, ${text.length} characters of JSON`;
}
