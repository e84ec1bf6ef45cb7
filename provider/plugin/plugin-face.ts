/**
 * The plugin face: the engine's resource calls, in the engine's values, turned into calls of the
 * one core per resource (`providers/`), and the core's answers turned back. It holds no resource
 * logic: it finds the kind and the name in the URN, unwraps secrets on the way in, and wraps on
 * the way out what must stay secret (docs/design/plugin.md). The gRPC server (`server.ts`) only moves
 * these values in and out of protobuf.
 *
 * @module
 */

import type * as pulumi from "@pulumi/pulumi";
import { SENSITIVE_CONNECTION_SETTINGS, TENANT_KEY } from "../connection/schema.js";
import { TenantConfigError, WriteNotHeldError } from "../errors.js";
import { isPlainObject, type Props } from "../json.js";
import type { TenantResourceCore } from "../providers/provider-base.js";
import { SECRET_OUTPUTS } from "../providers/secret-outputs.js";
import { NAME_KEY } from "../schema/index.js";
import type { ResourceKind } from "../schema/kinds.js";
import { secret, unwrap, wrap } from "./engine-values.js";
import { typeToken } from "./package-schema.js";
import { configFailures, configSource } from "./plugin-config.js";

/**
 * The resource a call is about, from its URN.
 *
 * @internal
 */
export interface UrnParts {
  readonly kind: ResourceKind;
  readonly name: string;
}

/**
 * The kind and the name of the resource `urn` names
 * (`urn:pulumi:STACK::PROJECT::[PARENT$]tenant:index:ClientSettings::web`).
 *
 * @throws {TenantConfigError} for a type this plugin does not serve.
 * @internal
 */
export function parseUrn(urn: string, kinds: readonly ResourceKind[]): UrnParts {
  const parts = urn.split("::");
  const type = parts[2]?.split("$").at(-1) ?? "";
  const name = parts.slice(3).join("::");
  const kind = kinds.find((candidate) => typeToken(candidate) === type);
  if (kind === undefined) {
    throw new TenantConfigError(
      `the tenant plugin serves ${kinds.map(typeToken).join(", ")}; it cannot serve ${JSON.stringify(type)}`,
    );
  }
  return { kind, name };
}

/** The results of the calls, in the engine's values (secrets wrapped). */
export interface CheckAnswer {
  readonly inputs: Props;
  readonly failures: pulumi.dynamic.CheckFailure[];
}
export interface DiffAnswer {
  readonly changes: boolean;
  readonly replaces: string[];
  readonly deleteBeforeReplace: boolean;
}
export interface ReadAnswer {
  /** Empty when the resource is gone. */
  readonly id: string;
  readonly properties: Props;
  readonly inputs: Props;
}

/** The face, over one core per resource kind (`runtime.ts`'s `providers`). */
export class PluginFace {
  readonly #cores: Readonly<Record<ResourceKind, TenantResourceCore>>;
  readonly #kinds: readonly ResourceKind[];

  constructor(cores: Readonly<Record<ResourceKind, TenantResourceCore>>) {
    this.#cores = cores;
    this.#kinds = Object.keys(cores) as ResourceKind[];
  }

  /** `CheckConfig`: the provider's inputs as given, and what is wrong with them. */
  checkConfig(news: Props): CheckAnswer {
    return { inputs: news, failures: configFailures(unwrap(news).plain) };
  }

  /**
   * `Configure`: every core takes the provider's settings, as the dynamic face's cores take the
   * stack config. The plugin process serves one provider (one tenant), so this is process-wide.
   */
  async configure(args: Props): Promise<void> {
    const config = configSource(unwrap(args).plain);
    for (const core of Object.values(this.#cores)) await core.configure({ config });
  }

  async check(urn: string, olds: Props, news: Props): Promise<CheckAnswer> {
    const { kind, name } = parseUrn(urn, this.#kinds);
    const given = unwrap(news);
    const { inputs, failures } = await this.#cores[kind].check(
      named(unwrap(olds).plain, name),
      named(given.plain, name),
    );
    return {
      inputs: this.#outgoing(kind, inputs ?? {}, given.secretKeys),
      failures: failures ?? [],
    };
  }

  async diff(urn: string, id: string, olds: Props, news: Props): Promise<DiffAnswer> {
    const { kind, name } = parseUrn(urn, this.#kinds);
    const result = await this.#cores[kind].diff(
      id,
      named(unwrap(olds).plain, name),
      named(unwrap(news).plain, name),
    );
    return {
      changes: result.changes ?? true,
      replaces: result.replaces ?? [],
      deleteBeforeReplace: result.deleteBeforeReplace ?? false,
    };
  }

  /**
   * `Create`. A create that fails with a partial state (providers/created-not-held.ts) throws on
   * with its outputs in the engine's values, secrets wrapped as a created resource's are, which
   * the server answers as the resource's initialization failure.
   */
  async create(urn: string, news: Props): Promise<{ id: string; properties: Props }> {
    const { kind, name } = parseUrn(urn, this.#kinds);
    const given = unwrap(news);
    try {
      const { id, outs } = await this.#cores[kind].create(named(given.plain, name));
      return { id, properties: this.#outgoing(kind, outs ?? {}, given.secretKeys) };
    } catch (error) {
      if (error instanceof WriteNotHeldError && error.properties !== undefined) {
        error.properties = this.#outgoing(kind, { ...error.properties }, given.secretKeys);
      }
      throw error;
    }
  }

  /**
   * `Read`: a refresh (the stored outputs and inputs are given) reads the live resource and keeps
   * the inputs; an import (neither is given) adopts the resource as it is.
   */
  async read(urn: string, id: string, properties: Props, inputs: Props): Promise<ReadAnswer> {
    const { kind, name } = parseUrn(urn, this.#kinds);
    const core = this.#cores[kind];
    if (Object.keys(properties).length === 0 && Object.keys(inputs).length === 0) {
      const adopted = await core.adopt(id, named({}, name));
      return {
        id: adopted.id,
        properties: this.#outgoing(kind, adopted.outs, []),
        inputs: this.#outgoing(kind, adopted.inputs, []),
      };
    }
    const stored = unwrap(properties);
    const result = await core.read(id, named(stored.plain, name));
    if (result.id === "" || result.id === undefined) return { id: "", properties: {}, inputs: {} };
    return {
      id: result.id,
      properties: this.#outgoing(kind, result.props ?? {}, stored.secretKeys),
      inputs,
    };
  }

  async update(urn: string, id: string, olds: Props, news: Props): Promise<Props> {
    const { kind, name } = parseUrn(urn, this.#kinds);
    const given = unwrap(news);
    const { outs } = await this.#cores[kind].update(
      id,
      named(unwrap(olds).plain, name),
      named(given.plain, name),
    );
    return this.#outgoing(kind, outs ?? {}, given.secretKeys);
  }

  async delete(urn: string, id: string, properties: Props): Promise<void> {
    const { kind, name } = parseUrn(urn, this.#kinds);
    await this.#cores[kind].delete(id, named(unwrap(properties).plain, name));
  }

  /**
   * What goes back to the engine: the name the core was given left out, the kind's secret outputs
   * and whatever arrived secret wrapped whole, the `tenant` connection's credentials wrapped
   * member by member (so the domain still shows).
   */
  #outgoing(kind: ResourceKind, props: Props, arrivedSecret: Iterable<string>): Props {
    const { [NAME_KEY]: _name, ...rest } = props;
    const tenant = rest[TENANT_KEY];
    if (isPlainObject(tenant)) {
      const members: Props = { ...tenant };
      for (const setting of SENSITIVE_CONNECTION_SETTINGS) {
        if (members[setting] !== undefined) members[setting] = secret(members[setting]);
      }
      rest[TENANT_KEY] = members;
    }
    const secrets = [...SECRET_OUTPUTS[kind], ...arrivedSecret].filter((key) => key !== TENANT_KEY);
    return wrap(rest, secrets);
  }
}

/**
 * `props` with the resource's name, which the core puts on every error (`describeResource`,
 * providers/run-operation.ts).
 */
function named(props: Props, name: string): Props {
  return { ...props, [NAME_KEY]: name };
}
