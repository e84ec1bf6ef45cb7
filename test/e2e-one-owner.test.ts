import { describe, expect, it } from "vitest";
import type { Props } from "../provider/json.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget } from "./support/budgets.js";
import { useClientsStacks } from "./support/e2e.js";
import type { PulumiResult } from "./support/pulumi.js";
import { PATCH_MODELS } from "./support/recorded-patch.js";

/**
 * Two ClientSettings of one client under the real pulumi CLI (docs/design/decisions.md, "One owner per
 * path"): on a shared path the preview fails naming both, on disjoint paths each puts back only
 * its own.
 */

const PORTAL = DEFAULT_SEED_IDS.regularWeb;

/** A clients-from-data stack; `run` uses the file of the entries last written. */
const stackOf = useClientsStacks();

const entry = (name: string, settings: Props) => ({ name, clientId: PORTAL, settings });

function succeeded(result: PulumiResult): void {
  expect(result.error, result.output).toBeUndefined();
  expect(result.ok).toBe(true);
}

describe.each(PATCH_MODELS)(
  "one owner per path under the CLI, under the %s model",
  { timeout: budget({ pulumi: 4 }) },
  (patchModel) => {
    it("fails the preview of two resources declaring one path of a client, naming both", async () => {
      const { stack, run } = await stackOf(
        [
          entry("lifetime-a", { jwtConfiguration: { lifetimeInSeconds: 600 } }),
          entry("lifetime-b", { jwtConfiguration: { lifetimeInSeconds: 900 } }),
        ],
        { patchModel },
      );
      const preview = await run("preview");
      expect(preview.ok).toBe(false);
      expect(`${preview.output}\n${preview.error ?? ""}`).toMatch(
        new RegExp(
          `ClientSettings "lifetime-(a|b)" declares jwtConfiguration\\.lifetimeInSeconds of client ${PORTAL}, ` +
            'which ClientSettings "lifetime-(a|b)" also declares',
        ),
      );
      expect(stack.api.stats().api).toBe(0);
    });

    it("applies two resources on disjoint paths of a client, and each puts back only its own", async () => {
      const { stack, run, write } = await stackOf(
        [
          entry("lifetime", { jwtConfiguration: { lifetimeInSeconds: 600 } }),
          entry("algorithm", { jwtConfiguration: { alg: "HS256" } }),
        ],
        { patchModel },
      );
      const jwt = () =>
        (stack.api.store.getClient(PORTAL) as Record<string, unknown>).jwt_configuration as Props;
      const seeded = jwt();

      succeeded(await run("up"));
      expect(jwt()).toMatchObject({ lifetime_in_seconds: 600, alg: "HS256" });

      await write([entry("algorithm", { jwtConfiguration: { alg: "HS256" } })]);
      succeeded(await run("up"));
      expect(jwt()).toMatchObject({
        lifetime_in_seconds: seeded.lifetime_in_seconds,
        alg: "HS256",
      });

      succeeded(await run("destroy"));
      expect(jwt()).toEqual(seeded);
    });
  },
);
