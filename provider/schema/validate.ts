/**
 * The validators of the resources' input schemas, kept in this module. In the built package they
 * are precompiled: `npm run build` writes them as code (`validators.generated.js`, by
 * `precompile.ts`), so a provider host loads them in a few milliseconds instead of compiling the
 * ClientSettings schema for about 100 ms at its first Check (docs/design/decisions.md, "Precompiled
 * validators"). From the sources (the tests), the one Ajv instance of the process compiles them on
 * first use. Both come from {@link newAjv}, so they validate alike.
 *
 * Nothing here is reachable from a resource's provider object: the provider shim `require`s this
 * package by name inside its methods (docs/design/provider-closure.md), so Pulumi's closure serializer
 * never meets an Ajv instance or a compiled function.
 *
 * @module
 */

import type { Ajv, CodeOptions, ErrorObject, ValidateFunction } from "ajv";
import { FORMATS } from "./formats.js";
import { INPUT_SCHEMAS, type ResourceKind } from "./kinds.js";

/**
 * The annotation keywords of the schemas; Ajv in strict mode must know them. `x-strategy` tells
 * the plan how a client field is compared and sent (see `plan/field-strategies.ts`); `x-patch`
 * whether the platform merges or replaces an object a PATCH sends (see `plan/patch-rules.ts`).
 */
const ANNOTATION_KEYWORDS = [
  "x-wire-keys",
  "x-wire-null-values",
  "x-sensitive",
  "x-pattern-reason",
  "x-strategy",
  "x-patch",
] as const;

let ajv: Ajv | undefined;
const compiled: Partial<Record<ResourceKind, ValidateFunction>> = {};

/**
 * An Ajv instance with the custom formats and the annotation keywords: all errors are collected
 * (`allErrors`), each with its schema and data (`verbose`) for the failure messages. `code` is for
 * the precompiler, which writes the validators as source.
 */
export function newAjv(code?: CodeOptions): Ajv {
  // Required here rather than imported: the provider host validates with the precompiled
  // validators, which need none of Ajv's compiler, and loading it (63 modules) was the largest
  // part of loading the provider (docs/design/decisions.md, "Precompiled validators").
  const { Ajv: AjvClass } = require("ajv") as typeof import("ajv");
  const created = new AjvClass({
    strict: true,
    allErrors: true,
    verbose: true,
    ...(code ? { code } : {}),
  });
  for (const keyword of ANNOTATION_KEYWORDS) created.addKeyword({ keyword });
  // Plain functions (a format applies to strings only): precompiled code reaches them by name in
  // `FORMATS`, so the registered value must be what that object holds.
  for (const [name, validate] of Object.entries(FORMATS)) created.addFormat(name, validate);
  return created;
}

function instance(): Ajv {
  ajv ??= newAjv();
  return ajv;
}

/** The precompiled validators, or undefined when running from the sources (not built). */
function precompiled(): Partial<Record<ResourceKind, ValidateFunction>> | undefined {
  try {
    // The precompiled validators' module, next to this one in the built package; named literally
    // so that the plugin's bundle (docs/design/plugin.md) carries it.
    return require("./validators.generated.js") as Partial<Record<ResourceKind, ValidateFunction>>;
  } catch (error) {
    if ((error as { code?: unknown }).code === "MODULE_NOT_FOUND") return undefined;
    throw error;
  }
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
    validate = precompiled()?.[kind] ?? compileSchema(INPUT_SCHEMAS[kind]);
    compiled[kind] = validate;
  }
  return validate;
}

/**
 * Validates `value` against a resource's input schema (settings and `tenant`) and returns Ajv's
 * errors (empty when valid), each with its schema and data for the failure messages.
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
 * How many validators have been made so far, compiled or loaded (for tests of the once-per-process
 * cache).
 *
 * @internal
 */
export function compiledValidatorCount(): number {
  return Object.keys(compiled).length;
}
