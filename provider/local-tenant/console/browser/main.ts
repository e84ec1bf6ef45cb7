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

/** How long the page waits before it opens the event stream again after it ended. */
const RECONNECT_MS = 2000;

/** The element `#id`, of the type the page gives it; a missing one is a bug of the page. */
function byId<T extends Element>(id: string, type: abstract new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the console's page has no ${type.name} #${id}`);
  return node;
}

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

/** An element with attributes and, given, its text (as text: never parsed as markup). */
function el(tag: string, attributes: Record<string, string> = {}, text?: string): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Says `text` in a status line, as a success or a failure. */
function say(node: HTMLElement, text: string, ok: boolean): void {
  node.textContent = text;
  node.className = ok ? "done" : "error";
}

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

const SVG = "http://www.w3.org/2000/svg";
/** The charts' drawing area, in the units of their `viewBox`. */
const WIDTH = 900;
const HEIGHT = 160;
const STEP = WIDTH / HISTORY_SECONDS;

/** An SVG element with attributes (numbers only: nothing of the tenant is drawn as markup). */
function svgNode(tag: string, attributes: Record<string, string | number>): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function drawBucket(): void {
  const bucket = state.bucket;
  if (bucket === null) {
    bucketInfo.textContent = "no rate limit (start it with --rate-limit R --burst B)";
    bucketChart.replaceChildren();
    return;
  }
  bucketInfo.textContent = `${bucket.rate}/s, capacity ${bucket.burst}, reserve ${bucket.reserve}`;
  const y = (tokens: number) => (HEIGHT - 8 - (tokens / bucket.burst) * (HEIGHT - 16)).toFixed(1);
  const x0 = WIDTH - state.history.length * STEP;
  const points = state.history
    .flatMap((second, i) =>
      second.level === null ? [] : [`${(x0 + (i + 1) * STEP).toFixed(1)},${y(second.level)}`],
    )
    .join(" ");
  const label = svgNode("text", {
    x: 4,
    y: Number(y(bucket.reserve)) - 4,
    "font-size": 11,
    fill: "#d23c3c",
  });
  label.textContent = `reserve ${bucket.reserve}`;
  bucketChart.replaceChildren(
    svgNode("line", {
      x1: 0,
      x2: WIDTH,
      y1: y(bucket.burst),
      y2: y(bucket.burst),
      stroke: "#6b7280",
      "stroke-dasharray": "2 4",
    }),
    svgNode("line", {
      x1: 0,
      x2: WIDTH,
      y1: y(bucket.reserve),
      y2: y(bucket.reserve),
      stroke: "#d23c3c",
      "stroke-dasharray": "6 4",
    }),
    label,
    svgNode("polyline", { fill: "none", stroke: "#3558d4", "stroke-width": 2, points }),
  );
}

/** The kinds of a second's requests, stacked from the bottom in this order, and their colours. */
const KINDS = [
  ["ok", "#2f9e5b"],
  ["client", "#e0a021"],
  ["limited", "#d23c3c"],
  ["server", "#7a3fc4"],
  ["backgroundAllowed", "#9aa3b2"],
  ["backgroundRefused", "#5b2a2a"],
] as const;

function drawRates(): void {
  const history = state.history;
  const sum = (second: Second) => KINDS.reduce((total, [kind]) => total + second[kind], 0);
  const max = Math.max(5, ...history.map(sum));
  const x0 = WIDTH - history.length * STEP;
  const bars: SVGElement[] = [];
  history.forEach((second, i) => {
    let top = HEIGHT;
    for (const [kind, colour] of KINDS) {
      const count = second[kind];
      if (count === 0) continue;
      const height = (count / max) * (HEIGHT - 10);
      top -= height;
      bars.push(
        svgNode("rect", {
          x: (x0 + i * STEP).toFixed(1),
          y: top.toFixed(1),
          width: Math.max(1, STEP - 0.5).toFixed(1),
          height: height.toFixed(1),
          fill: colour,
        }),
      );
    }
  });
  rateChart.replaceChildren(...bars);
  const last = history.at(-1);
  rateInfo.textContent =
    `scale 0 to ${max}` +
    (last === undefined
      ? ""
      : ` · last second: program ${last.ok + last.client + last.limited + last.server}, ` +
        `background ${last.backgroundAllowed + last.backgroundRefused}`);
}

/** The class of a status's cell, which colours it. */
function statusClass(status: LogEntry["status"]): string {
  if (status === "dropped" || status >= 500) return "s5";
  if (status === 429) return "s429";
  return status >= 400 ? "s4" : "s2";
}

function drawLog(): void {
  const caller = logCaller.value;
  const rows = state.log
    .filter((entry) => caller === "" || entry.caller === caller)
    .map((entry) => {
      const row = el("tr", {
        "data-caller": entry.caller,
        "data-method": entry.method,
        "data-path": entry.path,
        "data-status": String(entry.status),
      });
      row.append(
        el("td", {}, new Date(entry.at).toISOString().slice(11, 23)),
        el("td", {}, entry.caller),
        el("td", {}, entry.method),
        el("td", { title: entry.path }, entry.path),
        el("td", { class: statusClass(entry.status) }, String(entry.status)),
        el("td", {}, entry.ms.toFixed(1)),
      );
      return row;
    });
  logBody.replaceChildren(...rows);
}

function draw(): void {
  drawBucket();
  drawRates();
  drawLog();
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
logCaller.addEventListener("change", drawLog);
tokenInput.addEventListener("change", () => void connect());
void connect();
