/**
 * What the docs test (test/docs.test.ts) reads in a Markdown file: its headings' anchors as GitHub
 * makes them, its links, and its fenced code blocks, code spans and fences being no place for a
 * link or a heading.
 */

/** One fenced code block: its language (the info string's first word) and text. */
export interface CodeBlock {
  readonly language: string;
  readonly code: string;
  /** The line of its opening fence, from 1. */
  readonly line: number;
}

/** One link or image of a Markdown file: where it points and on which line. */
interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

/** A Markdown file split into its prose lines (fences blanked) and its code blocks. */
interface Parsed {
  readonly prose: string[];
  readonly blocks: CodeBlock[];
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/;

function parse(text: string): Parsed {
  const lines = text.split("\n");
  const prose: string[] = [];
  const blocks: CodeBlock[] = [];
  let open: { fence: string; language: string; line: number; code: string[] } | undefined;
  // The front matter of the Registry's pages (`---` ... `---` at the top) is neither.
  let frontMatter = lines[0] === "---";
  lines.forEach((line, index) => {
    if (frontMatter) {
      prose.push("");
      if (index > 0 && line === "---") frontMatter = false;
      return;
    }
    const fence = FENCE.exec(line);
    if (open === undefined && fence?.[1] !== undefined) {
      open = { fence: fence[1], language: fence[2] ?? "", line: index + 1, code: [] };
      prose.push("");
      return;
    }
    if (open !== undefined) {
      if (line.trim().startsWith(open.fence) && line.trim().replace(/[`~]/g, "") === "") {
        blocks.push({ language: open.language, code: open.code.join("\n"), line: open.line });
        open = undefined;
      } else {
        open.code.push(line);
      }
      prose.push("");
      return;
    }
    prose.push(line);
  });
  return { prose, blocks };
}

/** The fenced code blocks of a Markdown text, in order. */
export function codeBlocks(text: string): CodeBlock[] {
  return parse(text).blocks;
}

/** A heading's text as GitHub renders it: links by their text, emphasis and code marks gone. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`]/g, "")
    .trim();
}

/**
 * GitHub's anchor of a heading: lower case, every character but letters, digits, spaces, `-` and
 * `_` dropped, spaces made `-`; a repeated anchor gets `-1`, `-2`, ...
 */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown text's headings (`#` to `######` outside code blocks). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of parse(text).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const base = slug(headingText(heading[1]));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The links and images of a Markdown text (`[text](target)`), outside code blocks and spans. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  parse(text).prose.forEach((line, index) => {
    const withoutCode = line.replace(/`[^`]*`/g, "");
    for (const match of withoutCode.matchAll(
      /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
    )) {
      if (match[1] !== undefined) links.push({ target: match[1], line: index + 1 });
    }
  });
  return links;
}
