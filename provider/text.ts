/**
 * Wording shared by the messages of this package.
 *
 * @module
 */

/** `1 attempt`, `3 attempts`; `nouns` for an irregular plural (`property`, `properties`). */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
