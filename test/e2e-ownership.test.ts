/**
 * Ownership by path through the real pulumi CLI (issue 54, the starred defects): a path removed
 * from the program is a change and goes back to its prior (2), what the client did not have goes
 * back to absent (3), a refresh that cannot see key material does not drift (5), and a declared
 * null the tenant keeps as its default does not drift (6). The clients-from-data example, so that
 * each step only rewrites a JSON file.
 */

import { describe, expect, it } from "vitest";
import {
  ADMIN_SCOPES,
  DEFAULT_SEED,
  DEFAULT_SEED_IDS,
  type TenantApiOptions,
} from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import { useClientsStacks } from "./support/e2e.js";
import { PATCH_MODELS } from "./support/recorded-patch.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;

const clientsStack = useClientsStacks();

/** A stack of the clients-from-data example managing the portal client with `settings`. */
async function portalStack(settings: unknown, api: TenantApiOptions = {}) {
  const entries = (next: unknown) => [{ name: "portal", clientId: PORTAL, settings: next }];
  const { stack, run, write } = await clientsStack(entries(settings), api);
  return {
    stack,
    portal: () => stack.api.store.getClient(PORTAL) as Record<string, unknown>,
    run,
    write: (next: unknown) => write(entries(next)),
  };
}

/** The default seed, the provider's credentials without read:client_keys: key material is hidden. */
function withoutKeyScope() {
  return {
    ...DEFAULT_SEED,
    grants: [
      ...(DEFAULT_SEED.grants ?? []).filter(
        ({ client_id }) => client_id !== DEFAULT_SEED_IDS.admin,
      ),
      {
        client_id: DEFAULT_SEED_IDS.admin,
        scope: ADMIN_SCOPES.filter((scope) => scope !== "read:client_keys"),
      },
    ],
  };
}

describe.each(PATCH_MODELS)(
  "ownership by path through the CLI, the undecided paths under the %s model",
  { timeout: budget({ pulumi: 4 }) },
  (patchModel) => {
    it("puts back a removed nested key, add-on and metadata key, and what the client did not have", async () => {
      const { portal, run, write } = await portalStack(
        {
          jwtConfiguration: { lifetimeInSeconds: 600, alg: "HS256" },
          addons: { samlp: { audience: "urn:portal" }, wsfed: {} },
          clientMetadata: { owner: "platform" },
          logoUri: "https://portal.example.com/logo.png",
        },
        { patchModel },
      );
      const before = structuredClone(portal());
      expect((await run("up")).ok).toBe(true);
      expect(portal().addons).toEqual({ samlp: { audience: "urn:portal" }, wsfed: {} });

      await write({
        jwtConfiguration: { lifetimeInSeconds: 600 },
        addons: { samlp: { audience: "urn:portal" } },
      });
      const preview = await run("preview");
      expect(preview.ok).toBe(true);
      expect(preview.changes).toBe(true);
      // The preview names the value the update will send for the key removed (item 2).
      // The portal was created without an alg (as the platform answers most app types): none.
      const { alg: prior } = before.jwt_configuration as { alg?: unknown };
      const alg = prior === undefined ? "none" : JSON.stringify(prior);
      expect(preview.diagnostics).toContain(
        `warning: ClientSettings "portal": jwtConfiguration.alg of client ${PORTAL} goes back to ` +
          `its prior (${alg}), what the client held before this resource managed it`,
      );
      expect((await run("up")).ok).toBe(true);
      expect(portal().jwt_configuration).toEqual({
        ...(before.jwt_configuration as object),
        lifetime_in_seconds: 600,
      });
      expect(portal().addons).toEqual({ samlp: { audience: "urn:portal" } });
      expect(portal().client_metadata).toEqual(before.client_metadata);
      expect(portal().logo_uri).toBe("");

      expect((await run("destroy")).ok).toBe(true);
      expect(portal().jwt_configuration).toEqual(before.jwt_configuration);
      expect(portal().addons).toEqual({});
    });

    it("sends a declared null as null, and shows no drift for the field it removes", async () => {
      const { portal, run } = await portalStack({ tokenEndpointAuthMethod: null }, { patchModel });
      expect((await run("up")).ok).toBe(true);
      const preview = await run("preview", { expectNoChanges: true });
      expect(preview.ok).toBe(true);
      expect(preview.changes).toBe(false);
      expect(portal()).not.toHaveProperty("token_endpoint_auth_method");
    });

    it("removes mobile.ios when it leaves the program, and at destroy a sessionTransfer the client never had", async () => {
      const { portal, run, write } = await portalStack(
        {
          mobile: { android: { appPackageName: "com.portal" }, ios: { teamId: "T1" } },
          sessionTransfer: { canCreateSessionTransferToken: true },
        },
        { patchModel },
      );
      const before = structuredClone(portal());
      expect((await run("up")).ok).toBe(true);
      await write({
        mobile: { android: { appPackageName: "com.portal" } },
        sessionTransfer: { canCreateSessionTransferToken: true },
      });
      expect((await run("up")).ok).toBe(true);
      expect(portal().mobile).toEqual({ android: { app_package_name: "com.portal" } });
      expect((await run("destroy")).ok).toBe(true);
      expect(portal().session_transfer).toEqual(before.session_transfer);
    });
  },
);

describe("ownership by path through the CLI", { timeout: budget({ pulumi: 4 }) }, () => {
  it("shows no drift for a client secret the credentials cannot read", async () => {
    const { run } = await portalStack(
      { clientSecret: "a-new-secret-of-the-portal" },
      { seed: withoutKeyScope() },
    );
    expect((await run("up")).ok).toBe(true);
    const refresh = await run("refresh", { expectNoChanges: true });
    expect(refresh.ok).toBe(true);
    const preview = await run("preview", { expectNoChanges: true });
    expect(preview.ok).toBe(true);
    expect(preview.changes).toBe(false);
  });

  it("refuses at preview a key-material path the credentials' token cannot see, naming read:client_keys", async () => {
    const { stack, portal, run } = await portalStack(
      { encryptionKey: { subject: "CN=portal" } },
      { seed: withoutKeyScope() },
    );
    const before = structuredClone(portal());
    const preview = await run("preview");
    expect(preview.ok).toBe(false);
    expect(preview.error).toContain(
      `encryptionKey of client ${PORTAL} cannot be seen: the tenant answers it only to ` +
        "credentials with read:client_keys (or read:client_credentials)",
    );
    expect(stack.writes()).toBe(0);
    expect(portal()).toEqual(before);
  });

  it("warns at preview that removing a redirectionPolicy the client did not have leaves it as it is", async () => {
    const { portal, run, write } = await portalStack({ redirectionPolicy: "allow_always" });
    expect(portal().redirection_policy).toBeUndefined();
    expect((await run("up")).ok).toBe(true);

    await write({});
    const preview = await run("preview");
    expect(preview.ok).toBe(true);
    // The dynamic face's warning is a line of the provider's stderr: the engine shows it on the stack.
    expect(preview.diagnostics).toContain(
      `warning: ClientSettings "portal": redirectionPolicy of client ${PORTAL} is left as it is: ` +
        "the client had no redirectionPolicy before this resource set it, and the API cannot be " +
        "told to have none (it takes no null or empty value there)",
    );
  });
});
