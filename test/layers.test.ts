/**
 * The layers of provider/ are written once, in `.dependency-cruiser.cjs`, which `npm run deps`
 * checks every import against; CONTRIBUTING.md lists them for the reader. These tests hold the two
 * together, and see that every source file of provider/ stands in exactly one room, so that a new
 * room must be given its layer.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

interface Room {
  readonly room: string;
  readonly path: string;
  readonly holds: string;
}
interface Layer {
  readonly name: string;
  readonly says: string;
  readonly rooms: readonly Room[];
}
interface AllowedUp {
  readonly fromRoom: string;
  readonly toRoom: string;
  readonly why: string;
}

const root = join(__dirname, "..");
const config = createRequire(__filename)(join(root, ".dependency-cruiser.cjs")) as {
  readonly LAYERS: readonly Layer[];
  readonly ALLOWED_UP: readonly AllowedUp[];
};

/** The list CONTRIBUTING.md gives: a line per layer, from the top, then a line per room. */
function rendered(layers: readonly Layer[], allowed: readonly AllowedUp[]): string[] {
  const lines = layers.flatMap((layer, index) => {
    const below = layers.slice(index + 1).map((lower) => lower.name);
    const imports =
      below.length === 0 ? "imports nothing of the package" : `may import: ${below.join(", ")}`;
    return [
      `${index + 1}. **${layer.name}**, ${layer.says}; ${imports}`,
      ...layer.rooms.map((room) => `   - \`${room.room}\`: ${room.holds}`),
    ];
  });
  return [...lines, ...allowed.map((up) => `- \`${up.fromRoom}\` → \`${up.toRoom}\`: ${up.why}`)];
}

/** The lines of CONTRIBUTING.md's section "The layers of provider/" that list layers and rooms. */
function listed(): string[] {
  const text = readFileSync(join(root, "CONTRIBUTING.md"), "utf8");
  const start = text.indexOf("## The layers of `provider/`");
  const end = text.indexOf("\n## ", start + 1);
  return text
    .slice(start, end)
    .split("\n")
    .filter((line) => /^(\d+\. | {3}- |- `)/.test(line));
}

/** Every TypeScript source of provider/, as a path from the repository's root. */
function sources(dir = join(root, "provider")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [relative(root, path).split("\\").join("/")] : [];
  });
}

describe("the layers of provider/", () => {
  it("are listed in CONTRIBUTING.md exactly as the dependency check's configuration writes them", () => {
    expect(listed()).toEqual(rendered(config.LAYERS, config.ALLOWED_UP));
  });

  it("place every source file of provider/ in exactly one room", () => {
    const rooms = config.LAYERS.flatMap((layer) => layer.rooms);
    const misplaced = sources()
      .map((file) => ({
        file,
        rooms: rooms.filter((room) => new RegExp(room.path).test(file)).map((room) => room.room),
      }))
      .filter(({ rooms: found }) => found.length !== 1);
    expect(misplaced).toEqual([]);
  });
});
