/**
 * The project file (`Pulumi.yaml`) and the stack file (`Pulumi.<stack>.yaml`), read and written the
 * way the Pulumi CLI does: stack config keys are `namespace:key` (a bare key belongs to the
 * project's namespace), secret values are `{secure: v1:...}` under the stack's `encryptionsalt`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as YAML from "yaml";
import { type Crypter, crypterFromSalt, newEncryptionSalt, StackSecrets } from "./secrets.js";

/** What the engine needs from `Pulumi.yaml`. */
export interface ProjectInfo {
  /** The project name. */
  name: string;
  /** The directory holding `Pulumi.yaml` (where the stack files live, unless `stackConfigDir`). */
  dir: string;
  /** The program's directory: the language runtime's `--pwd` and the provider host's cwd. */
  programDir: string;
  /** The program argument of `cmd/run`: "." for a directory (as Pulumi passes it) or a file path. */
  program: string;
  /** `runtime.options.typescript` (default true, as in Pulumi). */
  typescript: boolean;
  /** Directory of the stack files. */
  stackConfigDir: string;
  /** Project-level config defaults (`config:` in `Pulumi.yaml`), keys namespaced. */
  configDefaults: Record<string, string>;
}

/** One resolved config value: secrets are decrypted, `secret` remembers that they were secret. */
export interface ConfigValue {
  value: string;
  secret: boolean;
}

/** The stack's config, plus its secrets (for the state's secret values). */
export interface StackConfig {
  values: Record<string, ConfigValue>;
  secrets: StackSecrets;
  /** The stack file's path (it may not exist). */
  file: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `key` with the project namespace added when it has none, as Pulumi stores config keys. */
export function qualifyKey(key: string, project: string): string {
  return key.includes(":") ? key : `${project}:${key}`;
}

function configString(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * Reads `Pulumi.yaml` in `cwd`. Unlike the Pulumi CLI, `main` may be absolute or lead outside the
 * project directory, which lets a test keep its stack files in a temporary directory.
 */
export function loadProject(cwd: string): ProjectInfo {
  const dir = path.resolve(cwd);
  const file = path.join(dir, "Pulumi.yaml");
  if (!fs.existsSync(file)) throw new Error(`no Pulumi.yaml in ${dir}`);
  const doc: unknown = YAML.parse(fs.readFileSync(file, "utf8"));
  if (!isRecord(doc) || typeof doc.name !== "string" || doc.name === "") {
    throw new Error(`${file}: missing project name`);
  }
  const name = doc.name;
  const runtime = doc.runtime;
  const runtimeName = isRecord(runtime) ? runtime.name : runtime;
  if (runtimeName !== "nodejs") {
    throw new Error(`${file}: runtime ${String(runtimeName)} is not supported (only nodejs)`);
  }
  const options = isRecord(runtime) && isRecord(runtime.options) ? runtime.options : {};
  const typescript = options.typescript !== false;

  let programDir = dir;
  let program = ".";
  if (typeof doc.main === "string" && doc.main !== "") {
    const main = path.resolve(dir, doc.main);
    if (!fs.existsSync(main)) throw new Error(`${file}: main ${doc.main} does not exist`);
    if (fs.statSync(main).isDirectory()) {
      programDir = main;
    } else {
      programDir = path.dirname(main);
      program = main;
    }
  }

  const configDefaults: Record<string, string> = {};
  if (isRecord(doc.config)) {
    for (const [key, spec] of Object.entries(doc.config)) {
      const value = isRecord(spec) ? spec.default : spec;
      if (value !== undefined && value !== null) {
        configDefaults[qualifyKey(key, name)] = configString(value);
      }
    }
  }
  const stackConfigDir =
    typeof doc.stackConfigDir === "string" ? path.resolve(dir, doc.stackConfigDir) : dir;
  return { name, dir, programDir, program, typescript, stackConfigDir, configDefaults };
}

/** Path of `Pulumi.<stack>.yaml`. */
export function stackFilePath(project: ProjectInfo, stack: string): string {
  return path.join(project.stackConfigDir, `Pulumi.${stack}.yaml`);
}

function readStackDocument(file: string): YAML.Document {
  const doc = fs.existsSync(file)
    ? YAML.parseDocument(fs.readFileSync(file, "utf8"))
    : new YAML.Document({});
  if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
  if (doc.contents === null) doc.contents = doc.createNode({});
  return doc;
}

function writeStackDocument(file: string, doc: YAML.Document): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, doc.toString());
}

/** Decrypts every `{secure: ...}` inside `v`; reports whether it met one. */
async function decryptDeep(
  v: unknown,
  crypter: () => Promise<Crypter>,
): Promise<{ value: unknown; secret: boolean }> {
  if (isRecord(v) && Object.keys(v).length === 1 && typeof v.secure === "string") {
    return { value: (await crypter()).decrypt(v.secure), secret: true };
  }
  if (Array.isArray(v)) {
    const items = await Promise.all(v.map((x) => decryptDeep(x, crypter)));
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (isRecord(v)) {
    const out: Record<string, unknown> = {};
    let secret = false;
    for (const [k, x] of Object.entries(v)) {
      const decrypted = await decryptDeep(x, crypter);
      out[k] = decrypted.value;
      secret ||= decrypted.secret;
    }
    return { value: out, secret };
  }
  return { value: v, secret: false };
}

/**
 * Reads the stack's config: project defaults, then `Pulumi.<stack>.yaml`, then `overrides`. Secure
 * values are decrypted with `passphrase`; without one, a stack that has them fails with a clear
 * message.
 */
export async function loadStackConfig(
  project: ProjectInfo,
  stack: string,
  passphrase: string | undefined,
  overrides: Record<string, { value: string; secret?: boolean }> = {},
): Promise<StackConfig> {
  const file = stackFilePath(project, stack);
  const doc = readStackDocument(file);
  const salt = doc.get("encryptionsalt");
  const secrets = new StackSecrets(
    passphrase,
    typeof salt === "string" ? salt : undefined,
    async (newSalt) => {
      // Re-read: the file may have changed since (a `config set` while the run was starting).
      const fresh = readStackDocument(file);
      if (!fresh.has("encryptionsalt")) {
        fresh.set("encryptionsalt", newSalt);
        writeStackDocument(file, fresh);
      }
    },
    `stack ${stack} (${file})`,
  );

  const values: Record<string, ConfigValue> = {};
  for (const [k, v] of Object.entries(project.configDefaults))
    values[k] = { value: v, secret: false };
  const raw: unknown = doc.toJS();
  const config = isRecord(raw) && isRecord(raw.config) ? raw.config : {};
  for (const [key, v] of Object.entries(config)) {
    const decrypted = await decryptDeep(v, () => secrets.get());
    values[qualifyKey(key, project.name)] = {
      value: configString(decrypted.value),
      secret: decrypted.secret,
    };
  }
  for (const [key, v] of Object.entries(overrides)) {
    values[qualifyKey(key, project.name)] = { value: v.value, secret: v.secret === true };
  }
  return { values, secrets, file };
}

/**
 * Sets one config value in `Pulumi.<stack>.yaml` (creating the file, and its `encryptionsalt` for
 * a first secret), keeping the rest of the file and its comments. Returns the file's path.
 */
export async function setConfigValue(
  project: ProjectInfo,
  stack: string,
  key: string,
  value: string,
  options: { secret: boolean; passphrase: string | undefined },
): Promise<string> {
  const file = stackFilePath(project, stack);
  const doc = readStackDocument(file);
  const qualified = qualifyKey(key, project.name);
  if (options.secret) {
    if (options.passphrase === undefined) {
      throw new Error("PULUMI_CONFIG_PASSPHRASE is not set: it is needed to encrypt a secret");
    }
    const salt = doc.get("encryptionsalt");
    let crypter: Crypter;
    if (typeof salt === "string") {
      crypter = await crypterFromSalt(options.passphrase, salt);
    } else {
      const created = await newEncryptionSalt(options.passphrase);
      crypter = created.crypter;
      // Pulumi puts the salt first in the file.
      const rest = doc.toJS() as Record<string, unknown>;
      doc.contents = doc.createNode({ encryptionsalt: created.encryptionsalt, ...rest });
    }
    doc.setIn(["config", qualified], doc.createNode({ secure: crypter.encrypt(value) }));
  } else {
    doc.setIn(["config", qualified], value);
  }
  writeStackDocument(file, doc);
  return file;
}

/** One value from the stack file, decrypted; undefined when unset. */
export async function getConfigValue(
  project: ProjectInfo,
  stack: string,
  key: string,
  passphrase: string | undefined,
): Promise<ConfigValue | undefined> {
  const config = await loadStackConfig(project, stack, passphrase);
  return config.values[qualifyKey(key, project.name)];
}
