/**
 * `npm run plugin-node-bases` (and `npm ci`, through `prepare`): fetches the official Node.js
 * binaries of the plugin's executables that npm skipped because they are for another platform
 * (`fetchNodeBases`), so that the release build and the tests need no network afterwards
 * (docs/design/plugin.md, "The self-contained executables"). Prints what it fetched and how long it took.
 *
 * @module
 */

import { TenantError } from "../../errors.js";
import { fetchNodeBases } from "./node-bases.js";

const started = Date.now();
fetchNodeBases().then(
  (fetched) => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const what = fetched.length === 0 ? "all at hand" : `fetched ${fetched.join(", ")}`;
    process.stdout.write(`the plugin's Node.js bases: ${what} (${seconds} s)\n`);
  },
  (error: unknown) => {
    const message = error instanceof TenantError ? error.message : String(error);
    process.stderr.write(`plugin-node-bases: ${message}\n`);
    process.exitCode = 1;
  },
);
