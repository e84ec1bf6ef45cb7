/**
 * docs/guides/testing-your-program.md runs as written (issue 62): its test file is
 * examples/testing/tenant.test.ts word for word, which test/e2e-testing-kit.test.ts runs with
 * vitest in a fresh project, with no vitest config of its own (the file says its timeouts); and
 * it lists every option of `startLocalTenant`, as the type `LocalTenantOptions` has them (read
 * with the TypeScript compiler, so an option added to the type fails this test until the guide
 * names it).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/installed-package.js";
import { codeBlocks } from "./support/markdown.js";

const GUIDE = join(REPO_ROOT, "docs", "guides", "testing-your-program.md");
const EXAMPLE = join(REPO_ROOT, "examples", "testing");

let guide: string;

beforeAll(async () => {
  guide = await readFile(GUIDE, "utf8");
});

/** The members of an interface of a module, by the compiler's reading of its source. */
function interfaceMembers(file: string, text: string, name: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = source.statements.find(
    (node): node is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(node) && node.name.text === name,
  );
  if (found === undefined) throw new Error(`${file} declares no interface ${name}`);
  return found.members.flatMap((member) =>
    member.name !== undefined && ts.isIdentifier(member.name) ? [member.name.text] : [],
  );
}

/** The option names the guide's list of options gives: each item's first code span. */
function listedOptions(text: string): string[] {
  const section = text.slice(text.indexOf("Its options, every one optional:"));
  const list = section.slice(0, section.indexOf("\n\n", section.indexOf("\n- ")));
  return [...list.matchAll(/^- `(\w+)`/gm)].map(([, name]) => name ?? "");
}

describe("the testing guide", () => {
  it("gives as its test file examples/testing/tenant.test.ts, word for word", async () => {
    const blocks = codeBlocks(guide).filter((block) => block.language === "ts");
    const file = await readFile(join(EXAMPLE, "tenant.test.ts"), "utf8");
    expect(blocks.map((block) => `${block.code}\n`)).toEqual([file]);
  });

  it("needs no vitest config beside it: the file says the timeouts its steps need", async () => {
    const names = await readdir(EXAMPLE);
    expect(names.filter((name) => name.startsWith("vitest.config"))).toEqual([]);
    const file = await readFile(join(EXAMPLE, "tenant.test.ts"), "utf8");
    expect(file).toContain("const STEP_MS = 180_000;");
    expect(file).toContain('describe("the tenant program", { timeout: STEP_MS }, () => {');
    expect(file.match(/}, STEP_MS\);/g)).toHaveLength(2);
  });

  it("lists every option of startLocalTenant, as its type has them", async () => {
    const kit = join("provider", "local-tenant", "kit-options.ts");
    const members = interfaceMembers(
      kit,
      await readFile(join(REPO_ROOT, kit), "utf8"),
      "LocalTenantOptions",
    );
    expect(members.length).toBeGreaterThanOrEqual(11);
    expect(listedOptions(guide).sort()).toEqual([...members].sort());
  });

  it("would be caught listing fewer options than the type has", () => {
    const text =
      "Its options, every one optional:\n\n- `seed`: a seed;\n- `port`: a port.\n\nNext.";
    expect(listedOptions(text)).toEqual(["seed", "port"]);
    expect(
      interfaceMembers(
        "x.ts",
        "export interface LocalTenantOptions { seed?: string; quirks?: string }",
        "LocalTenantOptions",
      ),
    ).toEqual(["seed", "quirks"]);
  });
});
