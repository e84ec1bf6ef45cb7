import { describe, expect, it } from "vitest";
import {
  ErrorCodes,
  TenantApiError,
  TenantConfigError,
  TenantError,
  TenantTimeoutError,
} from "../provider/errors.js";

describe("TenantApiError", () => {
  it("says which scope a 403 lacks", () => {
    const error = new TenantApiError('ClientSettings "web"', {
      method: "PATCH",
      path: "/clients/abc",
      status: 403,
      errorCode: "insufficient_scope",
      apiMessage: "Insufficient scope, expected any of: update:client_keys",
    });
    expect(error.message).toBe(
      'ClientSettings "web": PATCH /clients/abc failed with 403 insufficient_scope: needs update:client_keys',
    );
    expect(error.missingScopes).toEqual(["update:client_keys"]);
  });

  it("joins several acceptable scopes with or", () => {
    const error = new TenantApiError("PushProviderSelection", {
      method: "PUT",
      path: "/guardian/factors/push-notification/selected-provider",
      status: 403,
      errorCode: "insufficient_scope",
      apiMessage:
        "Insufficient scope, expected any of: update:guardian_factors,create:guardian_factors",
    });
    expect(error.message).toMatch(/needs update:guardian_factors or create:guardian_factors$/);
  });

  it("quotes the platform's message for other statuses", () => {
    const error = new TenantApiError('ClientSettings "spa"', {
      method: "GET",
      path: "/clients/nope",
      status: 404,
      errorCode: "inexistent_client",
      apiMessage: "Client not found",
    });
    expect(error.message).toBe(
      'ClientSettings "spa": GET /clients/nope failed with 404 inexistent_client: Client not found',
    );
  });

  it("says so when the answer had no error body", () => {
    const error = new TenantApiError("EventStreamDeletion", {
      method: "DELETE",
      path: "/event-streams/x",
      status: 502,
    });
    expect(error.message).toBe(
      "EventStreamDeletion: DELETE /event-streams/x failed with 502 no error message in the answer",
    );
  });

  it("has a stable name and code", () => {
    const error = new TenantApiError("X", { method: "GET", path: "/", status: 500 });
    expect([error.name, error.code]).toEqual(["TenantApiError", "ERR_TENANT_API"]);
  });
});

describe("the error classes", () => {
  it("all derive from TenantError with their own code", () => {
    const config = new TenantConfigError("c");
    const timeout = new TenantTimeoutError("t");
    expect(config).toBeInstanceOf(TenantError);
    expect(timeout).toBeInstanceOf(TenantError);
    expect([config.code, timeout.code]).toEqual([ErrorCodes.config, ErrorCodes.timeout]);
    expect([config.name, timeout.name]).toEqual(["TenantConfigError", "TenantTimeoutError"]);
  });
});
