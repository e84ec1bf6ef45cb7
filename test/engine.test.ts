import * as fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FileSpec, FixtureProject } from "./engine/fixture-project.js";

const a: FileSpec = { name: "a", path: "a.txt", content: "alpha" };
const b: FileSpec = { name: "b", path: "b.txt", contentFrom: "a" };

describe("engine stand-in: preview and up", () => {
  let project: FixtureProject;

  beforeEach(async () => {
    project = await FixtureProject.create();
  });

  afterEach(async () => {
    await project.cleanup();
  });

  it("previews creates with check only: no create, update, delete or read, and no state", async () => {
    const result = await project.run("preview", { files: [a, b] });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps.map((s) => [s.name, s.op])).toEqual([
      ["a", "create"],
      ["b", "create"],
    ]);
    expect(new Set(project.ops().map((o) => o.op))).toEqual(new Set(["check"]));
    expect(fs.existsSync(project.file("a.txt"))).toBe(false);
    expect(fs.existsSync(result.stateFile)).toBe(false);
  });

  it("gives a resource that depends on a resource to be created unknown inputs in preview", async () => {
    const result = await project.run("preview", { files: [a, b] });

    expect(result.ok, result.output).toBe(true);
    const checkOfB = project.ops().find((o) => o.op === "check" && o.label === "b");
    expect(checkOfB?.contentUnknown).toBe(true);
    expect(result.output).toContain('digests: {"a":"[unknown]","b":"[unknown]"}');
  });

  it("creates every resource on up and records each in the state", async () => {
    const result = await project.run("up", { files: [a, b] });

    expect(result.ok, result.output).toBe(true);
    expect(result.counts).toEqual({ create: 2 });
    expect(fs.readFileSync(project.file("a.txt"), "utf8")).toBe("alpha");
    const state = await project.state();
    expect(state.resources.map((r) => [r.name, r.id])).toEqual([
      ["a", project.file("a.txt")],
      ["b", project.file("b.txt")],
    ]);
    // b was created with a's digest, known by then.
    expect(fs.readFileSync(project.file("b.txt"), "utf8")).toBe(state.outputs.digests?.a);
    expect(result.output).toMatch(/Updating \(dev\):\n \+ {2}fixture:File {2}a {2}created/);
  });

  it("previews nothing to do right after an up", async () => {
    await project.run("up", { files: [a, b] });
    project.clearOps();

    const result = await project.run("preview", { files: [a, b], expectNoChanges: true });

    expect(result.ok, result.output).toBe(true);
    expect(result.changes).toBe(false);
    expect(result.counts).toEqual({ same: 2 });
    expect(project.ops().map((o) => o.op)).toEqual(["check", "diff", "check", "diff"]);
    expect(result.timings.checkMs).toHaveLength(2);
    expect(result.timings.diffMs).toHaveLength(2);
  });

  it("updates a resource whose input changed and shows the changed property", async () => {
    await project.run("up", { files: [a] });

    const result = await project.run("up", { files: [{ ...a, content: "beta" }] });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps).toMatchObject([{ name: "a", op: "update", changedProperties: ["content"] }]);
    expect(fs.readFileSync(project.file("a.txt"), "utf8")).toBe("beta");
    expect(result.output).toContain("~  fixture:File  a  updated  [content]");
  });

  it("replaces create-before-delete when the diff asks for a replacement", async () => {
    await project.run("up", { files: [a] });
    project.clearOps();

    const result = await project.run("up", { files: [{ ...a, path: "a2.txt" }] });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps).toMatchObject([{ name: "a", op: "replace" }]);
    expect(result.steps[0]?.changedProperties[0]).toBe("path");
    const writes = project.ops().filter((o) => o.op === "create" || o.op === "delete");
    expect(writes.map((o) => [o.op, o.id ?? o.path])).toEqual([
      ["create", project.file("a2.txt")],
      ["delete", project.file("a.txt")],
    ]);
    expect(fs.existsSync(project.file("a.txt"))).toBe(false);
    expect((await project.state()).resources.map((r) => r.id)).toEqual([project.file("a2.txt")]);
  });

  it("replaces delete-before-create when the resource sets deleteBeforeReplace", async () => {
    await project.run("up", { files: [{ ...a, deleteBeforeReplace: true }] });
    project.clearOps();

    const result = await project.run("up", {
      files: [{ ...a, path: "a2.txt", deleteBeforeReplace: true }],
    });

    expect(result.ok, result.output).toBe(true);
    const writes = project.ops().filter((o) => o.op === "create" || o.op === "delete");
    expect(writes.map((o) => o.op)).toEqual(["delete", "create"]);
    expect(fs.existsSync(project.file("a2.txt"))).toBe(true);
  });

  it("deletes a resource that left the program after every registration, at shutdown", async () => {
    await project.run("up", { files: [a, { name: "c", path: "c.txt", content: "gamma" }] });
    project.clearOps();

    const result = await project.run("up", { files: [a] });

    expect(result.ok, result.output).toBe(true);
    expect(result.steps.map((s) => [s.name, s.op])).toEqual([
      ["a", "same"],
      ["c", "delete"],
    ]);
    expect(project.ops().map((o) => o.op)).toEqual(["check", "diff", "delete"]);
    expect((await project.state()).resources.map((r) => r.name)).toEqual(["a"]);
  });

  it("previews the delete of a resource that left the program without deleting it", async () => {
    await project.run("up", { files: [a, { name: "c", path: "c.txt", content: "gamma" }] });

    const result = await project.run("preview", { files: [a] });

    expect(result.ok, result.output).toBe(true);
    expect(result.counts).toEqual({ same: 1, delete: 1 });
    expect(result.output).toContain("- 1 to delete");
    expect(fs.existsSync(project.file("c.txt"))).toBe(true);
  });

  it("compares old and new inputs itself when the diff leaves changes undefined", async () => {
    const loose: FileSpec = { ...a, diffUnknown: true };
    await project.run("up", { files: [loose] });

    const same = await project.run("preview", { files: [loose] });
    const changed = await project.run("preview", { files: [{ ...loose, content: "beta" }] });

    expect(same.counts).toEqual({ same: 1 });
    expect(changed.steps).toMatchObject([{ op: "update", changedProperties: ["content"] }]);
  });

  it("destroys every resource, dependents before what they depend on, and empties the state", async () => {
    const files: FileSpec[] = [
      a,
      { name: "b", path: "b.txt", content: "beta", dependsOn: ["a"] },
      { name: "c", path: "c.txt", content: "gamma", dependsOn: ["b"] },
    ];
    await project.run("up", { files });
    project.clearOps();

    const result = await project.run("destroy");

    expect(result.ok, result.output).toBe(true);
    expect(project.ops().map((o) => [o.op, o.label])).toEqual([
      ["delete", "c"],
      ["delete", "b"],
      ["delete", "a"],
    ]);
    expect(result.output).toContain("- 3 deleted");
    expect((await project.state()).resources).toEqual([]);
  });

  it("starts one provider host for the run and reports its peak memory", async () => {
    const pids: number[] = [];
    const result = await project.run("up", {
      files: [a, b],
      onEvent: (e) => {
        if (e.type === "provider-host") pids.push(e.pid);
      },
    });

    expect(result.ok, result.output).toBe(true);
    expect(pids).toEqual([result.providerHost?.pid]);
    expect(result.providerHost?.peakRssBytes).toBeGreaterThan(10 * 1024 * 1024);
  });
});
