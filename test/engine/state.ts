/**
 * The stack's state: one JSON file per stack in Pulumi's checkpoint format (version 3, with
 * `checkpoint.latest.resources`), rewritten after every completed step so that a run killed midway
 * leaves what completed. Secret values are stored as Pulumi stores them,
 * `{[sigKey]: secretSig, ciphertext: "v1:..."}`, the ciphertext being the JSON of the value
 * encrypted with the stack's passphrase key; a plaintext secret never reaches the file.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type Crypter, crypterFromSalt, type StackSecrets } from "./secrets.js";
import {
  isSecret,
  type PropertyMap,
  type PropertyValue,
  SECRET_SIG,
  SIG_KEY,
  secretPaths,
  stripSecrets,
} from "./values.js";

/** One resource as the engine keeps it (secret values as secret wrappers, in memory only). */
export interface ResourceState {
  urn: string;
  type: string;
  custom: boolean;
  id?: string;
  parent?: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
  dependencies: string[];
  propertyDependencies?: Record<string, string[]>;
  additionalSecretOutputs?: string[];
  /** The `ignoreChanges` option as last registered (refresh's diff gets it, as Pulumi's does). */
  ignoreChanges?: string[];
  /** `<provider urn>::<provider id>`: the default provider entry that manages this resource. */
  provider?: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  /** Read with `get` (ReadResource): never deleted by the engine, only forgotten. */
  external?: boolean;
  /** Replaced (create-before-delete) and waiting for its delete. */
  delete?: boolean;
}

/** A resource as {@link readState} returns it: plain values, plus where the secrets were. */
export interface StateResource extends Omit<ResourceState, "inputs" | "outputs"> {
  /** The last segment of the URN. */
  name: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  /** Paths of secret values, e.g. `outputs.token`, `inputs.nested.key`. */
  secretPaths: string[];
}

/** What the engine was doing to a resource when a run stopped without finishing it. */
export type OperationType = "creating" | "updating" | "deleting" | "reading";

/** A provider call recorded before it is sent (Pulumi's `pending_operations`). */
export interface PendingOperation {
  resource: ResourceState;
  type: OperationType;
}

/** A stack's state, as {@link readState} returns it. */
export interface StackState {
  /** `organization/<project>/<stack>`. */
  stack: string;
  /** The resources, without the stack and without the default provider entry. */
  resources: StateResource[];
  /** The default provider entry: its inputs are the stack config of the last `up`. */
  defaultProvider?: StateResource;
  /** Operations a run began and never finished (it was killed), as `[urn, type]`. */
  pendingOperations: Array<{ urn: string; type: OperationType }>;
  /** The stack resource's outputs (what the program exported). */
  outputs: Record<string, unknown>;
}

interface Checkpoint {
  version: 3;
  checkpoint: {
    stack: string;
    latest: {
      manifest: { time: string; magic: string; version: string };
      secrets_providers?: { type: "passphrase"; state: { salt: string } };
      resources: ResourceState[];
      pending_operations?: PendingOperation[];
    };
  };
}

const STACK_TYPE = "pulumi:pulumi:Stack";
const PLACEHOLDER = "[secret]";
/** The type of the Node.js dynamic provider's default provider entry. */
export const DEFAULT_PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";

/** True for the entry of a provider (not a resource a program declares). */
export function isProviderEntry(r: { type: string }): boolean {
  return r.type.startsWith("pulumi:providers:");
}

/** The resource name, the last `::` segment of a URN. */
export function urnName(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function hasCiphertext(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasCiphertext);
  if (!isRecord(v)) return false;
  if (v[SIG_KEY] === SECRET_SIG && typeof v.ciphertext === "string") return true;
  return Object.values(v).some(hasCiphertext);
}

/** Replaces every secret wrapper by its encrypted form. */
function encryptDeep(v: PropertyValue, crypter: Crypter): PropertyValue {
  if (isSecret(v)) {
    return { [SIG_KEY]: SECRET_SIG, ciphertext: crypter.encrypt(JSON.stringify(v.value)) };
  }
  if (Array.isArray(v)) return v.map((x) => encryptDeep(x, crypter));
  if (isRecord(v)) {
    const out: Record<string, PropertyValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = encryptDeep(x as PropertyValue, crypter);
    return out;
  }
  return v;
}

/** Replaces every encrypted secret by a secret wrapper (or a placeholder without a crypter). */
function decryptDeep(v: unknown, crypter: Crypter | undefined): PropertyValue {
  if (Array.isArray(v)) return v.map((x) => decryptDeep(x, crypter));
  if (!isRecord(v)) return v as PropertyValue;
  if (v[SIG_KEY] === SECRET_SIG && typeof v.ciphertext === "string") {
    const value: PropertyValue = crypter
      ? (JSON.parse(crypter.decrypt(v.ciphertext)) as PropertyValue)
      : PLACEHOLDER;
    return { [SIG_KEY]: SECRET_SIG, value };
  }
  const out: Record<string, PropertyValue> = {};
  for (const [k, x] of Object.entries(v)) out[k] = decryptDeep(x, crypter);
  return out;
}

function mapResource(r: ResourceState, f: (m: PropertyMap) => PropertyMap): ResourceState {
  return { ...r, inputs: f(r.inputs), outputs: f(r.outputs) };
}

/**
 * Orders resources so that each comes after its parent and dependencies (Pulumi requires it of a
 * checkpoint, and a resource updated this run may now depend on one created after it), keeping
 * the given order otherwise.
 */
export function sortByDependencies(resources: readonly ResourceState[]): ResourceState[] {
  const byUrn = new Map<string, ResourceState[]>();
  for (const r of resources) byUrn.set(r.urn, [...(byUrn.get(r.urn) ?? []), r]);
  const done = new Set<ResourceState>();
  const visiting = new Set<ResourceState>();
  const out: ResourceState[] = [];
  const visit = (r: ResourceState): void => {
    if (done.has(r) || visiting.has(r)) return;
    visiting.add(r);
    for (const dep of [...(r.parent ? [r.parent] : []), ...r.dependencies]) {
      for (const d of byUrn.get(dep) ?? []) if (d !== r) visit(d);
    }
    visiting.delete(r);
    done.add(r);
    out.push(r);
  };
  for (const r of resources) visit(r);
  return out;
}

/** The stack's state file, with checkpoint writes that never overlap. */
export class StateStore {
  private entries: ResourceState[];
  private readonly encrypted = new WeakMap<ResourceState, ResourceState>();
  private chain: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private readonly outstanding = new Set<PendingOperation>();
  private keepInterruptedCreates = true;
  private frozen = false;

  private constructor(
    /** The state file's path. */
    readonly file: string,
    private readonly stackName: string,
    private readonly secrets: StackSecrets,
    entries: ResourceState[],
    /** What the previous run began and never finished. */
    readonly interrupted: readonly PendingOperation[],
  ) {
    this.entries = entries;
  }

  /**
   * Loads `file` (an absent file is an empty stack), decrypting its secrets with the stack's key.
   * @param stackName `organization/<project>/<stack>`
   */
  static async open(file: string, stackName: string, secrets: StackSecrets): Promise<StateStore> {
    if (!fs.existsSync(file)) return new StateStore(file, stackName, secrets, [], []);
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Checkpoint;
    const latest = parsed.checkpoint?.latest;
    const resources = latest?.resources ?? [];
    const pending = latest?.pending_operations ?? [];
    const stateSalt = latest?.secrets_providers?.state.salt;
    if (stateSalt && !secrets.salt) secrets.adoptSalt(stateSalt);
    const crypter =
      hasCiphertext(resources) || hasCiphertext(pending.map((p) => p.resource))
        ? await secrets.get()
        : undefined;
    const decrypt = (r: ResourceState) =>
      mapResource(r, (m) => decryptDeep(m, crypter) as PropertyMap);
    return new StateStore(
      file,
      stackName,
      secrets,
      resources.map(decrypt),
      pending.map((p) => ({ type: p.type, resource: decrypt(p.resource) })),
    );
  }

  /**
   * Records that a provider call on `resource` is about to be sent; the next checkpoint lists it
   * under `pending_operations` until {@link end} is called, so a run killed meanwhile leaves it
   * for the next run to report.
   */
  begin(resource: ResourceState, type: OperationType): PendingOperation {
    const op = { resource, type };
    this.outstanding.add(op);
    return op;
  }

  /** The call recorded by {@link begin} has answered (successfully or not). */
  end(op: PendingOperation): void {
    this.outstanding.delete(op);
  }

  /** Drops the interrupted creates carried over from earlier runs (`--clear-pending-creates`). */
  clearInterruptedCreates(): void {
    this.keepInterruptedCreates = false;
  }

  /**
   * Stops every later change and write: the run was killed, and what a killed engine would still
   * have written must not reach the file (its pending operations stay, as they would).
   */
  freeze(): void {
    this.frozen = true;
  }

  /** The default provider entry, if the state has one. */
  defaultProvider(): ResourceState | undefined {
    return this.entries.find((r) => r.type === DEFAULT_PROVIDER_TYPE && !r.delete);
  }

  /** The passphrase salt recorded in a state file, if the file exists and has one. */
  static salt(file: string): string | undefined {
    if (!fs.existsSync(file)) return undefined;
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Checkpoint;
    return parsed.checkpoint?.latest?.secrets_providers?.state.salt;
  }

  /** Every entry, pending deletes included, in state order. */
  all(): readonly ResourceState[] {
    return this.entries;
  }

  /** The live (not pending-delete) entry for `urn`. */
  live(urn: string): ResourceState | undefined {
    return this.entries.find((r) => r.urn === urn && !r.delete);
  }

  /** The stack resource, if any. */
  stack(): ResourceState | undefined {
    return this.entries.find((r) => r.type === STACK_TYPE && !r.delete);
  }

  /** Puts `entry` in place of the live entry with its URN (or `replacing`), or appends it. */
  upsert(entry: ResourceState, replacing?: ResourceState): void {
    const old = replacing ?? this.live(entry.urn);
    const i = old ? this.entries.indexOf(old) : -1;
    if (i >= 0) this.entries = this.entries.with(i, entry);
    else this.entries = [...this.entries, entry];
  }

  /** Removes exactly `entry`. */
  remove(entry: ResourceState): void {
    this.entries = this.entries.filter((r) => r !== entry);
  }

  /** Removes every entry. */
  clear(): void {
    this.entries = [];
  }

  /**
   * Writes the state as it is now. Calls made while a write is in progress share the next write,
   * so a burst of completed steps costs two writes, not one per step.
   */
  checkpoint(): Promise<void> {
    if (this.frozen) return Promise.resolve();
    if (this.queued) return this.queued;
    const next = this.chain.then(() => {
      this.queued = undefined;
      return this.write();
    });
    this.queued = next;
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    if (this.frozen) return;
    const entries = sortByDependencies(this.entries);
    // As Pulumi: the operations this run has begun and not ended, plus the creates an earlier
    // run left (they need a person to decide whether the create happened); other interrupted
    // operations are dropped once this run writes.
    const pending = [
      ...this.outstanding,
      ...(this.keepInterruptedCreates
        ? this.interrupted.filter((op) => op.type === "creating")
        : []),
    ];
    const all = [...entries, ...pending.map((p) => p.resource)];
    const needsCrypter = all.some(
      (r) => !this.encrypted.has(r) && (hasSecret(r.inputs) || hasSecret(r.outputs)),
    );
    const crypter = needsCrypter ? await this.secrets.get() : undefined;
    const onDisk = (r: ResourceState): ResourceState => {
      let disk = this.encrypted.get(r);
      if (!disk) {
        disk = crypter ? mapResource(r, (m) => encryptDeep(m, crypter) as PropertyMap) : r;
        this.encrypted.set(r, disk);
      }
      return disk;
    };
    const resources = entries.map(onDisk);
    const salt = this.secrets.salt;
    const checkpoint: Checkpoint = {
      version: 3,
      checkpoint: {
        stack: this.stackName,
        latest: {
          manifest: { time: new Date().toISOString(), magic: "", version: "engine-stand-in" },
          ...(salt ? { secrets_providers: { type: "passphrase", state: { salt } } } : {}),
          resources,
          ...(pending.length > 0
            ? {
                pending_operations: pending.map((p) => ({
                  resource: onDisk(p.resource),
                  type: p.type,
                })),
              }
            : {}),
        },
      },
    };
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await fs.promises.writeFile(tmp, `${JSON.stringify(checkpoint, null, 2)}\n`);
    await fs.promises.rename(tmp, this.file);
  }
}

function hasSecret(m: PropertyMap): boolean {
  return secretPaths(m, "").length > 0;
}

/**
 * Reads a state file for assertions. Secret values are decrypted with `passphrase` (default
 * `PULUMI_CONFIG_PASSPHRASE`; a wrong one fails); without one, or with `decrypt: false`, they
 * read `"[secret]"`. Either way `secretPaths` lists where they were.
 */
export async function readState(
  stateFile: string,
  options: { passphrase?: string; decrypt?: boolean } = {},
): Promise<StackState> {
  const parsed = JSON.parse(await fs.promises.readFile(stateFile, "utf8")) as Checkpoint;
  const latest = parsed.checkpoint.latest;
  const passphrase = options.passphrase ?? process.env.PULUMI_CONFIG_PASSPHRASE;
  const salt = latest.secrets_providers?.state.salt;
  const crypter =
    options.decrypt !== false && passphrase !== undefined && salt && hasCiphertext(latest.resources)
      ? await crypterFromSalt(passphrase, salt)
      : undefined;
  const resources = latest.resources.map((r): StateResource => {
    const inputs = decryptDeep(r.inputs, crypter) as PropertyMap;
    const outputs = decryptDeep(r.outputs, crypter) as PropertyMap;
    return {
      ...r,
      name: urnName(r.urn),
      inputs: stripSecrets(inputs) as Record<string, unknown>,
      outputs: stripSecrets(outputs) as Record<string, unknown>,
      secretPaths: [...secretPaths(inputs, "inputs"), ...secretPaths(outputs, "outputs")],
    };
  });
  const stack = resources.find((r) => r.type === STACK_TYPE);
  const defaultProvider = resources.find((r) => r.type === DEFAULT_PROVIDER_TYPE);
  return {
    stack: parsed.checkpoint.stack,
    resources: resources.filter((r) => r.type !== STACK_TYPE && !isProviderEntry(r)),
    ...(defaultProvider ? { defaultProvider } : {}),
    pendingOperations: (latest.pending_operations ?? []).map((p) => ({
      urn: p.resource.urn,
      type: p.type,
    })),
    outputs: stack?.outputs ?? {},
  };
}
