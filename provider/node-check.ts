/**
 * The first thing `require("pulumi-tenant")` does: refuse a Node.js older than the package runs
 * on with one sentence (provider/node-support.ts) before any module that needs a newer one
 * loads, as a `TenantInstallError`, which Pulumi's program runner prints without a stack.
 *
 * @module
 */

import { TenantInstallError } from "./errors.js";
import { unsupportedNodeSentence } from "./node-support.js";

const sentence = unsupportedNodeSentence("pulumi-tenant", process.versions.node);
if (sentence !== undefined) throw new TenantInstallError(sentence);
