/**
 * The console page's script (docs/design/local-tenant.md, "The console"): browser code with no library,
 * bundled by `npm run build` into `console.js` beside the console's routes, which serve it, so that
 * the page needs nothing but the local tenant. It reads the server-sent events of
 * `/__tenant-api/console/events` (the history at `hello`, then one `tick` a second), re-reads the
 * clients and the tenant when the store's version moves, and sends the edits to the console's
 * PATCH and PUT, showing the answer as it comes: a 400's message, a failure to answer, an answer
 * that is not JSON. Everything a client or the tenant holds is shown as text (`textContent`), never
 * parsed as markup. The test in a real browser (test/e2e-console.test.ts) is what runs it.
 *
 * It is type-checked by the tsconfig.json of its folder, whose `lib` has the DOM, rather than by
 * the root one with a `/// <reference lib="dom" />`: such a reference would give every module of
 * the root program, all of them Node.js code, the browser's globals (`document`, `window`).
 */

import {
  type Answer,
  type BucketInfo,
  type ClientList,
  CONSOLE_PATH,
  clientEdit,
  EDITABLE_FIELDS,
  type EditableField,
  formText,
  type Hello,
  HISTORY_SECONDS,
  LOG_LIMIT,
  type LogEntry,
  parseEvents,
  readAnswer,
  type Second,
  type ShownClient,
  type TenantView,
  type Tick,
  unanswered,
} from "../shared.js";
import { byId, el, say } from "./dom.js";
import { drawBucket, drawLog, drawRates } from "./draw.js";

/** How long the page waits before it opens the event stream again after it ended. */
const RECONNECT_MS = 2000;

const live = byId("live", HTMLElement);
const tenantName = byId("tenant", HTMLElement);
const search = byId("client-search", HTMLInputElement);
const clientList = byId("client-list", HTMLUListElement);
const clientCount = byId("client-count", HTMLElement);
const clientTitle = byId("client-title", HTMLElement);
const clientForm = byId("client-form", HTMLFormElement);
const clientResult = byId("client-result", HTMLElement);
const clientHidden = byId("client-hidden", HTMLElement);
const clientJson = byId("client-json", HTMLElement);
const providerForm = byId("provider-form", HTMLFormElement);
const providerSelect = byId("provider", HTMLSelectElement);
const providerResult = byId("provider-result", HTMLElement);
const streams = byId("streams", HTMLUListElement);
const tokenBox = byId("token-box", HTMLElement);
const tokenInput = byId("token", HTMLInputElement);
const tokenResult = byId("token-result", HTMLElement);
const bucketInfo = byId("bucket-info", HTMLElement);
const bucketChart = byId("bucket-chart", SVGSVGElement);
const rateInfo = byId("rate-info", HTMLElement);
const rateChart = byId("rate-chart", SVGSVGElement);
const logCaller = byId("log-caller", HTMLSelectElement);
const logBody = byId("log", HTMLTableSectionElement);

/** What the page knows of the tenant. */
const state: {
  selected: string | null;
  client: Record<string, unknown> | null;
  version: number;
  bucket: BucketInfo | null;
  history: Second[];
  /** Newest first. */
  log: LogEntry[];
} = { selected: null, client: null, version: -1, bucket: null, history: [], log: [] };

/** The headers of a request: the token, when the person gave one. */
function headers(json: boolean): Record<string, string> {
  const given: Record<string, string> = json ? { "content-type": "application/json" } : {};
  const token = tokenInput.value.trim();
  if (token !== "") given.authorization = `Bearer ${token}`;
  return given;
}

/** Sends a request to the console's routes; a failure to answer is an answer too. */
async function call<T>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
  try {
    const response = await fetch(`${CONSOLE_PATH}${path}`, {
      method,
      cache: "no-store",
      headers: headers(body !== undefined),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return readAnswer<T>(response.status, await response.text());
  } catch (error) {
    return { ok: false, message: unanswered(error) };
  }
}

async function loadClients(): Promise<void> {
  const q = search.value;
  const answer = await call<ClientList>("GET", `/clients?q=${encodeURIComponent(q)}`);
  if (!answer.ok || q !== search.value) return;
  const { clients, total } = answer.data;
  clientList.textContent = "";
  for (const client of clients) {
    const item = el("li", { "data-id": client.client_id }, client.name || "(no name)");
    if (client.client_id === state.selected) item.className = "selected";
    item.appendChild(el("small", {}, `${client.client_id} · ${client.app_type}`));
    item.addEventListener("click", () => {
      clientResult.textContent = "";
      void showClient(client.client_id, true);
    });
    clientList.appendChild(item);
  }
  clientCount.textContent = clients.length < total ? `${clients.length} of ${total}` : `${total}`;
}

/** The form's field for `field`. */
function formField(field: EditableField): HTMLInputElement | HTMLTextAreaElement {
  const node = clientForm.elements.namedItem(field);
  if (node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement) return node;
  throw new Error(`the console's form has no field ${field}`);
}

function fillForm(client: Record<string, unknown>): void {
  for (const { field, kind } of EDITABLE_FIELDS)
    formField(field).value = formText(kind, client[field]);
}

async function showClient(id: string, fresh: boolean): Promise<void> {
  state.selected = id;
  for (const item of clientList.children) {
    item.className = item.getAttribute("data-id") === id ? "selected" : "";
  }
  const answer = await call<ShownClient>("GET", `/clients/${encodeURIComponent(id)}`);
  if (!answer.ok || state.selected !== id) return;
  const { client, hidden } = answer.data;
  state.client = client;
  clientTitle.textContent = `${String(client.name ?? "")} · ${id}`;
  clientJson.textContent = JSON.stringify(client, null, 2);
  clientHidden.textContent =
    hidden.length === 0
      ? ""
      : `Not shown, as the API answers without read:client_keys: ${hidden.join(", ")}`;
  clientForm.hidden = false;
  if (fresh || !clientForm.contains(document.activeElement)) fillForm(client);
}

async function saveClient(): Promise<void> {
  const { client, selected } = state;
  if (client === null || selected === null) return;
  const texts = Object.fromEntries(
    EDITABLE_FIELDS.map(({ field }) => [field, formField(field).value]),
  ) as Record<EditableField, string>;
  const edit = clientEdit(client, texts);
  if (Object.keys(edit).length === 0) {
    say(clientResult, "Nothing changed", true);
    return;
  }
  const answer = await call<ShownClient>("PATCH", `/clients/${encodeURIComponent(selected)}`, edit);
  if (!answer.ok) {
    say(clientResult, `Not saved: ${answer.message}`, false);
    return;
  }
  say(clientResult, `Saved: ${Object.keys(edit).join(", ")}`, true);
  await showClient(selected, true);
}

async function loadTenant(): Promise<void> {
  const answer = await call<TenantView>("GET", "/tenant");
  if (!answer.ok) return;
  const { providers, pushProvider, eventStreams } = answer.data;
  if (providerSelect.options.length === 0) {
    for (const provider of providers) {
      providerSelect.appendChild(el("option", { value: provider }, provider));
    }
  }
  if (document.activeElement !== providerSelect) providerSelect.value = pushProvider;
  streams.textContent = "";
  for (const stream of eventStreams) {
    const item = el("li", { "data-id": stream.id }, stream.name || "(no name)");
    item.appendChild(el("small", {}, stream.id + (stream.status ? ` · ${stream.status}` : "")));
    streams.appendChild(item);
  }
  if (eventStreams.length === 0) streams.appendChild(el("li", {}, "none"));
}

async function selectProvider(): Promise<void> {
  const answer = await call<{ provider: string }>("PUT", "/selected-provider", {
    provider: providerSelect.value,
  });
  if (!answer.ok) {
    say(providerResult, `Not selected: ${answer.message}`, false);
    return;
  }
  say(providerResult, `Selected ${answer.data.provider}`, true);
}

/** The log as the caller chosen filters it. */
function showLog(): void {
  drawLog(logBody, state.log, logCaller.value);
}

function draw(): void {
  drawBucket(bucketChart, bucketInfo, state.bucket, state.history);
  drawRates(rateChart, rateInfo, state.history);
  showLog();
}

/** Reads the clients, the tenant and the client shown again when the store's version moved. */
function reread(version: number): void {
  if (version === state.version) return;
  state.version = version;
  void loadClients();
  void loadTenant();
  if (state.selected !== null) void showClient(state.selected, false);
}

function onHello(hello: Hello): void {
  tenantName.textContent = hello.tenant;
  document.title = `${hello.tenant} · local tenant console`;
  tokenBox.hidden = !hello.needsToken;
  state.bucket = hello.bucket;
  state.history = hello.history;
  state.log = hello.log.slice().reverse();
  state.version = -1;
  reread(hello.version);
  draw();
}

function onTick(tick: Tick): void {
  state.bucket = tick.bucket;
  state.history.push(tick.second);
  if (state.history.length > HISTORY_SECONDS) state.history.shift();
  state.log = tick.entries.slice().reverse().concat(state.log).slice(0, LOG_LIMIT);
  reread(tick.version);
  draw();
}

function showLive(text: string, on: boolean): void {
  live.textContent = text;
  live.className = on ? "live" : "live off";
}

/**
 * Reads the event stream until it ends. Read with `fetch` rather than an `EventSource`, which
 * cannot send the token the stream needs beyond loopback. Returns false when the stream was
 * refused for want of a token (the page then waits for one), true when it ended otherwise.
 */
async function listen(signal: AbortSignal): Promise<boolean> {
  const response = await fetch(`${CONSOLE_PATH}/events`, {
    cache: "no-store",
    headers: headers(false),
    signal,
  });
  if (response.status === 401 || response.status === 403) {
    const answer = readAnswer(response.status, await response.text());
    tokenBox.hidden = false;
    say(tokenResult, answer.ok ? "" : answer.message, false);
    showLive("needs a token", false);
    return false;
  }
  if (!response.ok || response.body === null) return true;
  tokenResult.textContent = "";
  showLive("live", true);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return true;
    const parsed = parseEvents(text + value);
    text = parsed.rest;
    for (const { event, data } of parsed.events) {
      if (event === "hello") onHello(JSON.parse(data) as Hello);
      else if (event === "tick") onTick(JSON.parse(data) as Tick);
    }
  }
}

/** The stream being read, which a new token ends so that the next one carries it. */
let current: AbortController | undefined;

/** Opens the event stream, and again a little after each end, until a token is wanted. */
async function connect(): Promise<void> {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  let again = true;
  try {
    again = await listen(controller.signal);
  } catch {
    // The server went (a restart, a stop) or the token changed: say so and try again.
  }
  if (controller !== current) return;
  if (!again) return;
  showLive("reconnecting…", false);
  setTimeout(() => {
    if (controller === current) void connect();
  }, RECONNECT_MS);
}

search.addEventListener("input", () => void loadClients());
clientForm.addEventListener("submit", (event) => {
  event.preventDefault();
  void saveClient();
});
providerForm.addEventListener("submit", (event) => {
  event.preventDefault();
  void selectProvider();
});
logCaller.addEventListener("change", showLog);
tokenInput.addEventListener("change", () => void connect());
void connect();
