/**
 * The local tenant against the platform's own recorded traffic (test/fixtures/recorded/, its
 * README says what it is and its licence): every recorded write on the routes the local tenant
 * serves is replayed against a tenant holding the client (or stream) as the platform answered it
 * just before in the same recording, and the answer must be the platform's on what matters: the
 * status, every field of the body but the named list of ignored fields (each with its reason,
 * test/fixtures/recorded/ignored-fields.ts), redacted values compared for presence only
 * (docs/design/local-tenant.md, "Conformance with the recorded platform"). Under both PATCH
 * models: the recordings decide the paths they show, so neither model may change those answers.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PatchModel } from "../provider/local-tenant/client-patch.js";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/server.js";
import { IGNORED_FIELDS, SPELLINGS } from "./fixtures/recorded/ignored-fields.js";
import {
  answerDifferences,
  loadCorpus,
  type RecordedWrite,
  recordedWrites,
  replayWrite,
} from "./support/recorded-replay.js";

const WRITES = recordedWrites(loadCorpus());

/** The writes of one kind. */
function writesOf(kind: RecordedWrite["kind"]): RecordedWrite[] {
  return WRITES.filter((write) => write.kind === kind);
}

describe("the vendored corpus", () => {
  it("holds the 202 client PATCHes, 76 creates, 7 stream deletions and 4 provider selections recorded", () => {
    expect(
      ["PATCH client", "create client", "DELETE event stream", "PUT provider"].map(
        (kind) => writesOf(kind as RecordedWrite["kind"]).length,
      ),
    ).toEqual([202, 76, 7, 4]);
  });

  it("has an answer before each PATCH but those of the global client, seeded from their own answer", () => {
    expect(
      writesOf("PATCH client")
        .filter((w) => w.before === undefined)
        .map((w) => w.where),
    ).toEqual([
      "TestAccDataGlobalClient #1",
      "TestAccDataSourcePages #1",
      "TestAccGlobalClient #1",
      "TestAccPages #1",
    ]);
  });

  it("names a reason for every ignored field", () => {
    expect(IGNORED_FIELDS.filter((field) => field.reason.length < 20)).toEqual([]);
  });
});

describe("the comparison on what matters", () => {
  const none = () => false;

  it("finds a member the local tenant dropped", () => {
    expect(answerDifferences({ mobile: { ios: {} } }, { mobile: {} }, none)).toEqual([
      { path: "mobile.ios", platform: {}, local: undefined },
    ]);
  });

  it("finds a field the local tenant answers where the platform leaves it out", () => {
    expect(answerDifferences({}, { token_endpoint_auth_method: "none" }, none)).toEqual([
      { path: "token_endpoint_auth_method", platform: undefined, local: "none" },
    ]);
  });

  it("does not compare a redacted value, only its presence", () => {
    expect(
      answerDifferences({ client_secret: "[REDACTED]" }, { client_secret: "s3cr3t" }, none),
    ).toEqual([]);
    expect(answerDifferences({ client_secret: "[REDACTED]" }, {}, none)).toEqual([
      { path: "client_secret", platform: "[REDACTED]", local: undefined },
    ]);
  });

  it("leaves out an ignored path", () => {
    expect(answerDifferences({ a: 1 }, { a: 2 }, (path) => path === "a")).toEqual([]);
  });
});

for (const patchModel of ["merge", "replace"] as const satisfies readonly PatchModel[]) {
  describe(`every recorded write replayed against the local tenant (patch model ${patchModel})`, () => {
    let api: TenantApi;
    let token: string;
    beforeAll(async () => {
      api = await startTenantApi({ patchModel });
      token = await api.mintToken({ scopes: api.scopes });
    });
    afterAll(async () => {
      await api.stop();
    });

    for (const kind of [
      "PATCH client",
      "create client",
      "DELETE event stream",
      "PUT provider",
    ] as const) {
      it(`answers each recorded ${kind} as the platform did, on what matters`, async () => {
        const differences = [];
        for (const write of writesOf(kind)) {
          const replayed = await replayWrite(api, token, write, {
            ignored: IGNORED_FIELDS,
            spellings: SPELLINGS,
          });
          differences.push(...replayed.differences);
        }
        expect(differences).toEqual([]);
      });
    }
  });
}
