/**
 * The replay figures of the recorded platform traffic against the local tenant: how many writes
 * of each kind get an answer that differs on what matters, and every difference, under one PATCH
 * model (docs/design/local-tenant.md, "Conformance with the recorded platform").
 *
 * `npx tsx test/support/conformance-report.ts [merge|replace] [--all]` (`--all`: compare every
 * field, the named list of ignored fields left out of account too).
 *
 * @module
 */

import type { PatchModel } from "../../provider/local-tenant/client-patch.js";
import { startTenantApi } from "../../provider/local-tenant/server.js";
import { IGNORED_FIELDS, SPELLINGS } from "../fixtures/recorded/ignored-fields.js";
import { loadCorpus, type Replayed, recordedWrites, replayWrite } from "./recorded-replay.js";

const args = process.argv.slice(2);
const patchModel = (args.find((arg) => !arg.startsWith("--")) ?? "merge") as PatchModel;
const leniency = args.includes("--all")
  ? { ignored: [], spellings: [] }
  : { ignored: IGNORED_FIELDS, spellings: SPELLINGS };

async function main(): Promise<void> {
  const api = await startTenantApi({ patchModel });
  const token = await api.mintToken({ scopes: api.scopes });
  const results: Replayed[] = [];
  try {
    for (const write of recordedWrites(loadCorpus())) {
      results.push(await replayWrite(api, token, write, leniency));
    }
  } finally {
    await api.stop();
  }

  const kinds = [...new Set(results.map((r) => r.write.kind))];
  for (const kind of kinds) {
    const ofKind = results.filter((r) => r.write.kind === kind);
    const replayed = ofKind;
    const differing = replayed.filter((r) => r.differences.length > 0);
    const count = differing.reduce((sum, r) => sum + r.differences.length, 0);
    console.log(
      `${kind}: ${replayed.length} replayed, ` +
        `${differing.length} differ (${count} differences)`,
    );
  }
  const all = results;
  const differing = all.filter((r) => r.differences.length > 0);
  console.log(
    `all: ${all.length} replayed, ${differing.length} differ ` +
      `(${differing.reduce((sum, r) => sum + r.differences.length, 0)} differences), ` +
      `patch model ${patchModel}`,
  );
  for (const r of results) {
    for (const d of r.differences) {
      console.log(
        `  ${d.where} ${d.path}: platform ${JSON.stringify(d.platform)}, local ${JSON.stringify(d.local)}`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
