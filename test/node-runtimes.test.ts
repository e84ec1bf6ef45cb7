import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  findNodeRuntime,
  NODE_LINES,
  noNodeMessage,
  runtimePackage,
  withNode,
} from "./support/node-runtimes.js";

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A folder holding only a `node` script that answers `node --version` with `answer`. */
async function fakeNode(answer: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-fake-node-"));
  temps.push(dir);
  await writeFile(join(dir, "node"), `#!/bin/sh\necho ${answer}\n`);
  await chmod(join(dir, "node"), 0o755);
  return dir;
}

describe("the Node.js lines the tests run", () => {
  it.each(NODE_LINES)("finds Node.js %i where npm ci installed it on this machine", (line) => {
    const runtime = findNodeRuntime(line, { PATH: "" });
    expect(runtime).toMatchObject({ line, source: "package" });
    expect(runtime.version).toMatch(new RegExp(`^v${line}\\.`));
    expect(runtime.node).toBe(join(runtimePackage(line), "bin", "node"));
  });

  it("takes the node that PULUMI_TENANT_NODE_<line> names first", async () => {
    const dir = await fakeNode("v24.0.1");
    expect(findNodeRuntime(24, { PULUMI_TENANT_NODE_24: join(dir, "node") })).toEqual({
      line: 24,
      version: "v24.0.1",
      node: join(dir, "node"),
      source: "PULUMI_TENANT_NODE",
    });
  });

  it("refuses a node of another line named by PULUMI_TENANT_NODE_<line>", async () => {
    const dir = await fakeNode("v20.20.2");
    expect(() => findNodeRuntime(22, { PULUMI_TENANT_NODE_22: join(dir, "node") })).toThrow(
      `PULUMI_TENANT_NODE_22 names ${join(dir, "node")}, which is Node.js v20.20.2, not 22`,
    );
  });

  it("takes a node of the line from PATH where the platform has no registry package", async () => {
    const other = await fakeNode("v20.20.2");
    const dir = await fakeNode("v26.1.0");
    const runtime = findNodeRuntime(26, { PATH: `${other}:${dir}` }, "/nowhere/bin/node");
    expect(runtime).toMatchObject({ version: "v26.1.0", source: "PATH" });
  });

  it("says how to get a line that is nowhere", () => {
    expect(() => findNodeRuntime(26, { PATH: "" }, "/nowhere/bin/node")).toThrow(
      noNodeMessage(26, process.platform, process.arch),
    );
    expect(noNodeMessage(22, "darwin", "arm64")).toBe(
      "no Node.js 22 here: `npm ci` installs it from the npm registry on linux-x64, linux-arm64 " +
        "and darwin-x64, and 26 on darwin-arm64 too (test/node-runtimes/package.json), and the " +
        "registry has no package of it for darwin-arm64; set PULUMI_TENANT_NODE_22 to a Node.js " +
        "22 executable, or put one first on PATH as `node`.",
    );
  });

  it("puts the line's node first on the PATH a child process gets", async () => {
    const dir = await fakeNode("v22.1.0");
    const runtime = findNodeRuntime(22, { PULUMI_TENANT_NODE_22: join(dir, "node") });
    expect(withNode(runtime, { PATH: "/usr/bin" }).PATH).toBe(`${dir}:/usr/bin`);
  });
});
