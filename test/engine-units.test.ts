import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadProject, loadStackConfig, setConfigValue } from "./engine/config.js";
import { defaultParallel } from "./engine/index.js";
import type { RegisterRequest } from "./engine/monitor.js";
import type { DiffAnswer, ProviderHost } from "./engine/provider-host.js";
import { providerConfigFor } from "./engine/providers.js";
import { inReverseDependencyOrder, Limiter } from "./engine/schedule.js";
import { StackSecrets } from "./engine/secrets.js";
import { type ResourceState, readState, StateStore, sortByDependencies } from "./engine/state.js";
import { Deployment, decideStep } from "./engine/steps.js";
import { renderSummary } from "./engine/summary.js";
import type { StepResult } from "./engine/types.js";
import {
  annotateSecrets,
  applyIgnoreChanges,
  changedKeys,
  makeSecret,
  PROVIDER_KEY,
  UNKNOWN,
} from "./engine/values.js";

const PASSPHRASE = "unit-test-passphrase";

function resource(urn: string, dependencies: string[] = []): ResourceState {
  return { urn, type: "t", custom: true, inputs: {}, outputs: {}, dependencies };
}

describe("engine stand-in: property values", () => {
  it("marks an output secret when the input of the same name contains a secret", () => {
    const outs = annotateSecrets({ a: "x", b: "y" }, { a: makeSecret("x"), b: "y" });

    expect(outs).toEqual({ a: makeSecret("x"), b: "y" });
  });

  it("recurses into objects, so one secret field does not make the whole object secret", () => {
    const outs = annotateSecrets(
      { o: { k: "v", other: 1 } },
      { o: { k: makeSecret("v"), other: 1 } },
    );

    expect(outs).toEqual({ o: { k: makeSecret("v"), other: 1 } });
  });

  it("lists the changed top-level inputs, ignoring __provider and secretness", () => {
    const olds = { a: 1, b: "s", c: [1], [PROVIDER_KEY]: "old code" };
    const news = { a: 2, b: makeSecret("s"), c: [1], d: true, [PROVIDER_KEY]: "new code" };

    expect(changedKeys(olds, news)).toEqual(["a", "d"]);
  });

  it("counts an unknown new value as a change", () => {
    expect(changedKeys({ a: "x" }, { a: UNKNOWN })).toEqual(["a"]);
  });

  it("keeps the old values of ignoreChanges paths", () => {
    const news = applyIgnoreChanges(
      { a: 1, n: { x: 1, y: 1 } },
      { a: 2, n: { x: 2, y: 2 }, b: 3 },
      ["a", "n.x"],
    );

    expect(news).toEqual({ a: 1, n: { x: 1, y: 2 }, b: 3 });
  });
});

describe("engine stand-in: scheduling", () => {
  it("runs each task only after the tasks of everything that depends on it", async () => {
    const rs = [resource("a"), resource("b", ["a"]), resource("c", ["b"]), resource("d", ["a"])];
    const done: string[] = [];

    await inReverseDependencyOrder(
      rs,
      new Limiter(4),
      async (r) => {
        await new Promise((resolve) => setImmediate(resolve));
        done.push(r.urn);
      },
      () => false,
    );

    expect(done.indexOf("c")).toBeLessThan(done.indexOf("b"));
    expect(done.indexOf("b")).toBeLessThan(done.indexOf("a"));
    expect(done.indexOf("d")).toBeLessThan(done.indexOf("a"));
  });

  it("runs no more tasks at once than the limit", async () => {
    const limiter = new Limiter(2);
    let running = 0;
    let peak = 0;
    const task = async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
    };

    await Promise.all(Array.from({ length: 6 }, () => limiter.run(task)));

    expect(peak).toBe(2);
  });

  it("starts no task for what a failed task's resource depends on", async () => {
    const started: string[] = [];

    const run = inReverseDependencyOrder(
      [resource("a"), resource("b", ["a"])],
      new Limiter(1),
      async (r) => {
        started.push(r.urn);
        if (r.urn === "b") throw new Error("b failed");
      },
      () => false,
    );

    await expect(run).rejects.toThrow("b failed");
    expect(started).toEqual(["b"]);
  });

  it("orders a state so that each resource follows its parent and dependencies", () => {
    const parent = "urn:p";
    const rs = [{ ...resource("x", ["y"]), parent }, resource("y"), resource(parent)];

    const order = sortByDependencies(rs).map((r) => r.urn);

    expect(order.indexOf(parent)).toBeLessThan(order.indexOf("x"));
    expect(order.indexOf("y")).toBeLessThan(order.indexOf("x"));
    expect(order).toHaveLength(3);
  });
});

describe("engine stand-in: summary", () => {
  const step = (name: string, op: StepResult["op"], changed: string[] = []): StepResult => ({
    urn: `urn:pulumi:dev::p::pulumi-nodejs:dynamic/tenant:X::${name}`,
    type: "pulumi-nodejs:dynamic/tenant:X",
    name,
    op,
    changedProperties: changed,
    ok: true,
  });

  it("renders a preview as Pulumi does: changing resources, then counts per operation", () => {
    const text = renderSummary({
      command: "preview",
      stack: "dev",
      dryRun: true,
      steps: [
        step("push", "create"),
        step("web", "update", ["callbacks", "jwt"]),
        step("s", "same"),
      ],
      diagnostics: [],
    });

    expect(text).toBe(
      [
        "Previewing update (dev):",
        " +  tenant:X  push  create",
        " ~  tenant:X  web   update  [callbacks, jwt]",
        "",
        "Resources:",
        "    + 1 to create",
        "    ~ 1 to update",
        "    1 unchanged",
        "",
      ].join("\n"),
    );
  });

  it("shows secret and unknown stack outputs as [secret] and [unknown]", () => {
    const text = renderSummary({
      command: "up",
      stack: "dev",
      dryRun: false,
      steps: [],
      stackOutputs: { key: makeSecret("s3cr3t"), url: UNKNOWN },
      diagnostics: [],
    });

    expect(text).toContain('key: "[secret]"');
    expect(text).toContain('url: "[unknown]"');
    expect(text).not.toContain("s3cr3t");
  });
});

describe("engine stand-in: project, stack file and state", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "engine-unit-"));
    fs.writeFileSync(path.join(dir, "index.ts"), "export {};\n");
  });

  afterEach(async () => {
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it("runs a directory main as '.' from that directory, and a file main by its path", () => {
    fs.mkdirSync(path.join(dir, "app"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: p\nruntime: nodejs\nmain: app\n");
    expect(loadProject(dir)).toMatchObject({ programDir: path.join(dir, "app"), program: "." });

    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: p\nruntime: nodejs\nmain: index.ts\n");
    expect(loadProject(dir)).toMatchObject({
      programDir: dir,
      program: path.join(dir, "index.ts"),
    });
  });

  it("reads back, decrypted and namespaced, the values config set wrote", async () => {
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: p\nruntime: nodejs\n");
    const project = loadProject(dir);
    const options = { secret: true, passphrase: PASSPHRASE };
    await setConfigValue(project, "dev", "token", "t0k3n", options);
    await setConfigValue(project, "dev", "tenant:domain", "example.test", {
      ...options,
      secret: false,
    });

    const config = await loadStackConfig(project, "dev", PASSPHRASE);

    expect(config.values).toEqual({
      "p:token": { value: "t0k3n", secret: true },
      "tenant:domain": { value: "example.test", secret: false },
    });
    expect(fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8")).not.toContain("t0k3n");
  });

  it("reads a state's secrets as [secret] without the passphrase, and lists where they are", async () => {
    const file = path.join(dir, "state.json");
    const secrets = new StackSecrets(PASSPHRASE, undefined, async () => undefined, "test");
    const store = await StateStore.open(file, "organization/p/dev", secrets);
    store.upsert({
      ...resource("urn:pulumi:dev::p::t::r"),
      outputs: { token: makeSecret("t0k3n"), plain: "x" },
    });
    await store.checkpoint();

    const state = await readState(file, { decrypt: false });
    const withKey = await readState(file, { passphrase: PASSPHRASE });

    expect(state.resources[0]?.outputs).toEqual({ token: "[secret]", plain: "x" });
    expect(state.resources[0]?.secretPaths).toEqual(["outputs.token"]);
    expect(withKey.resources[0]?.outputs.token).toBe("t0k3n");
    expect(fs.readFileSync(file, "utf8")).not.toContain("t0k3n");
  });
});

describe("engine stand-in: rules as pure decisions", () => {
  const diff = (over: Partial<DiffAnswer>): DiffAnswer => ({
    changes: "some",
    replaces: [],
    deleteBeforeReplace: false,
    diffs: [],
    ...over,
  });
  const decide = (answer: DiffAnswer, replaceOnChanges: string[]) =>
    decideStep({
      diff: answer,
      oldInputs: { content: "a" },
      oldOutputs: { content: "a" },
      news: { content: "b" },
      ignoreChanges: [],
      replaceOnChanges,
      deleteBeforeReplace: undefined,
    });

  it("ignores replaceOnChanges when the diff answers true without naming keys (the Node.js dynamic host)", () => {
    expect(decide(diff({}), ["content"]).op).toBe("update");
  });

  it("applies replaceOnChanges to the keys the diff names, and to the engine's own comparison when changes are undefined", () => {
    expect(decide(diff({ diffs: ["content"] }), ["content"]).op).toBe("replace");
    expect(decide(diff({ changes: "unknown" }), ["content"]).op).toBe("replace");
    expect(decide(diff({ changes: "unknown" }), ["other"]).op).toBe("update");
  });

  it("configures the provider from the state's entry for refresh and destroy, from the current config otherwise", () => {
    const current = { "tenant:clientSecret": { value: "new", secret: true } };
    const entry: ResourceState = {
      ...resource("urn:pulumi:dev::p::pulumi:providers:pulumi-nodejs::default"),
      inputs: { "tenant:clientSecret": makeSecret("old") },
    };

    expect(providerConfigFor("refresh", false, entry, current)).toEqual({
      "tenant:clientSecret": "old",
    });
    expect(providerConfigFor("destroy", false, entry, current)).toEqual({
      "tenant:clientSecret": "old",
    });
    expect(providerConfigFor("refresh", true, entry, current)).toEqual({
      "tenant:clientSecret": "new",
    });
    expect(providerConfigFor("up", false, entry, current)).toEqual({
      "tenant:clientSecret": "new",
    });
    expect(providerConfigFor("refresh", false, undefined, current)).toEqual({
      "tenant:clientSecret": "new",
    });
    // An up whose program declares no dynamic resource: its deletes load the recorded provider.
    expect(providerConfigFor("up", false, entry, current, "delete")).toEqual({
      "tenant:clientSecret": "old",
    });
  });

  it("defaults --parallel to PULUMI_PARALLEL, else four per CPU", () => {
    expect(defaultParallel({ PULUMI_PARALLEL: "3" }, 2)).toBe(3);
    expect(defaultParallel({}, 2)).toBe(8);
    expect(defaultParallel({ PULUMI_PARALLEL: "zero" }, 2)).toBe(8);
  });
});

describe("engine stand-in: scheduling of provider calls", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "engine-deployment-"));
  });

  afterEach(async () => {
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  const TYPE = "pulumi-nodejs:dynamic:Resource";
  const request = (name: string): RegisterRequest => ({
    type: TYPE,
    name,
    parent: "",
    custom: true,
    inputs: { content: name },
    dependencies: [],
    propertyDependencies: {},
    ignoreChanges: [],
    replaceOnChanges: [],
    additionalSecretOutputs: [],
    aliases: [],
    importId: "",
  });

  /** A deployment over a fresh state holding `existing`, driving `host`. */
  async function deployment(
    host: Partial<ProviderHost>,
    parallelDiff: boolean,
    existing: string[],
  ) {
    const secrets = new StackSecrets(PASSPHRASE, undefined, async () => undefined, "test");
    const state = await StateStore.open(
      path.join(dir, "state.json"),
      "organization/p/dev",
      secrets,
    );
    for (const name of existing) {
      state.upsert({
        ...resource(`urn:pulumi:dev::p::${TYPE}::${name}`),
        id: name,
        inputs: { content: "old" },
        outputs: { content: "old" },
      });
    }
    return new Deployment({
      command: "up",
      dryRun: false,
      runProgram: false,
      project: "p",
      stack: "dev",
      organization: "organization",
      parallel: 4,
      parallelDiff,
      legacyRefreshDiff: false,
      config: {},
      state,
      provider: () => Promise.resolve(host as ProviderHost),
      emit: () => undefined,
      onFailure: () => undefined,
    });
  }

  /** Counts calls in flight, and the most at once. */
  function gauge() {
    const g = {
      active: 0,
      peak: 0,
      async around<T>(work: () => Promise<T>): Promise<T> {
        g.active++;
        g.peak = Math.max(g.peak, g.active);
        try {
          return await work();
        } finally {
          g.active--;
        }
      },
    };
    return g;
  }
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it("runs Check one registration at a time while creates run up to --parallel at once", async () => {
    const checks = gauge();
    let startedCreates = 0;
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const host: Partial<ProviderHost> = {
      check: (_ref, _olds, news) =>
        checks.around(async () => {
          await turn();
          return { inputs: news, failures: [] };
        }),
      // Each create waits until all four are in flight: it finishes only if they run at once,
      // and only if the checks of the others could go on meanwhile.
      create: async (ref, properties) => {
        startedCreates++;
        if (startedCreates === 4) openGate();
        await gate;
        return { id: ref.name, properties };
      },
    };
    const d = await deployment(host, false, []);

    await Promise.all(["a", "b", "c", "d"].map((n) => d.registerResource(request(n))));

    expect(checks.peak).toBe(1);
    expect(startedCreates).toBe(4);
  });

  it("runs Diff one registration at a time, unless PULUMI_PARALLEL_DIFF", async () => {
    for (const parallelDiff of [false, true]) {
      const diffs = gauge();
      const host: Partial<ProviderHost> = {
        check: async (_ref, _olds, news) => ({ inputs: news, failures: [] }),
        diff: () =>
          diffs.around(async () => {
            for (let i = 0; i < 5; i++) await turn();
            return { changes: "none", replaces: [], deleteBeforeReplace: false, diffs: [] };
          }),
      };
      const d = await deployment(host, parallelDiff, ["a", "b", "c"]);

      await Promise.all(["a", "b", "c"].map((n) => d.registerResource(request(n))));

      expect(diffs.peak, `parallelDiff ${parallelDiff}`).toBe(parallelDiff ? 3 : 1);
    }
  });
});
