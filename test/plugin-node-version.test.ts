import { describe, expect, it } from "vitest";
import { requireSupportedNode } from "../provider/plugin/node-version.js";

/** The plugin's own check of the Node.js running it (the launcher checks before it starts). */

describe("the plugin's Node.js check", () => {
  it("refuses Node.js 20, naming the version found and the one needed", () => {
    expect(() => requireSupportedNode("20.20.2")).toThrow(
      new Error(
        "pulumi-resource-tenant needs Node.js 22 or later (22.18 or later to run a TypeScript program), and this is Node.js 20.20.2: install it from https://nodejs.org/en/download (or run nvm install 22)",
      ),
    );
  });

  it("accepts Node.js 22 and later", () => {
    expect(() => requireSupportedNode("22.0.0")).not.toThrow();
    expect(() => requireSupportedNode("26.10.0")).not.toThrow();
  });
});
