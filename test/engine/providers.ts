/**
 * The default provider of dynamic resources, as Pulumi keeps it (see CONFORMANCE.md, rule 2):
 * every `pulumi-nodejs:dynamic...` resource is managed by one provider entry in the state,
 * `urn:pulumi:<stack>::<project>::pulumi:providers:pulumi-nodejs::default`, whose inputs (and
 * outputs) are the whole stack config, secrets kept secret (so encrypted in the state file).
 * `up` configures the provider with the current stack config and records it there; `refresh` and
 * `destroy`, which do not run the program, configure the provider from that entry instead.
 */
import { randomUUID } from "node:crypto";
import type { ConfigValue } from "./config.js";
import { DEFAULT_PROVIDER_TYPE, type ResourceState } from "./state.js";
import type { EngineCommand } from "./types.js";
import { deepEqual, isSecret, makeSecret, type PropertyMap, unwrapSecret } from "./values.js";

/** The URN of a stack's default provider entry for dynamic resources. */
export function defaultProviderUrn(stack: string, project: string): string {
  return `urn:pulumi:${stack}::${project}::${DEFAULT_PROVIDER_TYPE}::default`;
}

/** The inputs of the provider entry for `config`: every key, namespaced, secrets as secrets. */
export function providerInputs(config: Record<string, ConfigValue>): PropertyMap {
  const inputs: PropertyMap = {};
  for (const [key, v] of Object.entries(config)) {
    inputs[key] = v.secret ? makeSecret(v.value) : v.value;
  }
  return inputs;
}

/**
 * The provider entry to record for `config`: the old entry itself when nothing changed (so no
 * write is needed), else an entry with the old id (Pulumi updates a provider in place when its
 * config changes: the dynamic provider does not implement DiffConfig, so nothing is replaced).
 */
export function providerEntry(
  urn: string,
  config: Record<string, ConfigValue>,
  old: ResourceState | undefined,
): ResourceState {
  const inputs = providerInputs(config);
  if (old && deepEqual(old.inputs, inputs) && sameSecrets(old.inputs, inputs)) return old;
  return {
    urn,
    type: DEFAULT_PROVIDER_TYPE,
    custom: true,
    id: old?.id ?? randomUUID(),
    inputs,
    outputs: inputs,
    dependencies: [],
  };
}

/** Whether the same keys are secret in both (a value made secret is a change of the entry). */
function sameSecrets(a: PropertyMap, b: PropertyMap): boolean {
  return Object.keys(b).every((k) => isSecret(a[k]) === isSecret(b[k]));
}

/** The reference a resource keeps to its provider: `<urn>::<id>`. */
export function providerReference(entry: ResourceState): string {
  return `${entry.urn}::${entry.id ?? ""}`;
}

/**
 * Why the provider host is first needed in a pass: for a resource the program registers, or for
 * the delete of a resource that left the program.
 */
export type ProviderUse = "program" | "delete";

/**
 * The configuration the provider host gets for a run:
 * - preview, up and `refresh --run-program` run the program: the current stack config, which the
 *   program's first dynamic resource registers the default provider with;
 * - refresh and destroy do not: the config recorded in the state's provider entry at the last
 *   `up`. So does an `up` whose program registers no dynamic resource at all (its first use of
 *   the provider is a delete): the provider of the deleted resources is loaded from the state.
 *   A state without an entry (written before the entry existed) gets the current config, as
 *   Pulumi does when it adds default providers to an old snapshot.
 *
 * Values are plain strings: the dynamic-provider host does not accept secrets.
 */
export function providerConfigFor(
  command: EngineCommand,
  runProgram: boolean,
  entry: ResourceState | undefined,
  current: Record<string, ConfigValue>,
  firstUse: ProviderUse = "program",
): Record<string, string> {
  const fromState =
    (command === "refresh" && !runProgram) || command === "destroy" || firstUse === "delete";
  const source = fromState && entry ? entry.inputs : providerInputs(current);
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    const plain = unwrapSecret(value);
    config[key] = typeof plain === "string" ? plain : JSON.stringify(plain);
  }
  return config;
}
