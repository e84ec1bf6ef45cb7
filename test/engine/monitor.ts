/**
 * The ResourceMonitor gRPC service the program talks to. It only translates between protobuf and
 * plain values; what a registration does is decided by a {@link MonitorHandler} (the deployment).
 * A feasibility trial showed the RPCs the Node.js SDK needs for dynamic resources:
 * SupportsFeature (and GetDeploymentInfo), RegisterResource, RegisterResourceOutputs, ReadResource
 * and SignalAndWaitForShutdown. The rest answer UNIMPLEMENTED, which the SDK tolerates.
 */
import * as resrpc from "@pulumi/pulumi/proto/resource_grpc_pb";
import * as resproto from "@pulumi/pulumi/proto/resource_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { answer, fromStruct, toStruct, unimplemented } from "./grpc.js";
import type { PropertyMap } from "./values.js";

/** A RegisterResource call, in plain values (inputs in wire form: secrets and unknowns marked). */
export interface RegisterRequest {
  type: string;
  name: string;
  parent: string;
  custom: boolean;
  inputs: PropertyMap;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  /** Only when the program set the option (the provider's diff decides otherwise). */
  deleteBeforeReplace?: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
  protect?: boolean;
  retainOnDelete?: boolean;
  aliases: string[];
  importId: string;
}

/** What RegisterResource answers. */
export interface RegisterAnswer {
  urn: string;
  id: string;
  outputs: PropertyMap;
}

/** A ReadResource call (`get`): read an existing resource by id. */
export interface ReadRequest {
  type: string;
  name: string;
  id: string;
  parent: string;
  properties: PropertyMap;
  dependencies: string[];
  additionalSecretOutputs: string[];
}

/** What the monitor needs from the deployment. */
export interface MonitorHandler {
  readonly info: {
    project: string;
    stack: string;
    organization: string;
    dryRun: boolean;
    parallel: number;
    config: Record<string, string>;
    secretKeys: string[];
  };
  registerResource(req: RegisterRequest): Promise<RegisterAnswer>;
  registerResourceOutputs(urn: string, outputs: PropertyMap): Promise<void>;
  readResource(req: ReadRequest): Promise<{ urn: string; outputs: PropertyMap }>;
  /** The program is done registering: run the deletes, then answer. */
  signalAndWaitForShutdown(): Promise<void>;
}

// Only secrets: the SDK then sends plain values for outputs (no output values), ids and URNs for
// resource references, and computes alias URNs itself.
const SUPPORTED_FEATURES = new Set(["secrets"]);

function parseRegister(req: resproto.RegisterResourceRequest): RegisterRequest {
  const propertyDependencies: Record<string, string[]> = {};
  for (const [k, v] of req.getPropertydependenciesMap().entries()) {
    propertyDependencies[k] = v.getUrnsList();
  }
  const aliases = [
    ...req.getAliasurnsList(),
    ...req
      .getAliasesList()
      .filter((a) => a.hasUrn())
      .map((a) => a.getUrn()),
  ];
  const protect = req.getProtect();
  const retainOnDelete = req.getRetainondelete();
  return {
    type: req.getType(),
    name: req.getName(),
    parent: req.getParent(),
    custom: req.getCustom(),
    inputs: fromStruct(req.getObject()),
    dependencies: req.getDependenciesList(),
    propertyDependencies,
    ...(req.getDeletebeforereplacedefined()
      ? { deleteBeforeReplace: req.getDeletebeforereplace() }
      : {}),
    ignoreChanges: req.getIgnorechangesList(),
    replaceOnChanges: req.getReplaceonchangesList(),
    additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
    ...(protect !== undefined ? { protect } : {}),
    ...(retainOnDelete !== undefined ? { retainOnDelete } : {}),
    aliases,
    importId: req.getImportid(),
  };
}

/** The ResourceMonitor service implementation, to add to a gRPC server. */
export function monitorService(handler: MonitorHandler): resrpc.IResourceMonitorServer {
  return {
    supportsFeature(call, callback) {
      const res = new resproto.SupportsFeatureResponse();
      res.setHassupport(SUPPORTED_FEATURES.has(call.request.getId()));
      callback(null, res);
    },
    getDeploymentInfo(_call, callback) {
      const { info } = handler;
      const res = new resproto.DeploymentInfo();
      res.setProject(info.project).setStack(info.stack).setOrganization(info.organization);
      res.setDryrun(info.dryRun).setParallel(info.parallel);
      const config = res.getConfigMap();
      for (const [k, v] of Object.entries(info.config)) config.set(k, v);
      res.setConfigsecretkeysList(info.secretKeys);
      res.setSupportedfeaturesList([
        resproto.ResourceMonitorFeature.RESOURCE_MONITOR_FEATURE_SECRETS,
      ]);
      callback(null, res);
    },
    registerResource(call, callback) {
      answer(callback, async () => {
        const out = await handler.registerResource(parseRegister(call.request));
        const res = new resproto.RegisterResourceResponse();
        res.setUrn(out.urn).setId(out.id).setObject(toStruct(out.outputs));
        res.setResult(resproto.Result.SUCCESS);
        return res;
      });
    },
    registerResourceOutputs(call, callback) {
      answer(callback, async () => {
        await handler.registerResourceOutputs(
          call.request.getUrn(),
          fromStruct(call.request.getOutputs()),
        );
        return new Empty();
      });
    },
    readResource(call, callback) {
      answer(callback, async () => {
        const request = call.request;
        const out = await handler.readResource({
          type: request.getType(),
          name: request.getName(),
          id: request.getId(),
          parent: request.getParent(),
          properties: fromStruct(request.getProperties()),
          dependencies: request.getDependenciesList(),
          additionalSecretOutputs: request.getAdditionalsecretoutputsList(),
        });
        const res = new resproto.ReadResourceResponse();
        res.setUrn(out.urn).setProperties(toStruct(out.outputs));
        return res;
      });
    },
    signalAndWaitForShutdown(_call, callback) {
      answer(callback, async () => {
        await handler.signalAndWaitForShutdown();
        return new Empty();
      });
    },
    invoke: unimplemented("Invoke"),
    call: unimplemented("Call"),
    registerStackTransform: unimplemented("RegisterStackTransform"),
    registerStackInvokeTransform: unimplemented("RegisterStackInvokeTransform"),
    registerResourceHook: unimplemented("RegisterResourceHook"),
    registerErrorHook: unimplemented("RegisterErrorHook"),
    registerPackage: unimplemented("RegisterPackage"),
  };
}

/** The service definition to pair with {@link monitorService}. */
export const ResourceMonitorService = resrpc.ResourceMonitorService;
