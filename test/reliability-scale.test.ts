import { describe, expect, it } from "vitest";
import { applyClientPatch, generatedClients } from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import { clientsFile, example, startStack, undoAfterEach } from "./support/e2e.js";
import type { PulumiResult } from "./support/pulumi.js";

/**
 * A large stack under faults, run by the real pulumi CLI: the clients-from-data example with one
 * ClientSettings for each of 200 generated clients of a 205-client tenant. `up` must leave every
 * declared value in place and nothing else changed, on the first `up` or, if that one fails, on a
 * second one without faults.
 */

const COUNT = 200;
/** Bound of one CLI command of 200 resources (the default of 3 minutes is for small stacks). */
const RUN_MS = 300_000;

const undo = undoAfterEach();

describe("a stack of 200 ClientSettings", () => {
  it(
    "converges against a tenant answering 20% 5xx and dropping 5% of connections, losing nothing and touching nothing undeclared",
    async () => {
      // The generated clients the seed adds with `extraClients`, the same ids on every run.
      const managed = generatedClients(COUNT).map((client, i) => ({
        name: `client-${i}`,
        clientId: String(client.client_id),
        description: `Managed by the platform team (${i})`,
        owner: `team-${i % 7}`,
      }));
      const file = await clientsFile(
        managed.map(({ name, clientId, description, owner }) => ({
          name,
          clientId,
          settings: { description, clientMetadata: { owner } },
        })),
      );
      undo(() => file.remove());
      const stack = await startStack(
        example("clients-from-data"),
        { "clients-from-data:file": { value: file.path } },
        { extraClients: COUNT, faults: { error: 0.2, drop: 0.05 }, random: 17 },
      );
      undo(() => stack.stop());

      // What the program declares, applied to the tenant as it is, by the tenant's own PATCH rules.
      const expected = stack.api.store.snapshot();
      expect(expected.clients.length).toBe(COUNT + 5);
      for (const { clientId, description, owner } of managed) {
        const index = expected.clients.findIndex((client) => client.client_id === clientId);
        const stored = expected.clients[index];
        if (stored === undefined) throw new Error(`client ${clientId} is not in the tenant`);
        expected.clients[index] = applyClientPatch(stored, {
          description,
          client_metadata: { owner },
        });
      }

      const first = await stack.run("up", { timeoutMs: RUN_MS });
      let second: PulumiResult | undefined;
      if (!first.ok) {
        stack.api.setFaults(null);
        second = await stack.run("up", { timeoutMs: RUN_MS });
        expect(second.error).toBeUndefined();
        expect(second.ok).toBe(true);
      }
      const stats = stack.api.stats();
      expect(stats.dropped).toBeGreaterThan(0);
      expect((stats.byStatus["500"] ?? 0) + (stats.byStatus["503"] ?? 0)).toBeGreaterThan(0);
      expect(stack.api.store.snapshot()).toEqual(expected);
      expect((first.counts.create ?? 0) + (second?.counts.create ?? 0)).toBe(COUNT);
    },
    budget({ pulumi: 2 }, { pulumiOperation: RUN_MS }),
  );
});
