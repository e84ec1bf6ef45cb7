/**
 * The Engine gRPC service: the program's log lines (`pulumi.log.*`, and the SDK's own error
 * reports) arrive here, as does the stack's root resource.
 */
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { unimplemented } from "./grpc.js";
import type { LogSeverity } from "./types.js";

const SEVERITIES: Record<engproto.LogSeverity, LogSeverity> = {
  [engproto.LogSeverity.DEBUG]: "debug",
  [engproto.LogSeverity.INFO]: "info",
  [engproto.LogSeverity.WARNING]: "warning",
  [engproto.LogSeverity.ERROR]: "error",
};

/** The Engine service implementation; `onLog` receives every Log call. */
export function engineService(
  onLog: (severity: LogSeverity, message: string, urn: string | undefined) => void,
): engrpc.IEngineServer {
  let rootUrn = "";
  return {
    log(call, callback) {
      const request = call.request;
      onLog(
        SEVERITIES[request.getSeverity()] ?? "info",
        request.getMessage(),
        request.getUrn() || undefined,
      );
      callback(null, new Empty());
    },
    getRootResource(_call, callback) {
      callback(null, new engproto.GetRootResourceResponse().setUrn(rootUrn));
    },
    setRootResource(call, callback) {
      rootUrn = call.request.getUrn();
      callback(null, new engproto.SetRootResourceResponse());
    },
    requirePulumiVersion(_call, callback) {
      callback(null, new engproto.RequirePulumiVersionResponse());
    },
    startDebugging: unimplemented("StartDebugging"),
  };
}

/** The service definition to pair with {@link engineService}. */
export const EngineService = engrpc.EngineService;
