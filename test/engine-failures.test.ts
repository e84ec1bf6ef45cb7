import * as fs from "node:fs";
import { describe, expect } from "vitest";
import { type FileSpec, FixtureProject } from "./engine/fixture-project.js";
import { projectTest } from "./engine/project-test.js";

const a: FileSpec = { name: "a", path: "a.txt", content: "alpha" };

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("engine stand-in: failures", () => {
  const it = projectTest(() => FixtureProject.create());

  it("fails a preview whose check reports failures, listing each property and reason", async ({
    project,
  }) => {
    const result = await project.run("preview", {
      files: [{ ...a, content: "invalid:must not start with invalid:" }],
    });

    expect(result.ok).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.error).toContain("fixture:File (a): check failed:");
    expect(result.error).toContain("content: must not start with invalid:");
    expect(result.steps).toMatchObject([{ name: "a", ok: false }]);
    expect(result.output).toContain("content: must not start with invalid:");
  });

  it("fails on a diff that throws, with its message, and creates nothing after it", async ({
    project,
  }) => {
    const deployed = await project.run("up", { files: [a] });
    expect(deployed.ok, deployed.output).toBe(true);
    project.clearOps();

    const result = await project.run("up", {
      files: [
        { ...a, content: "diff-throws" },
        { name: "b", path: "b.txt", content: "beta", dependsOn: ["a"] },
      ],
    });

    expect(result.ok).toBe(false);
    expect(result.error).toContain("diff refused for a: content asks for it");
    expect(project.ops().some((o) => o.op === "create")).toBe(false);
    expect(fs.existsSync(project.file("b.txt"))).toBe(false);
  });

  it("keeps in state the steps that completed before a later step failed", async ({ project }) => {
    const result = await project.run("up", {
      files: [a, { name: "b", path: "b.txt", content: "invalid:no", dependsOn: ["a"] }],
      // The preview pass would refuse b before anything is applied; this is about the update.
      skipPreview: true,
    });

    expect(result.ok).toBe(false);
    expect((await project.state()).resources.map((r) => r.name)).toEqual(["a"]);
  });

  it("applies nothing when the preview pass fails", async ({ project }) => {
    const result = await project.run("up", {
      files: [a, { name: "b", path: "b.txt", content: "invalid:no", dependsOn: ["a"] }],
    });

    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/^Previewing update \(dev\):/);
    expect(project.ops().some((o) => o.op === "create")).toBe(false);
    expect(fs.existsSync(result.stateFile)).toBe(false);
  });

  it("kills the program and the provider host as soon as a step fails", async ({ project }) => {
    const pids: number[] = [];
    let failedAt = 0;
    const result = await project.run("up", {
      files: [{ ...a, content: "invalid:no" }],
      onEvent: (e) => {
        if (e.type === "program" || e.type === "provider-host") pids.push(e.pid);
        if (e.type === "step-end" && !e.step.ok) failedAt = Date.now();
      },
    });

    expect(result.ok).toBe(false);
    expect(pids).toHaveLength(2);
    expect(pids.filter(alive)).toEqual([]);
    // Left alone, the SDK spends about 40 s formatting the error before it exits.
    expect(failedAt).toBeGreaterThan(0);
    expect(Date.now() - failedAt).toBeLessThan(5_000);
  });

  it("reports the message of an exception thrown by the program", async ({ project }) => {
    const result = await project.run("up", {
      files: [a],
      config: { "fixture:throw": { value: "the program gave up" } },
    });

    expect(result.ok).toBe(false);
    expect(result.error).toContain("the program gave up");
    expect(result.steps).toEqual([]);
  });

  it("fails a run that outlives its timeout, and leaves no child process behind", async ({
    project,
  }) => {
    const pids: number[] = [];
    const result = await project.run("up", {
      files: [a],
      timeoutMs: 300,
      onEvent: (e) => {
        if (e.type === "program" || e.type === "provider-host") pids.push(e.pid);
      },
    });

    expect(result.ok).toBe(false);
    expect(result.error).toBe("the up timed out after 300 ms");
    expect(pids.length).toBeGreaterThan(0);
    expect(pids.filter(alive)).toEqual([]);
  });

  it("fails with the reason when the project has no Pulumi.yaml", async ({ project }) => {
    fs.rmSync(`${project.cwd}/Pulumi.yaml`);

    const result = await project.run("preview", { files: [a] });

    expect(result.ok).toBe(false);
    expect(result.error).toContain("no Pulumi.yaml in");
  });
});
