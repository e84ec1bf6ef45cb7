import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FileSpec, FixtureProject, runCli } from "./engine/fixture-project.js";
import { type EngineResult, runEngine } from "./engine/index.js";
import { projectTest } from "./engine/project-test.js";
import { crypterFromSalt, newEncryptionSalt } from "./engine/secrets.js";

const SECRET = "hunter2-correct-horse";
const secretFile: FileSpec = { name: "s", path: "s.txt", secretContent: true };
const secretConfig = { "fixture:secret": { value: SECRET, secret: true } };

describe("engine stand-in: secrets in a deployed stack", () => {
  let project: FixtureProject;
  let result: EngineResult;

  // One up, looked at from several sides.
  beforeAll(async () => {
    project = await FixtureProject.create();
    result = await project.run("up", { files: [secretFile], config: secretConfig });
  });

  afterAll(async () => {
    await project.cleanup();
  });

  it("never writes a secret config value or an additionalSecretOutputs value in plaintext to the state", async () => {
    expect(result.ok, result.output).toBe(true);
    const token = project.ops().find((o) => o.op === "create")?.token;
    expect(typeof token).toBe("string");
    const text = project.stateText();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(String(token));
    const state = await project.state();
    const s = state.resources.find((r) => r.name === "s");
    expect(s?.outputs).toMatchObject({ content: SECRET, token });
    expect(s?.secretPaths).toEqual(
      expect.arrayContaining(["inputs.content", "outputs.content", "outputs.token"]),
    );
  });

  it("prints secrets as [secret] and never their values", () => {
    expect(result.ok, result.output).toBe(true);
    const token = String(project.ops().find((o) => o.op === "create")?.token);
    expect(result.output).toContain('secret : "[secret]"');
    expect(result.output).toContain('tokens : {"s":"[secret]"}');
    expect(result.output).not.toContain(SECRET);
    expect(result.output).not.toContain(token);
    expect(result.diagnostics.join("\n")).not.toContain(SECRET);
  });

  it("hands the provider host plain values, which it does not accept as secrets", () => {
    expect(result.ok, result.output).toBe(true);
    expect(fs.readFileSync(project.file("s.txt"), "utf8")).toBe(SECRET);
  });

  it("keeps the secrets secret when the resource is updated", async () => {
    const token = String(project.ops().find((o) => o.op === "create")?.token);
    const copy = await project.clone();
    try {
      const updated = await copy.run("up", {
        files: [secretFile],
        config: { "fixture:secret": { value: `${SECRET}-2`, secret: true } },
      });

      expect(updated.ok, updated.output).toBe(true);
      expect(updated.steps).toMatchObject([{ name: "s", op: "update" }]);
      expect(copy.stateText()).not.toContain(SECRET);
      expect(copy.stateText()).not.toContain(token);
    } finally {
      await copy.cleanup();
    }
  });
});

describe("engine stand-in: secrets in the stack file", () => {
  const it = projectTest(() => FixtureProject.create());

  it("writes `config set --secret` encrypted, and a run decrypts it", async ({ project }) => {
    const cli = await runCli(
      ["config", "set", "--secret", "fixture:secret", SECRET, "--cwd", project.cwd],
      { env: project.env },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const stackFile = fs.readFileSync(path.join(project.cwd, "Pulumi.dev.yaml"), "utf8");
    expect(stackFile).toMatch(/fixture:secret:\n\s+secure: v1:/);
    expect(stackFile).not.toContain(SECRET);

    const result = await project.run("up", { files: [secretFile] });

    expect(result.ok, result.output).toBe(true);
    expect(fs.readFileSync(project.file("s.txt"), "utf8")).toBe(SECRET);
  });

  it("fails with Pulumi's message when no passphrase is set", async ({ project }) => {
    await runCli(["config", "set", "--secret", "fixture:secret", SECRET, "--cwd", project.cwd], {
      env: project.env,
    });
    const saved = process.env.PULUMI_CONFIG_PASSPHRASE;
    delete process.env.PULUMI_CONFIG_PASSPHRASE;
    try {
      const result = await runEngine({
        command: "preview",
        cwd: project.cwd,
        stateDir: project.stateDir,
        timeoutMs: 60_000,
      });

      expect(result.ok).toBe(false);
      expect(result.error).toMatch(
        /^passphrase must be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE environment variables/,
      );
    } finally {
      if (saved !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE = saved;
    }
  });
});

describe("engine stand-in: passphrase crypto", () => {
  // A salt and passphrase from Pulumi's own tests (pkg/secrets/passphrase): this checks the key
  // derivation and the value format against what the real CLI writes.
  const pulumiSalt = "v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==";

  it("accepts the passphrase of a salt written by the Pulumi CLI", async () => {
    const crypter = await crypterFromSalt("password", pulumiSalt);

    expect(crypter.decrypt(crypter.encrypt("round trip"))).toBe("round trip");
  });

  it("rejects a wrong passphrase for a salt written by the Pulumi CLI", async () => {
    await expect(crypterFromSalt("password123", pulumiSalt)).rejects.toThrow(
      /incorrect passphrase/,
    );
  });

  it("writes values as v1:<nonce>:<ciphertext> under a v1:<salt>:<check> salt", async () => {
    const { encryptionsalt, crypter } = await newEncryptionSalt("p");

    expect(encryptionsalt).toMatch(/^v1:[A-Za-z0-9+/=]{12}:v1:[A-Za-z0-9+/=]{16}:[A-Za-z0-9+/=]+$/);
    expect(crypter.encrypt("x")).toMatch(/^v1:[A-Za-z0-9+/=]{16}:[A-Za-z0-9+/=]+$/);
  });
});
