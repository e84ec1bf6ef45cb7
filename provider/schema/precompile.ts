/**
 * Writes the validators of the resources' input schemas as code, next to the built
 * `validate.js`: `node dist/provider/schema/precompile.js`, run by `npm run build`. A provider
 * host then loads them instead of compiling the ClientSettings schema at its first Check
 * (docs/design/decisions.md, "Precompiled validators"). Built from the same schemas and the same Ajv
 * options as the validators compiled at run time (`newAjv`).
 *
 * @module
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { _ } from "ajv";
import standaloneCode from "ajv/dist/standalone";
import { INPUT_SCHEMAS } from "./kinds.js";
import { newAjv } from "./validate.js";

const ajv = newAjv({ source: true, formats: _`require("./formats.js").FORMATS` });
const exportNames: Record<string, string> = {};
for (const [kind, schema] of Object.entries(INPUT_SCHEMAS)) {
  ajv.addSchema(schema, kind);
  exportNames[kind] = kind;
}
writeFileSync(join(__dirname, "validators.generated.js"), standaloneCode(ajv, exportNames));
