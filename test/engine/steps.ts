/**
 * The engine's rules, one deployment (one pass: a preview or an update) at a time. Each rule is
 * listed, with where Pulumi 3.248 implements it and the test that shows it, in CONFORMANCE.md:
 * - a registration runs Check, then Diff against the state (`changes` undefined: the engine
 *   compares old and new inputs itself); Check and Diff run one registration at a time (Pulumi's
 *   step generator), unless PULUMI_PARALLEL_DIFF, while creates, updates and deletes run up to
 *   `--parallel` at once;
 * - preview runs Check and Diff only; the program then sees the checked inputs as the outputs of
 *   what would be created or updated, and every other output as unknown, as with real Pulumi
 *   (the dynamic provider does not support preview, so the engine answers for it);
 * - `replaceOnChanges` acts on the keys the provider's diff names; the Node.js dynamic-provider
 *   host names none, so it acts only when the diff leaves `changes` undefined;
 * - replacement is create-before-delete unless deleteBeforeReplace (the option, or the diff's
 *   answer); the old resource waits in state, marked `delete`, for the deletes at shutdown; a
 *   protected resource is never replaced nor deleted, in preview as in an update;
 * - a `same` step records the new inputs and options (protect, retainOnDelete, ...);
 * - resources that left the program are deleted when the program signals shutdown, dependents
 *   before what they depend on;
 * - refresh reads every resource and asks the provider's Diff whether the read outputs differ
 *   from the stored inputs (the desired state); an empty id means the resource is gone;
 *   `refresh --run-program` does the same for each registration as the program makes it;
 *   destroy deletes everything in reverse dependency order;
 * - every provider call that changes something is recorded as a pending operation first;
 * - secrets are stripped before the provider host and re-marked on what it returns;
 * - the first failed step fails the run: `onFailure` is told at once so the program can be killed.
 */
import type { ConfigValue } from "./config.js";
import type { MonitorHandler, ReadRequest, RegisterAnswer, RegisterRequest } from "./monitor.js";
import type { DiffAnswer, ProviderHost, ResourceRef } from "./provider-host.js";
import {
  defaultProviderUrn,
  type ProviderUse,
  providerEntry,
  providerReference,
} from "./providers.js";
import { inReverseDependencyOrder, Limiter } from "./schedule.js";
import {
  isProviderEntry,
  type OperationType,
  type ResourceState,
  type StateStore,
  urnName,
} from "./state.js";
import type { EngineCommand, EngineEvent, StepOp, StepResult } from "./types.js";
import {
  annotateSecrets,
  applyIgnoreChanges,
  changedKeys,
  deepEqual,
  markSecretOutputs,
  PROVIDER_KEY,
  type PropertyMap,
  stripSecretsMap,
} from "./values.js";

/** The root stack resource's type. */
export const STACK_TYPE = "pulumi:pulumi:Stack";
const DYNAMIC_PREFIX = "pulumi-nodejs:dynamic";

/** What a deployment needs. */
export interface DeploymentOptions {
  command: EngineCommand;
  /** A preview pass (preview, the pass before up/refresh/destroy, refresh --preview-only). */
  dryRun: boolean;
  /** `refresh --run-program`: the program runs, and each registration refreshes its resource. */
  runProgram: boolean;
  project: string;
  stack: string;
  organization: string;
  /** Most resource operations (creates, updates, deletes, reads) at once. */
  parallel: number;
  /** PULUMI_PARALLEL_DIFF: Diff runs with the resource operations instead of one at a time. */
  parallelDiff: boolean;
  /** PULUMI_ENABLE_LEGACY_REFRESH_DIFF: refresh compares old and new outputs only. */
  legacyRefreshDiff: boolean;
  config: Record<string, ConfigValue>;
  state: StateStore;
  /**
   * The one provider host of the pass, configured at its first use: `delete` when that first use
   * is a delete of a resource that left the program (see `providerConfigFor`), `program` otherwise.
   */
  provider: (use: ProviderUse) => Promise<ProviderHost>;
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

/** Pulumi's refusal to replace a protected resource. */
export function protectedReplaceMessage(urn: string): string {
  return (
    `unable to replace resource "${urn}" as it is protected: set protect: false on it in the ` +
    "program and run up, then change what forces the replacement"
  );
}

/** Pulumi's refusal to delete a protected resource. */
export function protectedDeleteMessage(urn: string): string {
  return (
    `resource "${urn}" cannot be deleted because it is protected: declare it again with ` +
    "protect: false and run up first"
  );
}

/**
 * What a registration's Diff answer means, as Pulumi's step generator reads it (pure):
 * - `changes` undefined: the engine compares the old and new inputs itself;
 * - `replaceOnChanges` turns into replacements only the changed keys that the diff names (the
 *   provider's `diffs`, or the engine's own input comparison for an undefined `changes`);
 * - a replacement is delete-before-create when the program says so, else when the diff does.
 */
export function decideStep(input: {
  diff: DiffAnswer;
  oldInputs: PropertyMap;
  oldOutputs: PropertyMap;
  news: PropertyMap;
  ignoreChanges: readonly string[];
  replaceOnChanges: readonly string[];
  deleteBeforeReplace: boolean | undefined;
}): { op: "same" | "update" | "replace"; changed: string[]; deleteBeforeReplace: boolean } {
  const { diff, news } = input;
  // What changed, for display: the inputs that differ; if none do (drift accepted by a refresh),
  // the new inputs that differ from the old outputs, which is what a provider compares.
  let inputChanges = changedKeys(
    input.oldInputs,
    applyIgnoreChanges(input.oldInputs, news, input.ignoreChanges),
  );
  if (inputChanges.length === 0) {
    inputChanges = changedKeys(pick(input.oldOutputs, Object.keys(news)), news);
  }
  let changes: boolean;
  let named: string[];
  if (diff.changes === "unknown") {
    const engineChanges = changedKeys(
      input.oldInputs,
      applyIgnoreChanges(input.oldInputs, news, input.ignoreChanges),
    );
    changes = engineChanges.length > 0;
    named = engineChanges;
  } else {
    changes = diff.changes === "some";
    named = diff.diffs;
  }
  if (!changes) return { op: "same", changed: [], deleteBeforeReplace: false };
  const forced = input.replaceOnChanges.includes("*")
    ? named
    : named.filter((k) => input.replaceOnChanges.some((p) => p === k || k.startsWith(`${p}.`)));
  const replaces = [...new Set([...diff.replaces, ...forced])];
  const shown = diff.diffs.length > 0 ? diff.diffs : named.length > 0 ? named : inputChanges;
  if (replaces.length === 0) return { op: "update", changed: shown, deleteBeforeReplace: false };
  return {
    op: "replace",
    changed: [...new Set([...replaces, ...shown])],
    deleteBeforeReplace: input.deleteBeforeReplace ?? diff.deleteBeforeReplace,
  };
}

/** One deployment (an update, a preview, a refresh or a destroy) over one stack's state. */
export class Deployment implements MonitorHandler {
  private readonly decided: StepResult[] = [];
  private readonly order = new WeakMap<StepResult, number>();
  private readonly sequence = new Map<string, number>();
  /** Milliseconds of each Check and Diff call (refresh's diffs included). */
  readonly timings = { checkMs: [] as number[], diffMs: [] as number[] };
  /** The stack's outputs as the program registered them (unknowns included in preview). */
  stackOutputs: PropertyMap | undefined;
  /** The first failure that stopped the run. */
  failure: Error | undefined;
  /** A failure found in preview that lets the preview go on (a protected replacement). */
  previewFailure: Error | undefined;
  /** True once the program has called SignalAndWaitForShutdown. */
  shutdownSignaled = false;
  readonly info: MonitorHandler["info"];

  private readonly registered = new Set<string>();
  /** Old resources replaced create-before-delete in this run, with their replace step. */
  private readonly replaced = new Map<ResourceState, StepResult>();
  private readonly inflight = new Set<Promise<unknown>>();
  /** Resource operations: creates, updates, deletes and reads, up to `parallel` at once. */
  private readonly operations: Limiter;
  /** Check and Diff: one registration at a time, as Pulumi's step generator runs them. */
  private readonly stepGenerator = new Limiter(1);
  private deletes: Promise<void> | undefined;
  private providerRef: Promise<string | undefined> | undefined;

  constructor(private readonly options: DeploymentOptions) {
    this.operations = new Limiter(Math.max(1, options.parallel));
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.config)) config[k] = v.value;
    this.info = {
      project: options.project,
      stack: options.stack,
      organization: options.organization,
      dryRun: options.dryRun,
      parallel: options.parallel,
      config,
      secretKeys: Object.keys(options.config).filter((k) => options.config[k]?.secret),
    };
  }

  // ---- steps ---------------------------------------------------------------------------------

  /**
   * Steps in program order: a registration's step takes the place of its registration (checks
   * and diffs finish in any order), the deletes at shutdown come last.
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
      this.options.emit({ type: "step-start", urn, op });
    }
    return step;
  }

  private finish(step: StepResult): void {
    if (step.type !== STACK_TYPE) this.options.emit({ type: "step-end", step });
  }

  /** Marks `step` failed, fails the run (once) and returns the error to throw. */
  private fail(step: StepResult, text: string): StepError {
    step.ok = false;
    step.error = text;
    this.finish(step);
    const err = new StepError(`${displayType(step.type)} (${step.name}): ${text}`, step);
    if (!this.failure) {
      this.failure = err;
      this.options.onFailure(err);
    }
    return err;
  }

  /** Marks `step` failed in a preview that goes on (Pulumi shows the whole preview, then fails). */
  private failPreview(step: StepResult, text: string): void {
    step.ok = false;
    step.error = text;
    this.previewFailure ??= new StepError(
      `${displayType(step.type)} (${step.name}): ${text}`,
      step,
    );
  }

  private assertRunning(): void {
    if (this.failure)
      throw new RunFailed(`the ${this.options.command} has failed: ${this.failure.message}`);
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
    return `urn:pulumi:${this.options.stack}::${this.options.project}::${prefix}${type}::${name}`;
  }

  private claim(urn: string): void {
    if (this.registered.has(urn)) throw new Error(`duplicate resource URN ${urn}`);
    this.registered.add(urn);
    this.sequenced(urn);
  }

  private ref(r: { urn: string; type: string }): ResourceRef {
    return { urn: r.urn, type: r.type, name: urnName(r.urn) };
  }

  /** Runs a provider call that changes something, recorded as a pending operation meanwhile. */
  private async pending<T>(
    resource: ResourceState,
    type: OperationType,
    call: () => Promise<T>,
  ): Promise<T> {
    const op = this.options.state.begin(resource, type);
    await this.options.state.checkpoint();
    this.options.emit({ type: "operation-start", urn: resource.urn, operation: type });
    try {
      return await call();
    } finally {
      this.options.state.end(op);
    }
  }

  /**
   * The default provider entry for the current config, recorded once per update (not in a
   * preview); answers the reference resources keep to it.
   */
  private defaultProvider(): Promise<string | undefined> {
    this.providerRef ??= (async () => {
      const { state } = this.options;
      const old = state.defaultProvider();
      const entry = providerEntry(
        defaultProviderUrn(this.options.stack, this.options.project),
        this.options.config,
        old,
      );
      if (this.options.dryRun) return old ? providerReference(old) : undefined;
      if (entry !== old) {
        state.upsert(entry, old);
        await state.checkpoint();
      }
      return providerReference(entry);
    })();
    return this.providerRef;
  }

  // ---- the program's calls -------------------------------------------------------------------

  /** RegisterResource: decide the step, and (outside preview) carry it out. */
  registerResource(req: RegisterRequest): Promise<RegisterAnswer> {
    this.assertRunning();
    const urn = this.urnFor(req.type, req.name, req.parent);
    this.claim(urn);
    let old = this.options.state.live(urn);
    for (const alias of req.aliases) {
      if (old) break;
      if (!this.registered.has(alias)) old = this.options.state.live(alias);
      if (old) this.registered.add(alias);
    }
    if (!req.custom) return this.track(this.registerComponent(req, urn, old));
    if (this.options.runProgram) return this.track(this.refreshRegistration(req, urn, old));
    return this.track(this.registerCustom(req, urn, old));
  }

  private async registerComponent(
    req: RegisterRequest,
    urn: string,
    old: ResourceState | undefined,
  ): Promise<RegisterAnswer> {
    const step = this.newStep(urn, req.type, old ? "same" : "create");
    if (!this.options.dryRun) {
      this.options.state.upsert(
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
      await this.options.state.checkpoint();
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
    let provider: string | undefined;
    try {
      host = await this.options.provider("program");
      provider = await this.defaultProvider();
    } catch (err) {
      throw this.fail(this.newStep(urn, req.type, planned), message(err));
    }

    const oldInputs = old?.inputs ?? {};
    const news = old ? applyIgnoreChanges(oldInputs, req.inputs, req.ignoreChanges) : req.inputs;
    const checked = await this.stepGenerator.run(() =>
      this.check(host, ref, oldInputs, news, planned),
    );
    let op: "create" | "same" | "update" | "replace" = "create";
    let changed: string[] = [];
    let deleteBeforeReplace = false;
    let inputs = checked;
    if (old) {
      const diff = this.options.parallelDiff
        ? await this.operations.run(() => this.diff(host, ref, old, checked, req.ignoreChanges))
        : await this.stepGenerator.run(() => this.diff(host, ref, old, checked, req.ignoreChanges));
      ({ op, changed, deleteBeforeReplace } = decideStep({
        diff,
        oldInputs,
        oldOutputs: old.outputs,
        news: checked,
        ignoreChanges: req.ignoreChanges,
        replaceOnChanges: req.replaceOnChanges,
        deleteBeforeReplace: req.deleteBeforeReplace,
      }));
      if (op === "replace") {
        // As Pulumi: the inputs of the replacement are checked again, without the old ones.
        inputs = await this.stepGenerator.run(() => this.check(host, ref, {}, req.inputs, op));
      }
    }
    const step = this.newStep(urn, req.type, op, op === "same" ? [] : changed);
    const entry = (id: string, outputs: PropertyMap): ResourceState => ({
      ...stateEntry(urn, req, { id, inputs, outputs, provider }),
      ...(Object.keys(req.propertyDependencies).length > 0
        ? { propertyDependencies: req.propertyDependencies }
        : {}),
      ...(req.ignoreChanges.length > 0 ? { ignoreChanges: req.ignoreChanges } : {}),
      ...(req.protect ? { protect: true } : {}),
      ...(req.retainOnDelete ? { retainOnDelete: true } : {}),
    });

    if (op === "replace" && old?.protect && req.protect) {
      const text = protectedReplaceMessage(urn);
      if (!this.options.dryRun) throw this.fail(step, text);
      this.failPreview(step, text);
    }
    if (op === "same" && old) {
      if (!this.options.dryRun) {
        // Pulumi records a same step's new inputs and options (a value may have become secret,
        // protect or retainOnDelete may have been set), though nothing is sent to the provider.
        const next = entry(old.id ?? "", old.outputs);
        if (JSON.stringify(old) !== JSON.stringify(next)) {
          this.options.state.upsert(next, old);
          await this.options.state.checkpoint();
        }
      }
      this.finish(step);
      return { urn, id: old.id ?? "", outputs: old.outputs };
    }
    if (this.options.dryRun) {
      this.finish(step);
      return { urn, id: op === "update" ? (old?.id ?? "") : "", outputs: inputs };
    }

    return this.operations.run(async () => {
      this.assertRunning();
      try {
        if (op === "update" && old) {
          const next = entry(old.id ?? "", old.outputs);
          const res = await this.pending(next, "updating", () =>
            host.update(
              ref,
              old.id ?? "",
              stripSecretsMap(old.outputs),
              stripSecretsMap(inputs),
              stripSecretsMap(oldInputs),
            ),
          );
          const outputs = markSecretOutputs(
            annotateSecrets(res.properties, inputs),
            req.additionalSecretOutputs,
          );
          const updated = entry(old.id ?? "", outputs);
          this.options.state.upsert(updated, old);
          await this.options.state.checkpoint();
          this.finish(step);
          return { urn, id: updated.id ?? "", outputs };
        }
        if (op === "replace" && old && deleteBeforeReplace) {
          await this.deleteOne(old, host, true);
          this.options.state.remove(old);
          await this.options.state.checkpoint();
        }
        const res = await this.pending(entry("", {}), "creating", () =>
          host.create(ref, stripSecretsMap(inputs)),
        );
        if (!res.id) throw new Error("the provider returned no id from create");
        const outputs = markSecretOutputs(
          annotateSecrets(res.properties, inputs),
          req.additionalSecretOutputs,
        );
        const next = entry(res.id, outputs);
        if (op === "replace" && old && !deleteBeforeReplace) {
          // Create-before-delete: the old resource stays in state, marked for the final deletes,
          // which belong to this replace step (as Pulumi shows them, not as a delete of their own).
          const doomed = { ...old, delete: true };
          this.replaced.set(doomed, step);
          this.options.state.upsert(doomed, old);
        }
        this.options.state.upsert(next);
        await this.options.state.checkpoint();
        this.finish(step);
        return { urn, id: res.id, outputs };
      } catch (err) {
        if (err instanceof StepError) throw err;
        const verb = op === "update" ? "update" : op === "replace" ? "replace" : "create";
        throw this.fail(step, `${verb} failed: ${message(err)}`);
      }
    });
  }

  /** Check: the inputs to use, or a failed step listing every failure. */
  private async check(
    host: ProviderHost,
    ref: ResourceRef,
    olds: PropertyMap,
    news: PropertyMap,
    planned: StepOp,
  ): Promise<PropertyMap> {
    this.assertRunning();
    try {
      const t0 = performance.now();
      // Both without secrets: the host does not accept them.
      const res = await host.check(ref, stripSecretsMap(olds), stripSecretsMap(news));
      this.timings.checkMs.push(performance.now() - t0);
      if (res.failures.length > 0) {
        const lines = res.failures.map((f) => `  ${f.property}: ${f.reason}`);
        throw this.fail(
          this.newStep(ref.urn, ref.type, planned),
          `check failed:\n${lines.join("\n")}`,
        );
      }
      return annotateSecrets(res.inputs, news);
    } catch (err) {
      if (err instanceof StepError) throw err;
      throw this.fail(this.newStep(ref.urn, ref.type, planned), `check failed: ${message(err)}`);
    }
  }

  /** Diff of a registration: the old outputs against the checked inputs. */
  private async diff(
    host: ProviderHost,
    ref: ResourceRef,
    old: ResourceState,
    checked: PropertyMap,
    ignoreChanges: string[],
  ): Promise<DiffAnswer> {
    this.assertRunning();
    try {
      const t0 = performance.now();
      const diff = await host.diff(
        ref,
        old.id ?? "",
        stripSecretsMap(old.outputs),
        stripSecretsMap(checked),
        stripSecretsMap(old.inputs),
        ignoreChanges,
      );
      this.timings.diffMs.push(performance.now() - t0);
      return diff;
    } catch (err) {
      throw this.fail(this.newStep(ref.urn, ref.type, "update"), `diff failed: ${message(err)}`);
    }
  }

  /**
   * A registration in `refresh --run-program`: a resource in the state is refreshed now (with
   * the provider configured from the current config) and the program gets what was read; one
   * that is not in the state is skipped (refresh creates nothing).
   */
  private async refreshRegistration(
    req: RegisterRequest,
    urn: string,
    old: ResourceState | undefined,
  ): Promise<RegisterAnswer> {
    if (!req.type.startsWith(DYNAMIC_PREFIX)) {
      throw this.fail(
        this.newStep(urn, req.type, "refresh"),
        "only dynamic resources (pulumi-nodejs:dynamic...) are supported by the engine stand-in",
      );
    }
    try {
      await this.defaultProvider();
    } catch (err) {
      throw this.fail(this.newStep(urn, req.type, "refresh"), message(err));
    }
    if (!old) {
      this.finish(this.newStep(urn, req.type, "same"));
      return { urn, id: "", outputs: {} };
    }
    const found = old;
    const after = await this.operations.run(() =>
      this.refreshOne(found, this.newStep(urn, req.type, "refresh")),
    );
    return { urn, id: after?.id ?? "", outputs: after?.outputs ?? {} };
  }

  /** RegisterResourceOutputs: a component's (or the stack's) outputs. */
  async registerResourceOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    if (urn === this.urnFor(STACK_TYPE, `${this.options.project}-${this.options.stack}`, "")) {
      this.stackOutputs = outputs;
    }
    if (this.options.dryRun || this.failure) return;
    const entry = this.options.state.live(urn);
    if (!entry) return;
    this.options.state.upsert({ ...entry, outputs }, entry);
    await this.options.state.checkpoint();
  }

  /** ReadResource (`get`): read an existing resource into the state, outside preview only. */
  readResource(req: ReadRequest): Promise<{ urn: string; outputs: PropertyMap }> {
    this.assertRunning();
    const urn = this.urnFor(req.type, req.name, req.parent);
    this.claim(urn);
    return this.track(
      this.operations.run(async () => {
        const step = this.newStep(urn, req.type, "read");
        if (this.options.dryRun) {
          // Preview never calls the provider's read: what it would return is unknown.
          this.finish(step);
          return { urn, outputs: {} };
        }
        try {
          const host = await this.options.provider("program");
          const provider = await this.defaultProvider();
          const props = stripSecretsMap(req.properties);
          const entry = (id: string, outputs: PropertyMap): ResourceState => ({
            ...stateEntry(urn, req, { id, inputs: req.properties, outputs, provider }),
            external: true,
          });
          const res = await this.pending(entry(req.id, {}), "reading", () =>
            host.read(this.ref({ urn, type: req.type }), req.id, props, props),
          );
          if (!res.id) throw new Error(`no resource with id ${req.id}`);
          const outputs = markSecretOutputs(
            annotateSecrets(res.properties, req.properties),
            req.additionalSecretOutputs,
          );
          this.options.state.upsert(entry(res.id, outputs), this.options.state.live(urn));
          await this.options.state.checkpoint();
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

  /**
   * What follows the last registration (at most once per run): the deletes of resources that
   * left the program, or, for `refresh --run-program`, the refresh of those resources.
   */
  runDeletes(): Promise<void> {
    this.deletes ??= this.options.runProgram ? this.refreshLeftovers() : this.deleteLeftovers();
    return this.deletes;
  }

  private async deleteLeftovers(): Promise<void> {
    await this.idle();
    this.assertRunning();
    const { state } = this.options;
    const doomed = state
      .all()
      .filter((r) => !isProviderEntry(r) && (r.delete || !this.registered.has(r.urn)));
    await this.deleteAll(doomed);
    this.dropUnusedProvider();
  }

  private async refreshLeftovers(): Promise<void> {
    await this.idle();
    this.assertRunning();
    const left = this.options.state
      .all()
      .filter((r) => r.custom && !isProviderEntry(r) && !this.registered.has(r.urn));
    await this.refreshAll(left);
  }

  /** Removes the default provider entry once no resource uses it (outside a preview). */
  private dropUnusedProvider(): void {
    const { state } = this.options;
    const entry = state.defaultProvider();
    if (this.options.dryRun || !entry) return;
    if (state.all().some((r) => r.custom && !isProviderEntry(r))) return;
    state.remove(entry);
  }

  // ---- deletes, refresh, destroy ---------------------------------------------------------------

  /** Deletes one resource; `replacing` skips the protect check (it was made before the replace). */
  private async deleteOne(
    r: ResourceState,
    host: ProviderHost | undefined,
    replacing: boolean,
  ): Promise<void> {
    if (r.protect && !replacing) throw new Error(protectedDeleteMessage(r.urn));
    if (!r.custom || r.external || r.retainOnDelete || !host) return;
    await this.pending(r, "deleting", () =>
      host.delete(this.ref(r), r.id ?? "", stripSecretsMap(r.outputs), stripSecretsMap(r.inputs)),
    );
  }

  private async deleteAll(resources: readonly ResourceState[]): Promise<void> {
    if (resources.length === 0) return;
    const { dryRun } = this.options;
    const needsHost =
      !dryRun && resources.some((r) => r.custom && !r.external && !r.retainOnDelete);
    await inReverseDependencyOrder(
      resources,
      this.operations,
      async (r) => {
        const replace = this.replaced.get(r);
        const step = replace ?? this.newStep(r.urn, r.type, "delete");
        try {
          if (dryRun) {
            // A preview calls no provider, but refuses what the update would refuse.
            if (r.protect && !r.delete) throw new Error(protectedDeleteMessage(r.urn));
          } else {
            await this.deleteOne(
              r,
              needsHost ? await this.options.provider("delete") : undefined,
              !!r.delete,
            );
          }
        } catch (err) {
          throw this.fail(step, `delete failed: ${message(err)}`);
        }
        if (!dryRun) {
          this.options.state.remove(r);
          await this.options.state.checkpoint();
        }
        if (!replace) this.finish(step);
      },
      () => this.failure !== undefined,
    );
    this.assertRunning();
  }

  /** Refresh: read every resource in state and record the drift. */
  async refresh(): Promise<void> {
    await this.refreshAll(this.options.state.all().filter((r) => r.custom && !isProviderEntry(r)));
  }

  private async refreshAll(entries: readonly ResourceState[]): Promise<void> {
    // Steps are listed in state order, whatever order the reads finish in.
    for (const r of entries) this.sequenced(r.urn);
    await Promise.all(
      entries.map((r) =>
        this.operations.run(async () => {
          if (this.failure) return;
          await this.refreshOne(r, this.newStep(r.urn, r.type, "refresh"));
        }),
      ),
    );
    this.assertRunning();
  }

  /**
   * Reads one resource and decides whether it drifted. Since Pulumi 3.120 that is the provider's
   * Diff with the read outputs as the old state and the stored inputs as the new: drift is what
   * an `up` of the unchanged program would change. Resources read with `get` (and every resource
   * with PULUMI_ENABLE_LEGACY_REFRESH_DIFF) compare the stored outputs with the read ones.
   * Answers the refreshed entry, or undefined when the resource is gone.
   */
  private async refreshOne(r: ResourceState, step: StepResult): Promise<ResourceState | undefined> {
    let res: Awaited<ReturnType<ProviderHost["read"]>>;
    let host: ProviderHost;
    try {
      host = await this.options.provider("program");
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
      if (!this.options.dryRun) {
        this.options.state.remove(r);
        await this.options.state.checkpoint();
      }
      this.finish(step);
      return undefined;
    }
    const outputs = markSecretOutputs(
      annotateSecrets(res.properties, r.outputs),
      r.additionalSecretOutputs ?? [],
    );
    const inputs = res.inputs ? annotateSecrets(res.inputs, r.inputs) : r.inputs;
    let drifted: boolean;
    let changed: string[];
    if (r.external || this.options.legacyRefreshDiff) {
      changed = changedKeys(r.outputs, outputs);
      drifted = changed.length > 0;
    } else {
      let diff: DiffAnswer;
      try {
        const t0 = performance.now();
        diff = await host.diff(
          this.ref(r),
          res.id,
          stripSecretsMap(outputs),
          stripSecretsMap(r.inputs),
          stripSecretsMap(inputs),
          r.ignoreChanges ?? [],
        );
        this.timings.diffMs.push(performance.now() - t0);
      } catch (err) {
        throw this.fail(step, `diff failed: ${message(err)}`);
      }
      // An undefined `changes`: the engine compares the read inputs with the stored ones, which
      // for a dynamic resource whose read returns no inputs never differ.
      drifted =
        diff.changes === "unknown"
          ? changedKeys(applyIgnoreChanges(inputs, r.inputs, r.ignoreChanges ?? []), inputs)
              .length > 0
          : diff.changes === "some";
      const declared = Object.keys(r.inputs).filter((k) => k !== PROVIDER_KEY);
      changed = drifted ? changedKeys(pick(outputs, declared), pick(r.inputs, declared)) : [];
    }
    step.op = drifted ? "update" : "same";
    step.changedProperties = changed;
    const next = { ...r, id: res.id, inputs, outputs };
    if (
      !this.options.dryRun &&
      (res.id !== r.id || !deepEqual(outputs, r.outputs) || !deepEqual(inputs, r.inputs))
    ) {
      this.options.state.upsert(next, r);
      await this.options.state.checkpoint();
    }
    this.finish(step);
    return next;
  }

  /** Destroy: delete every resource, dependents first, then the provider entry. */
  async destroy(): Promise<void> {
    await this.deleteAll(this.options.state.all().filter((r) => !isProviderEntry(r)));
    this.dropUnusedProvider();
  }
}

/**
 * What every state entry of a custom resource holds, whether it was registered or read: its
 * identity, parent, values, dependencies, secret outputs and managing provider.
 */
function stateEntry(
  urn: string,
  req: {
    readonly type: string;
    readonly parent?: string | undefined;
    readonly dependencies: string[];
    readonly additionalSecretOutputs: string[];
  },
  values: { id: string; inputs: PropertyMap; outputs: PropertyMap; provider: string | undefined },
): ResourceState {
  return {
    urn,
    type: req.type,
    custom: true,
    id: values.id,
    ...(req.parent ? { parent: req.parent } : {}),
    inputs: values.inputs,
    outputs: values.outputs,
    dependencies: req.dependencies,
    ...(req.additionalSecretOutputs.length > 0
      ? { additionalSecretOutputs: req.additionalSecretOutputs }
      : {}),
    ...(values.provider ? { provider: values.provider } : {}),
  };
}
