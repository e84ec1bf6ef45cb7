/**
 * `pulumi-tenant generate` without a server: the command line, which clients are
 * adopted and under which names, what each declares (camelCase through the schema, nested objects
 * as the tenant holds them, secrets and undeclarable values left out), and the printed project
 * (formatted as Biome formats it, deterministic, free of secrets). The end-to-end promise is in
 * `e2e-generate.test.ts`.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DEFAULT_FIELDS, wireFieldsToRead } from "../provider/clients/catalogue.js";
import { declarationOf } from "../provider/clients/declaration.js";
import { ownClientIdOf, selectClients } from "../provider/clients/selection.js";
import { GenerateUsageError, UnknownClientError } from "../provider/errors.js";
import { planProgram, resourceNames, slugOf } from "../provider/generate/adopt.js";
import { ADOPTION_UP, adoptionImport, nextSteps } from "../provider/generate/next-steps.js";
import {
  type GenerateOptions,
  parseFields,
  parseGenerateArgs,
} from "../provider/generate/options.js";
import { printMembers, printString } from "../provider/generate/print.js";
import { renderIndex, renderProject } from "../provider/generate/project.js";
import { KEY_MATERIAL_FIELDS, type WireClient } from "../provider/local-tenant/clients.js";
import {
  DEFAULT_SEED,
  DEFAULT_SEED_IDS,
  loadSeed,
  type TenantSeed,
} from "../provider/local-tenant/seed.js";
import { CLIENT_SETTINGS_FIELDS, checkInputs } from "../provider/schema/index.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { REPO_ROOT } from "./support/installed-package.js";
import { RICH_IDS, RICH_SECRETS, RICH_SEED } from "./support/rich-tenant.js";

const run = promisify(execFile);

/** The clients of a seed as the list answers them to read-only credentials (no key material). */
function listed(seed: TenantSeed): WireClient[] {
  return loadSeed(seed).state.clients.map((client) =>
    Object.fromEntries(Object.entries(client).filter(([f]) => !KEY_MATERIAL_FIELDS.includes(f))),
  ) as WireClient[];
}

/** The stored clients, key material included (as credentials with read:client_keys see them). */
function stored(seed: TenantSeed): WireClient[] {
  return loadSeed(seed).state.clients;
}

function byId(clients: WireClient[], id: string): WireClient {
  const client = clients.find((c) => c.client_id === id);
  if (client === undefined) throw new Error(`no client ${id}`);
  return client;
}

/** What Biome's formatter makes of `text` as a TypeScript file, with the repository's settings. */
async function biomeFormat(text: string): Promise<string> {
  const child = run("node_modules/.bin/biome", ["format", "--stdin-file-path=generated/index.ts"], {
    cwd: REPO_ROOT,
    timeout: STEP_BOUNDS_MS.node,
  });
  child.child.stdin?.end(text);
  return (await child).stdout;
}

function options(args: string[]): GenerateOptions {
  const parsed = parseGenerateArgs(args);
  if (parsed === "help") throw new Error("help");
  return parsed;
}

const VERSIONS = { packageVersion: "1.2.3", pulumi: "~3.248.0" };

describe("the command line", () => {
  it("needs --out", () => {
    expect(() => parseGenerateArgs([])).toThrow(
      new GenerateUsageError("--out DIR is required: the folder to write the project to"),
    );
  });

  it("adopts every client with the default fields when only --out is given", () => {
    const parsed = options(["--out", "adopted"]);
    expect(parsed.query).toEqual({ kind: "all" });
    expect(parsed.fields).toEqual(DEFAULT_FIELDS);
    expect(parsed.includeGlobal).toBe(false);
    expect(parsed.includeSelf).toBe(false);
    expect(parsed.projectName).toBe("tenant-settings");
  });

  it("takes client ids and app types as comma-separated lists", () => {
    expect(options(["--out", "x", "--clients", "a, b,,c"]).query).toEqual({
      kind: "ids",
      ids: ["a", "b", "c"],
    });
    expect(options(["--out", "x", "--app-type", "spa,regular_web"]).query).toEqual({
      kind: "all",
      appTypes: ["spa", "regular_web"],
    });
  });

  it("refuses an app type the schema does not list, naming the accepted ones", () => {
    expect(() => parseGenerateArgs(["--out", "x", "--app-type", "spa,webapp"])).toThrow(
      '--app-type: unknown "webapp"; accepted: native, spa, regular_web, non_interactive, ' +
        "resource_server, express_configuration, sso_integration, oag",
    );
  });

  it("refuses --clients together with --app-type", () => {
    expect(() => parseGenerateArgs(["--out", "x", "--clients", "a", "--app-type", "spa"])).toThrow(
      "--clients and --app-type cannot be combined",
    );
  });

  it("refuses an unknown flag as a usage error", () => {
    expect(() => parseGenerateArgs(["--out", "x", "--feilds", "name"])).toThrow(GenerateUsageError);
  });

  it("passes credential flags to the settings as the stack config keys", () => {
    const parsed = options(["--out", "x", "--domain", "acme.example", "--client-id", "abc"]);
    expect(parsed.config.get("tenant:domain")).toBe("acme.example");
    expect(parsed.config.get("tenant:clientId")).toBe("abc");
    expect(parsed.config.get("tenant:clientSecret")).toBeUndefined();
  });

  it("passes the pacing flags to the settings as the stack config keys", () => {
    const parsed = options([
      "--out",
      "x",
      "--rate-limit-reserve",
      "0.5",
      "--max-requests-per-second",
      "3",
    ]);
    expect(parsed.config.get("tenant:rateLimitReserve")).toBe("0.5");
    expect(parsed.config.get("tenant:maxRequestsPerSecond")).toBe("3");
  });

  it("refuses a project name Pulumi would refuse", () => {
    expect(() => parseGenerateArgs(["--out", "x", "--name", "my tenant"])).toThrow(
      '--name "my tenant": a Pulumi project name is letters, digits, "-", "_" and "."',
    );
  });
});

describe("the fields", () => {
  it("reads --fields in camelCase and orders them as the schema does", () => {
    expect(parseFields("webOrigins, name,callbacks,name")).toEqual([
      "name",
      "callbacks",
      "webOrigins",
    ]);
  });

  it("names every unknown field with the nearest known one", () => {
    expect(() => parseFields("name,web_origins,callbaks")).toThrow(
      '--fields: "web_origins" is not a client field; did you mean "webOrigins"?; ' +
        '"callbaks" is not a client field; did you mean "callbacks"?',
    );
  });

  it("refuses clientId, which is always declared", () => {
    expect(() => parseFields("clientId")).toThrow(
      '--fields: "clientId" is always declared; leave it out of --fields',
    );
  });

  it("asks the tenant for the wire names of the writable fields, never for a secret", () => {
    expect(wireFieldsToRead(["clientSecret", "encryptionKey", "refreshToken", "name"])).toEqual([
      "client_id",
      "app_type",
      "global",
      "name",
      "refresh_token",
    ]);
  });

  it("default fields are all client fields of the schema", () => {
    for (const field of DEFAULT_FIELDS) expect(CLIENT_SETTINGS_FIELDS).toContain(field);
  });
});

describe("which clients are adopted", () => {
  const clients = [
    { client_id: "g", global: true },
    { client_id: "me" },
    { client_id: "a" },
    { client_id: "a" },
  ];

  it("leaves out the global client and the credentials' own, saying why", () => {
    const selection = selectClients(clients, {
      includeGlobal: false,
      includeSelf: false,
      ownClientId: "me",
    });
    expect(selection.clients.map((c) => c.client_id)).toEqual(["a"]);
    expect(selection.leftOut).toEqual([
      { clientId: "g", why: "the global client (--include-global)" },
      { clientId: "me", why: "the client of the credentials used (--include-self)" },
    ]);
  });

  it("keeps them when asked for, each client once", () => {
    const selection = selectClients(clients, {
      includeGlobal: true,
      includeSelf: true,
      ownClientId: "me",
    });
    expect(selection.clients.map((c) => c.client_id)).toEqual(["g", "me", "a"]);
  });

  it("knows the credentials' own client from client credentials or a token's azp", () => {
    expect(
      ownClientIdOf({
        kind: "clientCredentials",
        clientId: "cid",
        clientSecret: "s",
        audience: "a",
        tokenUrl: "u",
      }),
    ).toBe("cid");
    const claims = Buffer.from(JSON.stringify({ azp: "tokenClient" })).toString("base64url");
    expect(ownClientIdOf({ kind: "apiToken", token: `h.${claims}.sig` })).toBe("tokenClient");
    expect(ownClientIdOf({ kind: "apiToken", token: "opaque" })).toBeUndefined();
  });

  it("names the unknown client ids in one error", () => {
    expect(new UnknownClientError(["x", "y"]).message).toBe(
      'the tenant has no client with the ids "x", "y" (GET /clients/{id} answered 404); check the ids given to --clients',
    );
  });
});

describe("resource names", () => {
  it("are the client's name made readable", () => {
    expect(slugOf("Customer Portal")).toBe("customer-portal");
    expect(slugOf("  Équipe — Données (v2) ")).toBe("equipe-donnees-v2");
    expect(slugOf("<>")).toBe("client");
    expect(slugOf(undefined)).toBe("client");
  });

  it("stay unique: a later client with a taken name gets the start of its id", () => {
    expect(
      resourceNames([
        { clientId: "AAAAbbbbCCCC", name: "Docs Portal" },
        { clientId: "ZZZZyyyyXXXX", name: 'Docs "Portal"' },
        { clientId: "QQQQ", name: "Other" },
      ]),
    ).toEqual(["docs-portal", "docs-portal-ZZZZyyyy", "other"]);
  });

  it("do not depend on clients that come later", () => {
    const first = resourceNames([{ clientId: "A1", name: "App" }]);
    const more = resourceNames([
      { clientId: "A1", name: "App" },
      { clientId: "B2", name: "App" },
    ]);
    expect(more[0]).toBe(first[0]);
  });
});

describe("what a client declares", () => {
  const rich = listed(RICH_SEED);
  const allFields = [...CLIENT_SETTINGS_FIELDS];

  it("renames wire fields to camelCase through the schema, free-form maps kept as they are", () => {
    const adopted = declarationOf(byId(rich, RICH_IDS.mobile), allFields);
    expect(adopted.values.refreshToken).toMatchObject({
      rotationType: "rotating",
      policies: [
        { audience: "https://api.bank.example.com", scope: ["read:accounts", "transfer"] },
        { audience: "https://cards.bank.example.com", scope: [] },
      ],
    });
    expect(adopted.values.mobile).toEqual({
      android: {
        appPackageName: "com.example.bank",
        sha256CertFingerprints: ["AB:CD:EF:01:23", "45:67:89:AB:CD"],
      },
      ios: { teamId: "ABCDE12345", appBundleIdentifier: "com.example.bank" },
    });
    expect(adopted.values.clientMetadata).toEqual({
      owner: "mobile-team",
      "cost center": "cc-7",
      "x:tier": 'gold "plus"',
    });
    expect(adopted.values.jwtConfiguration).toEqual({
      alg: "RS256",
      lifetimeInSeconds: 600,
      secretEncoded: false,
      scopes: { "read:accounts": { description: "Read accounts" } },
    });
    expect(adopted.values.crossOriginLoc).toBeNull();
    expect(adopted.notes).toEqual([]);
  });

  it("declares only fields the program can set, never response-only ones", () => {
    const adopted = declarationOf(byId(rich, RICH_IDS.mobile), allFields);
    for (const key of Object.keys(adopted.values)) expect(CLIENT_SETTINGS_FIELDS).toContain(key);
    expect(adopted.values).not.toHaveProperty("signingKeys");
    expect(adopted.values).not.toHaveProperty("tenant");
  });

  it("passes the resource's own check for every client of both seeds", () => {
    for (const client of [...listed(DEFAULT_SEED), ...rich, ...stored(RICH_SEED)]) {
      const adopted = declarationOf(client, allFields);
      const { failures } = checkInputs("ClientSettings", {
        clientId: adopted.clientId,
        ...adopted.values,
      });
      expect(failures).toEqual([]);
    }
  });

  it("leaves add-on key material out, keeping the add-on's other settings", () => {
    const seeded = RICH_SEED.clients?.find((client) => client.client_id === RICH_IDS.docs);
    const addons = (seeded?.addons ?? {}) as { service_bus?: Record<string, unknown> };
    const { sasKey, ...serviceBus } = addons.service_bus ?? {};
    const adopted = declarationOf(byId(stored(RICH_SEED), RICH_IDS.docs), allFields);
    expect(sasKey).toBe(RICH_SECRETS.sasKey);
    expect(adopted.values.addons).toEqual({ ...addons, service_bus: serviceBus });
    expect(adopted.notes).toEqual(["addons.service_bus.sasKey left out: key material"]);
  });

  it("never declares the client secret or the encryption key, even when the answer holds them", () => {
    const adopted = declarationOf(byId(stored(RICH_SEED), RICH_IDS.docs), allFields);
    expect(adopted.values).not.toHaveProperty("clientSecret");
    expect(adopted.values).not.toHaveProperty("encryptionKey");
  });

  it("leaves out a member the schema does not know, saying where", () => {
    const client = {
      ...byId(rich, RICH_IDS.mobile),
      refresh_token: { leeway: 5, rotated_at: "x" },
    };
    const adopted = declarationOf(client, ["refreshToken"]);
    expect(adopted.values.refreshToken).toEqual({ leeway: 5 });
    expect(adopted.notes).toEqual([
      "refreshToken.rotatedAt left out: not a field a program can declare",
    ]);
  });

  it("leaves out a value the schema refuses, with the reason", () => {
    const client = { client_id: "c1", name: "C", organization_discovery_methods: [] };
    const adopted = declarationOf(client, ["name", "organizationDiscoveryMethods"]);
    expect(adopted.values).toEqual({ name: "C" });
    expect(adopted.notes).toEqual([
      "organizationDiscoveryMethods left out: organizationDiscoveryMethods: must have at least 1 item (got 0)",
    ]);
  });
});

describe("the program", () => {
  // One load: the seed's machine-to-machine clients get new ids on every load.
  const richClients = stored(RICH_SEED);
  const plan = planProgram({
    clients: richClients,
    pushProvider: "direct",
    fields: [...CLIENT_SETTINGS_FIELDS],
  });
  const files = renderProject(plan, "rich", VERSIONS);

  it(
    "is formatted exactly as Biome formats it",
    async () => {
      expect(await biomeFormat(files["index.ts"])).toBe(files["index.ts"]);
      const defaults = planProgram({
        clients: listed(DEFAULT_SEED),
        pushProvider: "guardian",
        fields: DEFAULT_FIELDS,
      });
      const text = renderIndex(defaults);
      expect(await biomeFormat(text)).toBe(text);
    },
    budget({ node: 2 }),
  );

  it(
    "lays out every kind of literal as Biome does",
    async () => {
      const values = {
        description:
          "A description long enough that it cannot stay on the line of its own key, at all",
        de: "a short key keeps even a long string on its own line, whatever the width of that line is",
        quoted: 'he said "hi"',
        both: `it's "both"`,
        "not-an-identifier": 1,
        __proto__: "a plain key",
        urls: ["https://a.example.com/callback", "https://b.example.com/callback", "https://c.x/y"],
        objects: [{ a: 1, b: 2 }, { c: 3 }],
        arrays: [
          [1, 2],
          [3, 4],
        ],
        deep: { deeper: { deepest: ["x".repeat(95)] } },
        empty: { object: {}, array: [] },
        escapes: "line\nnext\ttab \u2028 é ☃ \\ end",
        numbers: [-5, 0.5, 2592000],
        nothing: null,
      };
      const members = Object.fromEntries([...Object.entries(values), ["__proto__", "a plain key"]]);
      const text = ["const values = {", ...printMembers(members, 1), "};", ""].join("\n");
      expect(await biomeFormat(text)).toBe(text);
    },
    budget({ node: 1 }),
  );

  it("quotes strings with the quote that needs fewer escapes", () => {
    expect(printString("plain")).toBe('"plain"');
    expect(printString('say "hi"')).toBe(`'say "hi"'`);
    expect(printString(`it's "x" and "y"`)).toBe(`'it\\'s "x" and "y"'`);
  });

  it("is the same text for the same tenant", () => {
    const again = renderProject(
      planProgram({
        clients: structuredClone(richClients),
        pushProvider: "direct",
        fields: [...CLIENT_SETTINGS_FIELDS],
      }),
      "rich",
      VERSIONS,
    );
    expect(again).toEqual(files);
  });

  it("is the same text when the clients were declared as their pages arrived", () => {
    const fields = [...CLIENT_SETTINGS_FIELDS];
    const declared = new Map(
      richClients.map((client) => [client.client_id, declarationOf(client, fields)]),
    );
    const early = renderProject(
      planProgram({ clients: richClients, pushProvider: "direct", fields, declared }),
      "rich",
      VERSIONS,
    );
    expect(early).toEqual(files);
  });

  it("holds no secret value", () => {
    const text = Object.values(files).join("\n");
    for (const secret of Object.values(RICH_SECRETS)) expect(text).not.toContain(secret);
    expect(text).not.toContain("MIIBrichpublickeymaterial");
    for (const client of richClients) {
      if (typeof client.client_secret === "string")
        expect(text).not.toContain(client.client_secret);
    }
  });

  it("says in the program what was left out and how to manage a secret", () => {
    expect(files["index.ts"]).toContain(
      "// clientSecret left out of every client: the client secret is secret and never written. " +
        'To manage it, declare clientSecret: config.requireSecret("<client>-clientSecret") (config ' +
        "being a pulumi.Config) and set it with `pulumi config set --secret <client>-clientSecret`",
    );
    expect(files["index.ts"]).toContain(
      '// addons.service_bus.sasKey left out: key material\nnew ClientSettings("docs-portal", {',
    );
  });

  it("declares the push provider and one ClientSettings per client, with its id first", () => {
    const text = files["index.ts"];
    expect(text).toContain(
      'new PushProviderSelection("push-provider", {\n  provider: "direct",\n});',
    );
    expect(text).toContain(
      `new ClientSettings("mobile-banking", {\n  clientId: "${RICH_IDS.mobile}",\n  name: "Mobile Banking",`,
    );
    expect(text.match(/new ClientSettings\(/g)).toHaveLength(stored(RICH_SEED).length);
  });

  it("depends on this package and the Pulumi SDK in its package.json, an ES module for Node.js 22.18 or later", () => {
    expect(JSON.parse(files["package.json"])).toEqual({
      name: "rich",
      private: true,
      type: "module",
      main: "index.ts",
      engines: { node: ">=22.18" },
      dependencies: { "@pulumi/pulumi": "~3.248.0", "pulumi-tenant": "^1.2.3" },
    });
  });

  it("is run by Node.js's type stripping, as the installation guide recommends, not by ts-node", () => {
    expect(files["Pulumi.yaml"]).toBe(
      [
        "name: rich",
        "runtime:",
        "  name: nodejs",
        "  options:",
        "    typescript: false # Node.js 22.18 or later strips the types; Pulumi does not start ts-node",
        "main: index.ts",
        "description: The tenant's clients and push provider, adopted with pulumi-tenant generate.",
        "",
      ].join("\n"),
    );
  });

  it("leaves the push provider out when the tenant answers none", () => {
    const none = planProgram({ clients: [], pushProvider: undefined, fields: DEFAULT_FIELDS });
    expect(none.pushProvider).toBeUndefined();
    expect(renderIndex(none)).not.toContain("import");
  });
});

describe("the default tenant", () => {
  it("adopts its web and single-page applications under their names", () => {
    const plan = planProgram({
      clients: listed(DEFAULT_SEED),
      pushProvider: "guardian",
      fields: DEFAULT_FIELDS,
    });
    expect(plan.clients.map((c) => [c.resourceName, c.clientId]).slice(0, 3)).toEqual([
      ["customer-portal", DEFAULT_SEED_IDS.regularWeb],
      ["dashboard-spa", DEFAULT_SEED_IDS.spa],
      ["partner-integration", DEFAULT_SEED_IDS.strictThirdParty],
    ]);
  });
});

describe("the closing line", () => {
  const declared = { dir: "/work/adopt", clients: 2, pushProvider: true, importFile: false };

  it("tells what was declared and the adoption guide's commands for the TypeScript program", () => {
    expect(nextSteps(declared)).toBe(
      "declared 2 clients and the push provider. Next: cd /work/adopt && npm install && " +
        "pulumi stack init && pulumi config set tenant:domain ... (credentials as in the README) " +
        "&& pulumi preview (only creates) && PULUMI_SKIP_CHECKPOINTS=true " +
        "pulumi up --skip-preview --parallel 2147483647 --yes (changes nothing)",
    );
  });

  it("adds the plugin's import of the import file when one was written", () => {
    expect(nextSteps({ ...declared, clients: 1, pushProvider: false, importFile: true })).toMatch(
      /^declared 1 client\. Next: .*\(changes nothing\); or, in a project of any language with the plugin: PULUMI_SKIP_CHECKPOINTS=true pulumi import --file \/work\/adopt\/import\.json --yes --skip-preview --parallel 2147483647 --out <program file>$/,
    );
  });

  it("gives the commands the adoption guide gives", async () => {
    const guide = join(REPO_ROOT, "docs", "guides", "adopting-a-tenant.md");
    const text = (await readFile(guide, "utf8")).replace(/\s+/g, " ");
    expect(text).toContain(ADOPTION_UP);
    expect(text).toContain(adoptionImport("adopt/import.json"));
  });
});
