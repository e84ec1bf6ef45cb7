/**
 * The kinds of small untruth the docs have held (issue 62), as pure checks over a Markdown file's
 * prose, for test/docs-claims.test.ts: a drift gate without `--diff` (a failing gate then says only
 * `~ 1 to update`), an exit status that the one table of them (docs/guides/commands.md, "Exit
 * statuses") contradicts, and a paragraph that starts in the middle of a sentence (what is left
 * when a move cuts one in two).
 */

/** One problem found, on a line of the file (from 1). */
export interface DocProblem {
  readonly line: number;
  readonly problem: string;
}

/** The lines of a Markdown text, with what is inside fenced code blocks marked as code. */
function linesOf(text: string): { text: string; code: boolean; fence: boolean }[] {
  let open: string | undefined;
  return text.split("\n").map((line) => {
    const fence = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (open === undefined && fence !== undefined) {
      open = fence;
      return { text: line, code: true, fence: true };
    }
    if (open !== undefined) {
      if (line.trim().startsWith(open) && line.trim().replace(/[`~]/g, "") === "") {
        open = undefined;
        return { text: line, code: true, fence: true };
      }
      return { text: line, code: true, fence: false };
    }
    return { text: line, code: false, fence: false };
  });
}

/**
 * Every drift gate of the text, in code or in prose (`pulumi refresh ... --expect-no-changes`),
 * that lacks `--diff`: without it, a failing gate shows the count of changes and not the fields.
 */
export function gatesWithoutDiff(text: string): DocProblem[] {
  const problems: DocProblem[] = [];
  linesOf(text).forEach(({ text: line }, index) => {
    for (const [gate] of line.matchAll(/pulumi refresh [^`#\n]*--expect-no-changes[^`#\n]*/g)) {
      if (!gate.includes("--diff")) {
        problems.push({ line: index + 1, problem: `a drift gate without --diff: ${gate.trim()}` });
      }
    }
  });
  return problems;
}

/**
 * The paragraphs of the text that start with a lower-case word right after a heading or after
 * another paragraph: a sentence cut in two. Lists, tables, quotes, indented text and the text
 * that continues a sentence around a code block are not paragraphs of that kind.
 */
export function paragraphsStartingMidSentence(text: string): DocProblem[] {
  const lines = linesOf(text);
  const problems: DocProblem[] = [];
  // What the last non-blank line was: a heading, prose, or something else (code, a list...).
  let before: "heading" | "prose" | "other" = "other";
  let blank = true;
  let frontMatter = lines[0]?.text === "---";
  lines.forEach(({ text: line, code }, index) => {
    if (frontMatter) {
      if (index > 0 && line === "---") frontMatter = false;
      return;
    }
    if (code) {
      before = "other";
      blank = false;
      return;
    }
    if (line.trim() === "") {
      blank = true;
      return;
    }
    const starts = blank;
    blank = false;
    if (/^#{1,6}\s/.test(line)) {
      before = "heading";
      return;
    }
    if (/^(\s|[-*+>|<!]|\d+[.)]\s|\[)/.test(line)) {
      before = "other";
      return;
    }
    if (starts && before !== "other" && /^\p{Ll}/u.test(line)) {
      problems.push({
        line: index + 1,
        problem: `a paragraph starts mid-sentence: ${line.slice(0, 60)}`,
      });
    }
    if (starts) before = "prose";
  });
  for (const paragraph of paragraphsOf(text)) {
    if (/^(\s|[-*+>|<!]|\d+[.)]\s|\[)/.test(paragraph.text)) continue;
    if (closesUnopened(paragraph.text)) {
      problems.push({
        line: paragraph.line,
        problem: `a paragraph starts mid-sentence (it closes a parenthesis it never opened): ${paragraph.text.slice(0, 60)}`,
      });
    }
  }
  return problems.sort((a, b) => a.line - b.line);
}

/** Whether a text, its code spans aside, closes a parenthesis before opening one. */
function closesUnopened(text: string): boolean {
  let depth = 0;
  for (const char of text.replace(/`[^`]*`/g, "")) {
    if (char === "(") depth += 1;
    if (char === ")") depth -= 1;
    if (depth < 0) return true;
  }
  return false;
}

/** What each exit status means, as commands.md's table says: the words its row is known by. */
export type ExitMeanings = ReadonlyMap<number, string>;

/**
 * The rows of the exit statuses' table (`| 0 | done |`) of docs/guides/commands.md, under its
 * heading "Exit statuses".
 */
export function exitTableOf(commandsMd: string): ExitMeanings {
  const section = commandsMd.split(/^## /m).find((part) => part.startsWith("Exit statuses"));
  const rows = new Map<number, string>();
  for (const [, status = "", meaning = ""] of (section ?? "").matchAll(/^\| (\d) \| (.*) \|$/gm)) {
    rows.set(Number(status), meaning);
  }
  return rows;
}

/**
 * The status commands.md gives to what a claim says (the words after the number), or undefined
 * when the words name none of its rows' outcomes: no finding is 0, a finding 1, a wrong command line or input
 * 2, a tenant that could not be read 3, written or done 0.
 */
export function statusOfOutcome(words: string): number | undefined {
  if (/\bno\b[^,;]*finding/.test(words)) return 0;
  if (/\bfinding/.test(words)) return 1;
  if (/command line|argument|\binput\b|usage|flag|option/.test(words)) return 2;
  if (/tenant/.test(words) && /fail|cannot|unreachable|refused|not be read/.test(words)) return 3;
  if (/^(?:written|done|when written|when done)\b/.test(words)) return 0;
  return undefined;
}

/**
 * The exit statuses a paragraph gives for this package's commands that commands.md's table
 * contradicts: `exits N when ...`, `Exit status N when ..., N when ...`. A paragraph about the
 * pulumi CLI's own statuses (the gate's 7) is not about them, and 1 is `audit`'s alone.
 */
export function contradictedExitStatuses(text: string, table: ExitMeanings): DocProblem[] {
  const problems: DocProblem[] = [];
  for (const paragraph of paragraphsOf(text)) {
    const exit = /\bexit(?:s| status(?:es)?)?\b/i.exec(paragraph.text);
    if (
      exit === null ||
      /\bpulumi (?:refresh|up|preview)|expect-no-changes|\b7\b/.test(paragraph.text)
    )
      continue;
    const context = `${paragraph.heading} ${paragraph.section}`;
    if (!COMMAND.test(context)) continue;
    const aboutAudit = /\baudit\b/i.test(context);
    for (const [, number = "", words = ""] of paragraph.text
      .slice(exit.index)
      .matchAll(/(?:^|[\s,(])([0-4]),?\s+((?:when|for|if|the|a|on)\b[^,;.()]*)/g)) {
      const status = Number(number);
      const meant = statusOfOutcome(words.trim().toLowerCase());
      const claim = `exit status ${status} ${words.trim()}`;
      if (status === 1 && !aboutAudit) {
        problems.push({
          line: paragraph.line,
          problem: `${claim}: commands.md gives 1 to audit only (${table.get(1) ?? "no row"})`,
        });
      } else if (meant !== undefined && meant !== status) {
        problems.push({
          line: paragraph.line,
          problem: `${claim}: commands.md gives that ${meant} (${table.get(meant) ?? "no row"})`,
        });
      }
    }
  }
  return problems;
}

/** A mention of one of this package's commands, whose exit statuses commands.md gives. */
const COMMAND =
  /pulumi-tenant|`(?:generate|snapshot|audit|local-tenant|plugin)`|\b(?:generate|snapshot|audit|local tenant)\b/i;

/**
 * The prose paragraphs of a text (each item of a list one), each with its first line and the
 * heading it is under, with the text of that heading's whole section.
 */
function paragraphsOf(
  text: string,
): { line: number; text: string; heading: string; section: string }[] {
  const paragraphs: { line: number; text: string; heading: string }[] = [];
  let heading = "";
  let open: { line: number; lines: string[]; heading: string } | undefined;
  const close = () => {
    if (open !== undefined) paragraphs.push({ ...open, text: open.lines.join(" ") });
    open = undefined;
  };
  linesOf(text).forEach(({ text: line, code }, index) => {
    if (code || line.trim() === "") {
      close();
      return;
    }
    if (/^#{1,6}\s/.test(line)) {
      close();
      heading = line;
      return;
    }
    // A list's items are paragraphs of their own.
    if (/^\s*(?:[-*+]|\d+[.)])\s/.test(line)) close();
    if (open === undefined) open = { line: index + 1, lines: [], heading };
    open.lines.push(line);
  });
  close();
  // The whole section's text, for what the paragraph is about when it does not say.
  const sections = new Map<string, string>();
  for (const { heading: h, text: t } of paragraphs)
    sections.set(h, `${sections.get(h) ?? ""} ${t}`);
  return paragraphs.map((p) => ({ ...p, section: sections.get(p.heading) ?? "" }));
}
