/**
 * The checks of the seed file format and the defaults a seed gets (docs/design/local-tenant.md "Seed
 * file format"), each on its own; test/tenant-api-seed.test.ts loads whole seeds.
 */

import { describe, expect, it } from "vitest";
import { SECRET_PLACEHOLDER } from "../provider/local-tenant/seed.js";
import { machineClient, withSeedSecret } from "../provider/local-tenant/seed-defaults.js";
import {
  memberProblems,
  replacedFieldsProblems,
  seedEventStreams,
  seedGrants,
  storedSeedClient,
  versionProblem,
} from "../provider/local-tenant/seed-format.js";

describe("seed format checks", () => {
  it("reads a seed without version as the current format and refuses a newer or odd one", () => {
    expect(versionProblem(undefined)).toBeUndefined();
    expect(versionProblem(1)).toBeUndefined();
    expect(versionProblem(2)).toBe(
      "version: 2 is newer than this pulumi-tenant reads (1); upgrade pulumi-tenant to load it",
    );
    expect(versionProblem("1")).toBe('version: must be a positive integer (got "1")');
  });

  it("names unknown members, an empty tenant, an unknown provider and clients that are no list", () => {
    expect(memberProblems({ tenant: "t", extra: 1, clients: {} }, "", "nobody")).toEqual([
      "extra: is not a seed member",
      "tenant: must be a non-empty string",
      expect.stringMatching(/^pushProvider: must be one of /),
      "clients: must be an array",
    ]);
    expect(memberProblems({}, "local-tenant", "guardian")).toEqual([]);
  });

  it("indexes grants by client and names those that are not {client_id, scope}", () => {
    const { grants, problems } = seedGrants([
      { client_id: "A", scope: ["read:clients"] },
      { client_id: "B" } as never,
    ]);
    expect([...grants]).toEqual([["A", ["read:clients"]]]);
    expect(problems).toEqual(["grants[1]: must be {client_id: string, scope: string[]}"]);
  });

  it("stores a valid client with the response defaults, and names the fields the API refuses", () => {
    const ok = storedSeedClient({ name: "One", app_type: "native" }, "C1", "t1", "clients[0]");
    expect(ok.problem).toBeUndefined();
    expect(ok.client).toMatchObject({ client_id: "C1", tenant: "t1", custom_login_page_on: true });
    const refused = storedSeedClient({ description: "d" }, "C2", "t1", "clients[3]");
    expect(refused.problem).toBe("clients[3].name: is required");
  });

  it("takes event streams as ids or records, leaving out bad and repeated ids", () => {
    const id = "est_0000000000000000000001";
    const { eventStreams, problems } = seedEventStreams([id, { id, name: "again" }, "est_1"]);
    expect(eventStreams).toEqual([{ id }]);
    expect(problems).toEqual([
      `eventStreams[1].id: "${id}" is already the id of eventStreams[0]`,
      'eventStreams[2]: must be exactly 26 characters (got 5) ("est_1")',
    ]);
    expect(seedEventStreams("x" as never).problems).toEqual(["eventStreams: must be an array"]);
  });

  it("wants replacedFields to be a list of strings", () => {
    expect(replacedFieldsProblems(undefined)).toEqual([]);
    expect(replacedFieldsProblems(["clients[0].client_secret"])).toEqual([]);
    expect(replacedFieldsProblems([1])).toEqual(["replacedFields: must be an array of strings"]);
  });
});

describe("seed defaults", () => {
  it("gives a confidential client a fresh secret in place of none or the placeholder", () => {
    const machine = machineClient("M", "m");
    expect(withSeedSecret(machine).client_secret).toMatch(/^[A-Za-z0-9]{64}$/);
    const replaced = withSeedSecret({ ...machine, client_secret: SECRET_PLACEHOLDER });
    expect(replaced.client_secret).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(withSeedSecret({ ...machine, client_secret: "kept" }).client_secret).toBe("kept");
    expect(
      withSeedSecret({ name: "spa", app_type: "spa", token_endpoint_auth_method: "none" }),
    ).not.toHaveProperty("client_secret");
    expect(machine).not.toHaveProperty("client_secret");
  });
});
