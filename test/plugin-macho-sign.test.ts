/**
 * The release's ad-hoc signer of Mach-O executables (provider/plugin/release/macho-sign.ts), on
 * Node.js's own darwin-arm64 binary as `npm ci` fetched it, which carries Apple's signature: the
 * build signs files that have none (injecting removes it); these cover a file that has one, and
 * the refusals. The signature is read back by the tests' own reader (support/executable-headers).
 */
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { adHocSign } from "../provider/plugin/release/macho-sign.js";
import { nodeBase } from "../provider/plugin/release/node-bases.js";
import { pluginTarget } from "../provider/plugin/release/targets.js";
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
