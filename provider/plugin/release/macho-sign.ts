/**
 * An ad-hoc code signature for a 64-bit Mach-O executable, written on any machine: what Apple's
 * linker writes with `-adhoc_codesign` and Go's linker writes for the darwin executables it builds
 * on Linux. Apple Silicon refuses to start an arm64 executable without a valid signature, and
 * injecting the plugin into Node.js's binary removes Node.js's own (docs/design/plugin.md, "The
 * self-contained executables").
 *
 * The signature is a SuperBlob holding one CodeDirectory: the SHA-256 of every 4,096-byte page of
 * the file up to the signature, the identifier, and the bounds of the `__TEXT` segment. It sits at
 * the end of `__LINKEDIT`, which grows to hold it, and an `LC_CODE_SIGNATURE` load command points
 * at it (added when the file has none). Ad hoc means no certificate: Gatekeeper still treats a
 * downloaded file as from an unidentified developer, but the kernel runs it.
 *
 * Not handled: universal (fat) files, 32-bit files, and a file whose `__LINKEDIT` is not its last
 * bytes; each is refused with a sentence. So is a file cut short or whose header is not what it
 * says: every read is checked against the file's length first (`parse`, `adHocSign`).
 *
 * @module
 */

import { createHash } from "node:crypto";
import { PluginBuildError } from "../../errors.js";

const MH_MAGIC_64 = 0xfeedfacf;
const MH_EXECUTE = 2;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const HEADER_SIZE = 32;
const CODE_SIGNATURE_COMMAND_SIZE = 16;
/** A load command's own fields: `cmd` and `cmdsize`. */
const LOAD_COMMAND_SIZE = 8;
/** `LC_SEGMENT_64` up to its sections, and each `section_64` after it. */
const SEGMENT_COMMAND_SIZE = 72;
const SECTION_SIZE = 80;

const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
/** The CodeDirectory version with the executable segment's fields. */
const CODEDIRECTORY_VERSION = 0x20400;
/** `CS_ADHOC | CS_LINKER_SIGNED`, as the linkers write it. */
const CODEDIRECTORY_FLAGS = 0x20002;
const CS_HASHTYPE_SHA256 = 2;
const CS_EXECSEG_MAIN_BINARY = 1;
const PAGE_SIZE_BITS = 12;
const PAGE_SIZE = 1 << PAGE_SIZE_BITS;
const HASH_SIZE = 32;
/** SuperBlob header (magic, length, count) and one index entry (type, offset). */
const SUPERBLOB_HEADER = 12 + 8;
/** The CodeDirectory's fixed fields, up to and with `execSegFlags`. */
const CODEDIRECTORY_HEADER = 88;
/** `__LINKEDIT`'s size in memory is a whole number of the largest page size (arm64's 16 KiB). */
const VM_PAGE = 0x4000;

/** A segment load command of the file, as far as signing needs it. */
interface Segment {
  readonly name: string;
  /** Where its command starts in the file. */
  readonly command: number;
  readonly fileoff: number;
  readonly filesize: number;
}

/** The load commands signing reads, from the file's header. */
interface MachO {
  readonly ncmds: number;
  readonly sizeofcmds: number;
  readonly filetype: number;
  readonly segments: readonly Segment[];
  /** Where the `LC_CODE_SIGNATURE` command starts, if there is one, and the data it points at. */
  readonly signature?: { readonly command: number; readonly dataoff: number };
  /** The lowest file offset of any section's contents: the load commands must end before it. */
  readonly firstSection: number;
}

const align = (value: number, to: number): number => Math.ceil(value / to) * to;

function refuse(file: string, why: string): PluginBuildError {
  return new PluginBuildError(`cannot sign ${file}: ${why}`);
}

/** The refusal of a file that ends before `what` does, at `end`: cut short, or not what it says. */
function truncated(file: string, what: string, end: number, length: number): PluginBuildError {
  return refuse(file, `it is truncated: ${what} at byte ${end}, past its end (${length} bytes)`);
}

/**
 * The load commands of `data`, read only within the file: the header's `sizeofcmds` is checked
 * against the file's length, each command against the header and its own size against what it
 * holds, before a byte of it is read.
 */
function parse(data: Buffer, file: string): MachO {
  if (data.length < HEADER_SIZE || data.readUInt32LE(0) !== MH_MAGIC_64) {
    throw refuse(file, "it is not a 64-bit little-endian Mach-O file (fat files are not handled)");
  }
  const filetype = data.readUInt32LE(12);
  const ncmds = data.readUInt32LE(16);
  const sizeofcmds = data.readUInt32LE(20);
  const headerEnd = HEADER_SIZE + sizeofcmds;
  if (headerEnd > data.length) {
    throw truncated(file, "its load commands end", headerEnd, data.length);
  }
  const segments: Segment[] = [];
  let signature: MachO["signature"];
  let firstSection = data.length;
  let at = HEADER_SIZE;
  for (let index = 0; index < ncmds; index += 1) {
    if (at + LOAD_COMMAND_SIZE > headerEnd) {
      throw refuse(file, `load command ${index} runs past the header`);
    }
    const cmd = data.readUInt32LE(at);
    const cmdsize = data.readUInt32LE(at + 4);
    if (cmdsize < LOAD_COMMAND_SIZE || at + cmdsize > headerEnd) {
      throw refuse(file, `load command ${index} runs past the header`);
    }
    if (cmd === LC_SEGMENT_64) {
      const nsects = cmdsize >= SEGMENT_COMMAND_SIZE ? data.readUInt32LE(at + 64) : 0;
      if (cmdsize < SEGMENT_COMMAND_SIZE + nsects * SECTION_SIZE) {
        throw refuse(file, `load command ${index} is shorter than its segment and sections`);
      }
      const name = data.toString("latin1", at + 8, at + 24).replace(/\0+$/, "");
      const fileoff = Number(data.readBigUInt64LE(at + 40));
      const filesize = Number(data.readBigUInt64LE(at + 48));
      segments.push({ name, command: at, fileoff, filesize });
      for (let section = 0; section < nsects; section += 1) {
        const offset = data.readUInt32LE(at + SEGMENT_COMMAND_SIZE + section * SECTION_SIZE + 48);
        if (offset > 0) firstSection = Math.min(firstSection, offset);
      }
    } else if (cmd === LC_CODE_SIGNATURE) {
      if (cmdsize < CODE_SIGNATURE_COMMAND_SIZE) {
        throw refuse(file, `load command ${index} is shorter than a code signature command`);
      }
      signature = { command: at, dataoff: data.readUInt32LE(at + 8) };
    }
    at += cmdsize;
  }
  return {
    ncmds,
    sizeofcmds,
    filetype,
    segments,
    ...(signature ? { signature } : {}),
    firstSection,
  };
}

/** The size of the signature of `codeSize` bytes under `identifier`. */
function signatureSize(codeSize: number, identifier: string): number {
  const pages = Math.ceil(codeSize / PAGE_SIZE);
  return SUPERBLOB_HEADER + CODEDIRECTORY_HEADER + identifier.length + 1 + pages * HASH_SIZE;
}

/** The SuperBlob signing `code` (the file up to the signature). */
function signatureBlob(code: Buffer, identifier: string, text: Segment, main: boolean): Buffer {
  const size = signatureSize(code.length, identifier);
  const pages = Math.ceil(code.length / PAGE_SIZE);
  const blob = Buffer.alloc(size);
  blob.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, 0);
  blob.writeUInt32BE(size, 4);
  blob.writeUInt32BE(1, 8);
  blob.writeUInt32BE(0, 12); // CSSLOT_CODEDIRECTORY
  blob.writeUInt32BE(SUPERBLOB_HEADER, 16);
  const cd = SUPERBLOB_HEADER;
  const identOffset = CODEDIRECTORY_HEADER;
  const hashOffset = identOffset + identifier.length + 1;
  blob.writeUInt32BE(CSMAGIC_CODEDIRECTORY, cd);
  blob.writeUInt32BE(size - SUPERBLOB_HEADER, cd + 4);
  blob.writeUInt32BE(CODEDIRECTORY_VERSION, cd + 8);
  blob.writeUInt32BE(CODEDIRECTORY_FLAGS, cd + 12);
  blob.writeUInt32BE(hashOffset, cd + 16);
  blob.writeUInt32BE(identOffset, cd + 20);
  blob.writeUInt32BE(0, cd + 24); // no special slots
  blob.writeUInt32BE(pages, cd + 28);
  blob.writeUInt32BE(code.length, cd + 32); // codeLimit
  blob.writeUInt8(HASH_SIZE, cd + 36);
  blob.writeUInt8(CS_HASHTYPE_SHA256, cd + 37);
  blob.writeUInt8(PAGE_SIZE_BITS, cd + 39);
  // spare2, scatterOffset, teamOffset, spare3 and codeLimit64 stay 0.
  blob.writeBigUInt64BE(BigInt(text.fileoff), cd + 64); // execSegBase
  blob.writeBigUInt64BE(BigInt(text.filesize), cd + 72); // execSegLimit
  blob.writeBigUInt64BE(BigInt(main ? CS_EXECSEG_MAIN_BINARY : 0), cd + 80);
  blob.write(`${identifier}\0`, cd + identOffset, "latin1");
  for (let page = 0; page < pages; page += 1) {
    const bytes = code.subarray(page * PAGE_SIZE, Math.min(code.length, (page + 1) * PAGE_SIZE));
    createHash("sha256")
      .update(bytes)
      .digest()
      .copy(blob, cd + hashOffset + page * HASH_SIZE);
  }
  return blob;
}

/**
 * `data` (a whole 64-bit Mach-O executable) with an ad-hoc signature under `identifier`, in place
 * of any signature it had: a new buffer; `data` itself is left as it was.
 *
 * @param file names the file in a refusal.
 * @throws {PluginBuildError} for a file it cannot sign, saying why.
 */
export function adHocSign(data: Buffer, identifier: string, file: string): Buffer {
  const macho = parse(data, file);
  const text = macho.segments.find((segment) => segment.name === "__TEXT");
  const linkedit = macho.segments.find((segment) => segment.name === "__LINKEDIT");
  if (text === undefined || linkedit === undefined) {
    throw refuse(file, "it has no __TEXT or no __LINKEDIT segment");
  }
  const linkeditEnd = linkedit.fileoff + linkedit.filesize;
  if (linkeditEnd > data.length) {
    throw truncated(file, "its __LINKEDIT segment ends", linkeditEnd, data.length);
  }
  const textEnd = text.fileoff + text.filesize;
  if (textEnd > data.length) {
    throw truncated(file, "its __TEXT segment ends", textEnd, data.length);
  }
  // The code ends where an old signature began, else at the end of __LINKEDIT (the end of file).
  const codeEnd = macho.signature?.dataoff ?? linkeditEnd;
  if (linkeditEnd !== data.length || codeEnd < linkedit.fileoff || codeEnd > data.length) {
    throw refuse(file, "__LINKEDIT is not the last thing in the file");
  }
  const headerEnd = HEADER_SIZE + macho.sizeofcmds;
  const addCommand = macho.signature === undefined;
  if (addCommand && headerEnd + CODE_SIGNATURE_COMMAND_SIZE > macho.firstSection) {
    throw refuse(file, "its header has no room for a code signature command");
  }
  // The header is rewritten in the signed code: it must lie within it, the new command too.
  if (headerEnd + (addCommand ? CODE_SIGNATURE_COMMAND_SIZE : 0) > codeEnd) {
    throw refuse(file, "its load commands run into its code signature");
  }
  const signatureAt = align(codeEnd, 16);
  const size = signatureSize(signatureAt, identifier);
  const code = Buffer.alloc(signatureAt);
  data.copy(code, 0, 0, codeEnd);
  const command = macho.signature?.command ?? headerEnd;
  if (addCommand) {
    code.writeUInt32LE(macho.ncmds + 1, 16);
    code.writeUInt32LE(macho.sizeofcmds + CODE_SIGNATURE_COMMAND_SIZE, 20);
  }
  code.writeUInt32LE(LC_CODE_SIGNATURE, command);
  code.writeUInt32LE(CODE_SIGNATURE_COMMAND_SIZE, command + 4);
  code.writeUInt32LE(signatureAt, command + 8);
  code.writeUInt32LE(size, command + 12);
  const filesize = signatureAt + size - linkedit.fileoff;
  code.writeBigUInt64LE(BigInt(filesize), linkedit.command + 48);
  // Compared as 64-bit numbers: the file's own vmsize may be any of them.
  const vmsize = code.readBigUInt64LE(linkedit.command + 32);
  const needed = BigInt(align(filesize, VM_PAGE));
  code.writeBigUInt64LE(vmsize > needed ? vmsize : needed, linkedit.command + 32);
  const blob = signatureBlob(code, identifier, text, macho.filetype === MH_EXECUTE);
  return Buffer.concat([code, blob]);
}
