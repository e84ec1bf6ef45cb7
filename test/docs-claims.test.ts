/**
 * The docs' small untruths, caught by kind (issue 62): no drift gate without `--diff`, no exit
 * status in a guide or design note that the one table of them (docs/guides/commands.md, "Exit
 * statuses") contradicts, and no paragraph that starts mid-sentence. Each check is shown to catch
 * the mistake it names on a text that has it.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import {
  contradictedExitStatuses,
  type DocProblem,
  type ExitMeanings,
  exitTableOf,
  gatesWithoutDiff,
  paragraphsStartingMidSentence,
} from "./support/doc-claims.js";
import { REPO_ROOT } from "./support/installed-package.js";

const run = promisify(execFile);

/** The exit statuses' one table. */
const COMMANDS_MD = join("docs", "guides", "commands.md");

let files: Map<string, string>;
let table: ExitMeanings;

beforeAll(async () => {
  const { stdout } = await run("git", ["ls-files", "-co", "--exclude-standard", "*.md"], {
    cwd: REPO_ROOT,
  });
  files = new Map();
  // The changelog tells what was so then: its old commands are history, not advice.
  for (const file of stdout.split("\n").filter((f) => f !== "" && f !== "CHANGELOG.md")) {
    files.set(file, await readFile(join(REPO_ROOT, file), "utf8"));
  }
  table = exitTableOf(files.get(COMMANDS_MD) ?? "");
});

/** Every problem `check` finds in every Markdown file, as `file:line: problem`. */
function everywhere(check: (text: string, file: string) => DocProblem[]): string[] {
  return [...files].flatMap(([file, text]) =>
    check(text, file).map(({ line, problem }) => `${file}:${line}: ${problem}`),
  );
}

describe("the drift gates of the docs", () => {
  it("all show the fields that drifted (--diff)", () => {
    expect(everywhere(gatesWithoutDiff)).toEqual([]);
  });

  it("would be caught without --diff", () => {
    expect(
      gatesWithoutDiff("```sh\npulumi refresh --preview-only --expect-no-changes\n```\n"),
    ).toEqual([
      {
        line: 2,
        problem: "a drift gate without --diff: pulumi refresh --preview-only --expect-no-changes",
      },
    ]);
  });
});

describe("the exit statuses the docs give", () => {
  it("come from one table, commands.md's, which has a row for each status from 0 to 4", () => {
    expect([...table.keys()]).toEqual([0, 1, 2, 3, 4]);
  });

  it("are the ones that table gives", () => {
    expect(
      everywhere((text, file) =>
        file === COMMANDS_MD ? [] : contradictedExitStatuses(text, table),
      ),
    ).toEqual([]);
  });

  it("are cited from that table by every guide that gives them", () => {
    const uncited = [...files]
      .filter(([file]) => file.startsWith("docs/guides/") && file !== COMMANDS_MD)
      .filter(([, text]) => /\bexits? (?:status )?[0-4]\b[^7]*\b[0-4] (?:when|for)\b/.test(text))
      .filter(([, text]) => !text.includes("commands.md#exit-statuses"))
      .map(([file]) => file);
    expect(uncited).toEqual([]);
  });

  it("would be caught saying generate exits 1 when the tenant fails", () => {
    expect(
      contradictedExitStatuses(
        "`generate` writes the project.\nExit status 0 when written, 1 when the tenant fails, 2 for a wrong command line.\n",
        table,
      ),
    ).toEqual([
      {
        line: 1,
        problem:
          "exit status 1 when the tenant fails: commands.md gives 1 to audit only (`audit` only: a finding at the level `--fail-on` names (default: mandatory))",
      },
    ]);
    expect(
      contradictedExitStatuses("The audit exits 2 when the tenant cannot be read.\n", table),
    ).toEqual([
      {
        line: 1,
        problem: `exit status 2 when the tenant cannot be read: commands.md gives that 3 (${table.get(3)})`,
      },
    ]);
  });
});

describe("the paragraphs of the docs", () => {
  it("all start at the start of a sentence", () => {
    expect(everywhere(paragraphsStartingMidSentence)).toEqual([]);
  });

  it("would be caught starting mid-sentence after a heading or a paragraph, not after a code block or in a list", () => {
    const text = [
      "## Making a release",
      "",
      "SDK's two files go to the index.",
      "",
      "files go to the index.",
      "",
      "```sh",
      "npm run plugin-release",
      "```",
      "",
      "then upload them.",
      "",
      "- a list item",
      "",
    ].join("\n");
    expect(paragraphsStartingMidSentence(text)).toEqual([
      { line: 5, problem: "a paragraph starts mid-sentence: files go to the index." },
    ]);
    expect(paragraphsStartingMidSentence("## Making a release\n\nsDK's two files.\n")).toEqual([
      { line: 3, problem: "a paragraph starts mid-sentence: sDK's two files." },
    ]);
  });
});
