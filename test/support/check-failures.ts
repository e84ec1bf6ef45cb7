/**
 * The path a check failure is at, whether it names it as its `property` or, for an input that may
 * hold a secret, at the start of its reason with no property (`clientSecrett: is not a known
 * property`; provider/schema/check-failures.ts, `toCheckFailure`).
 */
export function failurePath(failure: {
  readonly property: string;
  readonly reason: string;
}): string {
  if (failure.property !== "") return failure.property;
  const colon = failure.reason.indexOf(": ");
  return colon === -1 ? "" : failure.reason.slice(0, colon);
}
