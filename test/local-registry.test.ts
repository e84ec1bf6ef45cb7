import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import cacache from "cacache";
import { afterEach, describe, expect, it } from "vitest";
import type { LockPackages } from "./support/installed-package.js";
import {
  type LocalRegistry,
  packumentsFromLock,
  startLocalRegistry,
} from "./support/local-registry.js";

const integrityOf = (bytes: Buffer) =>
  `sha512-${createHash("sha512").update(bytes).digest("base64")}`;

const lock: LockPackages = {
  "": { name: "repo", version: "1.0.0" },
  "node_modules/a": { version: "1.0.0", integrity: "sha512-a1", dependencies: { b: "^2" } },
  "node_modules/b": { version: "2.1.0", integrity: "sha512-b21", bin: { b: "cli.js" } },
  "node_modules/a/node_modules/b": { version: "2.0.0", integrity: "sha512-b20" },
  "node_modules/b-next": { name: "b", version: "3.0.0-rc.1", integrity: "sha512-b3" },
  "node_modules/@scope/c": { version: "1.0.0", integrity: "sha512-c", os: ["darwin"] },
  "node_modules/linked": { version: "0.0.0", link: true },
};

describe("the local registry's packuments", () => {
  const packuments = packumentsFromLock(lock, "http://127.0.0.1:1");

  it("list every version of a package the lock installs, nested and aliased copies included", () => {
    expect(Object.keys(packuments.get("b")?.versions ?? {}).sort()).toEqual([
      "2.0.0",
      "2.1.0",
      "3.0.0-rc.1",
    ]);
  });

  it("tag the highest release as latest, not a prerelease", () => {
    expect(packuments.get("b")?.["dist-tags"]).toEqual({ latest: "2.1.0" });
  });

  it("carry what installers resolve with and where the tarball is", () => {
    expect(packuments.get("@scope/c")?.versions["1.0.0"]).toEqual({
      name: "@scope/c",
      version: "1.0.0",
      os: ["darwin"],
      dist: {
        tarball: "http://127.0.0.1:1/@scope/c/-/c-1.0.0.tgz",
        integrity: "sha512-c",
      },
    });
  });

  it("leave out links and the root, which are no registry packages", () => {
    expect([...packuments.keys()].sort()).toEqual(["@scope/c", "a", "b"]);
  });
});

describe("the local registry", () => {
  let cache: string | undefined;
  let registry: LocalRegistry | undefined;
  afterEach(async () => {
    await registry?.stop();
    if (cache) await rm(cache, { recursive: true, force: true });
  });

  /** A registry over one package whose tarball is in a new npm cache, and one whose is not. */
  async function started(): Promise<{ registry: LocalRegistry; bytes: Buffer }> {
    cache = await mkdtemp(join(tmpdir(), "tenant-registry-cache-"));
    const bytes = Buffer.from("the tarball of a@1.0.0");
    const integrity = integrityOf(bytes);
    await cacache.put(join(cache, "_cacache"), "make-fetch-happen:request-cache:a", bytes, {
      integrity,
    });
    registry = await startLocalRegistry({
      cache,
      packages: {
        "node_modules/a": { version: "1.0.0", integrity },
        "node_modules/@scope/c": { version: "1.0.0", integrity },
        "node_modules/gone": { version: "1.0.0", integrity: integrityOf(Buffer.from("gone")) },
      },
    });
    return { registry, bytes };
  }

  it("serves a package's packument with its scoped name escaped as installers send it", async () => {
    const { registry } = await started();
    const answer = await fetch(`${registry.url}/@scope%2fc`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      name: "@scope/c",
      "dist-tags": { latest: "1.0.0" },
    });
  });

  it("serves a tarball from the npm cache, found by its integrity", async () => {
    const { registry, bytes } = await started();
    const answer = await fetch(`${registry.url}/a/-/a-1.0.0.tgz`);
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(bytes);
  });

  it("answers 404 for what the lock or the cache lacks, and says what was missed", async () => {
    const { registry } = await started();
    expect((await fetch(`${registry.url}/left-pad`)).status).toBe(404);
    expect((await fetch(`${registry.url}/gone/-/gone-1.0.0.tgz`)).status).toBe(404);
    expect(registry.misses()).toEqual(["left-pad", "/gone/-/gone-1.0.0.tgz"]);
  });
});
