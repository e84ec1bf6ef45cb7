/**
 * Generators for the property-based tests (fast-check), derived from the resources' schemas: valid
 * inputs, invalid inputs with exactly one mutation and the path `check` must report, and the
 * constraints the schemas carry. See `walk.ts` for the design.
 *
 * @module
 */

export { invalidFormat, validFormat } from "./formats.js";
export { formatPath, indexStep, keyStep, type Segment, setAt } from "./paths.js";
export {
  invalidClientSettings,
  invalidEventStreamDeletion,
  invalidPushProviderSelection,
  platformEventStreamId,
  SCHEMA_NODES,
  validClientSettings,
  validEventStreamDeletion,
  validPushProviderSelection,
} from "./resources.js";
export { AWKWARD_CODE_POINTS, codePointLength, PROTOTYPE_KEYS } from "./text.js";
export {
  type Constraint,
  constraintsOf,
  type InvalidCase,
  MUTATION_KINDS,
  type MutationKind,
  ROOT,
  type SchemaNode,
  validFor,
} from "./walk.js";

/**
 * The seed of every property in the suite: fixed, so that a run can be repeated exactly. fast-check
 * prints it (with the path of the failing case) when a property fails; to explore other cases,
 * change it here.
 */
export const PROPERTY_SEED = 20_250_611;
