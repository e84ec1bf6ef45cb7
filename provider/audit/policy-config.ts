/**
 * The rules' configuration for `pulumi-tenant audit --config FILE`: the same JSON file a team
 * passes to `pulumi preview --policy-pack-config` (docs/design/policy.md, "Configuring a rule"), read
 * the way Pulumi reads it for this pack. Each key is a rule's name (or `all`), each value an
 * enforcement level or an object with `enforcementLevel` and the rule's config members.
 *
 * Stricter than Pulumi on one point: a name that is no rule of the pack, or a member a rule does
 * not take, is refused, because in an audit a misspelt `tenant-url-lopback` would silently judge
 * with the default and the report would look clean for the wrong reason.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { closest } from "fastest-levenshtein";
import { CommandUsageError } from "../errors.js";
import { isPlainObject } from "../json.js";
import {
  RULE_NAMES,
  type RuleConfig,
  type RuleConfigMember,
  type TenantRule,
} from "../policy/rule-types.js";
import { TENANT_RULES } from "../policy/rules.js";

/** A level a finding can have: what a pipeline gates on. */
export type FindingLevel = TenantRule["enforcementLevel"];

/** A rule's level in an audit: a finding's level, or off. */
export type RuleLevel = FindingLevel | "disabled";

/** The levels a policy config file may name, in the order a message lists them. */
const LEVELS: readonly RuleLevel[] = ["mandatory", "advisory", "disabled"];

/** How one rule judges in this audit: its level after the config, and its config members. */
export interface RuleSetting {
  readonly rule: TenantRule;
  readonly level: RuleLevel;
  readonly config: RuleConfig;
}

/** The key that sets the level of every rule, as in Pulumi's policy config files. */
const ALL = "all";

/** The member of a rule's object that sets its level. */
const LEVEL_MEMBER = "enforcementLevel";

/** Every rule at its default level with no config: what an audit without `--config` judges by. */
export function defaultRuleSettings(): RuleSetting[] {
  return TENANT_RULES.map((rule) => ({ rule, level: rule.enforcementLevel, config: {} }));
}

/**
 * The rule a misspelt or shortened name most likely means: the first rule it begins, else the
 * rule nearest in edit distance (`tenant-oidc` means `tenant-oidc-conformant`, though three rules
 * are nearer by edits).
 */
function nearestRule(name: string): string {
  return RULE_NAMES.find((rule) => rule.startsWith(name)) ?? closest(name, [...RULE_NAMES]);
}

/** One problem of a config file at a JSON path from its root. */
interface Problem {
  readonly path: string;
  readonly problem: string;
}

/** A level, or the problem of a value that is not one. */
function levelOf(value: unknown, path: string, problems: Problem[]): RuleLevel | undefined {
  if (typeof value === "string" && (LEVELS as readonly string[]).includes(value)) {
    return value as RuleLevel;
  }
  problems.push({
    path,
    problem: `must be ${LEVELS.map((l) => `"${l}"`).join(", ")} (got ${JSON.stringify(value)})`,
  });
  return undefined;
}

/** A config member's value: a list of strings. */
function stringsOf(value: unknown, path: string, problems: Problem[]): string[] | undefined {
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  problems.push({ path, problem: `must be a list of strings (got ${JSON.stringify(value)})` });
  return undefined;
}

/** The level set under `all`, if any. */
function levelOfAll(value: unknown, problems: Problem[]): RuleLevel | undefined {
  if (!isPlainObject(value)) return levelOf(value, ALL, problems);
  for (const key of Object.keys(value)) {
    if (key !== LEVEL_MEMBER) {
      problems.push({
        path: `${ALL}.${key}`,
        problem: `only ${LEVEL_MEMBER} may be set for all rules`,
      });
    }
  }
  return value[LEVEL_MEMBER] === undefined
    ? undefined
    : levelOf(value[LEVEL_MEMBER], `${ALL}.${LEVEL_MEMBER}`, problems);
}

/** One rule's entry: its level (if set) and config members. */
function entryOf(
  rule: TenantRule,
  value: unknown,
  problems: Problem[],
): { level: RuleLevel | undefined; config: RuleConfig } {
  if (!isPlainObject(value)) return { level: levelOf(value, rule.name, problems), config: {} };
  let level: RuleLevel | undefined;
  const config: { -readonly [M in RuleConfigMember]?: string[] } = {};
  for (const [key, member] of Object.entries(value)) {
    const path = `${rule.name}.${key}`;
    if (key === LEVEL_MEMBER) {
      level = levelOf(member, path, problems);
    } else if ((rule.config as readonly string[]).includes(key)) {
      const strings = stringsOf(member, path, problems);
      if (strings !== undefined) config[key as RuleConfigMember] = strings;
    } else {
      const takes = [LEVEL_MEMBER, ...rule.config].join(", ");
      problems.push({ path, problem: `is not a member this rule takes (it takes ${takes})` });
    }
  }
  return { level, config };
}

/**
 * The rule settings a policy config file gives (already parsed from JSON): a rule's own level
 * over the level under `all`, over the rule's default; the config members each rule takes.
 * Every rule is in the result, in the pack's order. Pure: `file` only names the file in the
 * message.
 *
 * @throws {CommandUsageError} naming `--config`, the file, and the JSON path and problem of
 *   every key that is no rule (with the nearest rule's name), every level that is none, every
 *   member a rule does not take, every member that is not a list of strings.
 *
 * @internal
 */
export function ruleSettingsOf(json: unknown, file: string): RuleSetting[] {
  if (!isPlainObject(json)) {
    throw configError(file, "must be a JSON object: rule names to their settings");
  }
  const problems: Problem[] = [];
  const known = new Set<string>(RULE_NAMES);
  for (const key of Object.keys(json)) {
    if (key !== ALL && !known.has(key)) {
      problems.push({
        path: key,
        problem: `is not a rule of the pack; did you mean "${nearestRule(key)}"?`,
      });
    }
  }
  const levelForAll = json[ALL] === undefined ? undefined : levelOfAll(json[ALL], problems);
  const settings = TENANT_RULES.map((rule): RuleSetting => {
    const entry =
      json[rule.name] === undefined
        ? { level: undefined, config: {} }
        : entryOf(rule, json[rule.name], problems);
    return {
      rule,
      level: entry.level ?? levelForAll ?? rule.enforcementLevel,
      config: entry.config,
    };
  });
  if (problems.length > 0) {
    throw configError(file, problems.map(({ path, problem }) => `${path}: ${problem}`).join("; "));
  }
  return settings;
}

/**
 * The one place a config file's message is put together: `--config FILE: what is wrong`, where
 * what is wrong is `PATH: problem; PATH: problem` for the file's content.
 */
function configError(file: string, wrong: string): CommandUsageError {
  return new CommandUsageError(`--config ${file}: ${wrong}`);
}

/**
 * Reads and judges a policy config file: the thin edge of {@link ruleSettingsOf}.
 *
 * @throws {CommandUsageError} when the file cannot be read or is not JSON (naming `--config`, the
 *   file and the reason), or for what {@link ruleSettingsOf} refuses.
 */
export async function readRuleSettings(file: string): Promise<RuleSetting[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw configError(file, `cannot read the file: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw configError(file, `not JSON: ${(error as Error).message}`);
  }
  return ruleSettingsOf(json, file);
}
