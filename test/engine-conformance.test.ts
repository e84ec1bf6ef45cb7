/**
 * The rules of test/engine/CONFORMANCE.md, one `describe` per rule, each shown with the `files`
 * fixture program run end to end through the stand-in. (Rules 3 and 8's scheduling are shown in
 * engine.test.ts and engine-units.test.ts.)
 */
import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type FileSpec, FixtureProject, runCli } from "./engine/fixture-project.js";
import { runEngine } from "./engine/index.js";
import { projectTest } from "./engine/project-test.js";

const a: FileSpec = { name: "a", path: "a.txt", content: "alpha" };
const d: FileSpec = { name: "d", path: "d.txt", content: "delta", diffUnknown: true };
const stamp = (value: string) => ({ "fixture:stamp": { value } });

let template: FixtureProject;
const it = projectTest(() => template.clone());

beforeAll(async () => {
  template = await FixtureProject.create();
  const result = await template.run("up", {
    files: [a, d],
    config: { ...stamp("one"), "fixture:secret": { value: "s3cr3t-stamp", secret: true } },
  });
  if (!result.ok) throw new Error(result.output);
});

afterAll(async () => {
  await template.cleanup();
});

describe("rule 1: refresh asks the provider's Diff, read outputs against stored inputs", () => {
  it("still reports drift that a plain refresh accepted into the state", async ({ project }) => {
    fs.writeFileSync(project.file("a.txt"), "changed by hand");
    expect((await project.run("refresh", { skipPreview: true })).ok).toBe(true);
    project.clearOps();

    const gate = await project.run("refresh", { previewOnly: true, expectNoChanges: true });

    expect(gate.exitCode).toBe(7);
    expect(gate.steps.find((s) => s.name === "a")).toMatchObject({
      op: "update",
      changedProperties: ["content"],
    });
    expect(project.ops().filter((o) => o.op === "diff")).toContainEqual(
      expect.objectContaining({ label: "a", id: "a.txt" }),
    );
  });

  it("reports no drift once the edit is undone, though the state still holds the edited value", async ({
    project,
  }) => {
    fs.writeFileSync(project.file("a.txt"), "changed by hand");
    expect((await project.run("refresh", { skipPreview: true })).ok).toBe(true);
    fs.writeFileSync(project.file("a.txt"), "alpha");

    const gate = await project.run("refresh", { previewOnly: true, expectNoChanges: true });

    expect(gate.exitCode, gate.output).toBe(0);
    expect(gate.counts).toEqual({ same: 2 });
  });

  it("never reports drift for a resource whose diff leaves changes undefined and whose read returns no inputs", async ({
    project,
  }) => {
    fs.writeFileSync(project.file("d.txt"), "changed by hand");

    const gate = await project.run("refresh", { previewOnly: true, expectNoChanges: true });

    expect(gate.exitCode, gate.output).toBe(0);
    expect(gate.steps.find((s) => s.name === "d")?.op).toBe("same");
  });
});

describe("rule 2: refresh and destroy configure the provider from the state", () => {
  it("keeps the stack config of the last up, secrets encrypted, in the default provider's entry", async () => {
    const state = await template.state();

    expect(state.defaultProvider?.urn).toBe(
      "urn:pulumi:dev::engine-test::pulumi:providers:pulumi-nodejs::default",
    );
    expect(state.defaultProvider?.inputs).toMatchObject({
      "fixture:stamp": "one",
      "fixture:secret": "s3cr3t-stamp",
    });
    expect(state.defaultProvider?.secretPaths).toContain("inputs.fixture:secret");
    expect(template.stateText()).not.toContain("s3cr3t-stamp");
    expect(state.resources.map((r) => r.provider)).toEqual([
      `${state.defaultProvider?.urn}::${state.defaultProvider?.id}`,
      `${state.defaultProvider?.urn}::${state.defaultProvider?.id}`,
    ]);
  });

  it("refreshes with the config recorded at the last up, not the current one", async ({
    project,
  }) => {
    const result = await project.run("refresh", { config: stamp("two") });

    expect(result.ok, result.output).toBe(true);
    expect(project.configuredStamps()).toEqual(["one", "one"]);
  });

  it("destroys with the config recorded at the last up, not the current one", async ({
    project,
  }) => {
    const result = await project.run("destroy", { config: stamp("two") });

    expect(result.ok, result.output).toBe(true);
    expect(project.configuredStamps()).toEqual(["one"]);
    expect((await project.state()).defaultProvider).toBeUndefined();
  });

  it("refreshes with the current config when asked to run the program, and records it", async ({
    project,
  }) => {
    const result = await project.run("refresh", {
      files: [a, d],
      config: stamp("two"),
      runProgram: true,
    });

    expect(result.ok, result.output).toBe(true);
    expect(project.configuredStamps()).toEqual(["two", "two"]);
    expect(result.steps.map((s) => [s.name, s.op])).toEqual([
      ["a", "same"],
      ["d", "same"],
    ]);
    expect((await project.state()).defaultProvider?.inputs["fixture:stamp"]).toBe("two");
  });

  it("deletes with the recorded config when the program no longer declares any dynamic resource", async ({
    project,
  }) => {
    const result = await project.run("up", { files: [], config: stamp("two") });

    expect(result.ok, result.output).toBe(true);
    expect(result.counts).toEqual({ delete: 2 });
    expect(project.configuredStamps()).toEqual(["one"]);
    expect((await project.state()).defaultProvider).toBeUndefined();
  });

  it("records a new config on up without counting it as a change", async ({ project }) => {
    const result = await project.run("up", {
      files: [a, d],
      config: stamp("two"),
      expectNoChanges: true,
    });

    expect(result.exitCode, result.output).toBe(0);
    expect((await project.state()).defaultProvider?.inputs["fixture:stamp"]).toBe("two");
  });
});

describe("rule 4: exit codes", () => {
  it("exits 2 for a bad invocation, before running anything", async ({ project }) => {
    const cli = await runCli(["up", "--preview-only", "--cwd", project.cwd], { env: project.env });

    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("--preview-only is supported here for refresh only");
    expect(project.ops()).toEqual([]);
  });
});

describe("rule 5: a change of options alone is saved", () => {
  it("keeps retainOnDelete added to an unchanged resource, so removing it later leaves it in place", async ({
    project,
  }) => {
    const retained = await project.run("up", { files: [{ ...a, retainOnDelete: true }, d] });
    expect(retained.ok, retained.output).toBe(true);
    expect(retained.counts).toEqual({ same: 2 });
    expect((await project.state()).resources.find((r) => r.name === "a")?.retainOnDelete).toBe(
      true,
    );

    const removed = await project.run("up", { files: [d] });

    expect(removed.ok, removed.output).toBe(true);
    expect(removed.steps.find((s) => s.name === "a")?.op).toBe("delete");
    expect(project.ops().some((o) => o.op === "delete")).toBe(false);
    expect(fs.readFileSync(project.file("a.txt"), "utf8")).toBe("alpha");
  });
});

describe("rule 6: replaceOnChanges acts only on keys the diff names", () => {
  it("updates in place a resource whose diff answers true, whatever replaceOnChanges says", async ({
    project,
  }) => {
    const result = await project.run("up", {
      files: [{ ...a, content: "alpha 2", replaceOnChanges: ["content"] }, d],
    });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps.find((s) => s.name === "a")?.op).toBe("update");
    expect(project.ops().some((o) => o.op === "create")).toBe(false);
  });

  it("replaces a resource whose diff leaves changes undefined when a replaceOnChanges key changed", async ({
    project,
  }) => {
    const result = await project.run("up", {
      files: [a, { ...d, content: "delta 2", replaceOnChanges: ["content"] }],
    });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps.find((s) => s.name === "d")?.op).toBe("replace");
  });
});

describe("rule 7: protect is checked in preview", () => {
  it("fails the preview of a protected resource's replacement, and creates nothing", async ({
    project,
  }) => {
    expect(
      (await project.run("up", { files: [{ ...a, protect: true }, d], skipPreview: true })).ok,
    ).toBe(true);
    project.clearOps();

    const result = await project.run("up", { files: [{ ...a, path: "a2.txt", protect: true }, d] });

    expect(result.ok).toBe(false);
    expect(result.error).toBe(
      'fixture:File (a): unable to replace resource "urn:pulumi:dev::engine-test::pulumi-nodejs:dynamic/fixture:File::a" ' +
        "as it is protected: set protect: false on it in the program and run up, then change what forces the replacement",
    );
    expect(result.previewSteps).toBeUndefined();
    expect(project.ops().some((o) => o.op === "create")).toBe(false);
  });

  it("fails the preview of a protected resource's delete, and deletes nothing", async ({
    project,
  }) => {
    expect(
      (await project.run("up", { files: [{ ...a, protect: true }, d], skipPreview: true })).ok,
    ).toBe(true);

    const result = await project.run("up", { files: [d] });

    expect(result.ok).toBe(false);
    expect(result.error).toContain("cannot be deleted because it is protected");
    expect(fs.existsSync(project.file("a.txt"))).toBe(true);
  });
});

describe("rule 8: a preview pass runs before up, refresh and destroy", () => {
  it("checks each resource in the preview pass, then again in the update", async ({ project }) => {
    const result = await project.run("up", { files: [a, d, { name: "e", path: "e.txt" }] });

    expect(result.ok, result.output).toBe(true);
    expect(result.previewSteps?.map((s) => [s.name, s.op]).sort()).toEqual([
      ["a", "same"],
      ["d", "same"],
      ["e", "create"],
    ]);
    const ofE = project
      .ops()
      .filter((o) => o.label === "e")
      .map((o) => o.op);
    expect(ofE).toEqual(["check", "check", "create"]);
  });

  it("reads every resource twice on refresh, once with --skip-preview", async ({ project }) => {
    await project.run("refresh");
    const twice = project.ops().filter((o) => o.op === "read").length;
    project.clearOps();
    await project.run("refresh", { skipPreview: true });

    expect([twice, project.ops().filter((o) => o.op === "read").length]).toEqual([4, 2]);
  });
});

describe("rule 9: the secrets manager is ready before any step", () => {
  it("fails an up without the passphrase before the program or the provider runs", async ({
    project,
  }) => {
    const saved = process.env.PULUMI_CONFIG_PASSPHRASE;
    delete process.env.PULUMI_CONFIG_PASSPHRASE;
    const { PULUMI_CONFIG_PASSPHRASE: _unset, ...env } = project.env;
    try {
      const result = await runEngine({
        command: "up",
        cwd: project.cwd,
        stateDir: project.stateDir,
        env,
        config: {
          "fixture:files": { value: JSON.stringify([a, d, { name: "e", path: "e.txt" }]) },
        },
        timeoutMs: 60_000,
      });

      expect(result.ok).toBe(false);
      expect(result.exitCode).toBe(1);
      expect(result.error).toMatch(
        /^passphrase must be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE environment variables/,
      );
      expect(result.steps).toEqual([]);
      expect(project.ops()).toEqual([]);
      expect(project.configuredStamps()).toEqual([]);
    } finally {
      if (saved !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE = saved;
    }
  });
});

describe("rule 10: pending operations", () => {
  it("records a create before sending it, and reports it at the next up when the run was killed", async ({
    project,
  }) => {
    const killer = new AbortController();
    const killed = await project.run("up", {
      files: [a, d, { name: "e", path: "e.txt", content: "hang" }],
      skipPreview: true,
      signal: killer.signal,
      onEvent: (e) => {
        if (e.type === "operation-start" && e.operation === "creating") killer.abort();
      },
    });
    expect(killed.ok).toBe(false);
    const urn = "urn:pulumi:dev::engine-test::pulumi-nodejs:dynamic/fixture:File::e";
    expect((await project.state()).pendingOperations).toEqual([{ urn, type: "creating" }]);

    const next = await project.run("up", { files: [a, d, { name: "e", path: "e.txt" }] });

    expect(next.ok, next.output).toBe(true);
    expect(next.diagnostics).toContain(
      `warning: Attempting to deploy or update resources with 1 pending operations from previous deployment.\n  * ${urn}, interrupted while creating\n` +
        "A run stopped while the provider was changing these resources, so their state is unknown: " +
        "check them in the tenant, then run refresh, which records what they are and clears the " +
        "pending operations (a pending create stays until refresh --clear-pending-creates).",
    );
    expect((await project.state()).pendingOperations).toEqual([{ urn, type: "creating" }]);
    await project.run("refresh", { clearPendingCreates: true, skipPreview: true });
    expect((await project.state()).pendingOperations).toEqual([]);
  });
});
