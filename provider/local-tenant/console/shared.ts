/**
 * What the console's page and its server share (docs/design/local-tenant.md, "The console"): where it is
 * served, the limits of what it keeps, the fields a person edits on it, the shape of what the
 * server sends, and the format of its events. The page's script (`browser/main.ts`, bundled into
 * `console.js`) and the server (`routes.ts`, `monitor.ts`, `page.ts`) both take them from here, so
 * that a limit or a field is written once. Plain data and functions that use neither Node's nor
 * the browser's globals: the module is type-checked in both programs.
 */

/** Where the console is served: its page, and everything it uses under it. */
export const CONSOLE_PATH = "/__tenant-api/console";

/** How many requests the log keeps and the page shows: the latest, the oldest dropped first. */
export const LOG_LIMIT = 400;

/** How many seconds of history are kept and drawn: five minutes. */
export const HISTORY_SECONDS = 300;

/** How a client's field is edited on the page: as text, or as a list of URLs, one a line. */
type FieldKind = "text" | "urls";

/**
 * The client's fields a person edits on the console, in the page's order: what the page's form
 * shows (a field of one row is a line of text, others a text area) and sends, and all that the
 * console's edit accepts (another field is refused with a 400 naming it; the management API's
 * PATCH is there for the rest).
 */
export const EDITABLE_FIELDS = [
  { field: "name", label: "Name", kind: "text", rows: 1 },
  { field: "description", label: "Description", kind: "text", rows: 2 },
  { field: "callbacks", label: "Callbacks", kind: "urls", rows: 3 },
  { field: "allowed_logout_urls", label: "Allowed logout URLs", kind: "urls", rows: 2 },
] as const satisfies readonly { field: string; label: string; kind: FieldKind; rows: number }[];

/** The name of a field the console edits. */
export type EditableField = (typeof EDITABLE_FIELDS)[number]["field"];

/** A client's edit as the page sends it: the fields it changed, each as the client holds it. */
export type ClientEdit = Partial<Record<EditableField, string | string[]>>;

/** The members of an edit's body that the console does not edit, in the body's order. */
export function uneditableFields(body: Readonly<Record<string, unknown>>): string[] {
  const editable: readonly string[] = EDITABLE_FIELDS.map((entry) => entry.field);
  return Object.keys(body).filter((member) => !editable.includes(member));
}

/** The text the form shows for a client's value: a list one entry a line, nothing for none. */
export function formText(kind: FieldKind, value: unknown): string {
  if (kind === "urls") return Array.isArray(value) ? value.map(String).join("\n") : "";
  return value === undefined || value === null ? "" : String(value);
}

/** A list's text as the list it sends: one entry a line, trimmed, blank lines left out. */
function formList(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/**
 * The edit the page sends for the form's texts: each field whose value differs from the client's,
 * a list compared as a list (a blank line or a space added is no change); empty when none does.
 */
export function clientEdit(
  client: Readonly<Record<string, unknown>>,
  texts: Readonly<Record<EditableField, string>>,
): ClientEdit {
  const edit: ClientEdit = {};
  for (const { field, kind } of EDITABLE_FIELDS) {
    const text = texts[field];
    if (kind === "text") {
      if (text !== formText(kind, client[field])) edit[field] = text;
      continue;
    }
    const list = formList(text);
    if (list.join("\n") !== formText(kind, client[field])) edit[field] = list;
  }
  return edit;
}

/** Who made a request: the program under test, the background load, or a person on the console. */
type Caller = "program" | "background" | "console";

/** One request of the console's log. */
export interface LogEntry {
  /** Increasing number of the entry, so that a page knows which entries it has. */
  seq: number;
  /** When the answer left, in milliseconds since the epoch. */
  at: number;
  /** The request's method. */
  method: string;
  /** The path, without the query; `(bucket)` for a background read, which has none. */
  path: string;
  /** The answer's status, or `dropped` for a connection closed by fault injection. */
  status: number | "dropped";
  /** Who made it. */
  caller: Caller;
  /** Milliseconds from the request's arrival to its answer. */
  ms: number;
}

/** The requests of one second, by caller and status class. */
export interface SecondCounts {
  /** The program's answers below 400. */
  ok: number;
  /** The program's 4xx answers other than 429. */
  client: number;
  /** The program's 429 answers. */
  limited: number;
  /** The program's 5xx answers and dropped connections. */
  server: number;
  /** Background reads the bucket let through. */
  backgroundAllowed: number;
  /** Background reads refused with 429. */
  backgroundRefused: number;
}

/** One second of the console's history. */
export interface Second extends SecondCounts {
  /** The end of the second, in milliseconds since the epoch. */
  at: number;
  /** Tokens in the bucket at the end of the second; null without a rate limit. */
  level: number | null;
}

/** The rate limit as the console draws it: the bucket, and the reserve the provider keeps of it. */
export interface BucketInfo {
  /** Tokens added a second. */
  rate: number;
  /** The bucket's capacity. */
  burst: number;
  /** The provider's default reserve of this bucket (`reserveTokens`, a quarter rounded up). */
  reserve: number;
}

/** What a page is sent each second (the `tick` event): the second that ended, its log entries. */
export interface Tick {
  /** The second that ended. */
  second: Second;
  /** The log entries added during it, oldest first. */
  entries: LogEntry[];
  /** `TenantStore.version`: the page re-reads clients and the tenant when it moves. */
  version: number;
  /** The rate limit now (it may have been changed), or null without one. */
  bucket: BucketInfo | null;
}

/** What a page is sent when its stream opens (the `hello` event). */
export interface Hello {
  /** The tenant's name. */
  tenant: string;
  /** `TenantStore.version`. */
  version: number;
  /** The rate limit, or null without one. */
  bucket: BucketInfo | null;
  /** Whether the page's requests need a token: it is not on loopback. */
  needsToken: boolean;
  /** The history kept so far, oldest first. */
  history: Second[];
  /** The log kept so far, oldest first. */
  log: LogEntry[];
}

/** `GET …/console/clients`: the clients that match a search, the first of them. */
export interface ClientList {
  /** How many match. */
  total: number;
  /** The first that match, as the list shows them. */
  clients: { client_id: string; name: string; app_type: string }[];
}

/** `GET …/console/clients/{id}` and the edit's answer: a client as the console shows it. */
export interface ShownClient {
  /** The client, secrets left out or masked. */
  client: Record<string, unknown>;
  /** The names of what is not shown. */
  hidden: string[];
}

/** `GET …/console/tenant`: the tenant's settings the console shows. */
export interface TenantView {
  /** The tenant's name. */
  tenant: string;
  /** The push provider selected. */
  pushProvider: string;
  /** Every provider that may be selected. */
  providers: readonly string[];
  /** The event streams, by what names them only (a destination may hold credentials). */
  eventStreams: { id: string; name: string; status: string }[];
}

/** One event of the stream, its data still JSON text. */
export interface StreamEvent {
  /** The event's name: `hello` or `tick`. */
  event: string;
  /** Its data. */
  data: string;
}

/**
 * One event of a server-sent event stream: its name and its data as one line of JSON (which holds
 * no line break), ended by a blank line.
 */
export function formatEvent(event: "hello" | "tick", data: Hello | Tick): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The events complete in `text`, what {@link formatEvent} wrote read in the order it came, and what
 * follows the last of them (an event whose end has not arrived yet), to read with the next chunk.
 */
export function parseEvents(text: string): { events: StreamEvent[]; rest: string } {
  const blocks = text.split("\n\n");
  const rest = blocks.pop() ?? "";
  const events: StreamEvent[] = [];
  for (const block of blocks) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice("event: ".length);
      else if (line.startsWith("data: ")) data.push(line.slice("data: ".length));
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return { events, rest };
}

/** What an answer of the console's routes comes to for the page: its JSON, or what went wrong. */
export type Answer<T> = { ok: true; data: T } | { ok: false; message: string };

/**
 * An answer as the page takes it: a 2xx's JSON; otherwise the status and the API's message, or,
 * when the body is not JSON (a proxy's error page, a server cut off), the status and that.
 */
export function readAnswer<T>(status: number, text: string): Answer<T> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, message: `${status}: the answer is not JSON` };
  }
  if (status >= 200 && status < 300) return { ok: true, data: data as T };
  const message =
    typeof data === "object" && data !== null && "message" in data
      ? String(data.message)
      : "no message";
  return { ok: false, message: `${status}: ${message}` };
}

/** What the page says when a request got no answer at all: the local tenant stopped, say. */
export function unanswered(error: unknown): string {
  const cause = error instanceof Error ? error.message : String(error);
  return `the local tenant did not answer (${cause})`;
}
