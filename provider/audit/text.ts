/**
 * The text report of `pulumi-tenant audit` (`--format text`, the default): what was audited, the
 * counts, then a table grouped by client, each finding with its level, rule, field, value and why,
 * in the pack's words. For people; programs read the JSON. Pure.
 *
 * @module
 */

import { describeClient, type Finding } from "./judge.js";
import { type AuditReport, countsOf } from "./report.js";

/** `1 client`, `2 clients`: a number of things, in the report's and the command's sentences. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The first line: which tenant, from where, when, judged as which stack. */
function heading(report: AuditReport): string {
  const { name, domain } = report.tenant;
  const tenant =
    name !== undefined && domain !== undefined
      ? `tenant ${JSON.stringify(name)} (${domain})`
      : name !== undefined
        ? `tenant ${JSON.stringify(name)}`
        : (domain ?? "the tenant");
  const when =
    report.source.kind === "live"
      ? `read ${report.readAt ?? "now"}`
      : `from the seed ${report.source.file}${report.readAt === undefined ? "" : `, taken ${report.readAt}`}`;
  const stack = report.stack === undefined ? "" : `, as stack ${JSON.stringify(report.stack)}`;
  return `Audit of ${tenant}, ${when}${stack}`;
}

/** The second line: how much was judged, by which rules, and what was found. */
function summary(report: AuditReport): string {
  const on = report.settings.filter(({ level }) => level !== "disabled");
  const off = report.settings
    .filter(({ level }) => level === "disabled")
    .map(({ rule }) => rule.name);
  const judged =
    `${count(report.clientCount, "client")} judged by ${count(on.length, "rule")}` +
    (off.length === 0 ? "" : ` (turned off: ${off.join(", ")})`);
  const { findings, byLevel } = countsOf(report);
  if (findings === 0) return `${judged}: no finding`;
  const clients = new Set(report.findings.map((finding) => finding.clientId)).size;
  return (
    `${judged}: ${count(byLevel.mandatory, "mandatory finding")} and ` +
    `${count(byLevel.advisory, "advisory finding")}, on ${count(clients, "client")}`
  );
}

/** A finding's cells: level, rule, field, value (as JSON), why. */
function cells(finding: Finding): string[] {
  return [
    finding.level,
    finding.rule,
    finding.field,
    JSON.stringify(finding.value) ?? String(finding.value),
    finding.reason,
  ];
}

const HEADER = ["LEVEL", "RULE", "FIELD", "VALUE", "WHY"];

/** Rows padded to their columns' widths, the last column unpadded, each indented by two. */
function padded(rows: readonly string[][]): string[] {
  const widths = HEADER.map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? "").length)),
  );
  return rows.map(
    (row) =>
      `  ${row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
        )
        .join("  ")}`,
  );
}

/**
 * The text report: a heading, a summary, and when there are findings the table, one group per
 * client (in the tenant's order) under the client's name and id. Ends with a newline.
 */
export function renderText(report: AuditReport): string {
  const lines = [heading(report), summary(report)];
  if (report.findings.length > 0) {
    const rows = padded([HEADER, ...report.findings.map(cells)]);
    lines.push("", rows[0] ?? "");
    report.findings.forEach((finding, index) => {
      if (report.findings[index - 1]?.clientId !== finding.clientId) {
        lines.push(describeClient(finding.clientId, finding.clientName));
      }
      lines.push(rows[index + 1] ?? "");
    });
  }
  return `${lines.join("\n")}\n`;
}
