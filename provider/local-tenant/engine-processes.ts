/**
 * The Pulumi engine's processes that a test leaves behind, and their end: a test that times out or
 * fails in the middle of `stack.up()` leaves the pulumi CLI running with its language host, the
 * program and the dynamic-provider host (`node …/@pulumi/pulumi/cmd/dynamic-provider/index.js`),
 * which outlive the test runner with parent pid 1 once it exits. The testing kit's `stop()` ends
 * them (docs/guides/testing-your-program.md): every pulumi process that descends from this one,
 * with everything it started. Which processes those are is a pure decision
 * ({@link engineProcessesOf}); reading the process table and signalling are the thin rest.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/**
 * One row of the process table.
 *
 * @internal
 */
export interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  /** The command line, its words joined by spaces. */
  readonly command: string;
}

/**
 * Whether a command line is one of the engine's: the pulumi CLI or one of its plugins
 * (`pulumi-language-nodejs`, `pulumi-resource-*`, `pulumi-analyzer-*`), or the Node.js SDK's
 * dynamic-provider host.
 *
 * @internal
 */
export function isEngineCommand(command: string): boolean {
  // The executable, or the script an interpreter runs (a plugin may be a shell script).
  const names = command
    .split(" ")
    .slice(0, 2)
    .map((word) => word.slice(Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\")) + 1));
  return (
    names.some(
      (name) =>
        name === "pulumi" ||
        name === "pulumi.exe" ||
        name.startsWith("pulumi-language-") ||
        name.startsWith("pulumi-resource-") ||
        name.startsWith("pulumi-analyzer-"),
    ) || /[/\\]@pulumi[/\\]pulumi[/\\]cmd[/\\]dynamic-provider\b/.test(command)
  );
}

/**
 * The processes to end: each engine process ({@link isEngineCommand}) that descends from `root`,
 * and every process that descends from one of them (the program its language host runs, the
 * provider hosts), deepest first. `root` itself and its other children are never among them.
 *
 * @internal
 */
export function engineProcessesOf(table: readonly ProcessRow[], root: number): number[] {
  const children = new Map<number, ProcessRow[]>();
  for (const row of table) {
    if (row.pid === row.ppid) continue;
    children.set(row.ppid, [...(children.get(row.ppid) ?? []), row]);
  }
  const found: { pid: number; depth: number }[] = [];
  const walk = (pid: number, depth: number, inEngine: boolean, seen: Set<number>) => {
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      const engine = inEngine || isEngineCommand(child.command);
      if (engine) found.push({ pid: child.pid, depth });
      walk(child.pid, depth + 1, engine, seen);
    }
  };
  walk(root, 0, false, new Set([root]));
  return found.sort((a, b) => b.depth - a.depth).map(({ pid }) => pid);
}

/** The process table: from /proc on Linux, from `ps` elsewhere; empty where neither answers. */
function processTable(): ProcessRow[] {
  try {
    if (process.platform === "linux") {
      const rows: ProcessRow[] = [];
      for (const name of readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        try {
          const stat = readFileSync(`/proc/${name}/stat`, "utf8");
          // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
          const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
          const command = readFileSync(`/proc/${name}/cmdline`, "utf8")
            .split("\0")
            .filter((word) => word !== "")
            .join(" ");
          rows.push({ pid: Number(name), ppid, command });
        } catch {
          // The process ended while the table was read.
        }
      }
      return rows;
    }
    if (process.platform === "win32") return [];
    return execFileSync("ps", ["-A", "-o", "pid=,ppid=,command="], { encoding: "utf8" })
      .split("\n")
      .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
      .filter((match) => match !== null)
      .map(([, pid, ppid, command]) => ({
        pid: Number(pid),
        ppid: Number(ppid),
        command: command ?? "",
      }));
  } catch {
    return [];
  }
}

/**
 * Ends (SIGKILL) the engine's processes that descend from this process, and returns their pids.
 * A process that has already ended is passed over.
 */
export function endEngineProcesses(): number[] {
  const pids = engineProcessesOf(processTable(), process.pid);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  return pids;
}
