/**
 * The plugin face of a create whose write the tenant does not hold (docs/design/decisions.md,
 * "Every write checked by its answer"): the face throws the partial state on with its secrets
 * wrapped, and the server answers it as Pulumi's dynamic-provider host does, a
 * `pulumirpc.ErrorResourceInitFailed` in the status details, so that the engine records the
 * resource with initialization errors.
 */

import * as grpc from "@grpc/grpc-js";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { afterEach, describe, expect, it } from "vitest";
import { TenantApiError, WriteNotHeldError } from "../provider/errors.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { isSecret } from "../provider/plugin/engine-values.js";
import { failure } from "../provider/plugin/server.js";
import { type Harness, startHarness } from "./support/harness.js";
import { configuredFace } from "./support/plugin-face.js";

const WEB = DEFAULT_SEED_IDS.regularWeb;
const URN = `urn:pulumi:dev::app::tenant:index:ClientSettings::web`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** The create's failure through a face over a tenant that keeps mobile.ios as stored. */
async function failedCreate(): Promise<WriteNotHeldError> {
  h = await startHarness({ quirks: "keep=mobile.ios" });
  const face = await configuredFace(h.api);
  const news = { clientId: WEB, description: "Portal", mobile: { ios: { teamId: "T1" } } };
  const error = await face.create(URN, news).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WriteNotHeldError);
  return error as WriteNotHeldError;
}

describe("a plugin create whose write the tenant does not hold", () => {
  it("throws the partial state with the priors wrapped as secrets and the name left out", async () => {
    const error = await failedCreate();
    expect(error.id).toBe(WEB);
    expect(error.properties).not.toHaveProperty("__resourceName");
    expect(error.properties?.description).toBe("Portal");
    expect(isSecret(error.properties?.prior)).toBe(true);
  });

  it("is answered as the engine's initialization failure, with the id, the outputs and the reason", async () => {
    const error = await failedCreate();
    const answer = failure(error);
    expect(answer.code).toBe(grpc.status.UNKNOWN);
    expect(answer.details).toBe(error.message);
    const [bytes] = answer.metadata?.get("grpc-status-details-bin") ?? [];
    const status = statusproto.Status.deserializeBinary(new Uint8Array(bytes as Buffer));
    expect(status.getMessage()).toBe(error.message);
    const [packed] = status.getDetailsList();
    expect(packed?.getTypeName()).toBe("pulumirpc.ErrorResourceInitFailed");
    const detail = provproto.ErrorResourceInitFailed.deserializeBinary(
      packed?.getValue_asU8() ?? new Uint8Array(),
    );
    expect(detail.getId()).toBe(WEB);
    expect(detail.getReasonsList()).toEqual([error.message]);
    expect(detail.getProperties()?.toJavaScript()).toEqual(error.properties);
  });

  it("answers an error without a partial state with its message alone", () => {
    const refused = new TenantApiError({ method: "PATCH", path: "/clients/abc", status: 400 });
    expect(failure(refused)).toEqual({
      code: grpc.status.UNKNOWN,
      details: "PATCH /clients/abc failed with 400 no error message in the answer",
    });
  });
});
