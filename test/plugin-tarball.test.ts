import { describe, expect, it } from "vitest";
import { pluginPlatform, tarballName } from "../provider/plugin/tarball.js";

/** The plugin tarball's name, as `pulumi plugin install resource tenant VERSION --file` wants it. */

describe("the plugin tarball's name", () => {
  it("uses Pulumi's names for the machine", () => {
    expect([
      pluginPlatform("linux", "x64"),
      pluginPlatform("darwin", "arm64"),
      pluginPlatform("win32", "x64"),
    ]).toEqual(["linux-amd64", "darwin-arm64", "windows-amd64"]);
  });

  it("carries the version with a v and the platform", () => {
    expect(tarballName("0.1.0", "linux-amd64")).toBe(
      "pulumi-resource-tenant-v0.1.0-linux-amd64.tar.gz",
    );
  });
});
