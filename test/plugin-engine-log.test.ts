/**
 * The plugin's warnings reach the engine's `Log` service as warnings (docs/design/decisions.md, "What a
 * resource owns"): the engine's address taken from the plugin's arguments, a fake engine on a
 * loopback port standing for it.
 */

import * as grpc from "@grpc/grpc-js";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { afterEach, describe, expect, it } from "vitest";
import { engineAddress, engineWarnings } from "../provider/plugin/engine-log.js";

let server: grpc.Server | undefined;
afterEach(() => {
  server?.forceShutdown();
  server = undefined;
});

/** A fake engine whose `Log` hands each request to `onLog` and answers with `status` (0: OK). */
async function fakeEngine(
  onLog: (request: engproto.LogRequest) => void,
  status = grpc.status.OK,
): Promise<string> {
  server = new grpc.Server();
  const unimplemented = (_call: unknown, callback: grpc.sendUnaryData<never>) =>
    callback({ code: grpc.status.UNIMPLEMENTED });
  server.addService(engrpc.EngineService, {
    log: (call: grpc.ServerUnaryCall<engproto.LogRequest, Empty>, callback) => {
      onLog(call.request);
      if (status === grpc.status.OK) callback(null, new Empty());
      else callback({ code: status, details: "refused" });
    },
    getRootResource: unimplemented,
    setRootResource: unimplemented,
    startDebugging: unimplemented,
  } as engrpc.IEngineServer);
  const port = await new Promise<number>((resolve, reject) =>
    server?.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return `127.0.0.1:${port}`;
}

describe("engineAddress", () => {
  it("takes the engine's address, which the engine passes last, after its flags", () => {
    expect(engineAddress(["--logtostderr", "-v=9", "127.0.0.1:4321"])).toBe("127.0.0.1:4321");
  });

  it("finds none when the plugin is run without arguments or with flags only", () => {
    expect(engineAddress([])).toBeUndefined();
    expect(engineAddress(["--logtostderr"])).toBeUndefined();
  });
});

describe("engineWarnings", () => {
  it("logs a warning at the engine with the warning severity", async () => {
    let received: (request: engproto.LogRequest) => void = () => undefined;
    const logged = new Promise<engproto.LogRequest>((resolve) => {
      received = resolve;
    });
    const address = await fakeEngine((request) => received(request));
    engineWarnings(address, () => undefined)("a sentence.");
    const request = await logged;
    expect(request.getSeverity()).toBe(engproto.LogSeverity.WARNING);
    expect(request.getMessage()).toBe("a sentence.");
  });

  it("hands a warning the engine refuses to the fallback", async () => {
    const address = await fakeEngine(() => undefined, grpc.status.UNAVAILABLE);
    const fallen = await new Promise<string>((resolve) => {
      engineWarnings(address, resolve)("a sentence.");
    });
    expect(fallen).toBe("a sentence.");
  });
});
