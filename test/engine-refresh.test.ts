import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type FileSpec, FixtureProject, runCli } from "./engine/fixture-project.js";
import { projectTest } from "./engine/project-test.js";

const a: FileSpec = { name: "a", path: "a.txt", content: "alpha" };
const b: FileSpec = { name: "b", path: "b.txt", content: "beta" };

describe("engine stand-in: refresh", () => {
  let template: FixtureProject;
  const it = projectTest(() => template.clone());

  beforeAll(async () => {
    template = await FixtureProject.create();
    const result = await template.run("up", { files: [a, b] });
    if (!result.ok) throw new Error(result.output);
  });

  afterAll(async () => {
    await template.cleanup();
  });

  it("reads every resource and reports nothing when nothing drifted", async ({ project }) => {
    const result = await project.run("refresh", { expectNoChanges: true });

    expect(result.ok, result.output).toBe(true);
    expect(result.counts).toEqual({ same: 2 });
    expect(project.ops().map((o) => [o.op, o.label])).toEqual(
      expect.arrayContaining([
        ["read", "a"],
        ["read", "b"],
      ]),
    );
  });

  it("reports an out-of-band change as drift, with the declared properties that differ, and records it", async ({
    project,
  }) => {
    fs.writeFileSync(project.file("a.txt"), "changed by hand");

    const result = await project.run("refresh");

    expect(result.ok, result.output).toBe(true);
    expect(result.steps).toMatchObject([
      { name: "a", op: "update", changedProperties: ["content"] },
      { name: "b", op: "same" },
    ]);
    expect(result.output).toContain("~  fixture:File  a  updated  [content]");
    const state = await project.state();
    expect(state.resources.find((r) => r.name === "a")?.outputs.content).toBe("changed by hand");
  });

  it("reports drift without writing the state when asked for a preview only", async ({
    project,
  }) => {
    fs.writeFileSync(project.file("a.txt"), "changed by hand");
    const before = project.stateText();

    const result = await project.run("refresh", { previewOnly: true });

    expect(result.ok, result.output).toBe(true);
    expect(result.counts).toEqual({ update: 1, same: 1 });
    expect(result.output).toContain("Previewing refresh (dev):");
    expect(project.stateText()).toBe(before);
  });

  it("drops from the state a resource whose read returns an empty id", async ({ project }) => {
    fs.rmSync(project.file("b.txt"));

    const result = await project.run("refresh");

    expect(result.ok, result.output).toBe(true);
    expect(result.steps).toMatchObject([
      { name: "a", op: "same" },
      { name: "b", op: "delete" },
    ]);
    expect((await project.state()).resources.map((r) => r.name)).toEqual(["a"]);
  });

  it("fails with --expect-no-changes when a refresh finds drift", async ({ project }) => {
    fs.writeFileSync(project.file("a.txt"), "changed by hand");

    const result = await project.run("refresh", { expectNoChanges: true, previewOnly: true });

    expect(result.ok).toBe(false);
    expect(result.exitCode).toBe(7);
    expect(result.error).toBe("no changes were expected for refresh but changes were proposed");
  });

  it("exits 7 from the command line with --expect-no-changes on drift", async ({ project }) => {
    fs.writeFileSync(project.file("a.txt"), "changed by hand");

    const cli = await runCli(
      [
        "refresh",
        "--expect-no-changes",
        "--preview-only",
        "--cwd",
        project.cwd,
        "--state-dir",
        project.stateDir,
      ],
      { env: project.env },
    );

    expect(cli.code, cli.stderr).toBe(7);
    expect(cli.stdout).toContain("~  fixture:File  a  update  [content]");
    expect(cli.stdout).toContain(
      "error: no changes were expected for refresh but changes were proposed",
    );
  });

  it("exits zero from the command line with --expect-no-changes when nothing drifted", async ({
    project,
  }) => {
    const cli = await runCli(
      ["refresh", "--expect-no-changes", "--cwd", project.cwd, "--state-dir", project.stateDir],
      { env: project.env },
    );

    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    expect(cli.stdout).toContain("2 unchanged");
  });
});
