/**
 * The SARIF 2.1.0 log of `pulumi-tenant audit --format sarif`, for code-scanning dashboards: one
 * `rule` per policy of the pack with its help, one `result` per finding at its level. Pure.
 *
 * Written as a literal rather than through a SARIF builder library: the log is a handful of
 * members, and a builder would be one more runtime dependency of the package for them. The tests
 * check the output against the SARIF 2.1.0 JSON schema.
 *
 * Code scanning (GitHub's `upload-sarif`) takes only locations that are paths in the repository,
 * a relative URI or `file:`, so a finding is located at a path, never at a web address
 * (docs/guides/audit.md, "In a pipeline"): at the seed file when the audit judged one that is in
 * the working folder, else at `tenants/<host>/clients/<client id>`, a path that names the tenant
 * and the client and stays the same from one audit to the next. The management API's address of
 * the client and the field are the result's properties, and the field its logical location, so a
 * dashboard shows and groups findings by client.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { TenantRule } from "../policy/rule-types.js";
import type { Finding } from "./judge.js";
import type { FindingLevel, RuleLevel } from "./policy-config.js";
import type { AuditedTenant, AuditReport } from "./report.js";

/** Where the SARIF 2.1.0 schema is published, as logs name it in `$schema`. */
const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** A level of the pack as a SARIF level: mandatory stops a pipeline, advisory warns. */
const SARIF_LEVEL: Readonly<Record<FindingLevel, "error" | "warning">> = {
  mandatory: "error",
  advisory: "warning",
};

/** The first segment of a finding's path when no seed file in the working folder holds it. */
const TENANTS_FOLDER = "tenants";

/** The key of each result's fingerprint; its version changes only if what is hashed changes. */
const FINGERPRINT = "tenantFinding/v1";

/** What the log says about the tool, and where it ran. */
export interface SarifTool {
  /** This package's version. */
  readonly version: string;
  /**
   * The folder the audit ran in, which code scanning takes for the repository's root: a seed file
   * is named relative to it. Default: a seed file is named as given, when that is a relative path.
   */
  readonly root?: string | undefined;
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
 * A seed file's path as code scanning takes it (relative to `root`, `/` between the segments, no
 * `..`), or undefined when the file is not under `root`.
 *
 * @internal
 */
export function repositoryPathOf(file: string, root: string | undefined): string | undefined {
  const path = (root === undefined ? file : relative(root, resolve(root, file)))
    .split(sep)
    .join("/")
    .replace(/^(?:\.\/)+/, "");
  if (path === "" || isAbsolute(path) || /^[a-z]:/i.test(path)) return undefined;
  return path.split("/").includes("..") ? undefined : path;
}

/**
 * The path a finding about a client is located at when no seed file holds it:
 * `tenants/<host>/clients/<client id>`, each segment percent-encoded, the host being the tenant's
 * domain without its scheme (its name, or `unknown`, when the domain is not known).
 *
 * @internal
 */
export function tenantPathOf(tenant: AuditedTenant, clientId: string): string {
  const host =
    tenant.domain === undefined
      ? (tenant.name ?? "unknown")
      : tenant.domain.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/+$/, "");
  return [TENANTS_FOLDER, host, "clients", clientId].map(encodeURIComponent).join("/");
}

/** `{ [name]: value }`, or nothing when the value is undefined. */
function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}

/** The management API's address of a client, when the tenant's domain is known. */
function apiUrlOf(domain: string | undefined, clientId: string): string | undefined {
  return domain === undefined
    ? undefined
    : `${domain.replace(/\/+$/, "")}/api/v2/clients/${encodeURIComponent(clientId)}`;
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
  const seedPath =
    report.source.kind === "seed" ? repositoryPathOf(report.source.file, tool.root) : undefined;
  const uriOf = (clientId: string) => seedPath ?? tenantPathOf(report.tenant, clientId);
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
                artifactLocation: { uri: uriOf(finding.clientId) },
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
            ...optional("apiUrl", apiUrlOf(report.tenant.domain, finding.clientId)),
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
