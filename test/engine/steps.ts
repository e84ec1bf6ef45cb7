/**
 * The engine's rules, one deployment at a time:
 * - a registration runs Check, then Diff against the state (`changes` undefined: the engine
 *   compares old and new inputs itself), then Create / Update / Replace, or nothing (`same`);
 * - preview runs Check and Diff only; the program then sees the checked inputs as the outputs of
 *   what would be created or updated, and every other output as unknown, as with real Pulumi
 *   (the dynamic provider does not support preview, so the engine answers for it);
 * - replacement is create-before-delete unless deleteBeforeReplace (the option, or the diff's
 *   answer); the old resource waits in state, marked `delete`, for the deletes at shutdown;
 * - resources that left the program are deleted when the program signals shutdown, dependents
 *   before what they depend on;
 * - refresh reads every resource and reports drift (old outputs against read ones); an empty id
 *   means the resource is gone; destroy deletes everything in reverse dependency order;
 * - secrets are stripped before the provider host and re-marked on what it returns;
 * - the first failed step fails the run: `onFailure` is told at once so the program can be killed.
 */
import type { ConfigValue } from "./config.js";
import type { MonitorHandler, ReadRequest, RegisterAnswer, RegisterRequest } from "./monitor.js";
import {
  annotateSecrets,
  applyIgnoreChanges,
  changedKeys,
  deepEqual,
  markSecretOutputs,
  type PropertyMap,
  stripSecretsMap,
} from "./properties.js";
import type { ProviderHost, ResourceRef } from "./provider-host.js";
import { inReverseDependencyOrder, Limiter } from "./schedule.js";
import { type ResourceState, type StateStore, sortByDependencies, urnName } from "./state.js";
import type { EngineCommand, EngineEvent, StepOp, StepResult } from "./types.js";

/** The root stack resource's type. */
export const STACK_TYPE = "pulumi:pulumi:Stack";
const DYNAMIC_PREFIX = "pulumi-nodejs:dynamic";

/** What a deployment needs. */
export interface DeploymentOptions {
  command: EngineCommand;
  /** preview (and refresh --preview-only): nothing is changed, nothing is written. */
  dryRun: boolean;
  project: string;
  stack: string;
  organization: string;
  parallel: number;
  expectNoChanges: boolean;
  config: Record<string, ConfigValue>;
  state: StateStore;
  /** The one provider host of the run, started and configured on first use. */
  provider: () => Promise<ProviderHost>;
  emit: (e: EngineEvent) => void;
  /** Called once, at the first failed step. */
  onFailure: (err: Error) => void;
}

/** A failed step; its message is what the summary shows. */
export class StepError extends Error {
  constructor(
    message: string,
    /** The failed step. */
    readonly step: StepResult,
  ) {
    super(message);
  }
}

/** Thrown at calls that arrive after the run has failed. */
class RunFailed extends Error {}

function message(err: unknown): string {
  if (typeof err === "object" && err !== null && "details" in err) {
    const details = (err as { details: unknown }).details;
    if (typeof details === "string" && details !== "") return details;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The members of `m` named in `keys`. */
function pick(m: PropertyMap, keys: readonly string[]): PropertyMap {
  const out: PropertyMap = {};
  for (const k of keys) {
    const v = m[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The type as Pulumi users read it: `pulumi-nodejs:dynamic/tenant:X` shows as `tenant:X`. */
export function displayType(type: string): string {
  if (type.startsWith(`${DYNAMIC_PREFIX}/`)) return type.slice(DYNAMIC_PREFIX.length + 1);
  if (type.startsWith(`${DYNAMIC_PREFIX}:`))
    return `dynamic:${type.slice(DYNAMIC_PREFIX.length + 1)}`;
  return type;
}

/** One deployment (an update, a preview, a refresh or a destroy) over one stack's state. */
export class Deployment implements MonitorHandler {
  private readonly decided: StepResult[] = [];
  private readonly order = new WeakMap<StepResult, number>();
  private readonly sequence = new Map<string, number>();
  /** Milliseconds of each Check and Diff call. */
  readonly timings = { checkMs: [] as number[], diffMs: [] as number[] };
  /** The stack's outputs as the program registered them (unknowns included in preview). */
  stackOutputs: PropertyMap | undefined;
  /** The first failure. */
  failure: Error | undefined;
  /** True once the program has called SignalAndWaitForShutdown. */
  shutdownSignaled = false;
  readonly info: MonitorHandler["info"];

  private readonly registered = new Set<string>();
  /** Old resources replaced create-before-delete in this run, with their replace step. */
  private readonly replaced = new Map<ResourceState, StepResult>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly limiter: Limiter;
  private deletes: Promise<void> | undefined;

  constructor(private readonly o: DeploymentOptions) {
    this.limiter = new Limiter(Math.max(1, o.parallel));
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.config)) config[k] = v.value;
    this.info = {
      project: o.project,
      stack: o.stack,
      organization: o.organization,
      dryRun: o.dryRun,
      parallel: o.parallel,
      config,
      secretKeys: Object.keys(o.config).filter((k) => o.config[k]?.secret),
    };
  }

  // ---- steps ---------------------------------------------------------------------------------

  /**
   * Steps in program order: a registration's step takes the place of its registration (checks
   * and diffs run in parallel and finish in any order), the deletes at shutdown come last.
   */
  get steps(): StepResult[] {
    return [...this.decided].sort((x, y) => (this.order.get(x) ?? 0) - (this.order.get(y) ?? 0));
  }

  /** Remembers the program order of `urn` (called when its registration arrives). */
  private sequenced(urn: string): void {
    this.sequence.set(urn, this.sequence.size);
  }

  private newStep(urn: string, type: string, op: StepOp, changed: string[] = []): StepResult {
    const step: StepResult = {
      urn,
      type,
      name: urnName(urn),
      op,
      changedProperties: changed,
      ok: true,
    };
    if (type !== STACK_TYPE) {
      this.order.set(step, this.sequence.get(urn) ?? this.sequence.size + this.decided.length);
      this.decided.push(step);
      this.o.emit({ type: "step-start", urn, op });
    }
    return step;
  }

  private finish(step: StepResult): void {
    if (step.type !== STACK_TYPE) this.o.emit({ type: "step-end", step });
  }

  /** Marks `step` failed, fails the run (once) and returns the error to throw. */
  private fail(step: StepResult, text: string): StepError {
    step.ok = false;
    step.error = text;
    this.finish(step);
    const err = new StepError(`${displayType(step.type)} (${step.name}): ${text}`, step);
    if (!this.failure) {
      this.failure = err;
      this.o.onFailure(err);
    }
    return err;
  }

  private assertRunning(): void {
    if (this.failure)
      throw new RunFailed(`the ${this.o.command} has failed: ${this.failure.message}`);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    const forget = () => this.inflight.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** Resolves when no registration is in progress. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private urnFor(type: string, name: string, parent: string): string {
    let prefix = "";
    if (parent) {
      // The parent's qualified type, unless the parent is the stack (as the engine builds URNs).
      const parentType = parent.split("::")[2] ?? "";
      if (parentType && parentType !== STACK_TYPE) prefix = `${parentType}$`;
    }
    return `urn:pulumi:${this.o.stack}::${this.o.project}::${prefix}${type}::${name}`;
  }

  private claim(urn: string): void {
    if (this.registered.has(urn)) throw new Error(`duplicate resource URN ${urn}`);
    this.registered.add(urn);
    this.sequenced(urn);
  }

  private ref(r: { urn: string; type: string }): ResourceRef {
    return { urn: r.urn, type: r.type, name: urnName(r.urn) };
  }

  // ---- the program's calls -------------------------------------------------------------------

  /** RegisterResource: decide the step, and (outside preview) carry it out. */
  registerResource(req: RegisterRequest): Promise<RegisterAnswer> {
    this.assertRunning();
    const urn = this.urnFor(req.type, req.name, req.parent);
    this.claim(urn);
    let old = this.o.state.live(urn);
    for (const alias of req.aliases) {
      if (old) break;
      if (!this.registered.has(alias)) old = this.o.state.live(alias);
      if (old) this.registered.add(alias);
    }
    if (!req.custom) return this.track(this.registerComponent(req, urn, old));
    return this.track(this.limiter.run(() => this.registerCustom(req, urn, old)));
  }

  private async registerComponent(
    req: RegisterRequest,
    urn: string,
    old: ResourceState | undefined,
  ): Promise<RegisterAnswer> {
    const step = this.newStep(urn, req.type, old ? "same" : "create");
    if (!this.o.dryRun) {
      if (!old && this.o.expectNoChanges && req.type !== STACK_TYPE) {
        throw this.fail(step, "no changes were expected but this resource would be created");
      }
      this.o.state.upsert(
        {
          urn,
          type: req.type,
          custom: false,
          ...(req.parent ? { parent: req.parent } : {}),
          inputs: req.inputs,
          outputs: old?.outputs ?? {},
          dependencies: req.dependencies,
        },
        old,
      );
      await this.o.state.checkpoint();
    }
    this.finish(step);
    return { urn, id: "", outputs: {} };
  }

  private async registerCustom(
    req: RegisterRequest,
    urn: string,
    old: ResourceState | undefined,
  ): Promise<RegisterAnswer> {
    this.assertRunning();
    const ref: ResourceRef = { urn, name: req.name, type: req.type };
    const planned: StepOp = old ? "update" : "create";
    if (!req.type.startsWith(DYNAMIC_PREFIX)) {
      throw this.fail(
        this.newStep(urn, req.type, planned),
        "only dynamic resources (pulumi-nodejs:dynamic...) are supported by the engine stand-in",
      );
    }
    if (req.importId) {
      throw this.fail(this.newStep(urn, req.type, planned), "the import option is not supported");
    }
    let host: ProviderHost;
    try {
      host = await this.o.provider();
    } catch (err) {
      throw this.fail(this.newStep(urn, req.type, planned), message(err));
    }

    // Check: old inputs against new ones, both without secrets (the host does not accept them).
    const oldInputs = old?.inputs ?? {};
    const news = old ? applyIgnoreChanges(oldInputs, req.inputs, req.ignoreChanges) : req.inputs;
    let checked: PropertyMap;
    try {
      const t0 = performance.now();
      const res = await host.check(ref, stripSecretsMap(oldInputs), stripSecretsMap(news));
      this.timings.checkMs.push(performance.now() - t0);
      if (res.failures.length > 0) {
        const lines = res.failures.map((f) => `  ${f.property}: ${f.reason}`);
        throw this.fail(this.newStep(urn, req.type, planned), `check failed:\n${lines.join("\n")}`);
      }
      checked = annotateSecrets(res.inputs, news);
    } catch (err) {
      if (err instanceof StepError) throw err;
      throw this.fail(this.newStep(urn, req.type, planned), `check failed: ${message(err)}`);
    }

    // Diff against the state.
    let op: StepOp = "create";
    let changed: string[] = [];
    let deleteBeforeReplace = req.deleteBeforeReplace === true;
    if (old) {
      let diff: Awaited<ReturnType<ProviderHost["diff"]>>;
      try {
        const t0 = performance.now();
        diff = await host.diff(
          ref,
          old.id ?? "",
          stripSecretsMap(old.outputs),
          stripSecretsMap(checked),
          stripSecretsMap(oldInputs),
          req.ignoreChanges,
        );
        this.timings.diffMs.push(performance.now() - t0);
      } catch (err) {
        throw this.fail(this.newStep(urn, req.type, "update"), `diff failed: ${message(err)}`);
      }
      // What changed, for display: the inputs that differ; if none do (drift found by a refresh),
      // the new inputs that differ from the old outputs, which is what a provider compares.
      let inputChanges = changedKeys(oldInputs, checked);
      if (inputChanges.length === 0) {
        inputChanges = changedKeys(pick(old.outputs, Object.keys(checked)), checked);
      }
      let changes: boolean;
      if (diff.changes === "unknown") {
        changes = inputChanges.length > 0;
        changed = inputChanges;
      } else {
        changes = diff.changes === "some";
        changed = diff.diffs.length > 0 ? diff.diffs : inputChanges;
      }
      let replaces = changes ? diff.replaces : [];
      if (changes && req.replaceOnChanges.length > 0) {
        const forced = req.replaceOnChanges.includes("*")
          ? changed
          : changed.filter((k) =>
              req.replaceOnChanges.some((p) => p === k || p.startsWith(`${k}.`)),
            );
        replaces = [...new Set([...replaces, ...forced])];
      }
      if (replaces.length > 0) {
        op = "replace";
        changed = [...new Set([...replaces, ...changed])];
        if (req.deleteBeforeReplace === undefined) deleteBeforeReplace = diff.deleteBeforeReplace;
      } else {
        op = changes ? "update" : "same";
      }
    }
    const step = this.newStep(urn, req.type, op, op === "same" ? [] : changed);
    const aso = req.additionalSecretOutputs;
    const entry = (id: string, outputs: PropertyMap): ResourceState => ({
      urn,
      type: req.type,
      custom: true,
      id,
      ...(req.parent ? { parent: req.parent } : {}),
      inputs: checked,
      outputs,
      dependencies: req.dependencies,
      ...(Object.keys(req.propertyDependencies).length > 0
        ? { propertyDependencies: req.propertyDependencies }
        : {}),
      ...(aso.length > 0 ? { additionalSecretOutputs: aso } : {}),
      ...(req.protect ? { protect: true } : {}),
      ...(req.retainOnDelete ? { retainOnDelete: true } : {}),
    });

    if (op === "same" && old) {
      if (!this.o.dryRun) {
        const next = entry(old.id ?? "", old.outputs);
        // Pulumi records a same step's new inputs (a value may have become secret, say).
        if (
          JSON.stringify(old.inputs) !== JSON.stringify(next.inputs) ||
          old.dependencies.join() !== next.dependencies.join()
        ) {
          this.o.state.upsert(next, old);
          await this.o.state.checkpoint();
        }
      }
      this.finish(step);
      return { urn, id: old.id ?? "", outputs: old.outputs };
    }
    if (this.o.dryRun) {
      this.finish(step);
      return { urn, id: op === "update" ? (old?.id ?? "") : "", outputs: checked };
    }
    if (this.o.expectNoChanges) {
      throw this.fail(step, `no changes were expected but this resource would ${op}`);
    }

    try {
      if (op === "update" && old) {
        const res = await host.update(
          ref,
          old.id ?? "",
          stripSecretsMap(old.outputs),
          stripSecretsMap(checked),
          stripSecretsMap(oldInputs),
        );
        const outputs = markSecretOutputs(annotateSecrets(res.properties, checked), aso);
        const next = entry(old.id ?? "", outputs);
        this.o.state.upsert(next, old);
        await this.o.state.checkpoint();
        this.finish(step);
        return { urn, id: next.id ?? "", outputs };
      }
      if (op === "replace" && old && deleteBeforeReplace) {
        await this.deleteOne(old, host);
        this.o.state.remove(old);
        await this.o.state.checkpoint();
      }
      const res = await host.create(ref, stripSecretsMap(checked));
      if (!res.id) throw new Error("the provider returned no id from create");
      const outputs = markSecretOutputs(annotateSecrets(res.properties, checked), aso);
      const next = entry(res.id, outputs);
      if (op === "replace" && old && !deleteBeforeReplace) {
        // Create-before-delete: the old resource stays in state, marked for the final deletes,
        // which belong to this replace step (as Pulumi shows them, not as a delete of their own).
        const pending = { ...old, delete: true };
        this.replaced.set(pending, step);
        this.o.state.upsert(pending, old);
      }
      this.o.state.upsert(next);
      await this.o.state.checkpoint();
      this.finish(step);
      return { urn, id: res.id, outputs };
    } catch (err) {
      if (err instanceof StepError) throw err;
      const verb = op === "update" ? "update" : op === "replace" ? "replace" : "create";
      throw this.fail(step, `${verb} failed: ${message(err)}`);
    }
  }

  /** RegisterResourceOutputs: a component's (or the stack's) outputs. */
  async registerResourceOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    if (urn === this.urnFor(STACK_TYPE, `${this.o.project}-${this.o.stack}`, "")) {
      this.stackOutputs = outputs;
    }
    if (this.o.dryRun || this.failure) return;
    const entry = this.o.state.live(urn);
    if (!entry) return;
    this.o.state.upsert({ ...entry, outputs }, entry);
    await this.o.state.checkpoint();
  }

  /** ReadResource (`get`): read an existing resource into the state, outside preview only. */
  readResource(req: ReadRequest): Promise<{ urn: string; outputs: PropertyMap }> {
    this.assertRunning();
    const urn = this.urnFor(req.type, req.name, req.parent);
    this.claim(urn);
    return this.track(
      this.limiter.run(async () => {
        const step = this.newStep(urn, req.type, "read");
        if (this.o.dryRun) {
          // Preview never calls the provider's read: what it would return is unknown.
          this.finish(step);
          return { urn, outputs: {} };
        }
        try {
          const host = await this.o.provider();
          const props = stripSecretsMap(req.properties);
          const res = await host.read(this.ref({ urn, type: req.type }), req.id, props, props);
          if (!res.id) throw new Error(`no resource with id ${req.id}`);
          const outputs = markSecretOutputs(
            annotateSecrets(res.properties, req.properties),
            req.additionalSecretOutputs,
          );
          const old = this.o.state.live(urn);
          this.o.state.upsert(
            {
              urn,
              type: req.type,
              custom: true,
              id: res.id,
              ...(req.parent ? { parent: req.parent } : {}),
              inputs: req.properties,
              outputs,
              dependencies: req.dependencies,
              ...(req.additionalSecretOutputs.length > 0
                ? { additionalSecretOutputs: req.additionalSecretOutputs }
                : {}),
              external: true,
            },
            old,
          );
          await this.o.state.checkpoint();
          this.finish(step);
          return { urn, outputs };
        } catch (err) {
          throw this.fail(step, `read failed: ${message(err)}`);
        }
      }),
    );
  }

  /** SignalAndWaitForShutdown: the program has registered everything; delete what it left. */
  signalAndWaitForShutdown(): Promise<void> {
    this.shutdownSignaled = true;
    return this.runDeletes();
  }

  /** The deletes of resources that left the program (at most once per run). */
  runDeletes(): Promise<void> {
    if (!this.deletes) this.deletes = this.deleteLeftovers();
    return this.deletes;
  }

  private async deleteLeftovers(): Promise<void> {
    await this.idle();
    this.assertRunning();
    const doomed = this.o.state.all().filter((r) => r.delete || !this.registered.has(r.urn));
    if (doomed.length === 0) return;
    if (this.o.dryRun) {
      for (const r of sortByDependencies(doomed).reverse())
        this.finish(this.newStep(r.urn, r.type, "delete"));
      return;
    }
    await this.deleteAll(doomed);
  }

  // ---- deletes, refresh, destroy ---------------------------------------------------------------

  private async deleteOne(r: ResourceState, host: ProviderHost | undefined): Promise<void> {
    if (r.protect) {
      throw new Error("the resource is protected; unprotect it (protect: false) to delete it");
    }
    if (!r.custom || r.external || r.retainOnDelete || !host) return;
    await host.delete(
      this.ref(r),
      r.id ?? "",
      stripSecretsMap(r.outputs),
      stripSecretsMap(r.inputs),
    );
  }

  private async deleteAll(resources: readonly ResourceState[]): Promise<void> {
    const needsHost = resources.some((r) => r.custom && !r.external && !r.retainOnDelete);
    await inReverseDependencyOrder(
      resources,
      this.limiter,
      async (r) => {
        const replace = this.replaced.get(r);
        const step = replace ?? this.newStep(r.urn, r.type, "delete");
        if (this.o.expectNoChanges && r.type !== STACK_TYPE) {
          throw this.fail(step, "no changes were expected but this resource would be deleted");
        }
        try {
          await this.deleteOne(r, needsHost ? await this.o.provider() : undefined);
        } catch (err) {
          throw this.fail(step, `delete failed: ${message(err)}`);
        }
        this.o.state.remove(r);
        await this.o.state.checkpoint();
        if (!replace) this.finish(step);
      },
      () => this.failure !== undefined,
    );
    this.assertRunning();
  }

  /** Refresh: read every resource in state and record the drift. */
  async refresh(): Promise<void> {
    const entries = this.o.state.all().filter((r) => r.custom);
    // Steps are listed in state order, whatever order the reads finish in.
    for (const r of entries) this.sequenced(r.urn);
    await Promise.all(
      entries.map((r) =>
        this.limiter.run(async () => {
          if (this.failure) return;
          await this.refreshOne(r, this.newStep(r.urn, r.type, "refresh"));
        }),
      ),
    );
    this.assertRunning();
  }

  private async refreshOne(r: ResourceState, step: StepResult): Promise<void> {
    let res: Awaited<ReturnType<ProviderHost["read"]>>;
    try {
      const host = await this.o.provider();
      res = await host.read(
        this.ref(r),
        r.id ?? "",
        stripSecretsMap(r.outputs),
        stripSecretsMap(r.inputs),
      );
    } catch (err) {
      throw this.fail(step, `read failed: ${message(err)}`);
    }
    if (!res.id) {
      // Gone: refresh drops it from state, and the next update creates it again.
      step.op = "delete";
      if (!this.o.dryRun) {
        this.o.state.remove(r);
        await this.o.state.checkpoint();
      }
      this.finish(step);
      return;
    }
    const outputs = markSecretOutputs(
      annotateSecrets(res.properties, r.outputs),
      r.additionalSecretOutputs ?? [],
    );
    const inputs = res.inputs ? annotateSecrets(res.inputs, r.inputs) : r.inputs;
    const changed = changedKeys(r.outputs, outputs);
    if (res.id !== r.id) changed.unshift("id");
    step.op = changed.length > 0 ? "update" : "same";
    step.changedProperties = changed;
    if (!this.o.dryRun && (changed.length > 0 || !deepEqual(inputs, r.inputs))) {
      this.o.state.upsert({ ...r, id: res.id, inputs, outputs }, r);
      await this.o.state.checkpoint();
    }
    this.finish(step);
  }

  /** Destroy: delete every resource, dependents first. */
  async destroy(): Promise<void> {
    await this.deleteAll([...this.o.state.all()]);
  }
}
