/**
 * The commands' outputs (`generate --out DIR`, `snapshot --out FILE`, `audit --out FILE`,
 * `plugin --out DIR`), checked before the first request: a tenant of 5,000 clients takes half a
 * minute to read at a free tenant's rate, and a typo in `--out` must not cost that wait. Each check
 * tries what the write will do (creates and removes a probe file, opens an existing file without
 * changing it), so it holds for a read-only file system and for root alike, where a permission bit
 * would not tell. Every failure is a {@link CommandUsageError} naming the flag and the path, one line
 * without a stack (docs/guides/commands.md, "Exit statuses").
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { mkdir, open, stat, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { CommandUsageError } from "../errors.js";

/** Why a path cannot be written, in words, from a file-system error. */
function because(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied (EACCES)";
    case "EROFS":
      return "the file system is read-only (EROFS)";
    case "ENOSPC":
      return "no space left on the device (ENOSPC)";
    default:
      return code ?? (error as Error).message;
  }
}

/** The file system entry at `path`, or undefined when there is none. */
async function entryAt(path: string) {
  return stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
}

/** Creates and removes a probe file in the folder `dir`: whether a file can be written there. */
async function probeFolder(flag: string, given: string, dir: string): Promise<void> {
  const probe = join(dir, `.pulumi-tenant-write-check-${randomBytes(6).toString("hex")}`);
  try {
    await (await open(probe, "wx")).close();
    await unlink(probe);
  } catch (error) {
    throw new CommandUsageError(`${flag} ${given}: cannot write in ${dir}: ${because(error)}`);
  }
}

/**
 * Checks that the file `file` can be written by the command: not a folder, its folder there and
 * writable, and, when `force` is false, no file there yet (`undefined`: the command replaces a file
 * as its usage says). Returns the absolute path.
 *
 * @throws {CommandUsageError} naming `flag`, the path and why.
 */
export async function checkFileOutput(
  flag: string,
  file: string,
  force: boolean | undefined,
): Promise<string> {
  const path = resolve(file);
  const entry = await entryAt(path).catch((error: unknown) => {
    throw new CommandUsageError(`${flag} ${file}: cannot look at ${path}: ${because(error)}`);
  });
  if (entry?.isDirectory()) {
    throw new CommandUsageError(`${flag} ${file}: ${path} is a folder; give the path of a file`);
  }
  if (entry !== undefined && force === false) {
    throw new CommandUsageError(
      `${flag} ${file}: ${path} already exists; pass --force to overwrite it, or choose another file`,
    );
  }
  if (entry !== undefined) {
    try {
      // Opened for writing without truncating: the file is unchanged if the command fails later.
      await (await open(path, "r+")).close();
    } catch (error) {
      throw new CommandUsageError(`${flag} ${file}: cannot write ${path}: ${because(error)}`);
    }
    return path;
  }
  const folder = dirname(path);
  const parent = await entryAt(folder).catch(() => undefined);
  if (parent === undefined) {
    throw new CommandUsageError(
      `${flag} ${file}: the folder ${folder} does not exist; create it first`,
    );
  }
  if (!parent.isDirectory()) {
    throw new CommandUsageError(`${flag} ${file}: ${folder} is a file, not a folder`);
  }
  await probeFolder(flag, file, folder);
  return path;
}

/**
 * Checks that the folder `dir` can hold the command's files: a folder or nothing yet (it is
 * created, with its missing parents, as the write would), under a folder where files can be
 * written. Creates nothing. Returns the absolute path.
 *
 * @throws {CommandUsageError} naming `flag`, the path and why.
 */
export async function checkFolderOutput(flag: string, dir: string): Promise<string> {
  const path = resolve(dir);
  let existing = path;
  // The nearest folder that exists: the one the write creates the rest under. Bounded by the
  // path's depth.
  for (;;) {
    const entry = await entryAt(existing).catch((error: unknown) => {
      throw new CommandUsageError(`${flag} ${dir}: cannot look at ${existing}: ${because(error)}`);
    });
    if (entry !== undefined) {
      if (!entry.isDirectory()) {
        throw new CommandUsageError(
          existing === path
            ? `${flag} ${dir}: ${path} is a file, not a folder`
            : `${flag} ${dir}: ${existing} is a file, so ${path} cannot be created`,
        );
      }
      break;
    }
    const up = dirname(existing);
    if (up === existing) break;
    existing = up;
  }
  await probeFolder(flag, dir, existing);
  return path;
}

/**
 * Creates the folder `dir` (and its missing parents), turning a failure into the same sentence as
 * {@link checkFolderOutput}'s.
 *
 * @throws {CommandUsageError} naming `flag`, the path and why.
 */
export async function makeFolder(flag: string, dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new CommandUsageError(`${flag} ${dir}: cannot create the folder: ${because(error)}`);
  }
}
