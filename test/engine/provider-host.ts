/**
 * Pulumi's own dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`), started as a child
 * process and driven as a gRPC ResourceProvider client. One host serves every dynamic resource of
 * a run, as in Pulumi. Its working directory is the program's directory: the serialized providers
 * `require` packages by name, which resolves only through a `node_modules` above the host's cwd.
 * The host does not accept secrets (ConfigureResponse.acceptSecrets is false), so every value sent
 * here must already be stripped of secret wrappers.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import * as grpc from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { call, channelOptions, fromStruct, toStruct } from "./grpc.js";
import type { PropertyMap } from "./values.js";

/** How to start the host. */
export interface ProviderHostOptions {
  /** The `@pulumi/pulumi` directory the program uses (the host must be the same SDK). */
  sdkDir: string;
  /** The program's directory. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The Engine service's address, the host's only argument. */
  engineAddress: string;
  /** Each line the host prints after its port (provider code's console output, errors). */
  onLine: (stream: "stdout" | "stderr", line: string) => void;
  /** Bound for the host to print its port. */
  startTimeoutMs: number;
  /** Aborting kills a host that is still starting. */
  signal?: AbortSignal;
}

/** Who a call is about. */
export interface ResourceRef {
  urn: string;
  name: string;
  type: string;
}

/** Check's answer. */
export interface CheckAnswer {
  inputs: PropertyMap;
  failures: Array<{ property: string; reason: string }>;
}

/** Diff's answer; `changes` "unknown" is DIFF_UNKNOWN (the provider returned no `changes`). */
export interface DiffAnswer {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
  diffs: string[];
}

/** The running host and its client. */
export class ProviderHost {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: provrpc.ResourceProviderClient,
    /** The host's process id. */
    readonly pid: number,
  ) {}

  /** Spawns the host and connects to the port it prints. */
  static async start(options: ProviderHostOptions): Promise<ProviderHost> {
    const script = path.join(options.sdkDir, "cmd", "dynamic-provider", "index.js");
    const child = spawn(process.execPath, [script, options.engineAddress], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pid = child.pid;
    const stderr: string[] = [];
    readline.createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (l) => {
      stderr.push(l);
      options.onLine("stderr", l);
    });
    const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
    let timer: NodeJS.Timeout | undefined;
    try {
      const port = await new Promise<string>((resolve, reject) => {
        let first = true;
        lines.on("line", (l) => {
          if (first) {
            first = false;
            resolve(l.trim());
          } else {
            options.onLine("stdout", l);
          }
        });
        child.once("error", reject);
        child.once("exit", (code, signal) =>
          reject(
            new Error(
              `the dynamic-provider host exited (${signal ?? code}) before printing its port` +
                (stderr.length ? `:\n${stderr.slice(-20).join("\n")}` : ""),
            ),
          ),
        );
        options.signal?.addEventListener("abort", () =>
          reject(new Error("the dynamic-provider host start was aborted")),
        );
        if (options.signal?.aborted)
          reject(new Error("the dynamic-provider host start was aborted"));
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `the dynamic-provider host printed no port within ${options.startTimeoutMs} ms`,
              ),
            ),
          options.startTimeoutMs,
        );
      });
      if (!/^\d+$/.test(port) || pid === undefined) {
        throw new Error(
          `the dynamic-provider host printed ${JSON.stringify(port)} instead of a port`,
        );
      }
      const client = new provrpc.ResourceProviderClient(
        `127.0.0.1:${port}`,
        grpc.credentials.createInsecure(),
        channelOptions,
      );
      return new ProviderHost(child, client, pid);
    } catch (err) {
      child.kill("SIGKILL");
      throw err;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /**
   * Configure with a whole stack config (keys `namespace:key`, secrets decrypted), as the engine
   * does for dynamic providers since Pulumi 3.139: `args` holds it as it is, and the deprecated
   * `variables` under `pulumi-nodejs:config:<key>`. The host hands `args` to each provider's
   * `configure`. Which config (the current one, or the one recorded in the state) is decided by
   * `providerConfigFor`.
   */
  async configure(config: Record<string, string>): Promise<void> {
    const req = new provproto.ConfigureRequest();
    const vars = req.getVariablesMap();
    for (const [k, v] of Object.entries(config)) vars.set(`pulumi-nodejs:config:${k}`, v);
    req.setArgs(toStruct(config));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    req.setSendsOldInputs(true);
    req.setSendsOldInputsToDelete(true);
    await call<provproto.ConfigureRequest, provproto.ConfigureResponse>(
      (r, cb) => this.client.configure(r, cb),
      req,
    );
  }

  /** Check: validates `news` against `olds` (the old inputs); answers the inputs to use. */
  async check(ref: ResourceRef, olds: PropertyMap, news: PropertyMap): Promise<CheckAnswer> {
    const req = new provproto.CheckRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    const res = await call<provproto.CheckRequest, provproto.CheckResponse>(
      (r, cb) => this.client.check(r, cb),
      req,
    );
    return {
      inputs: fromStruct(res.getInputs()),
      failures: res
        .getFailuresList()
        .map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** Diff: `olds` are the old outputs, `news` the checked inputs. */
  async diff(
    ref: ResourceRef,
    id: string,
    olds: PropertyMap,
    news: PropertyMap,
    oldInputs: PropertyMap,
    ignoreChanges: string[],
  ): Promise<DiffAnswer> {
    const req = new provproto.DiffRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setId(id);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    req.setOldInputs(toStruct(oldInputs));
    req.setIgnorechangesList(ignoreChanges);
    const res = await call<provproto.DiffRequest, provproto.DiffResponse>(
      (r, cb) => this.client.diff(r, cb),
      req,
    );
    const kinds = provproto.DiffResponse.DiffChanges;
    const changes = res.getChanges();
    return {
      changes:
        changes === kinds.DIFF_SOME ? "some" : changes === kinds.DIFF_NONE ? "none" : "unknown",
      replaces: res.getReplacesList(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
      diffs: res.getDiffsList(),
    };
  }

  /** Create: answers the new id and the outputs. */
  async create(
    ref: ResourceRef,
    properties: PropertyMap,
  ): Promise<{ id: string; properties: PropertyMap }> {
    const req = new provproto.CreateRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type);
    req.setProperties(toStruct(properties));
    const res = await call<provproto.CreateRequest, provproto.CreateResponse>(
      (r, cb) => this.client.create(r, cb),
      req,
    );
    return { id: res.getId(), properties: fromStruct(res.getProperties()) };
  }

  /** Read: an empty id in the answer means the resource is gone. */
  async read(
    ref: ResourceRef,
    id: string,
    properties: PropertyMap,
    inputs: PropertyMap,
  ): Promise<{ id: string; properties: PropertyMap; inputs?: PropertyMap }> {
    const req = new provproto.ReadRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setId(id);
    req.setProperties(toStruct(properties));
    req.setInputs(toStruct(inputs));
    const res = await call<provproto.ReadRequest, provproto.ReadResponse>(
      (r, cb) => this.client.read(r, cb),
      req,
    );
    const readInputs = res.getInputs();
    return {
      id: res.getId(),
      properties: fromStruct(res.getProperties()),
      ...(readInputs ? { inputs: fromStruct(readInputs) } : {}),
    };
  }

  /** Update: `olds` are the old outputs, `news` the checked inputs. */
  async update(
    ref: ResourceRef,
    id: string,
    olds: PropertyMap,
    news: PropertyMap,
    oldInputs: PropertyMap,
  ): Promise<{ properties: PropertyMap }> {
    const req = new provproto.UpdateRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setId(id);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    req.setOldInputs(toStruct(oldInputs));
    const res = await call<provproto.UpdateRequest, provproto.UpdateResponse>(
      (r, cb) => this.client.update(r, cb),
      req,
    );
    return { properties: fromStruct(res.getProperties()) };
  }

  /** Delete: `properties` are the resource's outputs. */
  async delete(
    ref: ResourceRef,
    id: string,
    properties: PropertyMap,
    oldInputs: PropertyMap,
  ): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setId(id);
    req.setProperties(toStruct(properties));
    req.setOldInputs(toStruct(oldInputs));
    await call<provproto.DeleteRequest, Empty>((r, cb) => this.client.delete(r, cb), req);
  }

  /** The host's peak resident set size (VmHWM), while it runs; undefined where /proc is absent. */
  peakRssBytes(): number | undefined {
    try {
      const status = fs.readFileSync(`/proc/${this.pid}/status`, "utf8");
      const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    } catch {
      return undefined;
    }
  }

  /** Stops the host: SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 2000): Promise<void> {
    this.client.close();
    await stopChild(this.child, graceMs);
  }
}

/** Ends a child process: SIGTERM, SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(graceMs > 0 ? "SIGTERM" : "SIGKILL");
  let timer: NodeJS.Timeout | undefined;
  const forced = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, graceMs);
  });
  await Promise.race([exited, forced]);
  await exited;
  if (timer) clearTimeout(timer);
}
