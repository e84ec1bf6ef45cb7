/**
 * The layers of provider/, written once: `npm run deps` checks the imports against them, and
 * CONTRIBUTING.md ("The layers") lists the same lines, which test/layers.test.ts holds to these.
 *
 * A room is a folder or a file of provider/; a layer is the rooms that stand at one height. A
 * room imports only its own files and rooms of the layers below its own: an import up a layer,
 * or to another room of the same layer, breaks the rule `<room> imports only lower layers`,
 * and an import circle the rule `no circle`, each naming the files.
 *
 * @type {{ name: string, says: string, rooms: { room: string, path: string, holds: string }[] }[]}
 */
const LAYERS = [
  {
    name: "cli",
    says: "the command line",
    rooms: [
      {
        room: "cli.ts",
        path: "^provider/cli\\.ts$",
        holds: "`pulumi-tenant`: reads the command's name and hands the rest to that command",
      },
    ],
  },
  {
    name: "commands",
    says: "the commands that read a tenant",
    rooms: [
      {
        room: "audit/",
        path: "^provider/audit/",
        holds: "`pulumi-tenant audit`: a tenant or a seed judged by the policy pack's rules",
      },
      {
        room: "generate/",
        path: "^provider/generate/",
        holds: "`pulumi-tenant generate`: the Pulumi program that declares a tenant as it is",
      },
    ],
  },
  {
    name: "faces",
    says: "what the package's users load",
    rooms: [
      {
        room: "index.ts",
        path: "^provider/index\\.ts$",
        holds: "the package's face: the resources, their inputs and the errors",
      },
      {
        room: "testing.ts",
        path: "^provider/testing\\.ts$",
        holds: "`pulumi-tenant/testing`: the local tenant for a program's tests",
      },
      {
        room: "policy/",
        path: "^provider/policy/",
        holds: "`pulumi-tenant/policy`: the tenant's security rules as a CrossGuard policy pack",
      },
      {
        room: "plugin/",
        path: "^provider/plugin/",
        holds: "the provider plugin for every Pulumi language, and its release build",
      },
      {
        room: "shims/",
        path: "^provider/shims/",
        holds: "the modules Pulumi's dynamic-provider host loads a serialized provider through",
      },
    ],
  },
  {
    name: "resources",
    says: "the resources a program declares",
    rooms: [
      {
        room: "resources/",
        path: "^provider/resources/",
        holds: "the dynamic resources' classes and what they ask of the program's install",
      },
      {
        room: "runtime.ts",
        path: "^provider/runtime\\.ts$",
        holds: "`pulumi-tenant/runtime`: the providers a serialized resource calls",
      },
      {
        room: "node-check.ts",
        path: "^provider/node-check\\.ts$",
        holds: 'the Node.js check `require("pulumi-tenant")` makes before anything else loads',
      },
    ],
  },
  {
    name: "providers",
    says: "what answers the engine, and the tenant the tests run against",
    rooms: [
      {
        room: "providers/",
        path: "^provider/providers/",
        holds: "the resources' providers: check, diff, create, read, update, delete, import",
      },
      {
        room: "local-tenant/",
        path: "^provider/local-tenant/",
        holds:
          "the local tenant API (`pulumi-tenant local-tenant`), its console, `pulumi-tenant snapshot`",
      },
    ],
  },
  {
    name: "steps",
    says: "the steps the providers and the commands share",
    rooms: [
      {
        room: "plan/",
        path: "^provider/plan/",
        holds: "what an update sends, decided from the declared and the live values",
      },
      {
        room: "clients/",
        path: "^provider/clients/",
        holds:
          "the clients' field catalogue, their reads, their selection, one client's declaration",
      },
      {
        room: "command/",
        path: "^provider/command/",
        holds: "what every command shares: its tenant options, its output checks, its typos",
      },
      {
        room: "progress.ts",
        path: "^provider/progress\\.ts$",
        holds: "the progress of a command's reads, on a terminal or in a log",
      },
    ],
  },
  {
    name: "inputs",
    says: "what the user gives",
    rooms: [
      {
        room: "schema/",
        path: "^provider/schema/",
        holds: "the resources' inputs: their JSON Schemas, checks and wire names",
      },
      {
        room: "config.ts, config/",
        path: "^provider/config(\\.ts$|/)",
        holds: "the settings from the stack config, the environment or a command's flags",
      },
    ],
  },
  {
    name: "connection",
    says: "the tenant connection",
    rooms: [
      {
        room: "connection/",
        path: "^provider/connection/",
        holds: "a connection's schema, its rules, its budget and a change of tenant",
      },
    ],
  },
  {
    name: "api",
    says: "the tenant management API",
    rooms: [
      {
        room: "api/",
        path: "^provider/api/",
        holds: "the API client: tokens, requests, retries, the pacing under the rate limit",
      },
    ],
  },
  {
    name: "ground",
    says: "what every room may use",
    rooms: [
      {
        room: "errors.ts, errors/",
        path: "^provider/errors(\\.ts$|/)",
        holds: "the error classes, by who sees them, and the commands' exit statuses",
      },
      { room: "json.ts", path: "^provider/json\\.ts$", holds: "helpers on JSON values" },
      {
        room: "text.ts",
        path: "^provider/text\\.ts$",
        holds: "wording shared by the messages",
      },
      {
        room: "stderr-lines.ts",
        path: "^provider/stderr-lines\\.ts$",
        holds: "the one way to write a line on stderr beside a drawn bar",
      },
      {
        room: "unknown.ts",
        path: "^provider/unknown\\.ts$",
        holds: "the value Pulumi puts for an input not known yet",
      },
      {
        room: "node-support.ts",
        path: "^provider/node-support\\.ts$",
        holds: "which Node.js lines the package and the programs it writes run on, in a sentence",
      },
      {
        room: "docs-address.ts",
        path: "^provider/docs-address\\.ts$",
        holds: "the public address of the docs every message and help text cites",
      },
    ],
  },
];

/**
 * Imports up a layer that stand for now, each with why (CONTRIBUTING.md lists them under the
 * layers); every other one fails. None stands.
 *
 * @type {{ from: string, to: string, fromRoom: string, toRoom: string, why: string }[]}
 */
const ALLOWED_UP = [];

/**
 * `<room> imports only lower layers`: for each room, the rooms of its layer and those above
 * (`LAYERS` is written from the top), none for the top's one room.
 */
function layerRules() {
  return LAYERS.flatMap((layer, index) =>
    layer.rooms.flatMap((room) => {
      const notBelow = LAYERS.slice(0, index + 1)
        .flatMap((above) => above.rooms)
        .filter((other) => other !== room)
        .map((other) => other.path);
      if (notBelow.length === 0) return [];
      const allowed = ALLOWED_UP.filter((up) => up.from === room.path).map((up) => up.to);
      return {
        name: `${room.room} imports only lower layers`,
        comment: `${room.room} (${layer.name}) imports only its own files and the layers below ${layer.name}`,
        severity: "error",
        from: { path: room.path },
        to: { path: notBelow, ...(allowed.length > 0 ? { pathNot: allowed } : {}) },
      };
    }),
  );
}

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no circle",
      comment: "files of provider/ never import each other in a loop",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules(),
  ],
  options: {
    includeOnly: "^provider/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
  },
};
// For test/layers.test.ts; not enumerable, so dependency-cruiser reads its own keys alone.
Object.defineProperty(module.exports, "LAYERS", { value: LAYERS, enumerable: false });
Object.defineProperty(module.exports, "ALLOWED_UP", { value: ALLOWED_UP, enumerable: false });
