/**
 * The console's page and style (docs/design/local-tenant.md, "The console"), as text shipped in the
 * package: the page must load nothing from anywhere but the local tenant. The script is
 * `browser/main.ts`, bundled into `console.js` by `npm run build`.
 */

import { docAddress } from "../../docs-address.js";
import { CONSOLE_PATH, EDITABLE_FIELDS, LOG_LIMIT } from "./shared.js";

/** The client form's fields, from the one list the page's script and the edit route share. */
function formFields(): string {
  return EDITABLE_FIELDS.map(({ field, label, kind, rows }) => {
    const hint = kind === "urls" ? ' <span class="muted">(one URL a line)</span>' : "";
    const input =
      rows === 1
        ? `<input name="${field}" type="text">`
        : `<textarea name="${field}" rows="${rows}"></textarea>`;
    return `      <label>${label}${hint} ${input}</label>`;
  }).join("\n");
}

/**
 * The page. It holds nothing of the tenant, not even its name (the script fills everything in from
 * the routes that need a token beyond loopback), so that it may be served to anyone who reaches
 * the console: a browser's navigation to it cannot carry a token.
 */
export const CONSOLE_HTML: string = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Local tenant console</title>
<link rel="stylesheet" href="${CONSOLE_PATH}/console.css">
<script src="${CONSOLE_PATH}/console.js" defer></script>
</head>
<body>
<header>
  <h1>Local tenant <span id="tenant" class="tenant"></span></h1>
  <span id="live" class="live off">connecting…</span>
  <p class="muted">The charts and the requests start when a console page opens: nothing is recorded
    while none is open (${docAddress("docs/design/local-tenant.md", "the-console")}).</p>
</header>
<main>
  <section class="panel clients">
    <h2>Clients <span id="client-count" class="muted"></span></h2>
    <input id="client-search" type="search" placeholder="Search by name or id" autocomplete="off">
    <ul id="client-list"></ul>
  </section>
  <section class="panel client">
    <h2>Client <span id="client-title" class="muted">none selected</span></h2>
    <form id="client-form" hidden>
${formFields()}
      <div class="row"><button type="submit">Save</button>
        <span id="client-result" role="status"></span></div>
    </form>
    <p id="client-hidden" class="muted"></p>
    <pre id="client-json"></pre>
  </section>
  <section class="panel settings">
    <h2>Push notifications</h2>
    <form id="provider-form" class="row">
      <select id="provider" name="provider"></select>
      <button type="submit">Select</button>
      <span id="provider-result" role="status"></span>
    </form>
    <h2>Event streams</h2>
    <ul id="streams"></ul>
    <div id="token-box" hidden>
      <h2>Management API token</h2>
      <p class="muted">This console is not on loopback: it needs a token with the read scopes to
        show the tenant, and the write scopes to edit it. It stays in this page's memory only.</p>
      <input id="token" type="password" autocomplete="off">
      <span id="token-result" role="status"></span>
    </div>
  </section>
  <section class="panel wide">
    <h2>Rate limit bucket <span id="bucket-info" class="muted"></span></h2>
    <svg id="bucket-chart" viewBox="0 0 900 160" preserveAspectRatio="none"></svg>
    <p class="legend"><span class="k level"></span>level <span class="k reserve"></span>reserve
      the provider keeps by default (a quarter of the bucket) <span class="k burst"></span>capacity</p>
  </section>
  <section class="panel wide">
    <h2>Requests a second <span id="rate-info" class="muted"></span></h2>
    <svg id="rate-chart" viewBox="0 0 900 160" preserveAspectRatio="none"></svg>
    <p class="legend"><span class="k ok"></span>program 2xx/3xx <span class="k client"></span>4xx
      <span class="k limited"></span>429 <span class="k server"></span>5xx
      <span class="k bg"></span>background <span class="k bgref"></span>background 429</p>
  </section>
  <section class="panel wide">
    <h2>Requests <span class="muted">newest first, the latest ${LOG_LIMIT}</span>
      <select id="log-caller"><option value="">every caller</option>
        <option>program</option><option>background</option><option>console</option></select></h2>
    <table><thead><tr><th>time</th><th>caller</th><th>method</th><th>path</th><th>status</th>
      <th>ms</th></tr></thead><tbody id="log"></tbody></table>
  </section>
</main>
</body>
</html>
`;

/** The page's style. */
export const CONSOLE_CSS: string = `
:root { --bg: #f6f7f9; --fg: #1d2330; --muted: #6b7280; --line: #d9dde4; --accent: #3558d4;
  --ok: #2f9e5b; --client: #e0a021; --limited: #d23c3c; --server: #7a3fc4; --bg-load: #9aa3b2;
  --bg-ref: #5b2a2a; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; align-items: center; gap: 16px; padding: 10px 16px; background: #1d2330;
  color: #fff; }
h1 { font-size: 16px; margin: 0; } .tenant { color: #9fb4ff; }
h2 { font-size: 13px; margin: 0 0 8px; text-transform: uppercase; letter-spacing: .04em; }
.live { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--ok); }
.live.off { background: var(--limited); }
main { display: grid; grid-template-columns: 260px 1fr 280px; gap: 12px; padding: 12px; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px;
  min-width: 0; }
.wide { grid-column: 1 / -1; }
.muted { color: var(--muted); font-weight: normal; text-transform: none; letter-spacing: 0; }
input, textarea, select { font: inherit; width: 100%; padding: 4px 6px; border: 1px solid var(--line);
  border-radius: 4px; }
select#log-caller { width: auto; margin-left: 8px; }
label { display: block; margin-bottom: 6px; }
button { font: inherit; padding: 4px 12px; border: 0; border-radius: 4px; background: var(--accent);
  color: #fff; cursor: pointer; }
.row { display: flex; gap: 8px; align-items: center; } .row select { flex: 1; }
ul { list-style: none; margin: 8px 0 0; padding: 0; max-height: 360px; overflow: auto; }
li { padding: 4px 6px; border-radius: 4px; cursor: pointer; }
li:hover { background: #eef1f7; } li.selected { background: #dfe6fb; }
li small { display: block; color: var(--muted); font-family: ui-monospace, monospace; }
#streams li { cursor: default; }
pre { background: #f3f4f6; padding: 8px; border-radius: 4px; max-height: 280px; overflow: auto;
  font-size: 12px; }
.error { color: var(--limited); } .done { color: var(--ok); }
svg { width: 100%; height: 160px; background: #fbfbfc; border: 1px solid var(--line); }
.legend { margin: 6px 0 0; color: var(--muted); }
.k { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 10px; vertical-align: -1px; }
.k.level { background: var(--accent); } .k.reserve { background: var(--limited); }
.k.burst { background: var(--muted); } .k.ok { background: var(--ok); }
.k.client { background: var(--client); } .k.limited { background: var(--limited); }
.k.server { background: var(--server); } .k.bg { background: var(--bg-load); }
.k.bgref { background: var(--bg-ref); }
table { width: 100%; border-collapse: collapse; font-family: ui-monospace, monospace; font-size: 12px; }
th, td { text-align: left; padding: 2px 8px; border-bottom: 1px solid #eceef2; }
tbody { display: block; max-height: 300px; overflow: auto; } thead, tbody tr { display: table;
  width: 100%; table-layout: fixed; }
th:nth-child(4), td:nth-child(4) { width: 45%; overflow: hidden; text-overflow: ellipsis; }
td.s2 { color: var(--ok); } td.s4 { color: var(--client); } td.s429 { color: var(--limited); }
td.s5 { color: var(--server); }
`;
