/**
 * The one Ajv instance of the process and the validators compiled from the schemas, both created on
 * first use and kept in this module. Nothing here is reachable from a resource's provider object:
 * the provider shim `require`s this package by name inside its methods (DESIGN.md section 7), so
 * Pulumi's closure serializer never meets an Ajv instance or a compiled function.
 *
 * @module
 */

import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { FORMATS } from "./formats.js";
import { type ResourceKind, SCHEMAS } from "./kinds.js";
import { type WireKind, wireSchema } from "./wire.js";

/** The annotation keywords of the schemas; Ajv in strict mode must know them. */
export const ANNOTATION_KEYWORDS = [
  "x-wire-keys",
  "x-wire-null-values",
  "x-sensitive",
  "x-pattern-reason",
] as const;

let ajv: Ajv | undefined;
const compiled: Partial<Record<ResourceKind | WireKind, ValidateFunction>> = {};

function instance(): Ajv {
  if (ajv === undefined) {
    ajv = new Ajv({ strict: true, allErrors: true, verbose: true });
    for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
    for (const [name, validate] of Object.entries(FORMATS)) {
      ajv.addFormat(name, { type: "string", validate });
    }
  }
  return ajv;
}

function validator(name: ResourceKind | WireKind): ValidateFunction {
  let validate = compiled[name];
  if (validate === undefined) {
    const schema = name in SCHEMAS ? SCHEMAS[name as ResourceKind] : wireSchema(name as WireKind);
    validate = instance().compile(schema);
    compiled[name] = validate;
  }
  return validate;
}

/**
 * Validates `value` against a resource's user schema or a wire schema and returns Ajv's errors
 * (empty when valid). All errors are collected (`allErrors`), each with its schema and data
 * (`verbose`) for the failure messages.
 */
export function ajvErrors(name: ResourceKind | WireKind, value: unknown): ErrorObject[] {
  const validate = validator(name);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/** How many validators have been compiled so far (for tests of the once-per-process cache). */
export function compiledValidatorCount(): number {
  return Object.keys(compiled).length;
}
