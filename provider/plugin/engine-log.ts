/**
 * The plugin's warnings, sent to the engine's `Log` service so that the CLI shows them as warnings
 * of the run (docs/design/decisions.md, "What a resource owns"): the engine starts the plugin with its
 * own address as an argument, and serves `Log` there.
 *
 * @module
 */

import * as grpc from "@grpc/grpc-js";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";

/**
 * The engine's address among the plugin's arguments: the engine passes it last, after its flags
 * (`--logtostderr`, `-v=9`, `--tracing <endpoint>`). Undefined when there is none (the plugin run
 * by hand).
 */
export function engineAddress(args: readonly string[]): string | undefined {
  const last = args.at(-1);
  return last === undefined || last.startsWith("-") ? undefined : last;
}

/**
 * A warning sink that logs each message at the engine at `address` with the warning severity; a
 * message the engine does not take goes to `fallback`, so it is never lost.
 */
export function engineWarnings(
  address: string,
  fallback: (message: string) => void,
): (message: string) => void {
  const engine = new engrpc.EngineClient(address, grpc.credentials.createInsecure());
  return (message) => {
    const request = new engproto.LogRequest()
      .setSeverity(engproto.LogSeverity.WARNING)
      .setMessage(message);
    engine.log(request, (error) => {
      if (error) fallback(message);
    });
  };
}
