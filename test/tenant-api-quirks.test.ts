/**
 * The local tenant as a tenant we did not write (provider/local-tenant/quirks.ts,
 * docs/design/local-tenant.md, "A tenant we did not write"): each setting against the server, on a clock
 * that stands still so that every figure is exact.
 */

import { afterEach, describe, expect, it } from "vitest";
import { resolveSettings } from "../provider/config.js";
import { CommandUsageError, TenantAnswerError } from "../provider/errors.js";
import { readClients } from "../provider/generate/reads.js";
import { parseCliArgs } from "../provider/local-tenant/command.js";
import {
  DEFAULT_SEED_IDS,
  startTenantApi,
  type TenantApi,
} from "../provider/local-tenant/index.js";
import { parseQuirkSpec, type QuirkOptions } from "../provider/local-tenant/quirks.js";
import { clientRoute } from "./support/tenant-api-suite.js";
import { type ApiAnswer, callApi, fetchToken } from "./support/test-client.js";

/** A whole second, so that a reset 0.1 s later rounds up one second and down to this one. */
const START = Date.UTC(2030, 0, 1, 12, 0, 0);
const START_SECONDS = START / 1000;
const WEB = clientRoute(DEFAULT_SEED_IDS.regularWeb);
const CLIENTS = "/api/v2/clients";

let api: TenantApi | undefined;

afterEach(async () => {
  await api?.stop();
  api = undefined;
});

/** A tenant at 10/s with a bucket of 20 and `quirks`, its clock standing at START; and a token. */
async function start(quirks: QuirkOptions | string, rateLimit = { rate: 10, burst: 20 }) {
  api = await startTenantApi({ quirks, rateLimit, clock: () => START });
  const token = await fetchToken(api);
  const tenant = api;
  return {
    get: (path = WEB) => callApi(tenant, "GET", path, { token }),
    patch: () => callApi(tenant, "PATCH", WEB, { token, json: { description: "x" } }),
  };
}

/** The three rate-limit headers of an answer, as the client read them (null when absent). */
function figures(answer: ApiAnswer) {
  return {
    limit: answer.headers.get("x-ratelimit-limit"),
    remaining: answer.headers.get("x-ratelimit-remaining"),
    reset: answer.headers.get("x-ratelimit-reset"),
  };
}

describe("the quirks' settings", () => {
  it("reads every setting from its CLI form", () => {
    expect(
      parseQuirkSpec(
        "clock-offset=-2.5,reset-down,write-bucket=4/8,per-minute=120,headers-missing-every=5," +
          "gateway-every=25,repeated-headers,retry-after=30,pages-without-total",
      ),
    ).toEqual({
      clockOffset: -2.5,
      resetRoundedDown: true,
      writeBucket: { rate: 4, burst: 8 },
      perMinute: 120,
      headersMissingEvery: 5,
      gatewayEvery: 25,
      repeatedHeaders: true,
      retryAfter: 30,
      pagesWithoutTotal: true,
    });
  });

  it("refuses an unknown key, naming the known ones", () => {
    expect(() => parseQuirkSpec("clock=2")).toThrow(
      new CommandUsageError(
        'quirks: unknown key "clock" (expected clock-offset, reset-down, write-bucket, per-minute, ' +
          "headers-missing-every, gateway-every, repeated-headers, retry-after, pages-without-total, keep)",
      ),
    );
  });

  it("refuses a write bucket that is not RATE/BURST", () => {
    expect(() => parseQuirkSpec("write-bucket=4")).toThrow(
      new CommandUsageError('quirks: write-bucket must be RATE/BURST, e.g. 4/8, got "4"'),
    );
  });

  it("refuses a per-minute limit without a rate limit", async () => {
    await expect(startTenantApi({ quirks: "per-minute=120" })).rejects.toThrow(
      new CommandUsageError("quirks: per-minute needs a rate limit"),
    );
  });

  it("takes the settings from the command's --quirks flag", () => {
    const options = parseCliArgs(["--rate-limit", "10", "--quirks", "clock-offset=-2,reset-down"]);
    expect(options === "help" ? undefined : options.quirks).toBe("clock-offset=-2,reset-down");
  });
});

describe("a tenant we did not write", () => {
  it("answers as the local tenant always has without quirks: reset rounded up, by our clock", async () => {
    const tenant = await start({});
    const answer = await tenant.get();
    expect(figures(answer)).toEqual({
      limit: "20",
      remaining: "19",
      reset: String(START_SECONDS + 1),
    });
  });

  it("reads its clock off by the offset in the reset and the Date of every answer", async () => {
    const tenant = await start({ clockOffset: -2 });
    const answer = await tenant.get();
    expect(figures(answer).reset).toBe(String(START_SECONDS - 1));
    expect(answer.headers.get("date")).toBe(new Date(START - 2000).toUTCString());
  });

  it("rounds the reset down with resetRoundedDown", async () => {
    const tenant = await start({ resetRoundedDown: true });
    expect(figures(await tenant.get()).reset).toBe(String(START_SECONDS));
  });

  it("draws client writes on their own bucket, with its figures, and the rest on the global one", async () => {
    const tenant = await start({ writeBucket: { rate: 4, burst: 8 } });
    const writes: ApiAnswer[] = [];
    for (let n = 0; n < 9; n += 1) writes.push(await tenant.patch());
    expect(figures(writes[0] as ApiAnswer)).toEqual({
      limit: "8",
      remaining: "7",
      reset: String(START_SECONDS + 1),
    });
    expect(writes.map((answer) => answer.status)).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 429,
    ]);
    const read = await tenant.get();
    expect(read.status).toBe(200);
    expect(figures(read)).toMatchObject({ limit: "20", remaining: "19" });
  });

  it("refuses beyond a per-minute limit, showing the figures of the bucket with fewer left", async () => {
    const tenant = await start({ perMinute: 5 });
    const answers: ApiAnswer[] = [];
    for (let n = 0; n < 6; n += 1) answers.push(await tenant.get());
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(figures(answers[0] as ApiAnswer)).toEqual({
      limit: "5",
      remaining: "4",
      reset: String(START_SECONDS + 12),
    });
    expect((answers[5] as ApiAnswer).headers.get("retry-after")).toBe("12");
  });

  it("leaves the rate-limit headers off every Kth answer", async () => {
    const tenant = await start({ headersMissingEvery: 2 });
    const answers = [await tenant.get(), await tenant.get(), await tenant.get()];
    expect(answers.map((answer) => figures(answer).remaining)).toEqual(["19", null, "17"]);
  });

  it("answers every Kth request as a gateway: 502 then 503, an HTML page, no headers, no token taken", async () => {
    const tenant = await start({ gatewayEvery: 2 });
    const answers: ApiAnswer[] = [];
    for (let n = 0; n < 4; n += 1) answers.push(await tenant.get());
    expect(answers.map((answer) => answer.status)).toEqual([200, 502, 200, 503]);
    const gateway = answers[1] as ApiAnswer;
    expect(gateway.headers.get("content-type")).toMatch(/^text\/html/);
    expect(gateway.text).toContain("<title>502 Bad Gateway</title>");
    expect(figures(gateway)).toEqual({ limit: null, remaining: null, reset: null });
    expect(figures(answers[2] as ApiAnswer).remaining).toBe("18");
  });

  it("sends each rate-limit header twice, which the client reads joined", async () => {
    const tenant = await start({ repeatedHeaders: true });
    expect(figures(await tenant.get())).toEqual({
      limit: "20, 20",
      remaining: "19, 19",
      reset: `${START_SECONDS + 1}, ${START_SECONDS + 1}`,
    });
  });

  it("puts the given Retry-After on its 429s", async () => {
    const tenant = await start({ retryAfter: 30 }, { rate: 1, burst: 1 });
    await tenant.get();
    const refused = await tenant.get();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("30");
  });

  it("answers list pages without total, and the list without totals as ever", async () => {
    const tenant = await start({ pagesWithoutTotal: true });
    const page = await tenant.get(`${CLIENTS}?include_totals=true&per_page=2`);
    expect(page.status).toBe(200);
    expect(Object.keys(page.body as object).sort()).toEqual(["clients", "limit", "start"]);
    const bare = await tenant.get(`${CLIENTS}?per_page=2`);
    expect(Array.isArray(bare.body)).toBe(true);
  });
});

describe("a tenant that keeps a member against its own model", () => {
  it("reads keep=PATH, repeated, as the paths a PATCH leaves as stored", () => {
    expect(parseQuirkSpec("keep=jwt_configuration.alg,keep=description")).toEqual({
      keep: ["jwt_configuration.alg", "description"],
    });
  });

  it("refuses a keep that is not a wire path", () => {
    expect(() => parseQuirkSpec("keep=jwt_configuration..alg")).toThrow(
      new CommandUsageError(
        'quirks: keep must be a client\'s wire path such as jwt_configuration.alg, got "jwt_configuration..alg"',
      ),
    );
  });

  it("answers a PATCH with the kept member as it was stored, whatever was sent", async () => {
    api = await startTenantApi({ quirks: "keep=jwt_configuration.alg" });
    const token = await fetchToken(api);
    const before = api.store.getClient(DEFAULT_SEED_IDS.regularWeb)?.jwt_configuration;
    const answer = await callApi<{ jwt_configuration: unknown }>(api, "PATCH", WEB, {
      token,
      json: { jwt_configuration: { alg: "HS256", lifetime_in_seconds: 60 } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.jwt_configuration).toEqual({
      ...(before as object),
      lifetime_in_seconds: 60,
    });
  });
});

describe("the package's reads of such a tenant", () => {
  it("fails generate's listing of every client on a page without total, naming the request and what it lacks", async () => {
    api = await startTenantApi({ quirks: { pagesWithoutTotal: true } });
    const settings = resolveSettings(undefined, {
      TENANT_DOMAIN: api.domain,
      TENANT_CLIENT_ID: api.clientId,
      TENANT_CLIENT_SECRET: api.clientSecret,
    });
    await expect(readClients(settings, { kind: "all" }, ["name"])).rejects.toThrow(
      new TenantAnswerError("GET /clients (page 0)", 200, "a finite numeric `total`"),
    );
  });
});
