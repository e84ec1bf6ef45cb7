/**
 * The SARIF 2.1.0 log of `pulumi-tenant audit --format sarif`, for code-scanning dashboards: one
 * `rule` per policy of the pack with its help, one `result` per finding at its level. Pure.
 *
 * Written as a literal rather than through a SARIF builder library: the log is a handful of
 * members, and a builder would be one more runtime dependency of the package for them. The tests
 * check the output against the SARIF 2.1.0 JSON schema.
 *
 * There is no source file to point at: a finding's location is the client itself, as the URL of
 * the management API's client (`https://<domain>/api/v2/clients/<id>`), with the field as a
 * logical location, so a dashboard shows and groups findings by client.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { TenantRule } from "../policy/rule-types.js";
import type { Finding } from "./judge.js";
import type { FindingLevel, RuleLevel } from "./policy-config.js";
import type { AuditReport } from "./report.js";

/** Where the SARIF 2.1.0 schema is published, as logs name it in `$schema`. */
const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** A level of the pack as a SARIF level: mandatory stops a pipeline, advisory warns. */
const SARIF_LEVEL: Readonly<Record<FindingLevel, "error" | "warning">> = {
  mandatory: "error",
  advisory: "warning",
};

/** The base of the artifact URIs when the tenant's domain is not known (a hand-written seed). */
const TENANT_BASE = "TENANT";

/** The key of each result's fingerprint; its version changes only if what is hashed changes. */
const FINGERPRINT = "tenantFinding/v1";

/** What the log says about the tool. */
export interface SarifTool {
  /** This package's version. */
  readonly version: string;
}

/** A rule's default configuration in the log: its level, or not enabled. */
function configurationOf(level: RuleLevel): { enabled: false } | { level: "error" | "warning" } {
  return level === "disabled" ? { enabled: false } : { level: SARIF_LEVEL[level] };
}

/**
 * A rule's help in the log: its description, why it exists and has its level, and the
 * specification it rests on with its address, which `helpUri` carries too.
 */
function helpOf(rule: TenantRule): string {
  const text = `${rule.description} ${rule.help}`;
  const { reference } = rule;
  return reference === undefined
    ? text
    : `${text} Specification: ${reference.title}, ${reference.url}`;
}

/**
 * The artifact a finding is about: the client's URL in the tenant's management API, or, when the
 * domain is not known, `clients/<id>` relative to {@link TENANT_BASE}.
 */
function artifactOf(domain: string | undefined, clientId: string) {
  const path = `clients/${encodeURIComponent(clientId)}`;
  return domain === undefined
    ? { uri: path, uriBaseId: TENANT_BASE }
    : { uri: `${domain.replace(/\/+$/, "")}/api/v2/${path}` };
}

/**
 * What identifies a finding across audits, whatever else changes (its message's wording, the
 * client's name): the rule, the client, the field and the value.
 */
function fingerprintOf(finding: Finding): string {
  return createHash("sha256")
    .update(JSON.stringify([finding.rule, finding.clientId, finding.field, finding.value]))
    .digest("hex");
}

/**
 * The report as a SARIF 2.1.0 log (one run), as an object. Every rule of the pack is in
 * `tool.driver.rules`, a rule turned off with `enabled: false`; each result names its rule by id
 * and index, and carries the client, field and value in its properties.
 *
 * @internal
 */
export function sarifLogOf(report: AuditReport, tool: SarifTool) {
  const index = new Map(report.settings.map(({ rule }, i) => [rule.name, i]));
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0" as const,
    runs: [
      {
        tool: {
          driver: {
            name: "pulumi-tenant audit",
            version: tool.version,
            semanticVersion: tool.version,
            rules: report.settings.map(({ rule, level }) => ({
              id: rule.name,
              shortDescription: { text: rule.description },
              fullDescription: { text: rule.help },
              help: { text: helpOf(rule) },
              ...(rule.reference === undefined ? {} : { helpUri: rule.reference.url }),
              defaultConfiguration: configurationOf(level),
              properties: { tags: ["security"], enforcementLevel: level },
            })),
          },
        },
        ...(report.tenant.domain === undefined
          ? {
              originalUriBaseIds: {
                [TENANT_BASE]: { description: { text: "The audited tenant's management API." } },
              },
            }
          : {}),
        invocations: [{ executionSuccessful: true }],
        results: report.findings.map((finding) => ({
          ruleId: finding.rule,
          ruleIndex: index.get(finding.rule) ?? -1,
          level: SARIF_LEVEL[finding.level],
          kind: "fail" as const,
          message: { text: finding.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: artifactOf(report.tenant.domain, finding.clientId),
              },
              logicalLocations: [
                {
                  name: finding.field,
                  fullyQualifiedName: `clients/${finding.clientId}/${finding.field}`,
                  kind: "member",
                },
              ],
            },
          ],
          partialFingerprints: { [FINGERPRINT]: fingerprintOf(finding) },
          properties: {
            clientId: finding.clientId,
            ...(finding.clientName === undefined ? {} : { clientName: finding.clientName }),
            field: finding.field,
            value: finding.value,
            enforcementLevel: finding.level,
          },
        })),
        properties: {
          tenant: { domain: report.tenant.domain ?? null, name: report.tenant.name ?? null },
          readAt: report.readAt ?? null,
          source: report.source,
          stack: report.stack ?? null,
          clients: report.clientCount,
        },
      },
    ],
  };
}

/** {@link sarifLogOf} as text, two-space indented, with a final newline. */
export function renderSarif(report: AuditReport, tool: SarifTool): string {
  return `${JSON.stringify(sarifLogOf(report, tool), null, 2)}\n`;
}
