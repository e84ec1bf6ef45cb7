import { describe, expect, it } from "vitest";
import * as errors from "../provider/errors.js";
import {
  ErrorCodes,
  exitStatusOf,
  GenerateOutputError,
  GenerateUsageError,
  PluginBuildError,
  TenantApiError,
  TenantConfigError,
  TenantError,
  TenantNetworkError,
  TenantTimeoutError,
  UnknownClientError,
} from "../provider/errors.js";
import * as face from "../provider/index.js";

/** What the API answered, for a {@link TenantApiError}. */
function failure(
  method: string,
  path: string,
  status: number,
  errorCode?: string,
  apiMessage?: string,
) {
  return { method, path, status, errorCode, apiMessage };
}

describe("TenantApiError", () => {
  it("says which scope a 403 lacks", () => {
    const error = new TenantApiError(
      failure(
        "PATCH",
        "/clients/abc",
        403,
        "insufficient_scope",
        "Insufficient scope, expected any of: update:client_keys",
      ),
    ).concerning('ClientSettings "web"');
    expect(error.message).toBe(
      'ClientSettings "web": PATCH /clients/abc failed with 403 insufficient_scope: needs update:client_keys',
    );
    expect(error.missingScopes).toEqual(["update:client_keys"]);
  });

  it("joins several acceptable scopes with or", () => {
    const error = new TenantApiError(
      failure(
        "PUT",
        "/guardian/factors/push-notification/selected-provider",
        403,
        "insufficient_scope",
        "Insufficient scope, expected any of: update:guardian_factors,create:guardian_factors",
      ),
    ).concerning("PushProviderSelection");
    expect(error.message).toMatch(/needs update:guardian_factors or create:guardian_factors$/);
  });

  it("quotes the platform's message for other statuses", () => {
    const error = new TenantApiError(
      failure("GET", "/clients/nope", 404, "inexistent_client", "Client not found"),
    ).concerning('ClientSettings "spa"');
    expect(error.message).toBe(
      'ClientSettings "spa": GET /clients/nope failed with 404 inexistent_client: Client not found',
    );
  });

  it("says so when the answer had no error body", () => {
    const error = new TenantApiError(failure("DELETE", "/event-streams/x", 502)).concerning(
      "EventStreamDeletion",
    );
    expect(error.message).toBe(
      "EventStreamDeletion: DELETE /event-streams/x failed with 502 no error message in the answer",
    );
  });

  it("has a stable name and code", () => {
    const error = new TenantApiError({ method: "GET", path: "/", status: 500 }).concerning("X");
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

describe("the errors of pulumi-tenant generate", () => {
  it("are TenantErrors of the same registry, with stable codes", () => {
    const errors = [
      new GenerateUsageError("--out DIR is required"),
      new UnknownClientError(["abc"]),
      new GenerateOutputError("index.ts differs"),
    ];
    for (const error of errors) expect(error).toBeInstanceOf(TenantError);
    expect(errors.map((e) => [e.name, e.code])).toEqual([
      ["GenerateUsageError", ErrorCodes.generateUsage],
      ["UnknownClientError", "ERR_GENERATE_UNKNOWN_CLIENT"],
      ["GenerateOutputError", "ERR_GENERATE_OUTPUT"],
    ]);
    expect(ErrorCodes.generateUsage).toBe("ERR_GENERATE_USAGE");
  });

  it("end the command with 2 for what the user gave, 3 for an unreadable tenant, 4 for the rest", () => {
    expect(exitStatusOf(new GenerateUsageError("--fields: name at least one field"))).toBe(2);
    expect(exitStatusOf(new UnknownClientError(["abc"]))).toBe(2);
    expect(exitStatusOf(new TenantConfigError("no domain"))).toBe(2);
    expect(exitStatusOf(new TenantNetworkError("refused"))).toBe(3);
    expect(exitStatusOf(new PluginBuildError("no codesign"))).toBe(4);
  });
});

describe("TenantError.concerning", () => {
  it("puts the resource in front of the message, once", () => {
    const error = new TenantConfigError("no domain");
    error.concerning('ClientSettings "web"').concerning('ClientSettings "other"');
    expect(error.message).toBe('ClientSettings "web": no domain');
  });

  it("keeps the error's identity and its stack, first line renamed", () => {
    const error = new TenantTimeoutError("too slow");
    const frames = error.stack?.split("\n").slice(1);
    expect(error.concerning("EventStreamDeletion")).toBe(error);
    expect(error.stack?.split("\n")).toEqual([
      "TenantTimeoutError: EventStreamDeletion: too slow",
      ...(frames ?? []),
    ]);
  });

  it("leaves an error that already names its resource as it is", () => {
    const error = new TenantApiError(failure("GET", "/", 500)).concerning('ClientSettings "web"');
    error.concerning('ClientSettings "other"');
    expect(error.message).toMatch(/^ClientSettings "web": /);
  });
});

describe("the package's error classes", () => {
  it("are one per code, and every one exported, from the package's face or its errors, extends TenantError, the root that catches them all", () => {
    const exported: [string, unknown][] = Object.entries({ ...face, ...errors });
    const classes = exported.filter(
      ([name, value]) =>
        name !== "TenantError" && typeof value === "function" && value.prototype instanceof Error,
    ) as [string, { prototype: Error }][];
    const outside = classes
      .filter(([, value]) => !(value.prototype instanceof TenantError))
      .map(([name]) => name);
    expect(classes.map(([name]) => name)).toContain("TenantInstallError");
    expect(classes).toHaveLength(Object.keys(ErrorCodes).length);
    expect(outside).toEqual([]);
  });
});
