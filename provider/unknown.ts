/**
 * The value Pulumi puts in place of an input that is not known yet during a preview (the output of
 * a resource that has not been created). It arrives as this exact string whatever the declared type
 * of the field is, even for booleans, numbers, arrays and objects (pulumi/pulumi#6310), so
 * validation must never fail on it.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether `value` is Pulumi's {@link UNKNOWN} placeholder (a value still unknown during preview). */
export function isUnknown(value: unknown): value is typeof UNKNOWN {
  return value === UNKNOWN;
}
