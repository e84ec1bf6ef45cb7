/**
 * The promise of `pulumi-tenant generate`, end to end, as a user meets it: the packed
 * package installed in a fresh project, its `pulumi-tenant` command run with read-only
 * credentials, and the generated project run through Pulumi's own runtime and dynamic-provider
 * host (the real pulumi CLI). For the generated project, `preview` shows only creates, `up`
 * sends no write to the tenant, and `refresh --preview-only --expect-no-changes` succeeds; on the
 * default local tenant and on one whose clients use every field kind.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TenantApi, TenantApiOptions } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { CLIENT_SETTINGS_FIELDS } from "../provider/schema/index.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { type Stack, startStack } from "./support/e2e.js";
import { type InstalledProject, installPackedPackage } from "./support/installed-package.js";
import { RICH_IDS, RICH_SECRETS, RICH_SEED } from "./support/rich-tenant.js";

const run = promisify(execFile);

let project: InstalledProject;
let s: Stack | undefined;
const temps: string[] = [];

beforeAll(
  async () => {
    project = await installPackedPackage(["typescript", "ts-node"]);
  },
  budget({ installs: 1 }),
);
afterEach(async () => {
  await s?.stop();
  s = undefined;
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
afterAll(async () => {
  await project?.remove();
});

interface Generated {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The folder it wrote to. */
  readonly out: string;
}

/**
 * Runs the installed `pulumi-tenant generate` against `api` with the read-only credentials
 * (read:clients, read:guardian_factors, read:event_streams) from the environment, as a user would.
 */
async function generate(
  api: TenantApi,
  args: readonly string[] = [],
  out?: string,
  env: Record<string, string | undefined> = {},
): Promise<Generated> {
  const dir = out ?? (await mkdtemp(join(tmpdir(), "tenant-generated-")));
  if (out === undefined) temps.push(dir);
  const bin = join(project.dir, "node_modules", ".bin", "pulumi-tenant");
  const child = run(bin, ["generate", "--out", dir, ...args], {
    cwd: project.dir,
    timeout: STEP_BOUNDS_MS.node,
    env: {
      ...process.env,
      TENANT_DOMAIN: api.domain,
      TENANT_CLIENT_ID: api.readOnly.clientId,
      TENANT_CLIENT_SECRET: api.readOnly.clientSecret,
      ...env,
    },
  });
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr, out: dir };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : -1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? "",
      out: dir,
    };
  }
}

/**
 * Puts the generated program into the installed project: its index.ts and Pulumi.yaml, and its
 * package.json with the installed dependencies kept (the generated ranges would ask a registry).
 */
async function adopt(out: string): Promise<void> {
  for (const file of ["index.ts", "Pulumi.yaml"]) {
    await copyFile(join(out, file), join(project.dir, file));
  }
  const generated = JSON.parse(await readFile(join(out, "package.json"), "utf8"));
  const installed = JSON.parse(await readFile(join(project.dir, "package.json"), "utf8"));
  const { devDependencies: _dev, ...manifest } = generated;
  await writeFile(
    join(project.dir, "package.json"),
    JSON.stringify({ ...manifest, dependencies: installed.dependencies }, null, 2),
  );
}

/** The CLI runs with the admin credentials: the program could write, and must not need to. */
async function expectAdoptedAsIs(stack: Stack, resources: number): Promise<void> {
  const preview = await stack.run("preview");
  expect(preview.error).toBeUndefined();
  expect(preview.counts).toEqual({ create: resources });

  stack.api.resetStats();
  const before = stack.api.store.snapshot();
  const up = await stack.run("up");
  expect(up.error).toBeUndefined();
  expect(up.counts).toEqual({ create: resources });
  expect(stack.writes()).toBe(0);
  expect(stack.api.store.snapshot()).toEqual(before);

  const refresh = await stack.run("refresh", { previewOnly: true, expectNoChanges: true });
  expect(refresh.error).toBeUndefined();
  expect(refresh.ok).toBe(true);
  expect(refresh.changes).toBe(false);
}

/** A test that generates a project twice, or once and takes it through three runs of the stack. */
const GENERATE_AND_RUN = budget({ node: 2, pulumi: 3 });

describe("a project generated from the default local tenant", { timeout: GENERATE_AND_RUN }, () => {
  it("previews only creates, sends no write on up, and refreshes without drift", async () => {
    s = await startStack(project.dir, {});
    const generated = await generate(s.api);
    expect(generated.stderr).toContain("declared 4 clients and the push provider");
    expect(generated.code).toBe(0);
    await adopt(generated.out);
    const program = await readFile(join(project.dir, "index.ts"), "utf8");
    // Every client but the read-only credentials' own, and the push provider.
    expect(program).not.toContain(DEFAULT_SEED_IDS.readOnly);
    expect(program.match(/new ClientSettings\(/g)).toHaveLength(4);
    await expectAdoptedAsIs(s, 5);
  });

  it("writes the same bytes when run again on the unchanged tenant, and reads one page", async () => {
    s = await startStack(project.dir, {});
    const first = await generate(s.api);
    expect(first.code).toBe(0);
    const files = ["Pulumi.yaml", "package.json", "index.ts"];
    const before = await Promise.all(files.map((f) => readFile(join(first.out, f))));
    const mtimes = await Promise.all(files.map((f) => stat(join(first.out, f))));
    s.api.resetStats();
    const second = await generate(s.api, [], first.out);
    expect(second.code).toBe(0);
    const after = await Promise.all(files.map((f) => readFile(join(first.out, f))));
    expect(after).toEqual(before);
    const mtimesAfter = await Promise.all(files.map((f) => stat(join(first.out, f))));
    expect(mtimesAfter.map((m) => m.mtimeMs)).toEqual(mtimes.map((m) => m.mtimeMs));
    expect(s.api.stats().byRoute).toEqual({
      "GET /api/v2/clients": 1,
      "GET /api/v2/guardian/factors/push-notification/selected-provider": 1,
      "POST /oauth/token": 1,
    });
  });

  it("adopts only the clients named, and refuses to overwrite a program that was edited", async () => {
    s = await startStack(project.dir, {});
    const named = await generate(s.api, [
      "--clients",
      `${DEFAULT_SEED_IDS.spa},${DEFAULT_SEED_IDS.readOnly}`,
    ]);
    expect(named.code).toBe(0);
    const program = await readFile(join(named.out, "index.ts"), "utf8");
    expect(program.match(/new ClientSettings\("([^"]+)"/g)).toEqual([
      'new ClientSettings("dashboard-spa"',
      'new ClientSettings("tenant-api-read-only-seeded"',
    ]);
    await writeFile(join(named.out, "index.ts"), `${program}// my edit\n`);
    const again = await generate(s.api, [], named.out);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `pulumi-tenant generate: ${join(named.out, "index.ts")} already exists with other content; ` +
        "pass --force to overwrite, or choose another --out folder\n",
    );
  });
});

describe("a project generated from a tenant using every field kind", {
  // Generating, then tsc in the type-check's test.
  timeout: GENERATE_AND_RUN + budget({ tsc: 1 }),
}, () => {
  const apiOptions: TenantApiOptions = { seed: RICH_SEED };
  const allFields = ["--fields", CLIENT_SETTINGS_FIELDS.join(",")];

  it("previews only creates, sends no write on up, and refreshes without drift", async () => {
    s = await startStack(project.dir, {}, apiOptions);
    const generated = await generate(s.api, allFields);
    expect(generated.code).toBe(0);
    await adopt(generated.out);
    const program = await readFile(join(project.dir, "index.ts"), "utf8");
    expect(program).not.toContain(RICH_IDS.global);
    for (const secret of Object.values(RICH_SECRETS)) expect(program).not.toContain(secret);
    // Three applications and the admin client; the global and the read-only client left out.
    expect(program.match(/new ClientSettings\(/g)).toHaveLength(4);
    await expectAdoptedAsIs(s, 5);
  });

  it("type-checks against the installed package under strict options", async () => {
    s = await startStack(project.dir, {}, apiOptions);
    const generated = await generate(s.api, allFields);
    expect(generated.code).toBe(0);
    await adopt(generated.out);
    const tsc = join(project.dir, "node_modules", "typescript", "bin", "tsc");
    const flags = [
      "--noEmit",
      "--strict",
      "--exactOptionalPropertyTypes",
      "--noUncheckedIndexedAccess",
      "--skipLibCheck",
      "--module",
      "node16",
      "--target",
      "es2022",
      "index.ts",
    ];
    await expect(
      run(process.execPath, [tsc, ...flags], { cwd: project.dir, timeout: STEP_BOUNDS_MS.tsc }),
    ).resolves.toMatchObject({ stdout: "" });
  });

  it("prints what it left out on stderr, never a secret", async () => {
    s = await startStack(project.dir, {}, apiOptions);
    const generated = await generate(s.api, allFields);
    expect(generated.stderr).toContain(
      "note: docs-portal: addons.service_bus.sasKey left out: key material",
    );
    expect(generated.stderr).toContain(
      `left out client ${RICH_IDS.global}: the global client (--include-global)`,
    );
    for (const secret of Object.values(RICH_SECRETS))
      expect(generated.stderr).not.toContain(secret);
    expect(generated.stderr).not.toContain(s.api.readOnly.clientSecret);
  });
});

describe("a tenant of several list pages", { timeout: budget({ node: 1 }) }, () => {
  it("reads every page once, with no progress line for a read of a second in a pipe", async () => {
    s = await startStack(project.dir, {}, { extraClients: 250 });
    const generated = await generate(s.api);
    expect(generated.code).toBe(0);
    expect(s.api.stats().byRoute["GET /api/v2/clients"]).toBe(3);
    // In a pipe, a line every 5 s (test/commands-cli.test.ts holds a long read's lines).
    expect(generated.stderr).not.toContain("read 1 of 3 pages");
    const program = await readFile(join(generated.out, "index.ts"), "utf8");
    expect(program.match(/new ClientSettings\(/g)).toHaveLength(254);
  });
});

describe("failures", { timeout: budget({ node: 1 }) }, () => {
  it("names the missing scope, with no stack trace", async () => {
    s = await startStack(project.dir, {});
    const token = await s.api.mintToken({ scopes: ["read:clients"] });
    // The token alone: a client secret beside it would be a second way of authenticating.
    const generated = await generate(s.api, [], undefined, {
      TENANT_API_TOKEN: token,
      TENANT_CLIENT_ID: undefined,
      TENANT_CLIENT_SECRET: undefined,
    });
    expect(generated.code).toBe(3);
    expect(generated.stderr).toBe(
      "pulumi-tenant generate: reading the tenant: GET /guardian/factors/push-notification/selected-provider failed with 403 insufficient_scope: needs read:guardian_factors\n",
    );
  });

  it("names the client ids the tenant does not know", async () => {
    s = await startStack(project.dir, {});
    const generated = await generate(s.api, ["--clients", `${DEFAULT_SEED_IDS.spa},nope`]);
    expect(generated.code).toBe(2);
    expect(generated.stderr).toBe(
      'pulumi-tenant generate: the tenant has no client with the id "nope" (GET /clients/{id} answered 404); check the ids given to --clients\n',
    );
  });

  it("exits 2 on a wrong command line, naming the field", async () => {
    s = await startStack(project.dir, {});
    const generated = await generate(s.api, ["--fields", "callbaks"]);
    expect(generated.code).toBe(2);
    expect(generated.stderr).toBe(
      'pulumi-tenant generate: --fields: "callbaks" is not a client field; did you mean "callbacks"?\n',
    );
  });
});
