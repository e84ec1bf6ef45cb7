/**
 * What is wrong with the settings before any operation needs them: the problems of what the
 * stack config gives ({@link givenSettingProblems}), of what it and the environment give together,
 * and of what the environment adds, for `check` and the plugin's `CheckConfig`.
 *
 * @module
 */

import { budgetProblems } from "../connection/budget.js";
import { givenCredentialProblems } from "../connection/credentials.js";
import { originOf } from "../connection/origin.js";
import {
  type ConnectionProblem,
  type ConnectionValues,
  STACK_CONFIG_NAMING,
} from "../connection/values.js";
import { reader, readSeconds, stackValues } from "./resolve.js";
import { CONFIG_KEYS, type ConfigSource } from "./settings.js";

/**
 * What is wrong with the settings `config` gives, one problem per setting, ignoring the
 * environment: a domain that is not a host or an origin, a timeout that is not a positive number,
 * a reserve or a ceiling out of its range, more than one way of authenticating, a signing
 * algorithm the platform does not accept or a private key that does not fit it.
 * A missing setting is not a problem here (it may come from the environment, and a preview needs
 * no credentials); an operation without it fails naming it ({@link settingsFor}).
 */
export function givenSettingProblems(
  config: ConfigSource,
): { readonly name: keyof typeof CONFIG_KEYS; readonly message: string }[] {
  const read = reader(config, {});
  const problems: { name: keyof typeof CONFIG_KEYS; message: string }[] = [];
  const domain = read("domain");
  if (domain !== undefined) {
    const parsed = originOf(domain, CONFIG_KEYS.domain.key);
    if ("message" in parsed) problems.push({ name: "domain", message: parsed.message });
  }
  for (const name of ["requestTimeout", "operationTimeout"] as const) {
    try {
      readSeconds(name, read(name), 0);
    } catch (error) {
      problems.push({ name, message: (error as Error).message });
    }
  }
  for (const { setting, message } of stackSettingProblems(stackValues(config, {}))) {
    if (setting !== undefined) problems.push({ name: setting, message });
  }
  return problems;
}

/**
 * The problems of the credentials and the budget that the stack config and the environment give
 * together (a setting of the stack config hides its environment variable), one per setting: what
 * `check` judges of them before any operation, as {@link stackSettingFailuresOnce} says.
 */
export function stackSettingProblems(values: ConnectionValues): ConnectionProblem[] {
  return [
    ...givenCredentialProblems(values, STACK_CONFIG_NAMING),
    ...budgetProblems(values, STACK_CONFIG_NAMING),
  ];
}

/**
 * What the environment adds to the problems of the settings `config` gives (a
 * `TENANT_RATE_LIMIT_RESERVE` out of range, a `TENANT_API_TOKEN` beside the client secret `config`
 * gives), each naming its setting: the plugin's `CheckConfig` reports them beside
 * {@link givenSettingProblems}, so that a plugin process reports its settings in one place.
 */
export function environmentSettingProblems(
  config: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const given = new Set(stackSettingProblems(stackValues(config, {})).map((p) => p.message));
  return stackSettingProblems(stackValues(config, env))
    .map(({ message }) => message)
    .filter((message) => !given.has(message));
}
