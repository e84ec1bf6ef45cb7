/**
 * gRPC plumbing shared by the services and the provider client: Struct conversion, error values,
 * the server that hosts the ResourceMonitor and Engine services, and channel options matching the
 * SDK's (large messages: a serialized provider can be big).
 */
import * as grpc from "@grpc/grpc-js";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { type PropertyMap, toPropertyMap } from "./values.js";

/** The SDK's channel options: unlimited-ish message sizes. */
export const channelOptions: grpc.ChannelOptions = {
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
  "grpc.max_send_message_length": 400 * 1024 * 1024,
};

/** A Struct for `m` (undefined members dropped: a Struct cannot carry them). */
export function toStruct(m: PropertyMap): Struct {
  return Struct.fromJavaScript(toPropertyMap(m));
}

/** The property map in `s` (an absent Struct is an empty map). */
export function fromStruct(s: Struct | undefined): PropertyMap {
  return s ? (s.toJavaScript() as PropertyMap) : {};
}

/** A gRPC error with `message` as its details (what the SDK and the CLI show). */
export function rpcError(message: string, code = grpc.status.UNKNOWN): grpc.ServiceError {
  const err = new Error(message) as grpc.ServiceError;
  err.code = code;
  err.details = message;
  err.metadata = new grpc.Metadata();
  return err;
}

/** The message of an error, a gRPC error's details preferred over its decorated message. */
export function errorMessage(err: unknown): string {
  if (typeof err === "object" && err !== null && "details" in err) {
    const details = (err as { details: unknown }).details;
    if (typeof details === "string" && details !== "") return details;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Answers a unary call with the result of `work`, or with its error. */
export function answer<Res>(callback: grpc.sendUnaryData<Res>, work: () => Promise<Res>): void {
  work().then(
    (res) => callback(null, res),
    (err: unknown) =>
      callback(
        typeof err === "object" && err !== null && "code" in err
          ? (err as grpc.ServiceError)
          : rpcError(errorMessage(err)),
      ),
  );
}

/** A handler that answers UNIMPLEMENTED, for the RPCs the stand-in does not serve. */
export function unimplemented<Req, Res>(name: string): grpc.handleUnaryCall<Req, Res> {
  return (_call, callback) =>
    callback(
      rpcError(`${name} is not implemented by the engine stand-in`, grpc.status.UNIMPLEMENTED),
    );
}

/** A running gRPC server on a loopback port. */
export interface RpcServer {
  address: string;
  close(): void;
}

/** Starts a server on 127.0.0.1 with the given services. */
export async function startServer(
  services: Array<[grpc.ServiceDefinition, grpc.UntypedServiceImplementation]>,
): Promise<RpcServer> {
  const server = new grpc.Server(channelOptions);
  for (const [definition, implementation] of services)
    server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

/**
 * Promisifies a unary client call: `call(client.method.bind(client), request)`.
 * The error keeps gRPC's fields; use {@link errorMessage} for its text.
 */
export function call<Req, Res>(
  method: (req: Req, callback: (err: grpc.ServiceError | null, res: Res) => void) => unknown,
  request: Req,
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    method(request, (err, res) => (err ? reject(err) : resolve(res)));
  });
}
