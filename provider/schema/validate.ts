/**
 * The one Ajv instance of the process and the validators compiled from the schemas, both created on
 * first use and kept in this module. Nothing here is reachable from a resource's provider object:
 * the provider shim `require`s this package by name inside its methods (docs/provider-closure.md),
 * so Pulumi's closure serializer never meets an Ajv instance or a compiled function.
 *
 * @module
 */

import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { FORMATS } from "./formats.js";
import { INPUT_SCHEMAS, type ResourceKind } from "./kinds.js";

/**
 * The annotation keywords of the schemas; Ajv in strict mode must know them. `x-strategy` tells
 * the plan how a client field is compared and sent (see `plan/field-strategies.ts`).
 */
const ANNOTATION_KEYWORDS = [
  "x-wire-keys",
  "x-wire-null-values",
  "x-sensitive",
  "x-pattern-reason",
  "x-strategy",
] as const;

let ajv: Ajv | undefined;
const compiled: Partial<Record<ResourceKind, ValidateFunction>> = {};

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

/**
 * Compiles `schema` with the process's Ajv instance (the custom formats and the annotation
 * keywords registered). The caller keeps the result; for a derived schema, such as the wire form
 * the local tenant API validates with.
 *
 * @internal
 */
export function compileSchema(schema: object): ValidateFunction {
  return instance().compile(schema);
}

function validator(kind: ResourceKind): ValidateFunction {
  let validate = compiled[kind];
  if (validate === undefined) {
    validate = compileSchema(INPUT_SCHEMAS[kind]);
    compiled[kind] = validate;
  }
  return validate;
}

/**
 * Validates `value` against a resource's input schema (settings and `tenant`) and returns Ajv's errors (empty when valid).
 * All errors are collected (`allErrors`), each with its schema and data (`verbose`) for the
 * failure messages.
 */
export function ajvErrors(kind: ResourceKind, value: unknown): ErrorObject[] {
  return errorsOf(validator(kind), value);
}

/**
 * The errors of `validate` on `value`, empty when it is valid.
 *
 * @internal
 */
export function errorsOf(validate: ValidateFunction, value: unknown): ErrorObject[] {
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/**
 * How many validators have been compiled so far (for tests of the once-per-process cache).
 *
 * @internal
 */
export function compiledValidatorCount(): number {
  return Object.keys(compiled).length;
}
