/**
 * The printed summary, close to Pulumi's non-interactive output: a header, one line per resource
 * that changes (symbol, type, name, operation, changed properties), the stack outputs with secrets
 * shown as `[secret]`, diagnostics, and the counts per operation.
 */

import { displayType } from "./steps.js";
import type { EngineCommand, StepOp, StepResult } from "./types.js";
import { isSecret, type PropertyMap, type PropertyValue, UNKNOWN } from "./values.js";

/** What the summary shows. */
export interface SummaryInput {
  command: EngineCommand;
  stack: string;
  /** True for preview and refresh --preview-only: operations read "would". */
  dryRun: boolean;
  steps: readonly StepResult[];
  stackOutputs?: PropertyMap | undefined;
  /** Warnings and errors the program logged. */
  diagnostics: readonly string[];
  error?: string | undefined;
}

const SYMBOLS: Record<StepOp, string> = {
  same: " ",
  create: "+",
  update: "~",
  replace: "+-",
  delete: "-",
  read: ">",
  refresh: "~",
};

const PAST: Record<StepOp, string> = {
  same: "unchanged",
  create: "created",
  update: "updated",
  replace: "replaced",
  delete: "deleted",
  read: "read",
  refresh: "refreshed",
};

const ORDER: StepOp[] = ["create", "update", "replace", "delete", "read"];

function header(command: EngineCommand, dryRun: boolean, stack: string): string {
  switch (command) {
    case "preview":
      return `Previewing update (${stack}):`;
    case "up":
      return dryRun ? `Previewing update (${stack}):` : `Updating (${stack}):`;
    case "refresh":
      return dryRun ? `Previewing refresh (${stack}):` : `Refreshing (${stack}):`;
    case "destroy":
      return dryRun ? `Previewing destroy (${stack}):` : `Destroying (${stack}):`;
  }
}

/** `v` for display: secrets as `[secret]`, unknowns as `[unknown]`. */
function displayValue(v: PropertyValue): unknown {
  if (isSecret(v)) return "[secret]";
  if (v === UNKNOWN) return "[unknown]";
  if (Array.isArray(v)) return v.map(displayValue);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, displayValue(x)]));
  }
  return v;
}

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/** Counts of the completed steps per op (failed steps are not counted, as in Pulumi). */
export function countSteps(steps: readonly StepResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of steps) if (s.ok) counts[s.op] = (counts[s.op] ?? 0) + 1;
  return counts;
}

/** Renders the summary. */
export function renderSummary(input: SummaryInput): string {
  const lines = [header(input.command, input.dryRun, input.stack)];
  const rows: string[][] = [];
  for (const s of input.steps) {
    if (s.op === "same" && s.ok) continue;
    const word = input.dryRun ? s.op : PAST[s.op];
    const status = s.ok ? word : `${s.op} **failed**`;
    const changed = s.changedProperties.length > 0 ? `[${s.changedProperties.join(", ")}]` : "";
    rows.push([` ${SYMBOLS[s.op]}`, displayType(s.type), s.name, status, changed]);
  }
  lines.push(...table(rows));

  const outputs = Object.entries(input.stackOutputs ?? {});
  if (outputs.length > 0) {
    lines.push("", "Outputs:");
    const width = Math.max(...outputs.map(([k]) => k.length));
    for (const [k, v] of outputs) {
      lines.push(`    ${k.padEnd(width)}: ${JSON.stringify(displayValue(v))}`);
    }
  }

  const failed = input.steps.filter((s) => !s.ok);
  if (failed.length > 0 || input.diagnostics.length > 0) {
    lines.push("", "Diagnostics:");
    for (const s of failed) {
      lines.push(`  ${displayType(s.type)} (${s.name}):`);
      for (const l of `error: ${s.error ?? "failed"}`.split("\n")) lines.push(`    ${l}`);
    }
    for (const d of input.diagnostics) for (const l of d.split("\n")) lines.push(`  ${l}`);
  }

  const counts = countSteps(input.steps);
  lines.push("", "Resources:");
  for (const op of ORDER) {
    const n = counts[op];
    if (!n) continue;
    lines.push(`    ${SYMBOLS[op]} ${n} ${input.dryRun ? `to ${op}` : PAST[op]}`);
  }
  if (counts.same) lines.push(`    ${counts.same} unchanged`);
  if (input.error) {
    // An error already shown above (a failed step, a program error) is not repeated in full.
    const shown =
      failed.some((s) => input.error?.includes(s.error ?? "\0")) ||
      input.diagnostics.some((d) => d.includes(input.error ?? "\0"));
    const text = shown ? `${input.command} failed` : input.error;
    lines.push("", ...text.split("\n").map((l, i) => (i === 0 ? `error: ${l}` : `  ${l}`)));
  }
  return `${lines.join("\n")}\n`;
}
