/**
 * Every help text and message of the package sends its reader to documentation the reader has
 * (issue 62): the package ships README.md and CHANGELOG.md but not docs/ (package.json's
 * `files`), so every other file is named at its public address, the repository's page of it
 * (provider/docs-address.ts), which must be package.json's `repository`, and must be a file and a
 * heading the repository has. The strings are read with the TypeScript compiler from every
 * module of provider/, comments aside.
 */
import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { docAddress, REPOSITORY_URL } from "../provider/docs-address.js";
import { REPO_ROOT } from "./support/installed-package.js";
import { headingAnchors } from "./support/markdown.js";

const run = promisify(execFile);

/** A Markdown file or a docs/ path named in a string of the package's code. */
interface Mention {
  readonly where: string;
  readonly path: string;
  /** The string is the first argument of `docAddress(path, anchor?)`. */
  readonly addressed: boolean;
  readonly anchor: string | undefined;
}

let mentions: Mention[];
let manifest: { repository: { url: string }; files: string[] };

/** The mentions of docs in the string literals of one module. */
function mentionsOf(file: string, text: string): Mention[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Mention[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      const parent = node.parent;
      const call =
        ts.isCallExpression(parent) &&
        ts.isIdentifier(parent.expression) &&
        parent.expression.text === "docAddress"
          ? parent
          : undefined;
      const addressed = call !== undefined && call.arguments[0] === node;
      const anchorNode = call?.arguments[1];
      const anchor =
        anchorNode !== undefined && ts.isStringLiteral(anchorNode) ? anchorNode.text : undefined;
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      for (const [path] of node.text.matchAll(/(?:[\w.-]+\/)*[\w.-]+\.md\b|\bdocs\/[\w./-]+/g)) {
        found.push({ where: `${file}:${line}`, path, addressed, anchor });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

beforeAll(async () => {
  manifest = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8"));
  const { stdout } = await run("git", ["ls-files", "-co", "--exclude-standard", "provider/*.ts"], {
    cwd: REPO_ROOT,
  });
  mentions = [];
  for (const file of stdout.split("\n").filter((f) => f !== "")) {
    mentions.push(...mentionsOf(file, await readFile(join(REPO_ROOT, file), "utf8")));
  }
});

describe("the package's help texts and messages", () => {
  it("name the repository's public address, package.json's repository", () => {
    expect(`git+${REPOSITORY_URL}.git`).toBe(manifest.repository.url);
    expect(docAddress("docs/guides/commands.md", "exit-statuses")).toBe(
      "https://github.com/pulumi-tenant/pulumi-tenant/blob/main/docs/guides/commands.md#exit-statuses",
    );
  });

  it("name a file the package does not ship only at that address", () => {
    const shipped = manifest.files.filter((entry) => entry.endsWith(".md"));
    expect(shipped).toEqual(["README.md", "CHANGELOG.md"]);
    const bare = mentions
      .filter((m) => !m.addressed && !shipped.includes(m.path))
      .map((m) => `${m.where}: ${m.path}`);
    expect(bare).toEqual([]);
    expect(mentions.filter((m) => m.addressed).length).toBeGreaterThanOrEqual(7);
  });

  it("name at that address only files and headings the repository has", async () => {
    const missing: string[] = [];
    for (const mention of mentions.filter((m) => m.addressed)) {
      const file = join(REPO_ROOT, mention.path);
      if (
        !(await stat(file).then(
          () => true,
          () => false,
        ))
      ) {
        missing.push(`${mention.where}: ${mention.path}: no such file`);
        continue;
      }
      if (
        mention.anchor !== undefined &&
        !headingAnchors(await readFile(file, "utf8")).has(mention.anchor)
      ) {
        missing.push(`${mention.where}: ${mention.path}#${mention.anchor}: no such heading`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("would be caught naming docs/ bare", () => {
    expect(
      mentionsOf("x.ts", "const USAGE = `see docs/design/plugin.md`; // docs/design/policy.md\n"),
    ).toEqual([
      { where: "x.ts:1", path: "docs/design/plugin.md", addressed: false, anchor: undefined },
    ]);
  });
});
