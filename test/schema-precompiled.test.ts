/**
 * The validators `npm run build` precompiles (provider/schema/precompile.ts, into
 * dist/provider/schema/validators.generated.js) report exactly what the validators compiled at run
 * time from the same schemas report, error by error, on generated valid and invalid inputs of every
 * resource. The tests run from the sources, which compile; the built package, which users run,
 * loads the precompiled ones. `npm test` builds first (its `pretest`).
 */

import type { ValidateFunction } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INPUT_SCHEMAS, type ResourceKind } from "../provider/schema/kinds.js";
import { compileSchema, errorsOf } from "../provider/schema/validate.js";
import {
  invalidClientSettings,
  invalidEventStreamDeletion,
  invalidPushProviderSelection,
  PROPERTY_SEED,
  validClientSettings,
  validEventStreamDeletion,
  validPushProviderSelection,
} from "./support/arbitraries/index.js";

const precompiled = require("../dist/provider/schema/validators.generated.js") as Record<
  ResourceKind,
  ValidateFunction
>;

const INPUTS: Record<ResourceKind, fc.Arbitrary<Record<string, unknown>>> = {
  ClientSettings: fc.oneof(
    validClientSettings(),
    invalidClientSettings().map((c) => c.input),
  ),
  PushProviderSelection: fc.oneof(
    validPushProviderSelection(),
    invalidPushProviderSelection().map((c) => c.input),
  ),
  EventStreamDeletion: fc.oneof(
    validEventStreamDeletion(),
    invalidEventStreamDeletion().map((c) => c.input),
  ),
};

describe("precompiled validators", () => {
  it("exist for every resource kind", () => {
    expect(Object.keys(precompiled).sort()).toEqual(Object.keys(INPUT_SCHEMAS).sort());
  });

  for (const kind of Object.keys(INPUT_SCHEMAS) as ResourceKind[]) {
    it(`report for ${kind} the errors the run-time validator reports, with their schemas and data`, () => {
      const compiled = compileSchema(INPUT_SCHEMAS[kind]);
      let invalid = 0;
      fc.assert(
        fc.property(INPUTS[kind], (input) => {
          const expected = errorsOf(compiled, input);
          if (expected.length > 0) invalid += 1;
          expect(errorsOf(precompiled[kind], input)).toEqual(expected);
        }),
        { seed: PROPERTY_SEED, numRuns: 300 },
      );
      // The comparison covered failures, not only inputs both accept.
      expect(invalid).toBeGreaterThan(50);
    });
  }
});
