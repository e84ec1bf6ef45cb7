/**
 * The release's ad-hoc signer of Mach-O executables (provider/plugin/release/macho-sign.ts), on
 * Node.js's own darwin-arm64 binary as `npm ci` fetched it, which carries Apple's signature: the
 * build signs files that have none (injecting removes it); these cover a file that has one, and
 * the refusals, of truncated and foreign files too, on a small Mach-O made here. The signature is
 * read back by the tests' own reader (support/executable-headers).
 */
import { readFile } from "node:fs/promises";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { PluginBuildError } from "../provider/errors.js";
import { adHocSign } from "../provider/plugin/release/macho-sign.js";
import { nodeBase } from "../provider/plugin/release/node-bases.js";
import { pluginTarget } from "../provider/plugin/release/targets.js";
import { PROPERTY_SEED } from "./support/arbitraries/index.js";
import { executableFacts, machoSignature } from "./support/executable-headers.js";

let signedByApple: Buffer;
beforeAll(async () => {
  signedByApple = await readFile(nodeBase(pluginTarget("darwin-arm64")).binary);
});

describe("the ad-hoc signer of Mach-O executables", () => {
  it("replaces the signature a file has with an ad-hoc one whose every page hash is right", () => {
    const signed = adHocSign(signedByApple, "pulumi-resource-tenant", "node");
    expect(machoSignature(signed)).toMatchObject({
      adHoc: true,
      identifier: "pulumi-resource-tenant",
      badPages: 0,
      coversFile: true,
    });
    expect(executableFacts(signed)).toMatchObject({ format: "macho", cpu: "arm64" });
  });

  it("writes the same bytes when it signs its own output again", () => {
    const once = adHocSign(signedByApple, "pulumi-resource-tenant", "node");
    expect(adHocSign(once, "pulumi-resource-tenant", "node").equals(once)).toBe(true);
  });

  it("refuses a file that is not a 64-bit Mach-O, naming it", () => {
    expect(() => adHocSign(Buffer.from("MZ, a Windows file"), "x", "plugin.exe")).toThrow(
      "cannot sign plugin.exe: it is not a 64-bit little-endian Mach-O file (fat files are not handled)",
    );
  });

  it("refuses a file with something after __LINKEDIT, which the signature could not cover", () => {
    const trailing = Buffer.concat([signedByApple, Buffer.from("appended")]);
    expect(() => adHocSign(trailing, "x", "node")).toThrow(
      "cannot sign node: __LINKEDIT is not the last thing in the file",
    );
  });
});

/**
 * The smallest Mach-O the signer takes: a 64-bit executable's header and two segment commands,
 * `__TEXT` (one page, the header in it) and `__LINKEDIT` (64 bytes, the file's last), 4,160 bytes.
 */
function smallMachO(): Buffer {
  const data = Buffer.alloc(4096 + 64);
  data.writeUInt32LE(0xfeedfacf, 0); // MH_MAGIC_64
  data.writeUInt32LE(0x0100000c, 4); // CPU_TYPE_ARM64
  data.writeUInt32LE(2, 12); // MH_EXECUTE
  data.writeUInt32LE(2, 16); // ncmds
  data.writeUInt32LE(2 * 72, 20); // sizeofcmds
  const segment = (at: number, name: string, fileoff: number, filesize: number) => {
    data.writeUInt32LE(0x19, at); // LC_SEGMENT_64
    data.writeUInt32LE(72, at + 4);
    data.write(name, at + 8, "latin1");
    data.writeBigUInt64LE(BigInt(filesize), at + 32); // vmsize
    data.writeBigUInt64LE(BigInt(fileoff), at + 40);
    data.writeBigUInt64LE(BigInt(filesize), at + 48);
  };
  segment(32, "__TEXT", 0, 4096);
  segment(32 + 72, "__LINKEDIT", 4096, 64);
  return data;
}

/** What signing `data` as `plugin` throws, or undefined when it signs it. */
function refusal(data: Buffer): unknown {
  try {
    adHocSign(data, "pulumi-resource-tenant", "plugin");
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Whether `error` is the signer's refusal of `plugin` in one sentence. */
function isOneSentenceRefusal(error: unknown): boolean {
  return (
    error instanceof PluginBuildError &&
    /^cannot sign plugin: [^\n]+$/.test(error.message) &&
    !error.message.includes(". ")
  );
}

describe("the ad-hoc signer on truncated and foreign files", () => {
  it("signs the small Mach-O these tests cut, so that what they cut was signable", () => {
    expect(
      machoSignature(adHocSign(smallMachO(), "pulumi-resource-tenant", "plugin")),
    ).toMatchObject({
      adHoc: true,
      badPages: 0,
      coversFile: true,
    });
  });

  it("refuses a file cut inside its header, naming it, in one sentence", () => {
    for (const length of [0, 4, 31]) {
      expect(refusal(smallMachO().subarray(0, length))).toEqual(
        new PluginBuildError(
          "cannot sign plugin: it is not a 64-bit little-endian Mach-O file (fat files are not handled)",
        ),
      );
    }
  });

  it("refuses a file cut inside its load commands, saying where they end", () => {
    for (const length of [32, 40, 104, 175]) {
      expect(refusal(smallMachO().subarray(0, length))).toEqual(
        new PluginBuildError(
          `cannot sign plugin: it is truncated: its load commands end at byte 176, past its end (${length} bytes)`,
        ),
      );
    }
  });

  it("refuses a file cut inside its segments, saying where __LINKEDIT ends", () => {
    for (const length of [176, 4096, 4159]) {
      expect(refusal(smallMachO().subarray(0, length))).toEqual(
        new PluginBuildError(
          `cannot sign plugin: it is truncated: its __LINKEDIT segment ends at byte 4160, past its end (${length} bytes)`,
        ),
      );
    }
  });

  it("refuses the small Mach-O cut at every length with one sentence", () => {
    const whole = smallMachO();
    for (let length = 0; length < whole.length; length += 1) {
      expect(isOneSentenceRefusal(refusal(whole.subarray(0, length))), `${length} bytes`).toBe(
        true,
      );
    }
  });

  it("refuses Node.js's darwin binary cut anywhere with one sentence", () => {
    fc.assert(
      // Half the cuts in its first 8 KiB, where its header and load commands are.
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 8192 }),
          fc.integer({ min: 0, max: signedByApple.length - 1 }),
        ),
        (length) => isOneSentenceRefusal(refusal(signedByApple.subarray(0, length))),
      ),
      { seed: PROPERTY_SEED, numRuns: 200 },
    );
  });

  it("refuses foreign files with one sentence: ELF, PE, 32-bit and fat Mach-O, text", () => {
    for (const magic of ["7f454c46", "4d5a9000", "cefaedfe", "cafebabe", "23212f62"]) {
      const foreign = Buffer.concat([Buffer.from(magic, "hex"), Buffer.alloc(4156)]);
      expect(refusal(foreign)).toEqual(
        new PluginBuildError(
          "cannot sign plugin: it is not a 64-bit little-endian Mach-O file (fat files are not handled)",
        ),
      );
    }
  });

  it("signs or refuses in one sentence a Mach-O whose header holds any bytes and any 64-bit numbers", () => {
    const bytes = fc.tuple(fc.integer({ min: 4, max: 175 }), fc.uint8Array({ maxLength: 64 }));
    const numbers = fc.tuple(
      fc.integer({ min: 4, max: 168 }),
      fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.constant(2n ** 64n - 1n)),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(bytes, numbers), { minLength: 1, maxLength: 4 }), (edits) => {
        const data = smallMachO();
        for (const [at, value] of edits) {
          if (typeof value === "bigint") data.writeBigUInt64LE(value, at);
          else data.set(value.subarray(0, data.length - at), at);
        }
        const error = refusal(data);
        return error === undefined || isOneSentenceRefusal(error);
      }),
      { seed: PROPERTY_SEED, numRuns: 5000 },
    );
  });
});
