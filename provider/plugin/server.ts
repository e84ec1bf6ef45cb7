/**
 * The plugin's gRPC service: Pulumi's resource provider protocol, served with Pulumi's own
 * generated stubs (`@pulumi/pulumi/proto`) and `@grpc/grpc-js`. It moves values in and out of
 * protobuf and hands every call to the {@link PluginFace}; nothing else.
 *
 * Why not `@pulumi/pulumi/provider`'s `main`: its server answers `Configure` but throws the
 * request away, and answers `CheckConfig` and `DiffConfig` with UNIMPLEMENTED (pulumi#10915,
 * open in every release this package supports), so a plugin on it never learns its
 * configuration. The protocol itself is stable across those releases (docs/design/plugin.md,
 * "Configuration").
 *
 * @module
 */

import * as grpc from "@grpc/grpc-js";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import { isPlainObject, type Props } from "../json.js";
import type { CheckAnswer, PluginFace } from "./plugin-face.js";

/** What the server needs besides the face: the schema it serves and its version. */
export interface ServedPlugin {
  readonly face: PluginFace;
  readonly version: string;
  /** The package schema as JSON text. */
  readonly schema: () => string;
}

/** Pulumi's own bound on a message: a large stack's state passes through Read and Diff. */
const MAX_MESSAGE_BYTES = 400 * 1024 * 1024;

function plain(struct: structproto.Struct | undefined): Props {
  return (struct?.toJavaScript() ?? {}) as Props;
}

function struct(props: Props): structproto.Struct {
  return structproto.Struct.fromJavaScript(props as Record<string, structproto.JavaScriptValue>);
}

/**
 * Answers a unary call with what `work` makes of its request, or with the error it throws: its
 * message is what the engine prints, and every error of the core names the resource.
 */
function unary<Req, Res>(
  work: (request: Req) => Res | Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => work(call.request))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(failure(error)),
      );
  };
}

/** What a thrown error may carry for a resource that exists but failed (`initFailure`). */
interface PartialState {
  readonly id?: unknown;
  readonly properties?: unknown;
  readonly reasons?: unknown;
}

/**
 * The answer to a call that threw `error`: its message; and, when it carries the partial state of
 * a resource that exists (providers/created-not-held.ts), that state as the engine reads it, a
 * `pulumirpc.ErrorResourceInitFailed` in the status details (`grpc-status-details-bin`), as
 * Pulumi's dynamic-provider host answers the same error, so that the engine records the resource
 * with initialization errors (docs/design/decisions.md, "Every write checked by its answer").
 *
 * @internal
 */
export function failure(error: unknown): Partial<grpc.StatusObject> {
  const details = error instanceof Error ? error.message : String(error);
  const partial = (typeof error === "object" && error !== null ? error : {}) as PartialState;
  if (typeof partial.id !== "string" || !isPlainObject(partial.properties)) {
    return { code: grpc.status.UNKNOWN, details };
  }
  const reasons = Array.isArray(partial.reasons) ? partial.reasons.map(String) : [];
  const detail = new provproto.ErrorResourceInitFailed()
    .setId(partial.id)
    .setProperties(struct(partial.properties))
    .setReasonsList(reasons);
  const packed = new anyproto.Any();
  packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusproto.Status().setCode(grpc.status.UNKNOWN).setMessage(details);
  status.addDetails(packed);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return { code: grpc.status.UNKNOWN, details, metadata };
}

function unimplemented<Req, Res>(name: string): grpc.handleUnaryCall<Req, Res> {
  return (_call, callback) =>
    callback({ code: grpc.status.UNIMPLEMENTED, details: `${name} is not implemented` });
}

function checkResponse({ inputs, failures }: CheckAnswer): provproto.CheckResponse {
  const response = new provproto.CheckResponse();
  response.setInputs(struct(inputs));
  response.setFailuresList(
    failures.map((failure) =>
      new provproto.CheckFailure().setProperty(failure.property).setReason(failure.reason),
    ),
  );
  return response;
}

type Service = provrpc.IResourceProviderServer;

/** The plugin's own calls: its version, its schema, its configuration. */
function pluginCalls({ face, version, schema }: ServedPlugin) {
  return {
    getPluginInfo: unary(() => new plugproto.PluginInfo().setVersion(version)),
    getSchema: unary((request: provproto.GetSchemaRequest) => {
      if (request.getVersion() !== 0) {
        throw new Error(`unsupported schema version ${request.getVersion()}`);
      }
      return new provproto.GetSchemaResponse().setSchema(schema());
    }),
    checkConfig: unary((request: provproto.CheckRequest) =>
      checkResponse(face.checkConfig(plain(request.getNews()))),
    ),
    configure: unary(async (request: provproto.ConfigureRequest) => {
      await face.configure(plain(request.getArgs()));
      return new provproto.ConfigureResponse()
        .setAcceptsecrets(true)
        .setSupportspreview(false)
        .setAcceptresources(false)
        .setAcceptoutputs(false);
    }),
    cancel: unary(() => new emptyproto.Empty()),
    attach: unary(() => new emptyproto.Empty()),
    getMapping: unary(() => new provproto.GetMappingResponse()),
    getMappings: unary(() => new provproto.GetMappingsResponse()),
  } satisfies Partial<Service>;
}

/** The resource calls, each handed to the face. */
function resourceCalls(face: PluginFace) {
  return {
    check: unary(async (request: provproto.CheckRequest) =>
      checkResponse(
        await face.check(request.getUrn(), plain(request.getOlds()), plain(request.getNews())),
      ),
    ),
    diff: unary(async (request: provproto.DiffRequest) => {
      const answer = await face.diff(
        request.getUrn(),
        request.getId(),
        plain(request.getOlds()),
        plain(request.getNews()),
      );
      const { DIFF_SOME, DIFF_NONE } = provproto.DiffResponse.DiffChanges;
      return new provproto.DiffResponse()
        .setChanges(answer.changes ? DIFF_SOME : DIFF_NONE)
        .setReplacesList(answer.replaces)
        .setDeletebeforereplace(answer.deleteBeforeReplace);
    }),
    create: unary(async (request: provproto.CreateRequest) => {
      const created = await face.create(request.getUrn(), plain(request.getProperties()));
      return new provproto.CreateResponse()
        .setId(created.id)
        .setProperties(struct(created.properties));
    }),
    read: unary(async (request: provproto.ReadRequest) => {
      const answer = await face.read(
        request.getUrn(),
        request.getId(),
        plain(request.getProperties()),
        plain(request.getInputs()),
      );
      const response = new provproto.ReadResponse().setId(answer.id);
      if (answer.id !== "") {
        response.setProperties(struct(answer.properties)).setInputs(struct(answer.inputs));
      }
      return response;
    }),
    update: unary(async (request: provproto.UpdateRequest) => {
      const properties = await face.update(
        request.getUrn(),
        request.getId(),
        plain(request.getOlds()),
        plain(request.getNews()),
      );
      return new provproto.UpdateResponse().setProperties(struct(properties));
    }),
    delete: unary(async (request: provproto.DeleteRequest) => {
      await face.delete(request.getUrn(), request.getId(), plain(request.getProperties()));
      return new emptyproto.Empty();
    }),
  } satisfies Partial<Service>;
}

/**
 * What the plugin does not serve. DiffConfig among them: no setting needs a replacement (a new
 * domain or new credentials are taken at the next Configure, and each resource's own diff decides
 * what a move to another tenant means), and without it the engine treats a change as an update.
 */
function callsNotServed() {
  return {
    handshake: unimplemented("Handshake"),
    parameterize: unimplemented("Parameterize"),
    diffConfig: unimplemented("DiffConfig"),
    invoke: unimplemented("Invoke"),
    call: unimplemented("Call"),
    construct: unimplemented("Construct"),
    list: (call) =>
      call.destroy(
        Object.assign(new Error("List is not implemented"), { code: grpc.status.UNIMPLEMENTED }),
      ),
  } satisfies Partial<Service>;
}

/** The service implementation for `ResourceProviderService`. */
function providerService(plugin: ServedPlugin): Service {
  return { ...pluginCalls(plugin), ...resourceCalls(plugin.face), ...callsNotServed() };
}

/**
 * Serves `plugin` on a loopback port chosen by the system and returns the port, which the engine
 * reads from the plugin's first line of output.
 */
export function serve(plugin: ServedPlugin): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
    "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
  });
  server.addService(
    provrpc.ResourceProviderService,
    providerService(plugin) as unknown as grpc.UntypedServiceImplementation,
  );
  return new Promise((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve({ port, server }),
    );
  });
}
