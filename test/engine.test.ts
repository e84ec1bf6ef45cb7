import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type FileSpec, FixtureProject } from "./engine/fixture-project.js";
import { projectTest } from "./engine/project-test.js";

const a: FileSpec = { name: "a", path: "a.txt", content: "alpha" };
const fromA: FileSpec = { name: "b", path: "b.txt", contentFrom: "a" };

describe("engine stand-in: a new stack", () => {
  const it = projectTest(() => FixtureProject.create());

  it("previews creates with check only: no create, update, delete or read, and no state", async ({
    project,
  }) => {
    const result = await project.run("preview", { files: [a, fromA] });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps.map((s) => [s.name, s.op])).toEqual([
      ["a", "create"],
      ["b", "create"],
    ]);
    expect(new Set(project.ops().map((o) => o.op))).toEqual(new Set(["check"]));
    expect(fs.existsSync(project.file("a.txt"))).toBe(false);
    expect(fs.existsSync(result.stateFile)).toBe(false);
    expect(result.output).toContain("+ 2 to create");
  });

  it("gives a resource that depends on a resource to be created unknown inputs in preview", async ({
    project,
  }) => {
    const result = await project.run("preview", { files: [a, fromA] });

    expect(result.ok, result.output).toBe(true);
    const checkOfB = project.ops().find((o) => o.op === "check" && o.label === "b");
    expect(checkOfB?.contentUnknown).toBe(true);
    expect(result.output).toContain('digests: {"a":"[unknown]","b":"[unknown]"}');
  });

  it("creates every resource on up and records each in the state", async ({ project }) => {
    const result = await project.run("up", { files: [a, fromA] });

    expect(result.ok, result.output).toBe(true);
    expect(result.counts).toEqual({ create: 2 });
    expect(fs.readFileSync(project.file("a.txt"), "utf8")).toBe("alpha");
    const state = await project.state();
    expect(state.resources.map((r) => [r.name, r.id])).toEqual([
      ["a", "a.txt"],
      ["b", "b.txt"],
    ]);
    // b was created with a's digest, known by then.
    expect(fs.readFileSync(project.file("b.txt"), "utf8")).toBe(state.resources[0]?.outputs.digest);
    expect(result.output).toMatch(/Updating \(dev\):\n \+ {2}fixture:File {2}a {2}created/);
  });

  it("starts one provider host per pass, the preview pass and the update, and reports its peak memory", async ({
    project,
  }) => {
    const pids: number[] = [];
    const result = await project.run("up", {
      files: [a, fromA],
      onEvent: (e) => {
        if (e.type === "provider-host") pids.push(e.pid);
      },
    });

    expect(result.ok, result.output).toBe(true);
    expect(pids).toHaveLength(2);
    expect(pids[1]).toBe(result.providerHost?.pid);
    expect(result.providerHost?.peakRssBytes).toBeGreaterThan(10 * 1024 * 1024);
  });
});

describe("engine stand-in: a deployed stack", () => {
  // a <- b <- c (dependsOn), and d whose diff leaves `changes` undefined.
  const b: FileSpec = { name: "b", path: "b.txt", content: "beta", dependsOn: ["a"] };
  const c: FileSpec = { name: "c", path: "c.txt", content: "gamma", dependsOn: ["b"] };
  const d: FileSpec = { name: "d", path: "d.txt", content: "delta", diffUnknown: true };
  const deployed = [a, b, c, d];
  let template: FixtureProject;
  const it = projectTest(() => template.clone());

  beforeAll(async () => {
    template = await FixtureProject.create();
    const result = await template.run("up", { files: deployed });
    if (!result.ok) throw new Error(result.output);
  });

  afterAll(async () => {
    await template.cleanup();
  });

  it("previews nothing to do when the program has not changed", async ({ project }) => {
    const result = await project.run("preview", { files: deployed, expectNoChanges: true });

    expect(result.ok, result.output).toBe(true);
    expect(result.changes).toBe(false);
    expect(result.counts).toEqual({ same: 4 });
    const ops = project.ops().map((o) => o.op);
    expect([
      ops.filter((o) => o === "check").length,
      ops.filter((o) => o === "diff").length,
    ]).toEqual([4, 4]);
    expect(ops).toHaveLength(8);
    expect(result.timings.checkMs).toHaveLength(4);
    expect(result.timings.diffMs).toHaveLength(4);
  });

  it("updates a resource whose input changed and shows the changed property", async ({
    project,
  }) => {
    const result = await project.run("up", { files: [{ ...a, content: "alpha 2" }, b, c, d] });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps[0]).toMatchObject({
      name: "a",
      op: "update",
      changedProperties: ["content"],
    });
    expect(result.counts).toEqual({ update: 1, same: 3 });
    expect(fs.readFileSync(project.file("a.txt"), "utf8")).toBe("alpha 2");
    expect(result.output).toContain("~  fixture:File  a  updated  [content]");
  });

  it("applies an up with --expect-no-changes, then fails it with exit code 7", async ({
    project,
  }) => {
    const result = await project.run("up", {
      files: [{ ...a, content: "alpha 2" }, b, c, d],
      expectNoChanges: true,
    });

    expect(result.ok).toBe(false);
    expect(result.exitCode).toBe(7);
    expect(result.error).toBe("no changes were expected for update but changes were proposed");
    expect(fs.readFileSync(project.file("a.txt"), "utf8")).toBe("alpha 2");
    expect((await project.state()).resources.find((r) => r.name === "a")?.outputs.content).toBe(
      "alpha 2",
    );
  });

  it("replaces create-before-delete when the diff asks for a replacement", async ({ project }) => {
    const result = await project.run("up", { files: [{ ...a, path: "a2.txt" }, b, c, d] });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps[0]).toMatchObject({ name: "a", op: "replace" });
    expect(result.steps[0]?.changedProperties[0]).toBe("path");
    const writes = project.ops().filter((o) => o.op === "create" || o.op === "delete");
    expect(writes.map((o) => [o.op, o.path ?? o.id])).toEqual([
      ["create", "a2.txt"],
      ["delete", "a.txt"],
    ]);
    expect(fs.existsSync(project.file("a.txt"))).toBe(false);
    const state = await project.state();
    expect(state.resources.filter((r) => r.name === "a").map((r) => r.id)).toEqual(["a2.txt"]);
    expect(result.output).toContain("+- 1 replaced");
  });

  it("replaces delete-before-create when the resource sets deleteBeforeReplace", async ({
    project,
  }) => {
    const result = await project.run("up", {
      files: [{ ...a, path: "a2.txt", deleteBeforeReplace: true }, b, c, d],
    });

    expect(result.ok, result.output).toBe(true);
    const writes = project.ops().filter((o) => o.op === "create" || o.op === "delete");
    expect(writes.map((o) => o.op)).toEqual(["delete", "create"]);
    expect(fs.existsSync(project.file("a2.txt"))).toBe(true);
  });

  it("deletes a resource that left the program at shutdown, after every registration", async ({
    project,
  }) => {
    const result = await project.run("up", { files: [a, b, d] });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps.map((s) => [s.name, s.op]).sort()).toEqual([
      ["a", "same"],
      ["b", "same"],
      ["c", "delete"],
      ["d", "same"],
    ]);
    expect(result.steps.at(-1)?.name).toBe("c");
    expect(project.ops().at(-1)).toMatchObject({ op: "delete", label: "c" });
    expect((await project.state()).resources.map((r) => r.name).sort()).toEqual(["a", "b", "d"]);
  });

  it("previews the delete of a resource that left the program without deleting it", async ({
    project,
  }) => {
    const result = await project.run("preview", { files: [a, b, d] });

    expect(result.ok, result.output).toBe(true);
    expect(result.counts).toEqual({ same: 3, delete: 1 });
    expect(result.output).toContain("- 1 to delete");
    expect(fs.existsSync(project.file("c.txt"))).toBe(true);
  });

  it("compares old and new inputs itself when the diff leaves changes undefined", async ({
    project,
  }) => {
    const result = await project.run("preview", {
      files: [a, b, c, { ...d, content: "delta 2" }],
    });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps.find((s) => s.name === "d")).toMatchObject({
      op: "update",
      changedProperties: ["content"],
    });
  });

  it("destroys every resource, dependents before what they depend on, and empties the state", async ({
    project,
  }) => {
    const result = await project.run("destroy");

    expect(result.ok, result.output).toBe(true);
    const deleted = project.ops().map((o) => o.label);
    expect(deleted.filter((l) => l !== "d")).toEqual(["c", "b", "a"]);
    expect(result.output).toContain("- 4 deleted");
    expect((await project.state()).resources).toEqual([]);
  });
});
