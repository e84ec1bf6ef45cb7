/**
 * The query strings of the client reads: `GET /api/v2/clients/{id}` (`fields`, `include_fields`)
 * and the client list `GET /api/v2/clients` (those two plus paging, totals and filters).
 *
 * Every failure is collected, not only the first, and answered as one 400 `invalid_query_string`:
 * `Query validation error: per_page: must be at most 100 (got "101"); foo: unknown parameter`.
 * docs/design/local-tenant.md ("Client list") lists the choices made where the platform's exact wording is
 * unknown.
 */

import { APP_TYPES } from "../schema/index.js";
import type { FieldSelection } from "./clients.js";
import { ApiError } from "./errors.js";

/** The largest `per_page` the platform accepts. */
export const MAX_PER_PAGE = 100;
/** `per_page` when the query leaves it out. */
export const DEFAULT_PER_PAGE = 50;

/** The parsed query of a single-client GET. */
export interface ClientReadQuery {
  /** The requested fields, or undefined for the whole client. */
  selection: FieldSelection | undefined;
}

/** Filters of the list; each one left out matches every client. */
export interface ClientListFilters {
  /** `is_global`: the client's `global` must equal it. */
  isGlobal?: boolean;
  /** `is_first_party`: the client's `is_first_party` must equal it. */
  isFirstParty?: boolean;
  /** `app_type`: the client's `app_type` must be one of these. */
  appTypes?: readonly string[];
}

/** The parsed query of the client list. */
export interface ClientListQuery extends ClientReadQuery {
  /** 0-based page index. */
  page: number;
  /** Clients per page, 1 to {@link MAX_PER_PAGE}. */
  perPage: number;
  /** Answer `{clients, start, limit, total}` instead of a bare array. */
  includeTotals: boolean;
  /** The filters. */
  filters: ClientListFilters;
}

const READ_PARAMETERS = ["fields", "include_fields"] as const;
const LIST_PARAMETERS = [
  ...READ_PARAMETERS,
  "page",
  "per_page",
  "include_totals",
  "is_global",
  "is_first_party",
  "app_type",
] as const;

type Query = Readonly<Record<string, unknown>>;

/** Reads one query parameter and collects what is wrong with it. */
class QueryReader {
  readonly problems: string[] = [];

  constructor(
    private readonly query: Query,
    allowed: readonly string[],
  ) {
    for (const name of Object.keys(query)) {
      // `q` is a platform parameter (client-grant queries with checkpoint paging); this server
      // does not implement it, and says so rather than ignoring it.
      if (name === "q") this.problems.push("q: not supported by the local tenant API");
      else if (!allowed.includes(name)) this.problems.push(`${name}: unknown parameter`);
    }
  }

  /** The parameter's text, or undefined when absent (a repeated parameter is a problem). */
  text(name: string): string | undefined {
    const value = this.query[name];
    if (value === undefined) return undefined;
    if (typeof value !== "string") {
      this.problems.push(`${name}: must be given once`);
      return undefined;
    }
    return value;
  }

  boolean(name: string): boolean | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    if (text === "true") return true;
    if (text === "false") return false;
    this.problems.push(`${name}: must be true or false (got ${JSON.stringify(text)})`);
    return undefined;
  }

  integer(name: string, min: number, max: number): number | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value)) {
      this.problems.push(`${name}: must be an integer (got ${JSON.stringify(text)})`);
      return undefined;
    }
    if (value < min) {
      this.problems.push(`${name}: must be at least ${min} (got ${JSON.stringify(text)})`);
      return undefined;
    }
    if (value > max) {
      this.problems.push(`${name}: must be at most ${max} (got ${JSON.stringify(text)})`);
      return undefined;
    }
    return value;
  }

  /** A comma-separated list; empty items (`a,,b`, a trailing comma) are dropped. */
  list(name: string): string[] | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    return text
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  }

  selection(): FieldSelection | undefined {
    const fields = this.list("fields");
    const include = this.boolean("include_fields") ?? true;
    // `include_fields` without `fields` selects nothing to leave out or keep: the whole client.
    return fields === undefined || fields.length === 0 ? undefined : { fields, include };
  }

  /** Throws the 400 when anything was wrong. */
  check(): void {
    if (this.problems.length > 0) {
      throw new ApiError(
        400,
        "invalid_query_string",
        `Query validation error: ${this.problems.join("; ")}`,
      );
    }
  }
}

/** Parses the query of `GET /api/v2/clients/{id}`; throws a 400 `invalid_query_string`. */
export function parseClientReadQuery(query: Query): ClientReadQuery {
  const reader = new QueryReader(query, READ_PARAMETERS);
  const selection = reader.selection();
  reader.check();
  return { selection };
}

/** Parses the query of `GET /api/v2/clients`; throws a 400 `invalid_query_string`. */
export function parseClientListQuery(query: Query): ClientListQuery {
  const reader = new QueryReader(query, LIST_PARAMETERS);
  const selection = reader.selection();
  const page = reader.integer("page", 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const perPage = reader.integer("per_page", 1, MAX_PER_PAGE) ?? DEFAULT_PER_PAGE;
  const includeTotals = reader.boolean("include_totals") ?? false;
  const filters: ClientListFilters = {};
  const isGlobal = reader.boolean("is_global");
  if (isGlobal !== undefined) filters.isGlobal = isGlobal;
  const isFirstParty = reader.boolean("is_first_party");
  if (isFirstParty !== undefined) filters.isFirstParty = isFirstParty;
  const appTypes = reader.list("app_type");
  if (appTypes !== undefined) {
    const known: readonly string[] = APP_TYPES;
    const unknown = appTypes.filter((type) => !known.includes(type));
    if (unknown.length > 0) {
      reader.problems.push(
        `app_type: must be a comma-separated list of ${APP_TYPES.join(", ")} (got ${unknown.map((t) => JSON.stringify(t)).join(", ")})`,
      );
    } else if (appTypes.length > 0) filters.appTypes = appTypes;
  }
  reader.check();
  return { selection, page, perPage, includeTotals, filters };
}

/** Whether a stored client passes the list's filters. */
export function matchesFilters(
  client: Readonly<Record<string, unknown>>,
  filters: ClientListFilters,
): boolean {
  if (filters.isGlobal !== undefined && client.global !== filters.isGlobal) return false;
  if (filters.isFirstParty !== undefined && client.is_first_party !== filters.isFirstParty) {
    return false;
  }
  if (filters.appTypes !== undefined && !filters.appTypes.includes(String(client.app_type))) {
    return false;
  }
  return true;
}
