/**
 * Docs that stay true (issue 58): every relative link and heading anchor of every Markdown file
 * resolves, and every code block of the README, of the Registry's overview (docs/_index.md) and
 * of the examples in the package schema's resource descriptions (provider/plugin/resource-examples.ts)
 * is checked the way its language is: TypeScript with one tsc run against the package, Python with
 * one pyright run and Go with one `go vet` against the SDKs Pulumi's code generators make from the
 * schema, YAML loaded as a Pulumi YAML program whose resources pass the package's own `check`, and
 * shell commands parsed, with the npm scripts and the `tenant:` config keys they name existing. The
 * generated SDKs also show that the schema's descriptions reach users: a nested property's
 * description is in the Python SDK's docstrings and in the Go SDK's comments.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { packageSchema } from "../provider/plugin/package-schema.js";
import { RESOURCE_EXAMPLES } from "../provider/plugin/resource-examples.js";
import { checkInputs, type ResourceKind } from "../provider/schema/index.js";
import { INPUT_SCHEMAS } from "../provider/schema/kinds.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { REPO_ROOT } from "./support/installed-package.js";
import { type CodeBlock, codeBlocks, headingAnchors, markdownLinks } from "./support/markdown.js";
import { ensurePythonEnv, pyright } from "./support/python-env.js";
import { type GeneratedSdks, generateSdks, goModulePath } from "./support/sdk-gen.js";
import { runStep, runStepOrThrow } from "./support/steps.js";

const run = promisify(execFile);

/** The Markdown files whose code blocks must all be checked. */
const CHECKED_DOCS = ["README.md", join("docs", "_index.md")];

/**
 * The SDKs' generation (10 s on 2 cores), bounded as in sdk-gen.ts. tsc of the blocks (2 to 7 s)
 * is a `tsc` step, `go vet` of the Go blocks (under 1 s to 10 s, the Pulumi SDK's packages coming
 * from the build cache `npm ci` filled) a `goBuild` step, and pyright (1 to 2 s) is bounded by its
 * helper (python-env.ts): test/support/budgets.ts.
 */
const GENERATE_MS = 5 * 60_000;
const PYRIGHT_MS = 5 * 60_000;

/** A code block and where it was found, for the failure messages. */
interface Located extends CodeBlock {
  readonly where: string;
}

/** The languages the checks below know, by the info strings that name them. */
const LANGUAGE_OF: Readonly<Record<string, string>> = {
  ts: "typescript",
  typescript: "typescript",
  python: "python",
  go: "go",
  yaml: "yaml",
  sh: "sh",
  bash: "sh",
};

let work: string;
let blocks: Map<string, Located[]>;
let unknown: string[];
let schemaPath: string;
let sdks: GeneratedSdks;

/** Every Markdown file of the repository (tracked, or new and not ignored). */
async function markdownFiles(): Promise<string[]> {
  const { stdout } = await run("git", ["ls-files", "-co", "--exclude-standard", "*.md"], {
    cwd: REPO_ROOT,
  });
  return stdout.split("\n").filter((line) => line !== "");
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "docs-test-"));
  const found: Located[] = [];
  for (const doc of CHECKED_DOCS) {
    const text = await readFile(join(REPO_ROOT, doc), "utf8");
    found.push(...codeBlocks(text).map((block) => ({ ...block, where: `${doc}:${block.line}` })));
  }
  for (const [kind, example] of Object.entries(RESOURCE_EXAMPLES)) {
    for (const language of ["typescript", "python", "go", "yaml"] as const) {
      const where = `the schema's ${kind} example (${language})`;
      found.push({ language, code: example[language], line: 0, where });
    }
  }
  blocks = new Map();
  unknown = [];
  for (const block of found) {
    const language = LANGUAGE_OF[block.language];
    if (language === undefined) {
      unknown.push(`${block.where}: a \`\`\`${block.language} block`);
      continue;
    }
    blocks.set(language, [...(blocks.get(language) ?? []), block]);
  }
  schemaPath = join(work, "schema.json");
  await writeFile(schemaPath, JSON.stringify(packageSchema("0.1.0")));
  sdks = await generateSdks(schemaPath, join(work, "sdks"));
}, GENERATE_MS);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The blocks of one language; every checked document holds some of each but Go and Python. */
function blocksOf(language: string): Located[] {
  return blocks.get(language) ?? [];
}

describe("the Markdown files", () => {
  it("link only to files that exist and to headings those files have", async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(join(REPO_ROOT, file), "utf8");
      for (const { target, line } of markdownLinks(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...: not ours
        const [path = "", anchor] = target.split("#");
        const resolved =
          path === "" ? join(REPO_ROOT, file) : join(REPO_ROOT, dirname(file), decodeURI(path));
        if (!(await exists(resolved))) {
          broken.push(`${file}:${line}: ${target}: no such file`);
          continue;
        }
        if (anchor === undefined || !resolved.endsWith(".md")) continue;
        if (!headingAnchors(await readFile(resolved, "utf8")).has(anchor)) {
          broken.push(`${file}:${line}: ${target}: no such heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("hold in the README and the Registry's overview only code blocks of a language the docs test checks", () => {
    expect(unknown).toEqual([]);
  });
});

describe("the code blocks of the README, the Registry's overview and the schema's examples", () => {
  it(
    "type-check as TypeScript against the package, in one tsc run",
    async () => {
      const dir = join(work, "typescript");
      await mkdir(dir, { recursive: true });
      const files = blocksOf("typescript").map((_, index) => `block-${index}.ts`);
      await Promise.all(
        blocksOf("typescript").map((block, index) =>
          writeFile(join(dir, `block-${index}.ts`), `// ${block.where}\n${block.code}\n`),
        ),
      );
      const compilerOptions = {
        target: "ES2022",
        module: "node16",
        moduleResolution: "node16",
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: true,
        noEmit: true,
        types: ["node"],
        typeRoots: [join(REPO_ROOT, "node_modules", "@types")],
        // The package as a user's project resolves it: its built declarations.
        paths: { "pulumi-tenant": [join(REPO_ROOT, "dist", "provider", "index.d.ts")] },
      };
      await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
      const tsc = join(REPO_ROOT, "node_modules", ".bin", "tsc");
      const result = await runStep(tsc, ["-p", dir], {
        cwd: dir,
        boundMs: STEP_BOUNDS_MS.tsc,
        label: "tsc of the docs' TypeScript blocks",
      });
      expect(files.length).toBeGreaterThanOrEqual(5);
      expect(result.output).toBe("");
      expect(result.exitCode).toBe(0);
    },
    budget({ tsc: 1 }),
  );

  it(
    "type-check as Python under pyright against the Python SDK generated from the schema",
    async () => {
      const dir = join(work, "python");
      await mkdir(dir, { recursive: true });
      // The SDK's package in the folder pyright runs in, where a user's project would have it.
      await symlink(join(sdks.python, "pulumi_tenant"), join(dir, "pulumi_tenant"));
      const files = await Promise.all(
        blocksOf("python").map(async (block, index) => {
          const file = join(dir, `block_${index}.py`);
          await writeFile(file, `# ${block.where}\n${block.code}\n`);
          return file;
        }),
      );
      const { python } = await ensurePythonEnv();
      const findings = await pyright(python, files, process.env, dir);
      expect(files.length).toBeGreaterThanOrEqual(4);
      expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    },
    PYRIGHT_MS,
  );

  it(
    "pass go vet as programs on the Go SDK generated from the schema",
    async () => {
      const dir = join(work, "go");
      await mkdir(dir, { recursive: true });
      // The module that builds a generated Go SDK in sdk-gen.ts: its go.sum covers what the SDK needs.
      const programGo = join(REPO_ROOT, "test", "sdk-gen", "program-go");
      for (const name of ["go.mod", "go.sum", "deps.go"]) {
        await copyFile(join(programGo, name), join(dir, name));
      }
      for (const [index, block] of blocksOf("go").entries()) {
        await mkdir(join(dir, `block${index}`));
        await writeFile(
          join(dir, `block${index}`, "main.go"),
          `// ${block.where}\n${block.code}\n`,
        );
      }
      const modulePath = await goModulePath(sdks);
      const env = {
        ...process.env,
        GOTOOLCHAIN: "local",
        GOPROXY: "off",
        GOFLAGS: "-mod=mod",
        CGO_ENABLED: "0",
      };
      await runStepOrThrow(
        "go",
        ["mod", "edit", `-require=${modulePath}@v0.0.0`, `-replace=${modulePath}=${sdks.go}`],
        { cwd: dir, env, boundMs: STEP_BOUNDS_MS.node },
      );
      const result = await runStep("go", ["vet", "-trimpath", "./..."], {
        cwd: dir,
        env,
        boundMs: STEP_BOUNDS_MS.goBuild,
        label: "go vet of the docs' Go blocks",
      });
      expect(blocksOf("go").length).toBeGreaterThanOrEqual(4);
      expect(result.output).toBe("");
      expect(result.exitCode).toBe(0);
    },
    budget({ node: 1, goBuilds: 1 }),
  );

  it("load as Pulumi YAML whose every resource is one of the package's and passes its check", () => {
    const failures: string[] = [];
    for (const block of blocksOf("yaml")) {
      const program = parse(block.code) as { resources?: Record<string, unknown> };
      const resources = Object.entries(program.resources ?? {});
      if (resources.length === 0) failures.push(`${block.where}: declares no resource`);
      for (const [name, resource] of resources) {
        const { type, properties = {} } = resource as {
          type: string;
          properties?: Record<string, unknown>;
        };
        const kind = /^tenant:index:(\w+)$/.exec(type)?.[1];
        if (kind === undefined || !(kind in INPUT_SCHEMAS)) {
          failures.push(`${block.where}: ${name} is of type ${type}, not one of the package's`);
          continue;
        }
        for (const failure of checkInputs(kind as ResourceKind, properties).failures) {
          failures.push(`${block.where}: ${name}: ${failure.property} ${failure.reason}`);
        }
      }
    }
    expect(blocksOf("yaml").length).toBeGreaterThanOrEqual(5);
    expect(failures).toEqual([]);
  });

  it("parse as shell, naming only npm scripts and tenant: config keys that exist", async () => {
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const keys = Object.keys(
      (packageSchema("0.1.0") as unknown as { config: { variables: Record<string, unknown> } })
        .config.variables,
    );
    const failures: string[] = [];
    for (const block of blocksOf("sh")) {
      await run("bash", ["-n", "-c", block.code]).catch((error: { stderr?: string }) => {
        failures.push(`${block.where}: ${String(error.stderr ?? error).trim()}`);
      });
      for (const [, script = ""] of block.code.matchAll(/\bnpm run ([\w:-]+)/g)) {
        if (!(script in manifest.scripts)) failures.push(`${block.where}: no npm script ${script}`);
      }
      for (const [, key = ""] of block.code.matchAll(/\btenant:(\w+)/g)) {
        if (!keys.includes(key)) failures.push(`${block.where}: no config key tenant:${key}`);
      }
    }
    expect(blocksOf("sh").length).toBeGreaterThanOrEqual(2);
    expect(failures).toEqual([]);
  });
});

describe("the SDKs generated from the schema", () => {
  const description = (
    packageSchema("0.1.0") as unknown as {
      types: Record<string, { properties: Record<string, { description?: string }> }>;
    }
  ).types["tenant:index:ClientSettingsJwtConfiguration"]?.properties.lifetimeInSeconds?.description;

  it("carry a nested property's description into the Python SDK's docstrings", async () => {
    const inputs = await readFile(join(sdks.python, "pulumi_tenant", "_inputs.py"), "utf8");
    expect(description).toBe("How long the ID tokens issued to the client stay valid, in seconds.");
    expect(inputs).toContain(
      `:param pulumi.Input[_builtins.int] lifetime_in_seconds: ${description}`,
    );
  });

  it("carry a nested property's description into the Go SDK's comments", async () => {
    const types = await readFile(join(sdks.go, "tenant", "pulumiTypes.go"), "utf8");
    expect(types).toContain(
      `\t// ${description}\n\tLifetimeInSeconds *int \`pulumi:"lifetimeInSeconds"\``,
    );
  });
});
