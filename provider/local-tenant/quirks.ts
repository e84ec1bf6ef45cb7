/**
 * A tenant we did not write (docs/design/local-tenant.md, "A tenant we did not write"): settings that make
 * the local tenant answer as a real platform, or a gateway or proxy in front of it, may, where the
 * local tenant otherwise agrees with the provider's model on everything. Its clock off by some
 * seconds, `x-ratelimit-reset` rounded down, client writes drawing on a bucket of their own, a
 * per-minute limit beside the per-second one, answers without rate-limit headers, a gateway's
 * 502/503 with an HTML page, repeated headers, a given `Retry-After` on 429s, list pages without
 * `total`, a member kept against the tenant's own PATCH model. What each answer carries is decided
 * here, by pure functions of the settings and a count; `app.ts` only applies it.
 *
 * @module
 */

import { CommandUsageError } from "../errors.js";
import { type RateLimitDecision, type RateLimitOptions, TokenBucket } from "./rate-limit.js";

/** The settings; each is off unless given. */
export interface QuirkOptions {
  /**
   * The tenant's clock, in seconds ahead of ours (negative: behind; fractions allowed), as read in
   * `x-ratelimit-reset` and in each answer's `Date`. Tokens are still signed by our clock.
   */
  clockOffset?: number | undefined;
  /** `x-ratelimit-reset` rounded down to the second instead of up. */
  resetRoundedDown?: boolean | undefined;
  /**
   * Client writes (`PATCH /api/v2/clients/{id}`) draw on a bucket of their own, `rate` a second
   * with a capacity of `burst`, and their answers carry its figures; every other request draws on
   * the global bucket (the rate limit) and carries its figures.
   */
  writeBucket?: RateLimitOptions | undefined;
  /** The global bucket also allows at most this many requests a minute (a bucket of that size refilled over a minute). */
  perMinute?: number | undefined;
  /** Every Kth management answer carries no rate-limit headers. */
  headersMissingEvery?: number | undefined;
  /**
   * Every Kth management request is answered by a gateway in front of the tenant: 502 and 503 in
   * turn, an HTML page, no rate-limit headers, nothing applied and no token taken.
   */
  gatewayEvery?: number | undefined;
  /** Each rate-limit header is sent twice, which an HTTP client joins as `10, 10`. */
  repeatedHeaders?: boolean | undefined;
  /** `Retry-After` on every 429, in seconds; default the whole seconds until one token. */
  retryAfter?: number | undefined;
  /** List pages (`include_totals=true`) answer without `total`. */
  pagesWithoutTotal?: boolean | undefined;
  /**
   * Wire paths of a client (`jwt_configuration.alg`, `description`) that a PATCH leaves as they
   * were stored, whatever it sends there, against the tenant's own PATCH model: a platform that
   * holds something other than what was written, so that a program (or the provider) that checks
   * each write by its answer can be tested (docs/design/local-tenant.md, "A tenant we did not write").
   */
  keep?: readonly string[] | undefined;
}

/** The keys of the CLI form, and the settings they stand for. */
const SPEC_KEYS = {
  "clock-offset": "clockOffset",
  "reset-down": "resetRoundedDown",
  "write-bucket": "writeBucket",
  "per-minute": "perMinute",
  "headers-missing-every": "headersMissingEvery",
  "gateway-every": "gatewayEvery",
  "repeated-headers": "repeatedHeaders",
  "retry-after": "retryAfter",
  "pages-without-total": "pagesWithoutTotal",
  keep: "keep",
} as const satisfies Record<string, keyof QuirkOptions>;

/** The settings that are flags: given without `=value`. */
const FLAG_KEYS = new Set(["reset-down", "repeated-headers", "pages-without-total"]);

function quirkError(message: string): CommandUsageError {
  return new CommandUsageError(`quirks: ${message}`);
}

/** `value` as an integer of at least `min`, for `key`. */
function wholeNumber(key: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw quirkError(`${key} must be an integer of at least ${min}, got "${value}"`);
  }
  return Number(value);
}

/** A wire path of a client as `keep=PATH` gives it: dot-separated names, none empty. */
const WIRE_PATH = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

/** `value` as a wire path for `keep`. */
function keptPath(value: string): string {
  if (!WIRE_PATH.test(value)) {
    throw quirkError(
      `keep must be a client's wire path such as jwt_configuration.alg, got "${value}"`,
    );
  }
  return value;
}

/**
 * Parses the CLI form, `clock-offset=-2,reset-down,write-bucket=4/8,per-minute=120,
 * headers-missing-every=5,gateway-every=25,repeated-headers,retry-after=30,pages-without-total,
 * keep=jwt_configuration.alg` (any of them, in any order; `keep` may be given more than once, each
 * adding a path). Unknown keys are refused, so a typo is not silently a plain tenant.
 *
 * @internal
 */
export function parseQuirkSpec(spec: string): QuirkOptions {
  const options: QuirkOptions = {};
  for (const part of spec.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const value = eq < 0 ? undefined : item.slice(eq + 1).trim();
    if (!(key in SPEC_KEYS)) {
      throw quirkError(`unknown key "${key}" (expected ${Object.keys(SPEC_KEYS).join(", ")})`);
    }
    if (FLAG_KEYS.has(key)) {
      if (value !== undefined) throw quirkError(`${key} takes no value, got "${item}"`);
      options[SPEC_KEYS[key as keyof typeof SPEC_KEYS] as "resetRoundedDown"] = true;
      continue;
    }
    if (value === undefined) throw quirkError(`${key} needs a value: ${key}=...`);
    switch (key) {
      case "clock-offset":
        if (!/^[-+]?\d*\.?\d+$/.test(value)) {
          throw quirkError(`clock-offset must be a number of seconds, got "${value}"`);
        }
        options.clockOffset = Number(value);
        break;
      case "write-bucket": {
        const match = /^(\d*\.?\d+)\/(\d+)$/.exec(value);
        if (match === null || Number(match[1]) <= 0 || Number(match[2]) < 1) {
          throw quirkError(`write-bucket must be RATE/BURST, e.g. 4/8, got "${value}"`);
        }
        options.writeBucket = { rate: Number(match[1]), burst: Number(match[2]) };
        break;
      }
      case "per-minute":
        options.perMinute = wholeNumber(key, value, 1);
        break;
      case "headers-missing-every":
        options.headersMissingEvery = wholeNumber(key, value, 1);
        break;
      case "gateway-every":
        options.gatewayEvery = wholeNumber(key, value, 1);
        break;
      case "keep":
        options.keep = [...(options.keep ?? []), keptPath(value)];
        break;
      default:
        options.retryAfter = wholeNumber(key, value, 0);
    }
  }
  return options;
}

/** A gateway's answer in place of the tenant's. */
interface GatewayAnswer {
  readonly status: 502 | 503;
  readonly body: string;
}

/** The HTML page a gateway answers with: what a load balancer in front of an API sends. */
function gatewayPage(status: 502 | 503): string {
  const title = status === 502 ? "502 Bad Gateway" : "503 Service Temporarily Unavailable";
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n</body>\r\n</html>\r\n`;
}

/** A header to send: a name and one value, or several lines of the same name. */
type HeaderLine = readonly [name: string, value: string | string[]];

/**
 * The rate-limit headers of an answer with `decision`, or none: `x-ratelimit-reset` is the
 * decision's exact reset moment by the tenant's clock (ours plus `clockOffset`), rounded up or,
 * with `resetRoundedDown`, down; `missing` drops the three; `repeatedHeaders` sends each twice.
 */
function rateLimitHeaders(
  decision: RateLimitDecision,
  quirks: QuirkOptions,
  missing: boolean,
): HeaderLine[] {
  if (missing) return [];
  const tenantReset = (decision.resetAtMs + (quirks.clockOffset ?? 0) * 1000) / 1000;
  const reset = quirks.resetRoundedDown === true ? Math.floor(tenantReset) : Math.ceil(tenantReset);
  const lines: [string, string][] = [
    ["x-ratelimit-limit", String(decision.limit)],
    ["x-ratelimit-remaining", String(decision.remaining)],
    ["x-ratelimit-reset", String(reset)],
  ];
  return quirks.repeatedHeaders === true
    ? lines.map(([name, value]) => [name, [value, value]])
    : lines;
}

/** Whether the `count`th event (from 1) is one of every `every`th. */
function isEvery(count: number, every: number | undefined): boolean {
  return every !== undefined && count % every === 0;
}

/**
 * The quirks of one server: the settings, the write bucket, and the counts that pick every Kth
 * answer. Without settings every method answers as the local tenant always has.
 */
export class TenantQuirks {
  /** The settings, as given. */
  readonly options: QuirkOptions;
  private readonly writes: TokenBucket | undefined;
  private requests = 0;
  private answers = 0;
  private gateways = 0;

  /**
   * @param clock - ours, in milliseconds since the epoch (the tenant's is this plus `clockOffset`).
   * @param options - the settings, or their CLI form; none by default.
   */
  constructor(
    private readonly clock: () => number,
    options: QuirkOptions | string | undefined,
  ) {
    this.options = typeof options === "string" ? parseQuirkSpec(options) : { ...(options ?? {}) };
    for (const path of this.options.keep ?? []) keptPath(path);
    const offset = this.options.clockOffset;
    if (offset !== undefined && !Number.isFinite(offset)) {
      throw quirkError(`clockOffset must be a finite number of seconds, got ${offset}`);
    }
    this.writes =
      this.options.writeBucket === undefined
        ? undefined
        : new TokenBucket(clock, this.options.writeBucket);
  }

  /** The wire paths a client PATCH leaves as stored ({@link QuirkOptions.keep}); none by default. */
  get kept(): readonly string[] {
    return this.options.keep ?? [];
  }

  /** The per-minute limit to add to the global bucket's settings, if any. */
  get perMinute(): number | undefined {
    return this.options.perMinute;
  }

  /**
   * Counts a management request as it arrives; the gateway's answer when it is one of every
   * `gatewayEvery`th (502 and 503 in turn), else undefined.
   */
  gateway(): GatewayAnswer | undefined {
    this.requests += 1;
    if (!isEvery(this.requests, this.options.gatewayEvery)) return undefined;
    this.gateways += 1;
    const status = this.gateways % 2 === 1 ? 502 : 503;
    return { status, body: gatewayPage(status) };
  }

  /** The bucket a request draws on: the write bucket for client writes, if any, else undefined (the global one). */
  bucketOf(method: string, route: string): TokenBucket | undefined {
    return method === "PATCH" && route === "/api/v2/clients/:id" ? this.writes : undefined;
  }

  /** The rate-limit headers of the next management answer (see {@link rateLimitHeaders}). */
  headersOf(decision: RateLimitDecision): HeaderLine[] {
    this.answers += 1;
    const missing = isEvery(this.answers, this.options.headersMissingEvery);
    return rateLimitHeaders(decision, this.options, missing);
  }

  /** `Retry-After` of a refused request, in whole seconds. */
  retryAfter(decision: RateLimitDecision): string {
    return String(this.options.retryAfter ?? decision.retryAfter ?? 1);
  }

  /** The `Date` header by the tenant's clock, or undefined when it is ours (Node sends it). */
  date(): string | undefined {
    const offset = this.options.clockOffset ?? 0;
    return offset === 0 ? undefined : new Date(this.clock() + offset * 1000).toUTCString();
  }

  /**
   * A list page's JSON body as sent: without `total` with `pagesWithoutTotal`, else unchanged.
   * `route` and `status` say whether it is a list page at all.
   */
  page(route: string, status: number, payload: unknown): unknown {
    if (this.options.pagesWithoutTotal !== true) return payload;
    if (route !== "/api/v2/clients" || status !== 200 || typeof payload !== "string") {
      return payload;
    }
    const body = JSON.parse(payload) as unknown;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return payload;
    const { total: _total, ...rest } = body as Record<string, unknown>;
    return JSON.stringify(rest);
  }
}
