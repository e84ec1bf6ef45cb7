/**
 * A client read pass (provider/api/client-read-pass.ts, docs/design/client-reads.md): which calls it
 * makes for reads arriving one at a time or together, against a simulated tenant that counts them;
 * the fields it asks for; freshness (passes, PATCH answers, forgotten clients); absent clients and
 * clients moved by a deletion between pages; failures.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { ClientReadLedger } from "../provider/api/client-read-ledger.js";
import { ClientReadPass } from "../provider/api/client-read-pass.js";
import {
  CLIENT_PAGE_SIZE,
  type Entry,
  listPageProblem,
  type PassProgress,
  pageCountOf,
  planBatch,
  shouldListRemainingPages,
  singleGetBudget,
  standingOf,
  type WireClient,
} from "../provider/api/client-read-policy.js";
import { listPageOf } from "../provider/api/client-requests.js";
import { TenantAnswerError } from "../provider/errors.js";
import {
  SimulatedTenant,
  type SimulatedTenantOptions,
  type TenantCall,
  tenantClients,
} from "./support/simulated-tenant.js";

const FIELDS = ["callbacks", "name"];
/** Five clients of a 5,000-client tenant, none on page 0: the worst case for five reads. */
const FIVE_OFF_PAGE_0 = [100, 1234, 2500, 3999, 4999];

/** The most calls a pass may make for `n` reads of a `t`-client tenant (docs/design/client-reads.md). */
function bound(n: number, t: number): number {
  return 2 * Math.min(n, Math.ceil(t / 100)) + 1;
}

function setup(size: number, options: SimulatedTenantOptions = {}) {
  const tenant = new SimulatedTenant(tenantClients(size), options);
  const pass = new ClientReadPass(tenant.transport());
  return { tenant, pass };
}

/**
 * A pass over 500 clients (5 pages, a budget of 3 single GETs) whose last page takes 20 turns to
 * answer; four misses of page-1 clients read together make it list pages 1 to 4.
 * `lastPageIn()` tells whether page 4 has been answered yet.
 */
function setupSlowLastPage() {
  let lastPageIn = false;
  const isLastPage = (call: TenantCall) => call.kind === "listPage" && call.page === 4;
  const { tenant, pass } = setup(500, {
    turns: (call) => (isLastPage(call) ? 20 : 0),
    beforeAnswer: (call) => {
      if (isLastPage(call)) lastPageIn = true;
    },
  });
  const onPage1 = tenant.clients.slice(100, 104).map((c) => c.client_id);
  return { tenant, pass, onPage1, lastPageIn: () => lastPageIn };
}

/**
 * `n` client ids spread over the tenant (every `size/n`-th), in a shuffled but fixed order, as a
 * stack's resources name them regardless of the tenant's order.
 */
function managedIds(tenant: SimulatedTenant, n: number): string[] {
  const all = tenant.clients.map((c) => c.client_id);
  const step = all.length / Math.max(n, 1);
  const ids = Array.from({ length: n }, (_, i) => all[Math.floor(i * step)] ?? "");
  let seed = 7;
  for (let i = ids.length - 1; i > 0; i -= 1) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [ids[i], ids[j]] = [ids[j] ?? "", ids[i] ?? ""];
  }
  return ids;
}

async function readSerially(
  pass: ClientReadPass<string>,
  ids: readonly string[],
  fields: readonly string[] = FIELDS,
): Promise<Array<WireClient | undefined>> {
  const results: Array<WireClient | undefined> = [];
  for (const id of ids) results.push(await pass.read(id, fields, `read ${id}`));
  return results;
}

function readTogether(
  pass: ClientReadPass<string>,
  ids: readonly string[],
  fields: readonly string[] = FIELDS,
): Promise<Array<WireClient | undefined>> {
  return Promise.all(ids.map((id) => pass.read(id, fields, `read ${id}`)));
}

/** Lets every queued callback run (one macrotask turn); not a timed wait. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Releases held calls turn after turn until `done` settles (at most 1,000 turns). */
async function drain<T>(tenant: SimulatedTenant, done: Promise<T>): Promise<T> {
  let finished = false;
  const watched = done.finally(() => {
    finished = true;
  });
  for (let turn = 0; turn < 1000 && !finished; turn += 1) {
    tenant.release();
    await nextTurn();
  }
  return watched;
}

/** A pass's progress as planBatch weighs it: every turn free unless said otherwise. */
function progress(
  pageCount: number,
  rest: Partial<Omit<PassProgress, "pageCount">> = {},
): PassProgress {
  return {
    pageCount,
    rented: 0,
    listing: false,
    turns: Number.POSITIVE_INFINITY,
    callsUnderWay: false,
    ...rest,
  };
}

function misses(...ids: string[]) {
  return ids.map((id) => ({ id, standing: { kind: "miss" as const } }));
}

describe("pure parts of the policy", () => {
  it("counts pages of 100 clients, none for an empty tenant", () => {
    expect([0, 1, 100, 101, 210, 5000].map(pageCountOf)).toEqual([0, 1, 1, 2, 3, 50]);
    expect(CLIENT_PAGE_SIZE).toBe(100);
  });

  it("allows max(0, P - 2) single GETs before listing", () => {
    expect([0, 1, 2, 3, 50].map(singleGetBudget)).toEqual([0, 0, 0, 1, 48]);
  });

  it("lists the remaining pages once the misses would exceed the budget", () => {
    expect(shouldListRemainingPages(48, 0, 50)).toBe(false);
    expect(shouldListRemainingPages(47, 1, 50)).toBe(false);
    expect(shouldListRemainingPages(48, 1, 50)).toBe(true);
    expect(shouldListRemainingPages(0, 2, 3)).toBe(true);
  });

  it("answers a read from an entry that holds its fields, and refetches the page of one that does not", () => {
    const fromPage: Entry = {
      client: { client_id: "a", name: "A" },
      fields: new Set(["client_id", "name"]),
      page: 3,
      sentAt: 1,
    };
    const known = { entry: fromPage, touched: false, listed: false };
    expect(standingOf(new Set(["client_id", "name"]), known)).toEqual({ kind: "answered" });
    expect(standingOf(new Set(["client_id", "sso"]), known)).toEqual({ kind: "refetch", page: 3 });
  });

  it("reads singly a client remembered, forgotten or absent from a complete listing, and misses the rest", () => {
    const fields = new Set(["client_id", "name"]);
    const nothing = { entry: undefined, touched: false, listed: false };
    expect(standingOf(fields, { ...nothing, touched: true })).toEqual({ kind: "single" });
    expect(standingOf(fields, { ...nothing, listed: true })).toEqual({ kind: "single" });
    expect(standingOf(fields, nothing)).toEqual({ kind: "miss" });
  });

  it("rents a single GET per missed client while within the budget, counting a client read twice once", () => {
    const plan = planBatch(misses("a", "b", "a"), progress(50, { rented: 46 }));
    expect(plan).toEqual({ pages: [], lists: false, rents: 2, defers: [] });
  });

  it("lists every page when the batch's misses would exceed the budget", () => {
    expect(planBatch(misses("a", "b", "c"), progress(4))).toEqual({
      pages: [0, 1, 2, 3],
      lists: true,
      rents: 0,
      defers: [],
    });
  });

  it("rents only the GETs that can leave now, and defers the other misses to the next batch", () => {
    const plan = planBatch(
      misses("a", "b", "c", "d"),
      progress(50, { turns: 2, callsUnderWay: true }),
    );
    expect(plan).toEqual({ pages: [], lists: false, rents: 2, defers: ["c", "d"] });
  });

  it("counts deferred misses towards listing: a batch whose misses exceed the budget lists, whatever the turns", () => {
    const plan = planBatch(misses("a", "b", "c"), progress(50, { rented: 46, turns: 0 }));
    expect(plan).toEqual({
      pages: Array.from({ length: 50 }, (_, page) => page),
      lists: true,
      rents: 0,
      defers: [],
    });
  });

  it("defers every miss when no turn is free and calls are under way, whose answers bring the next batch", () => {
    const plan = planBatch(misses("a", "b"), progress(50, { turns: 0, callsUnderWay: true }));
    expect(plan).toEqual({ pages: [], lists: false, rents: 0, defers: ["a", "b"] });
  });

  it("rents one GET when no turn is free and no call is under way, so that a next batch comes", () => {
    const plan = planBatch(misses("a", "b"), progress(50, { turns: 0 }));
    expect(plan).toEqual({ pages: [], lists: false, rents: 1, defers: ["b"] });
  });

  it("adds no call for the misses of a pass that lists already: the listing's pages answer them", () => {
    const reads = [
      { id: "a", standing: { kind: "miss" as const } },
      { id: "b", standing: { kind: "refetch" as const, page: 2 } },
    ];
    expect(planBatch(reads, progress(4, { listing: true }))).toEqual({
      pages: [2],
      lists: false,
      rents: 0,
      defers: [],
    });
  });

  it("refetches each stale page once, whatever the number of its reads", () => {
    const stale = [7, 7, 9].map((page, i) => ({
      id: `c${i}`,
      standing: { kind: "refetch" as const, page },
    }));
    expect(planBatch(stale, progress(50))).toEqual({
      pages: [7, 9],
      lists: false,
      rents: 0,
      defers: [],
    });
  });
});

describe("the benchmark scenarios", () => {
  it("reads 200 of 210 clients one at a time in 4 calls: page 0, one GET, pages 1 and 2", async () => {
    const { tenant, pass } = setup(210);
    await readSerially(pass, managedIds(tenant, 200));
    expect(tenant.count()).toBe(4);
    expect([tenant.count("listPage"), tenant.count("getOne")]).toEqual([3, 1]);
  });

  it("reads 200 of 210 clients issued together in 3 calls, one per page", async () => {
    const { tenant, pass } = setup(210);
    await readTogether(pass, managedIds(tenant, 200));
    expect(tenant.calls.map((c) => (c.kind === "listPage" ? c.page : c.id))).toEqual([0, 1, 2]);
  });

  it("reads 200 of 210 clients arriving in waves of 20 while calls are pending in at most 4 calls", async () => {
    const { tenant, pass } = setup(210, { hold: true });
    const ids = managedIds(tenant, 200);
    const reads: Promise<unknown>[] = [];
    for (let wave = 0; wave < 10; wave += 1) {
      for (const id of ids.slice(wave * 20, wave * 20 + 20)) reads.push(pass.read(id, FIELDS, id));
      await nextTurn();
      tenant.release();
      await nextTurn();
    }
    await drain(tenant, Promise.all(reads));
    expect(tenant.count()).toBeLessThanOrEqual(4);
  });

  it("reads 1,000 of 5,000 clients one at a time in 98 calls, within the 101 allowed", async () => {
    const { tenant, pass } = setup(5000);
    await readSerially(pass, managedIds(tenant, 1000));
    expect([tenant.count("listPage"), tenant.count("getOne")]).toEqual([50, 48]);
  });

  it("reads 1,000 of 5,000 clients arriving one per turn while page 0 is under way in 50 calls, one per page", async () => {
    const { tenant, pass } = setup(5000, { hold: true });
    const reads: Promise<unknown>[] = [];
    for (const id of managedIds(tenant, 1000)) {
      reads.push(pass.read(id, FIELDS, id));
      await nextTurn();
    }
    expect(tenant.pending).toBe(1);
    await drain(tenant, Promise.all(reads));
    expect([tenant.count("listPage"), tenant.count("getOne")]).toEqual([50, 0]);
  });

  it("reads 1,000 of 5,000 clients arriving one per turn while a single GET waits in 51 calls: page 0, one GET, the other pages", async () => {
    const { tenant, pass } = setup(5000, { hold: true });
    const [first = "", ...rest] = managedIds(tenant, 1000).filter(
      (id) => !tenant.clients.slice(0, 100).some((c) => c.client_id === id),
    );
    const reads: Promise<unknown>[] = [pass.read(first, FIELDS, first)];
    await nextTurn();
    tenant.release(); // page 0; then the first read's GET waits, as for the rate limiter
    await nextTurn();
    expect(tenant.pending).toBe(1);
    for (const id of rest) {
      reads.push(pass.read(id, FIELDS, id));
      await nextTurn();
    }
    expect(tenant.pending).toBe(1);
    await drain(tenant, Promise.all(reads));
    expect([tenant.count("listPage"), tenant.count("getOne")]).toEqual([50, 1]);
  });

  it("reads 1,000 of 5,000 clients arriving 15 per round trip, two calls free at a time, in 56 calls: it rents only what can leave, then lists", async () => {
    const { tenant, pass } = setup(5000, { hold: true, turnsNow: () => 2 });
    const ids = managedIds(tenant, 1000);
    const reads: Promise<unknown>[] = [];
    // Each round trip: 15 reads arrive one per turn while the pass's calls are on the way, then
    // the calls are answered.
    for (let wave = 0; wave * 15 < ids.length; wave += 1) {
      for (const id of ids.slice(wave * 15, wave * 15 + 15)) {
        reads.push(pass.read(id, FIELDS, id));
        await nextTurn();
      }
      tenant.release();
      await nextTurn();
    }
    await drain(tenant, Promise.all(reads));
    expect([tenant.count("listPage"), tenant.count("getOne")]).toEqual([50, 6]);
  });

  it("reads 1,000 of 5,000 clients issued together in 50 calls, one per page", async () => {
    const { tenant, pass } = setup(5000);
    await readTogether(pass, managedIds(tenant, 1000));
    expect([tenant.count("listPage"), tenant.count("getOne")]).toEqual([50, 0]);
  });

  it.each([
    ["one at a time", readSerially],
    ["issued together", readTogether],
  ] as const)(
    "reads 5 of 5,000 clients, none on page 0, %s in 6 calls: page 0 and 5 GETs",
    async (_how, read) => {
      const { tenant, pass } = setup(5000);
      await read(
        pass,
        FIVE_OFF_PAGE_0.map((i) => tenant.clients[i]?.client_id ?? ""),
      );
      expect([tenant.count("listPage"), tenant.count("getOne")]).toEqual([1, 5]);
    },
  );
});

describe("the cost bound", () => {
  const sizes = [0, 1, 100, 101, 250, 1000, 2500];
  const reads = (t: number) => [...new Set([1, 2, 3, 5, 10, 24, 25, 26, Math.floor(t / 2), t])];

  /**
   * The cases, `n` reads of a `t`-client tenant, whose calls exceed {@link bound}: `run` reads
   * `n` managed clients through a fresh pass of a tenant that `setup(t, options(n, t))` makes.
   */
  async function overBound(
    run: (pass: ClientReadPass<string>, ids: string[]) => Promise<unknown>,
    options: (n: number, t: number) => SimulatedTenantOptions = () => ({}),
  ): Promise<string[]> {
    const over: string[] = [];
    for (const t of sizes) {
      for (const n of reads(t).filter((x) => x <= t)) {
        const { tenant, pass } = setup(t, options(n, t));
        await run(pass, managedIds(tenant, n));
        if (tenant.count() > bound(n, t)) over.push(`${n} of ${t}: ${tenant.count()}`);
      }
    }
    return over;
  }

  it("holds for reads one at a time, for every tested tenant size and number of reads", async () => {
    expect(await overBound(readSerially)).toEqual([]);
  });

  it("holds for reads issued together, for every tested tenant size and number of reads", async () => {
    expect(await overBound(readTogether)).toEqual([]);
  });

  it("holds for reads from 8 workers answered out of order, as Pulumi's --parallel sends them", async () => {
    const eightWorkers = async (pass: ClientReadPass<string>, queue: string[]) => {
      const worker = async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          await pass.read(id, FIELDS, id);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    };
    const outOfOrder = (n: number, t: number): SimulatedTenantOptions => {
      let seed = n * 7919 + t;
      return {
        turns: () => {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          return seed % 4;
        },
      };
    };
    expect(await overBound(eightWorkers, outOfOrder)).toEqual([]);
  });

  it("comes down to one call per page when the stack reads the whole tenant together", async () => {
    const { tenant, pass } = setup(2500);
    await readTogether(pass, managedIds(tenant, 2500));
    expect(tenant.count()).toBe(25);
  });
});

describe("answers", () => {
  it("come as soon as the page holding the client is in, before the slower pages of the listing", async () => {
    const { tenant, pass, onPage1, lastPageIn } = setupSlowLastPage();
    const answeredBeforeLastPage = await Promise.all(
      onPage1.map((id) => pass.read(id, FIELDS, id).then(lastPageIn)),
    );
    expect(tenant.count("listPage")).toBe(5);
    expect(answeredBeforeLastPage).toEqual([false, false, false, false]);
  });

  it("come as soon as their page is in for reads that arrive while the pass lists, before the slower pages", async () => {
    const { tenant, pass, onPage1, lastPageIn } = setupSlowLastPage();
    const listing = onPage1.map((id) => pass.read(id, FIELDS, id));
    await nextTurn();
    const late = tenant.clients[250]?.client_id ?? "";
    const answeredBeforeLastPage = await pass.read(late, FIELDS, late).then(lastPageIn);
    await Promise.all(listing);
    expect(answeredBeforeLastPage).toBe(false);
    expect([tenant.count("listPage"), tenant.count("getOne")]).toEqual([5, 0]);
  });

  it("are the client's requested fields and client_id, as a single GET would answer them", async () => {
    const { tenant, pass } = setup(250);
    const ids = managedIds(tenant, 150);
    const results = await readTogether(pass, ids, ["name"]);
    expect(results).toEqual(ids.map((id) => tenant.answered(id, ["client_id", "name"])));
  });

  it("leave key material out when the credentials cannot read it, without another call", async () => {
    const { tenant, pass } = setup(50, { hideKeys: true });
    const id = tenant.clients[3]?.client_id ?? "";
    const result = await pass.read(id, ["client_secret", "name"], "portal");
    expect(result).toEqual({ client_id: id, name: tenant.clients[3]?.name });
    expect(tenant.count()).toBe(1);
  });

  it("hold key material when the credentials can read it", async () => {
    const { tenant, pass } = setup(50);
    const id = tenant.clients[3]?.client_id ?? "";
    const result = await pass.read(id, ["client_secret"], "portal");
    expect(result).toEqual({ client_id: id, client_secret: "secret-3" });
  });

  it("are not-found for a client absent from a complete listing once a single GET confirms it", async () => {
    const { tenant, pass } = setup(50);
    expect(await pass.read("NoSuchClient", FIELDS, "ghost")).toBeUndefined();
    expect(tenant.calls.map((c) => c.kind)).toEqual(["listPage", "getOne"]);
  });

  it("find a client that a deletion between two pages moved onto a page already read", async () => {
    const { tenant, pass } = setup(250, {
      // Once page 0 has been answered, a client on it is deleted: every later client moves up one
      // place, and the first client of page 1 is now the last of page 0.
      beforeAnswer: (call, t) => {
        if (call.kind === "listPage" && call.page === 1) t.clients.splice(5, 1);
      },
    });
    const moved = tenant.clients[100]?.client_id ?? "";
    const ids = [moved, ...managedIds(tenant, 150).filter((id) => id !== moved)];
    const results = await readTogether(pass, ids);
    expect(results[0]).toEqual(tenant.answered(moved, ["client_id", ...FIELDS]));
    expect(tenant.calls.filter((c) => c.kind === "getOne").map((c) => c.id)).toEqual([moved]);
  });

  it("find a client created while the pages were read", async () => {
    const { tenant, pass } = setup(250, {
      beforeAnswer: (call, t) => {
        if (call.kind === "listPage" && call.page === 1 && t.clients.length === 250) {
          t.clients.push({ client_id: "CreatedDuringTheListing000000000", name: "late" });
        }
      },
    });
    const ids = [...managedIds(tenant, 150), "CreatedDuringTheListing000000000"];
    const results = await readTogether(pass, ids, ["name"]);
    expect(results.at(-1)).toEqual({ client_id: "CreatedDuringTheListing000000000", name: "late" });
  });
});

describe("fields", () => {
  it("asks for client_id and the union of the fields requested so far, sorted", async () => {
    const { tenant, pass } = setup(250);
    const [a, b, c] = [150, 220, 120].map((i) => tenant.clients[i]?.client_id ?? "");
    await Promise.all([
      pass.read(a ?? "", ["name"], "a"),
      pass.read(b ?? "", ["callbacks", "app_type"], "b"),
    ]);
    await pass.read(c ?? "", ["description"], "c");
    expect(tenant.calls.map((call) => (call.kind === "listPage" ? call.page : call.id))).toEqual([
      0, 1, 2, 1,
    ]);
    const before = ["client_id", "app_type", "callbacks", "name"];
    const after = ["client_id", "app_type", "callbacks", "description", "name"];
    // Page 0, then pages 1 and 2 for a and b (two misses, over the budget of 1 GET); c is on
    // page 1, fetched without its description, so that one page is fetched again.
    expect(tenant.calls.map((call) => call.fields)).toEqual([before, before, before, after]);
  });

  it("refetch the one page of a client whose entry lacks a requested field, rather than a single GET", async () => {
    const { tenant, pass } = setup(250);
    const first = tenant.clients[1]?.client_id ?? "";
    const second = tenant.clients[2]?.client_id ?? "";
    await pass.read(first, ["name"], "first");
    const result = await pass.read(second, ["name", "description"], "second");
    expect(result).toEqual(tenant.answered(second, ["client_id", "name", "description"]));
    expect(tenant.calls.map((c) => (c.kind === "listPage" ? `page ${c.page}` : c.id))).toEqual([
      "page 0",
      "page 0",
    ]);
  });

  it("refetch only its page for a read that arrives while the pass lists and asks for a new field", async () => {
    const { tenant, pass, onPage1 } = setupSlowLastPage();
    const listing = onPage1.map((id) => pass.read(id, ["name"], id));
    await nextTurn();
    const late = tenant.clients[250]?.client_id ?? "";
    const result = await pass.read(late, ["name", "description"], late);
    await Promise.all(listing);
    expect(result).toEqual(tenant.answered(late, ["client_id", "name", "description"]));
    expect(tenant.calls.map((c) => (c.kind === "listPage" ? `page ${c.page}` : c.id))).toEqual([
      "page 0",
      "page 1",
      "page 2",
      "page 3",
      "page 4",
      "page 2",
    ]);
  });

  it("serve a later read of fewer fields from the entry without a call", async () => {
    const { tenant, pass } = setup(250);
    const id = tenant.clients[7]?.client_id ?? "";
    await pass.read(id, ["name", "callbacks"], "first");
    await pass.read(id, ["name"], "second");
    expect(tenant.count()).toBe(1);
  });
});

describe("freshness", () => {
  it("serves nothing fetched in an earlier pass", async () => {
    const { tenant, pass } = setup(50);
    const id = tenant.clients[0]?.client_id ?? "";
    await pass.read(id, FIELDS, "before");
    tenant.clients[0] = {
      ...(tenant.clients[0] ?? { client_id: id }),
      name: "changed out of band",
    };
    const next = new ClientReadPass(tenant.transport());
    const result = await next.read(id, FIELDS, "after");
    expect(result?.name).toBe("changed out of band");
    expect(tenant.count("listPage")).toBe(2);
    expect(next.stats).toEqual({ singleGets: 0, pages: 1 });
  });

  it("serves a remembered PATCH answer without a call", async () => {
    const { tenant, pass } = setup(50);
    const patched: WireClient = { client_id: "PatchedClient", name: "after PATCH", sso: true };
    pass.remember(patched);
    expect(await pass.read("PatchedClient", ["name", "sso"], "portal")).toEqual(patched);
    expect(tenant.count()).toBe(0);
  });

  it("keeps a remembered PATCH answer over a page sent before it", async () => {
    const { tenant, pass } = setup(50, { hold: true });
    const id = tenant.clients[4]?.client_id ?? "";
    const before = pass.read(tenant.clients[0]?.client_id ?? "", ["name"], "other");
    await nextTurn();
    expect(tenant.pending).toBe(1);
    pass.remember({ client_id: id, name: "after PATCH" });
    await drain(tenant, before);
    expect(await pass.read(id, ["name"], "portal")).toEqual({
      client_id: id,
      name: "after PATCH",
    });
  });

  it("reads a forgotten client with a single GET, not from a page sent before", async () => {
    const { tenant, pass } = setup(50);
    const id = tenant.clients[4]?.client_id ?? "";
    await pass.read(id, ["name"], "first");
    pass.forget(id);
    await pass.read(id, ["name"], "after an unknown PATCH outcome");
    expect(tenant.calls.map((c) => c.kind)).toEqual(["listPage", "getOne"]);
  });
});

describe("concurrency and failures", () => {
  it("shares one single GET between concurrent reads of the same client", async () => {
    const { tenant, pass } = setup(5000);
    const id = tenant.clients[4000]?.client_id ?? "";
    await pass.read(tenant.clients[0]?.client_id ?? "", FIELDS, "warm-up");
    await Promise.all([pass.read(id, FIELDS, "one"), pass.read(id, FIELDS, "two")]);
    expect(tenant.calls.filter((c) => c.kind === "getOne").map((c) => c.context)).toEqual(["one"]);
  });

  it("reads every waiting client by its own single GET, on its own context, when a page fails", async () => {
    const { tenant, pass } = setup(250, {
      failure: (call) => (call.kind === "listPage" ? new Error("page 0 failed") : undefined),
    });
    const ids = managedIds(tenant, 3);
    const results = await readTogether(pass, ids);
    expect(results).toEqual(ids.map((id) => tenant.answered(id, ["client_id", ...FIELDS])));
    expect(tenant.calls.filter((c) => c.kind === "getOne").map((c) => c.context)).toEqual(
      ids.map((id) => `read ${id}`),
    );
  });

  it("rejects only the read whose own single GET failed", async () => {
    const { tenant, pass } = setup(5000, {
      failure: (call) =>
        call.kind === "getOne" && call.context === "broken" ? new Error("GET failed") : undefined,
    });
    await pass.read(tenant.clients[0]?.client_id ?? "", FIELDS, "warm-up");
    const broken = pass.read(tenant.clients[4000]?.client_id ?? "", FIELDS, "broken");
    const fine = pass.read(tenant.clients[4001]?.client_id ?? "", FIELDS, "fine");
    await expect(broken).rejects.toThrow("GET failed");
    expect((await fine)?.client_id).toBe(tenant.clients[4001]?.client_id);
  });
});

/**
 * Fails the pass's next step once it has taken `steps` (each look at a page's latest fetch is
 * one): a pass that re-decides its reads through microtasks alone never lets a timer run, so a
 * test's timeout could not catch it; this bound does.
 */
function boundSteps(steps: number): void {
  let taken = 0;
  const pageFetch = ClientReadLedger.prototype.pageFetch;
  vi.spyOn(ClientReadLedger.prototype, "pageFetch").mockImplementation(function (
    this: ClientReadLedger,
    ...args: Parameters<typeof pageFetch>
  ) {
    taken += 1;
    if (taken > steps) throw new Error(`the pass took more than ${steps} steps`);
    return pageFetch.apply(this, args);
  });
}

/** `done`'s outcome once it settles, or a failure after 1,000 turns of the event loop. */
async function withinTurns<T>(done: Promise<T>): Promise<T> {
  let finished = false;
  const watched = done.finally(() => {
    finished = true;
  });
  for (let turn = 0; turn < 1000 && !finished; turn += 1) await nextTurn();
  if (!finished) throw new Error("not settled after 1,000 turns");
  return watched;
}

describe("pages of a tenant we did not write", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("names what a list page lacks: a clients array, a finite numeric total, a client_id on each client", () => {
    expect(listPageProblem({ clients: [], total: 0 })).toBeUndefined();
    expect(listPageProblem(null)).toBe("a JSON object");
    expect(listPageProblem([{ client_id: "a" }])).toBe("a JSON object");
    expect(listPageProblem({ total: 3 })).toBe("a `clients` array");
    expect(listPageProblem({ clients: "a,b", total: 3 })).toBe("a `clients` array");
    expect(listPageProblem({ clients: [] })).toBe("a finite numeric `total`");
    expect(listPageProblem({ clients: [], total: "3" })).toBe("a finite numeric `total`");
    expect(listPageProblem({ clients: [], total: Number.POSITIVE_INFINITY })).toBe(
      "a finite numeric `total`",
    );
    expect(listPageProblem({ clients: [], total: -1 })).toBe("a finite numeric `total`");
    expect(listPageProblem({ clients: [{ name: "x" }], total: 1 })).toBe(
      "a string `client_id` on every client",
    );
  });

  it("fails a list page whose body lacks one of them with a sentence naming the request and what it lacks", () => {
    const answer = { status: 200, data: { clients: [{ client_id: "a" }] } };
    expect(() => listPageOf(1, answer)).toThrow(
      new TenantAnswerError("GET /clients (page 1)", 200, "a finite numeric `total`"),
    );
    expect(() => listPageOf(1, answer)).toThrow(
      "GET /clients (page 1) answered 200 without a finite numeric `total`",
    );
    expect(listPageOf(0, { status: 200, data: { clients: [], total: 0 } })).toEqual({
      clients: [],
      total: 0,
    });
  });

  it("reads every client singly when page 0 answers without a numeric total, in a bounded number of steps", async () => {
    boundSteps(1000);
    const { tenant, pass } = setup(250, {
      pageBody: (_call, page) => ({ clients: page.clients }),
    });
    const ids = managedIds(tenant, 3);
    const results = await readTogether(pass, ids);
    expect(results).toEqual(ids.map((id) => tenant.answered(id, ["client_id", ...FIELDS])));
    expect({ pages: tenant.count("listPage"), gets: tenant.count("getOne") }).toEqual({
      pages: 1,
      gets: 3,
    });
  });

  it("reads singly, and settles, every read waiting on a later page whose clients is not an array", async () => {
    boundSteps(10_000);
    const { tenant, pass } = setup(500, {
      pageBody: (call, page) =>
        call.kind === "listPage" && call.page === 2
          ? { clients: { length: 100 }, total: 500 }
          : page,
    });
    const ids = managedIds(tenant, 40);
    const results = await withinTurns(readTogether(pass, ids));
    expect(results).toEqual(ids.map((id) => tenant.answered(id, ["client_id", ...FIELDS])));
    expect(tenant.count("listPage")).toBe(5);
  });
});
