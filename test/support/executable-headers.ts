/**
 * What can be checked of an executable that cannot run here, read from its bytes alone: its
 * format and CPU (ELF, Mach-O, PE headers), whether a Node.js single executable application is in
 * it (the sentinel fuse Node.js flips when a blob is injected, and the blob's own ELF note, Mach-O
 * segment or PE resource), and its signature (the PE certificate table; a Mach-O ad-hoc code
 * signature whose every page hash is recomputed here). Written apart from the release's signer
 * (provider/plugin/release/macho-sign.ts), from the formats' definitions, so that the one checks
 * the other.
 */
import { createHash } from "node:crypto";

/** The fuse Node.js looks for, followed by `:0` in its own binary and `:1` once a blob is in. */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** What an executable's headers say. */
export interface ExecutableFacts {
  readonly format: "elf" | "macho" | "pe";
  /** `x86_64` or `arm64`. */
  readonly cpu: string;
  /** The fuse reads `:1`: Node.js will look for the blob. */
  readonly fuseFlipped: boolean;
  /** The blob's container is there: ELF note, Mach-O segment `NODE_SEA`, PE resource. */
  readonly blobPresent: boolean;
}

/** Reads `data`'s format, CPU and the single executable application's marks. */
export function executableFacts(data: Buffer): ExecutableFacts {
  const fuseFlipped = data.includes(`${SEA_FUSE}:1`);
  if (data.readUInt32BE(0) === 0x7f454c46) {
    const machine = data.readUInt16LE(18);
    return {
      format: "elf",
      cpu: machine === 0x3e ? "x86_64" : machine === 0xb7 ? "arm64" : `elf-${machine}`,
      fuseFlipped,
      blobPresent: elfNoteNames(data).includes("NODE_SEA_BLOB"),
    };
  }
  if (data.readUInt32LE(0) === 0xfeedfacf) {
    const cputype = data.readUInt32LE(4);
    return {
      format: "macho",
      cpu:
        cputype === 0x01000007 ? "x86_64" : cputype === 0x0100000c ? "arm64" : `macho-${cputype}`,
      fuseFlipped,
      blobPresent: machoSegments(data).some((segment) => segment.name === "NODE_SEA"),
    };
  }
  if (data.toString("latin1", 0, 2) === "MZ") {
    const pe = data.readUInt32LE(0x3c);
    const machine = data.readUInt16LE(pe + 4);
    return {
      format: "pe",
      cpu: machine === 0x8664 ? "x86_64" : machine === 0xaa64 ? "arm64" : `pe-${machine}`,
      fuseFlipped,
      blobPresent: data.includes(Buffer.from("NODE_SEA_BLOB", "utf16le")),
    };
  }
  throw new Error("neither ELF, Mach-O nor PE");
}

/** The names of an ELF64 file's notes (its PT_NOTE segments). */
function elfNoteNames(data: Buffer): string[] {
  const names: string[] = [];
  const phoff = Number(data.readBigUInt64LE(32));
  const phentsize = data.readUInt16LE(54);
  const phnum = data.readUInt16LE(56);
  for (let index = 0; index < phnum; index += 1) {
    const header = phoff + index * phentsize;
    if (data.readUInt32LE(header) !== 4) continue; // PT_NOTE
    const offset = Number(data.readBigUInt64LE(header + 8));
    const end = offset + Number(data.readBigUInt64LE(header + 32));
    for (let at = offset; at + 12 <= end; ) {
      const namesz = data.readUInt32LE(at);
      const descsz = data.readUInt32LE(at + 4);
      names.push(data.toString("latin1", at + 12, at + 12 + namesz).replace(/\0+$/, ""));
      at += 12 + Math.ceil(namesz / 4) * 4 + Math.ceil(descsz / 4) * 4;
    }
  }
  return names;
}

/** A Mach-O segment: its name and where its command and contents are. */
interface MachoSegment {
  readonly name: string;
  readonly fileoff: number;
  readonly filesize: number;
}

function machoCommands(data: Buffer): Array<{ cmd: number; at: number }> {
  const commands: Array<{ cmd: number; at: number }> = [];
  let at = 32;
  for (let index = 0; index < data.readUInt32LE(16); index += 1) {
    commands.push({ cmd: data.readUInt32LE(at), at });
    at += data.readUInt32LE(at + 4);
  }
  return commands;
}

function machoSegments(data: Buffer): MachoSegment[] {
  return machoCommands(data)
    .filter(({ cmd }) => cmd === 0x19)
    .map(({ at }) => ({
      name: data.toString("latin1", at + 8, at + 24).replace(/\0+$/, ""),
      fileoff: Number(data.readBigUInt64LE(at + 40)),
      filesize: Number(data.readBigUInt64LE(at + 48)),
    }));
}

/** Whether a PE file has an Authenticode signature: a certificate table in its data directories. */
export function peHasSignature(data: Buffer): boolean {
  const optional = data.readUInt32LE(0x3c) + 24;
  const directories = optional + (data.readUInt16LE(optional) === 0x20b ? 112 : 96);
  const security = directories + 4 * 8;
  return data.readUInt32LE(security) !== 0 || data.readUInt32LE(security + 4) !== 0;
}

/** A Mach-O code signature as read and checked here. */
export interface MachoSignature {
  /** The CodeDirectory's flags include `CS_ADHOC` (no certificate). */
  readonly adHoc: boolean;
  readonly identifier: string;
  /** The pages it hashes, each 4,096 bytes but the last. */
  readonly pages: number;
  /** Pages whose SHA-256 is not the one the CodeDirectory holds. */
  readonly badPages: number;
  /** It covers the whole file up to itself, and `__LINKEDIT` ends where it ends: the file's end. */
  readonly coversFile: boolean;
}

/**
 * Reads and checks `data`'s embedded code signature, or undefined when it has no
 * `LC_CODE_SIGNATURE`. Only a SHA-256 CodeDirectory is read (what ad-hoc signing writes).
 */
export function machoSignature(data: Buffer): MachoSignature | undefined {
  const command = machoCommands(data).find(({ cmd }) => cmd === 0x1d);
  if (command === undefined) return undefined;
  const dataoff = data.readUInt32LE(command.at + 8);
  const datasize = data.readUInt32LE(command.at + 12);
  const blob = data.subarray(dataoff, dataoff + datasize);
  if (blob.readUInt32BE(0) !== 0xfade0cc0) throw new Error("the signature is not a SuperBlob");
  const count = blob.readUInt32BE(8);
  let cd: number | undefined;
  for (let index = 0; index < count; index += 1) {
    const type = blob.readUInt32BE(12 + index * 8);
    if (type === 0) cd = blob.readUInt32BE(16 + index * 8);
  }
  if (cd === undefined || blob.readUInt32BE(cd) !== 0xfade0c02) {
    throw new Error("the signature has no CodeDirectory");
  }
  const flags = blob.readUInt32BE(cd + 12);
  const hashOffset = blob.readUInt32BE(cd + 16);
  const identOffset = blob.readUInt32BE(cd + 20);
  const pages = blob.readUInt32BE(cd + 28);
  const codeLimit = blob.readUInt32BE(cd + 32);
  const hashSize = blob.readUInt8(cd + 36);
  const hashType = blob.readUInt8(cd + 37);
  const pageSize = 1 << blob.readUInt8(cd + 39);
  if (hashType !== 2 || hashSize !== 32) throw new Error(`hash type ${hashType}, not SHA-256`);
  const identifierEnd = blob.indexOf(0, cd + identOffset);
  let badPages = 0;
  for (let page = 0; page < pages; page += 1) {
    const bytes = data.subarray(page * pageSize, Math.min(codeLimit, (page + 1) * pageSize));
    const expected = blob.subarray(cd + hashOffset + page * 32, cd + hashOffset + page * 32 + 32);
    if (!createHash("sha256").update(bytes).digest().equals(expected)) badPages += 1;
  }
  const linkedit = machoSegments(data).find((segment) => segment.name === "__LINKEDIT");
  return {
    adHoc: (flags & 0x2) !== 0,
    identifier: blob.toString("latin1", cd + identOffset, identifierEnd),
    pages,
    badPages,
    coversFile:
      codeLimit === dataoff &&
      pages === Math.ceil(codeLimit / pageSize) &&
      linkedit !== undefined &&
      linkedit.fileoff + linkedit.filesize === data.length &&
      dataoff + datasize === data.length,
  };
}
