/**
 * The provider's own login by private key JWT (docs/installation-configuration.md, "Configuration"), through the real pulumi
 * CLI: the tenant example's whole lifecycle with the key from the stack config (a secret) and from
 * the environment, and each refusal with its own sentence, no byte of the key anywhere.
 */
import { generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { TenantApiOptions } from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import {
  type ConfigValues,
  credentialTexts,
  example,
  type Stack,
  startStack,
  tenantExampleConfig,
} from "./support/e2e.js";
import { expectTenantLifecycle, LIFECYCLE_STEPS } from "./support/lifecycle.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function keyStack(options: TenantApiOptions = {}): Promise<Stack> {
  stack = await startStack(example("tenant"), tenantExampleConfig(), {
    privateKeyJwt: true,
    ...options,
  });
  return stack;
}

/** Config over the stack's that removes the private key from it (the run takes it elsewhere). */
const WITHOUT_KEY = { "tenant:clientAssertionPrivateKey": undefined } as unknown as ConfigValues;

const OTHER_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs8",
  format: "pem",
}) as string;

/** Asserts that no text of `s`'s credentials is in any of `texts`. */
function expectNoKeyIn(s: Stack, texts: Record<string, string>): void {
  for (const [what, text] of Object.entries(texts)) {
    for (const secret of credentialTexts(s.api)) {
      expect(text, `${what} holds a credential`).not.toContain(secret);
    }
  }
}

describe("the tenant example logged in by private key JWT", () => {
  it(
    "passes the lifecycle with the key in the stack config, as a secret",
    async () => {
      const s = await keyStack();
      await expectTenantLifecycle(s);
      // A token per provider process at most, not one per resource or call (the assertion is
      // signed anew for each token request, and the token cached for the run).
      expect(s.api.stats().token).toBeLessThanOrEqual(LIFECYCLE_STEPS.pulumi ?? 0);
    },
    budget(LIFECYCLE_STEPS),
  );

  it(
    "takes the key from TENANT_CLIENT_ASSERTION_PRIVATE_KEY, and keeps it out of the exported stack",
    async () => {
      const s = await keyStack();
      const env = { TENANT_CLIENT_ASSERTION_PRIVATE_KEY: s.api.clientAssertionPrivateKey };
      const up = await s.run("up", { config: WITHOUT_KEY, env });
      expect(up.error, up.output).toBeUndefined();
      expect(s.api.store.getProvider()).toBe("sns");
      const exported = await s.project.cliCommand(["stack", "export"], env);
      const outputs = await s.project.cliCommand(["stack", "output", "--json"], env);
      expectNoKeyIn(s, {
        "the state": await s.stateText(),
        "the exported stack": exported,
        "the outputs": outputs,
        "the output of up": up.output,
      });
      const destroy = await s.run("destroy", { config: WITHOUT_KEY, env });
      expect(destroy.error, destroy.output).toBeUndefined();
    },
    budget({ pulumi: 2, pulumiCommands: 2 }),
  );
});

/**
 * Runs a preview of a key stack with `config` over its own, and asserts that it fails with
 * `sentence` and sends nothing to the tenant. Returns the preview's output for further checks.
 */
async function expectRefusedAtPreview(config: ConfigValues, sentence: string): Promise<string> {
  const s = await keyStack();
  const preview = await s.run("preview", { config });
  expect(preview.ok).toBe(false);
  expect(preview.output).toContain(sentence);
  expect(s.api.stats().total).toBe(0);
  return preview.output;
}

describe("the refusals of a private key JWT login, each with its own sentence", () => {
  it(
    "fails at preview on a malformed PEM, naming the setting, with nothing sent",
    async () => {
      const broken = `-----BEGIN PRIVATE KEY-----\nMIIBroken\n-----END PRIVATE KEY-----\n`;
      const output = await expectRefusedAtPreview(
        { "tenant:clientAssertionPrivateKey": { value: broken, secret: true } },
        "tenant:clientAssertionPrivateKey is not a readable PEM private key (its body is damaged or encrypted)",
      );
      expect(output).not.toContain("MIIBroken");
    },
    budget({ pulumi: 1 }),
  );

  it(
    "fails at preview on an algorithm the platform does not accept, with nothing sent",
    async () => {
      await expectRefusedAtPreview(
        { "tenant:clientAssertionSigningAlg": { value: "ES256" } },
        'tenant:clientAssertionSigningAlg "ES256" is not an algorithm the platform accepts for ' +
          "client assertions; use one of RS256, RS384, PS256",
      );
    },
    budget({ pulumi: 1 }),
  );

  it(
    "fails at preview with a client secret and a private key both set, with nothing sent",
    async () => {
      // A client secret beside the key the stack config already holds.
      await expectRefusedAtPreview(
        { "tenant:clientSecret": { value: "a-second-credential", secret: true } },
        "pulumi-tenant has more than one way of authenticating: tenant:clientSecret and " +
          "tenant:clientAssertionPrivateKey are both set",
      );
    },
    budget({ pulumi: 1 }),
  );

  it(
    "fails up with a key the client does not have, naming the client and the settings",
    async () => {
      const s = await keyStack();
      const up = await s.run("up", {
        config: { "tenant:clientAssertionPrivateKey": { value: OTHER_KEY, secret: true } },
      });
      expect(up.ok).toBe(false);
      expect(up.error).toContain(
        `refused the client assertion of client ${s.api.clientId} (401 invalid_client: Invalid ` +
          "client_assertion signature: no credential of the client verifies it); check that " +
          `tenant:clientAssertionPrivateKey is the private key of a public key registered on client ${s.api.clientId}`,
      );
      expect(s.api.stats().api, "no management call without a token").toBe(0);
      for (const line of OTHER_KEY.split("\n").filter((l) => l !== "" && !l.startsWith("-----"))) {
        expect(up.output).not.toContain(line);
      }
    },
    budget({ pulumi: 1 }),
  );

  it(
    "fails up with an algorithm the client's key is not registered for",
    async () => {
      const s = await keyStack();
      const up = await s.run("up", {
        config: { "tenant:clientAssertionSigningAlg": { value: "RS384" } },
      });
      expect(up.ok).toBe(false);
      expect(up.error).toContain(
        "(401 invalid_client: Algorithm RS384 does not match the algorithm of the client's " +
          "credentials); check that tenant:clientAssertionPrivateKey is the private key of a public " +
          `key registered on client ${s.api.clientId} for private_key_jwt, with the algorithm of ` +
          "tenant:clientAssertionSigningAlg (RS384)",
      );
    },
    budget({ pulumi: 1 }),
  );

  it(
    "fails up when the tenant's clock finds the assertion expired",
    async () => {
      // The tenant's clock ten minutes ahead of the machine's: the one-minute assertion is expired.
      const s = await keyStack({ clock: () => Date.now() + 600_000 });
      const up = await s.run("up");
      expect(up.ok).toBe(false);
      expect(up.error).toContain(
        `refused the client assertion of client ${s.api.clientId} (401 invalid_client: ` +
          "client_assertion has expired)",
      );
    },
    budget({ pulumi: 1 }),
  );
});
