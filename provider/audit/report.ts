/**
 * What `pulumi-tenant audit` found, as one value that every output format renders
 * (`text.ts`, `sarif.ts`, and the JSON of {@link renderJson}), and the decision a pipeline gates
 * on ({@link exitStatusOfReport}). Pure.
 *
 * @module
 */

import type { WireClient } from "../api/client-read-policy.js";
import { COMMAND_EXIT } from "../errors.js";
import type { RuleName } from "../policy/rule-types.js";
import { type Finding, judgeClients } from "./judge.js";
import type { FindingLevel, RuleLevel, RuleSetting } from "./policy-config.js";

/** Where the clients came from: the live tenant, or a snapshot's seed file. */
type AuditSource = { readonly kind: "live" } | { readonly kind: "seed"; readonly file: string };

/** Which tenant was audited, as far as it is known. */
export interface AuditedTenant {
  /** The origin of its API (`https://acme.tenants.example`); a seed's `takenFrom`. */
  readonly domain: string | undefined;
  /** Its name, as its clients' `tenant` field or a seed's `tenant` says. */
  readonly name: string | undefined;
}

/** What an audit judges: the clients and where they came from, and how the rules are set. */
export interface AuditInput {
  readonly tenant: AuditedTenant;
  /** When the clients were read (ISO 8601): now for a live audit, a seed's `takenAt`. */
  readonly readAt: string | undefined;
  readonly source: AuditSource;
  /** The stack the rules' `allowedStacks` are matched against, when one was named. */
  readonly stack: string | undefined;
  readonly clients: readonly WireClient[];
  readonly settings: readonly RuleSetting[];
}

/** An audit's result. */
export interface AuditReport {
  readonly tenant: AuditedTenant;
  readonly readAt: string | undefined;
  readonly source: AuditSource;
  readonly stack: string | undefined;
  /** How many clients were judged (each id once). */
  readonly clientCount: number;
  /** Every rule of the pack, in its order, at the level it judged with (or off). */
  readonly settings: readonly RuleSetting[];
  /** In the tenant's order of clients, then the pack's order of rules. */
  readonly findings: readonly Finding[];
}

/** Findings counted by level and by rule; every rule is present, with 0 when it found nothing. */
export interface FindingCounts {
  readonly findings: number;
  readonly byLevel: Readonly<Record<FindingLevel, number>>;
  readonly byRule: Readonly<Record<RuleName, number>>;
}

/** Judges the clients and keeps what the report says about them. */
export function auditTenant(input: AuditInput): AuditReport {
  const findings = judgeClients(input.clients, input.settings, input.stack);
  return {
    tenant: input.tenant,
    readAt: input.readAt,
    source: input.source,
    stack: input.stack,
    clientCount: new Set(input.clients.map((client) => client.client_id)).size,
    settings: input.settings,
    findings,
  };
}

/** The counts of a report's findings. */
export function countsOf(report: AuditReport): FindingCounts {
  const byLevel: Record<FindingLevel, number> = { mandatory: 0, advisory: 0 };
  const byRule = Object.fromEntries(report.settings.map(({ rule }) => [rule.name, 0])) as Record<
    RuleName,
    number
  >;
  for (const finding of report.findings) {
    byLevel[finding.level] += 1;
    byRule[finding.rule] = (byRule[finding.rule] ?? 0) + 1;
  }
  return { findings: report.findings.length, byLevel, byRule };
}

/**
 * The exit statuses of `pulumi-tenant audit`, what a pipeline gates on: `passed` no finding at the
 * level that fails, `failed` one or more; the failures are every command's ({@link COMMAND_EXIT}).
 */
export const AUDIT_EXIT = {
  passed: COMMAND_EXIT.done,
  failed: COMMAND_EXIT.findings,
  usage: COMMAND_EXIT.usage,
  unreadable: COMMAND_EXIT.unreadable,
} as const;

/**
 * {@link AUDIT_EXIT}`.failed` when a finding is at a level that fails the audit: mandatory ones
 * always, advisory ones too with `failOn: "advisory"`; else `passed`. A rule turned off finds
 * nothing, and one whose level the config changed fails at its new level.
 */
export function exitStatusOfReport(report: AuditReport, failOn: FindingLevel): number {
  const failing: readonly FindingLevel[] =
    failOn === "advisory" ? ["mandatory", "advisory"] : ["mandatory"];
  return report.findings.some((finding) => failing.includes(finding.level))
    ? AUDIT_EXIT.failed
    : AUDIT_EXIT.passed;
}

/** The version of the JSON report's shape: raised only when a member changes meaning or goes. */
const JSON_REPORT_VERSION = 1;

/**
 * The JSON report (docs/design/policy.md, "The JSON report"): the shape a program reads and diffs.
 *
 * @internal
 */
export interface JsonReport {
  readonly format: "pulumi-tenant-audit";
  readonly version: typeof JSON_REPORT_VERSION;
  readonly tenant: { readonly domain: string | null; readonly name: string | null };
  readonly readAt: string | null;
  readonly source: AuditSource;
  readonly stack: string | null;
  readonly clients: number;
  readonly rules: readonly { readonly name: RuleName; readonly level: RuleLevel }[];
  readonly counts: FindingCounts;
  readonly findings: readonly {
    readonly rule: RuleName;
    readonly level: FindingLevel;
    readonly clientId: string;
    readonly clientName: string | null;
    readonly field: string;
    readonly value: unknown;
    readonly reason: string;
    readonly message: string;
  }[];
}

/**
 * The report as {@link JsonReport}: every member always present (`null` where unknown), in a
 * fixed order, so two audits of an unchanged tenant differ only in `readAt`.
 *
 * @internal
 */
export function jsonReportOf(report: AuditReport): JsonReport {
  return {
    format: "pulumi-tenant-audit",
    version: JSON_REPORT_VERSION,
    tenant: { domain: report.tenant.domain ?? null, name: report.tenant.name ?? null },
    readAt: report.readAt ?? null,
    source: report.source,
    stack: report.stack ?? null,
    clients: report.clientCount,
    rules: report.settings.map(({ rule, level }) => ({ name: rule.name, level })),
    counts: countsOf(report),
    findings: report.findings.map((finding) => ({
      rule: finding.rule,
      level: finding.level,
      clientId: finding.clientId,
      clientName: finding.clientName ?? null,
      field: finding.field,
      value: finding.value,
      reason: finding.reason,
      message: finding.message,
    })),
  };
}

/** {@link jsonReportOf} as text, two-space indented, with a final newline. */
export function renderJson(report: AuditReport): string {
  return `${JSON.stringify(jsonReportOf(report), null, 2)}\n`;
}
