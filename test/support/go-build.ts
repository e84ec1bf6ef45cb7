/**
 * How the tests build their Go tools (the pinned pulumi CLIs, our Node.js language host, Pulumi's
 * YAML host, the SDK generator): one environment, Pulumi's release flags, and a hash of what a
 * build was made from so that a changed source rebuilds it (docs/design/pulumi-cli.md).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { REPO_ROOT } from "./installed-package.js";

/** A cold build downloads about 325 modules and compiles them on 2 cores: minutes, not hours. */
export const GO_BUILD_TIMEOUT_MS = 40 * 60_000;

/**
 * The environment of every `go build` here: the installed toolchain only (`GOTOOLCHAIN=local`),
 * no cgo (as Pulumi's releases), and go.sum as committed (`-mod=readonly`).
 */
export function goBuildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" };
}

/**
 * `go build` with Pulumi's release flags and `ldflags`: builds made with the same flags and the
 * same module versions share Go's build cache (the CLI, our language host, the SDK generator).
 */
export function releaseBuildArgs(ldflags: string): string[] {
  return ["build", "-trimpath", "-tags", "osusergo,grpcnotrace", "-ldflags", ldflags];
}

/** A short hash of `salt` and of each file's path (from the repository) and contents. */
export async function hashOfFiles(files: readonly string[], salt = ""): Promise<string> {
  const hash = createHash("sha256");
  hash.update(`${salt}\0`);
  for (const file of files) {
    hash.update(`${relative(REPO_ROOT, file)}\0`);
    hash.update(await readFile(file));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}
