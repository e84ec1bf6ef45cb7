import { RunError } from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { ErrorCodes, TenantError, TenantInstallError } from "../provider/errors.js";
import { installLayoutProblem, type ProgramProcess } from "../provider/resources/install-layout.js";

/** A program's process whose Node resolves exactly the module ids in `resolvable`. */
function program(
  resolvable: readonly string[],
  versions: ProgramProcess["versions"] = { node: "24.21.0" },
): ProgramProcess {
  return {
    versions,
    cwd: "/work/infra",
    resolve: (id) => {
      if (!resolvable.includes(id)) throw new Error(`Cannot find module '${id}'`);
      return `/work/node_modules/${id}.js`;
    },
  };
}

const BOTH = ["@pulumi/pulumi/cmd/dynamic-provider", "pulumi-tenant/runtime"];

describe("whether a program's install can work", () => {
  it("accepts an install where the provider host finds both packages from the program's folder", () => {
    expect(installLayoutProblem(program(BOTH))).toBeUndefined();
  });

  it("refuses Plug'n'Play with one sentence naming the setting to change", () => {
    expect(installLayoutProblem(program(BOTH, { node: "24.21.0", pnp: "3" }))).toBe(
      "pulumi-tenant cannot run from a Plug'n'Play install, because Pulumi's dynamic-provider " +
        "host loads it from a node_modules folder: set `nodeLinker: node-modules` in .yarnrc.yml " +
        "(pnpm: `node-linker=isolated` in .npmrc) and install again.",
    );
  });

  it("names the package the provider host would not find from the program's folder", () => {
    expect(installLayoutProblem(program(["pulumi-tenant/runtime"]))).toBe(
      "pulumi-tenant cannot run from this install, because Pulumi's dynamic-provider host loads " +
        "@pulumi/pulumi by name from the program's folder /work/infra and it is not in a " +
        "node_modules folder there or above: add @pulumi/pulumi to the dependencies of the " +
        "Pulumi project's own package.json and install again.",
    );
  });

  it("is refused as a Pulumi RunError with a stable code, so the runner prints the sentence alone", () => {
    const error = new TenantInstallError("the sentence");
    expect(RunError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      name: "TenantInstallError",
      code: ErrorCodes.install,
      message: "the sentence",
    });
  });

  it("is a TenantError like every error of the package, so catching TenantError catches it too", () => {
    const error = new TenantInstallError("the sentence");
    expect(error).toBeInstanceOf(TenantError);
    expect(error.concerning('ClientSettings "web"').message).toBe(
      'ClientSettings "web": the sentence',
    );
  });
});
