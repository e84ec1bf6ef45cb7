/**
 * The console page's script (docs/local-tenant.md, "The console"), as text shipped in the package
 * and served by the local tenant: plain browser JavaScript with no library, so that the page needs
 * nothing but this server. It listens to the server-sent events of `/__tenant-api/console/events`
 * (the history at `hello`, then one `tick` a second), re-reads the clients and the tenant when the
 * store's version moves, and sends the edits to the console's PATCH and PUT, showing the API's
 * answer as it comes, a 400's message included. The test in a real browser
 * (test/e2e-console.test.ts) is what checks it.
 */

/** The script, served as `/__tenant-api/console/console.js`. */
export const CONSOLE_SCRIPT = String.raw`"use strict";
(function () {
  var base = "/__tenant-api/console";
  var HISTORY = 300, LOG = 400;
  var $ = function (id) { return document.getElementById(id); };
  var state = { selected: null, client: null, version: -1, bucket: null, history: [], log: [] };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function say(id, text, ok) {
    var node = $(id);
    node.textContent = text;
    node.className = ok ? "done" : "error";
  }
  function getJson(path) {
    return fetch(base + path, { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error(r.status + " " + r.statusText);
      return r.json();
    });
  }
  function send(method, path, body) {
    var headers = { "content-type": "application/json" };
    var token = $("token").value.trim();
    if (token !== "") headers.authorization = "Bearer " + token;
    return fetch(base + path, { method: method, headers: headers, body: JSON.stringify(body) })
      .then(function (r) {
        return r.json().then(function (data) { return { ok: r.ok, status: r.status, data: data }; });
      });
  }

  function loadClients() {
    var q = $("client-search").value;
    return getJson("/clients?q=" + encodeURIComponent(q)).then(function (data) {
      if (q !== $("client-search").value) return;
      var list = $("client-list");
      list.textContent = "";
      data.clients.forEach(function (c) {
        var li = el("li", { "data-id": c.client_id }, c.name || "(no name)");
        if (c.client_id === state.selected) li.className = "selected";
        li.appendChild(el("small", {}, c.client_id + " · " + c.app_type));
        li.addEventListener("click", function () {
          $("client-result").textContent = "";
          showClient(c.client_id, true);
        });
        list.appendChild(li);
      });
      $("client-count").textContent = data.clients.length < data.total
        ? data.clients.length + " of " + data.total : String(data.total);
    });
  }

  var LISTS = ["callbacks", "allowed_logout_urls"], TEXTS = ["name", "description"];
  function fillForm(client) {
    var form = $("client-form");
    TEXTS.forEach(function (f) { form.elements[f].value = client[f] == null ? "" : client[f]; });
    LISTS.forEach(function (f) { form.elements[f].value = (client[f] || []).join("\n"); });
  }
  function showClient(id, fresh) {
    state.selected = id;
    Array.prototype.forEach.call($("client-list").children, function (li) {
      li.className = li.getAttribute("data-id") === id ? "selected" : "";
    });
    return getJson("/clients/" + encodeURIComponent(id)).then(function (data) {
      if (state.selected !== id) return;
      state.client = data.client;
      $("client-title").textContent = (data.client.name || "") + " · " + id;
      $("client-json").textContent = JSON.stringify(data.client, null, 2);
      $("client-hidden").textContent = data.hidden.length === 0 ? "" :
        "Not shown, as the API answers without read:client_keys: " + data.hidden.join(", ");
      var form = $("client-form");
      form.hidden = false;
      if (fresh || !form.contains(document.activeElement)) fillForm(data.client);
    });
  }
  $("client-search").addEventListener("input", loadClients);
  $("client-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = $("client-form"), client = state.client, patch = {};
    if (!client) return;
    TEXTS.forEach(function (f) {
      var value = form.elements[f].value;
      if (value !== (client[f] == null ? "" : client[f])) patch[f] = value;
    });
    LISTS.forEach(function (f) {
      var value = form.elements[f].value.split("\n").map(function (s) { return s.trim(); })
        .filter(function (s) { return s !== ""; });
      if (JSON.stringify(value) !== JSON.stringify(client[f] || [])) patch[f] = value;
    });
    if (Object.keys(patch).length === 0) { say("client-result", "Nothing changed", true); return; }
    send("PATCH", "/clients/" + encodeURIComponent(state.selected), patch).then(function (r) {
      if (!r.ok) { say("client-result", r.status + ": " + r.data.message, false); return; }
      say("client-result", "Saved: " + Object.keys(patch).join(", "), true);
      showClient(state.selected, true);
    });
  });

  function loadTenant() {
    return getJson("/tenant").then(function (data) {
      var select = $("provider");
      if (select.options.length === 0) {
        data.providers.forEach(function (p) { select.appendChild(el("option", { value: p }, p)); });
      }
      if (document.activeElement !== select) select.value = data.pushProvider;
      var streams = $("streams");
      streams.textContent = "";
      data.eventStreams.forEach(function (s) {
        var li = el("li", { "data-id": s.id }, s.name || "(no name)");
        li.appendChild(el("small", {}, s.id + (s.status ? " · " + s.status : "")));
        streams.appendChild(li);
      });
      if (data.eventStreams.length === 0) streams.appendChild(el("li", {}, "none"));
    });
  }
  $("provider-form").addEventListener("submit", function (event) {
    event.preventDefault();
    send("PUT", "/selected-provider", { provider: $("provider").value }).then(function (r) {
      if (!r.ok) { say("provider-result", r.status + ": " + r.data.message, false); return; }
      say("provider-result", "Selected " + r.data.provider, true);
    });
  });

  function svg(id, parts) { $(id).innerHTML = parts.join(""); }
  function drawBucket() {
    var b = state.bucket, h = state.history, W = 900, H = 160, step = W / HISTORY;
    if (!b) {
      $("bucket-info").textContent = "no rate limit (start it with --rate-limit R --burst B)";
      svg("bucket-chart", []);
      return;
    }
    $("bucket-info").textContent = b.rate + "/s, capacity " + b.burst + ", reserve " + b.reserve;
    var y = function (v) { return H - 8 - (v / b.burst) * (H - 16); };
    var x0 = W - h.length * step;
    var points = h.filter(function (s) { return s.level !== null; }).map(function (s, i) {
      return (x0 + (i + 1) * step).toFixed(1) + "," + y(s.level).toFixed(1);
    });
    svg("bucket-chart", [
      '<line x1="0" x2="900" y1="' + y(b.burst) + '" y2="' + y(b.burst) + '" stroke="#6b7280" stroke-dasharray="2 4"/>',
      '<line x1="0" x2="900" y1="' + y(b.reserve) + '" y2="' + y(b.reserve) + '" stroke="#d23c3c" stroke-dasharray="6 4"/>',
      '<text x="4" y="' + (y(b.reserve) - 4) + '" font-size="11" fill="#d23c3c">reserve ' + b.reserve + "</text>",
      '<polyline fill="none" stroke="#3558d4" stroke-width="2" points="' + points.join(" ") + '"/>',
    ]);
  }
  var KINDS = [["ok", "#2f9e5b"], ["client", "#e0a021"], ["limited", "#d23c3c"],
    ["server", "#7a3fc4"], ["backgroundAllowed", "#9aa3b2"], ["backgroundRefused", "#5b2a2a"]];
  function drawRates() {
    var h = state.history, W = 900, H = 160, step = W / HISTORY, max = 5;
    h.forEach(function (s) {
      var sum = 0;
      KINDS.forEach(function (k) { sum += s[k[0]]; });
      if (sum > max) max = sum;
    });
    var parts = [], x0 = W - h.length * step;
    h.forEach(function (s, i) {
      var top = H;
      KINDS.forEach(function (k) {
        var v = s[k[0]];
        if (v === 0) return;
        var height = (v / max) * (H - 10);
        top -= height;
        parts.push('<rect x="' + (x0 + i * step).toFixed(1) + '" y="' + top.toFixed(1) + '" width="' +
          Math.max(1, step - 0.5).toFixed(1) + '" height="' + height.toFixed(1) + '" fill="' + k[1] + '"/>');
      });
    });
    svg("rate-chart", parts);
    var last = h.length === 0 ? null : h[h.length - 1];
    $("rate-info").textContent = "scale 0 to " + max + (last ? " · last second: program " +
      (last.ok + last.client + last.limited + last.server) + ", background " +
      (last.backgroundAllowed + last.backgroundRefused) : "");
  }
  function statusClass(status) {
    if (status === "dropped" || status >= 500) return "s5";
    if (status === 429) return "s429";
    return status >= 400 ? "s4" : "s2";
  }
  function drawLog() {
    var caller = $("log-caller").value, body = $("log");
    body.textContent = "";
    state.log.forEach(function (e) {
      if (caller !== "" && e.caller !== caller) return;
      var tr = el("tr", { "data-caller": e.caller, "data-method": e.method, "data-path": e.path,
        "data-status": String(e.status) });
      tr.appendChild(el("td", {}, new Date(e.at).toISOString().slice(11, 23)));
      tr.appendChild(el("td", {}, e.caller));
      tr.appendChild(el("td", {}, e.method));
      tr.appendChild(el("td", { title: e.path }, e.path));
      tr.appendChild(el("td", { class: statusClass(e.status) }, String(e.status)));
      tr.appendChild(el("td", {}, e.ms.toFixed(1)));
      body.appendChild(tr);
    });
  }
  $("log-caller").addEventListener("change", drawLog);
  function draw() { drawBucket(); drawRates(); drawLog(); }
  function reread(version) {
    if (version === state.version) return;
    state.version = version;
    loadClients();
    loadTenant();
    if (state.selected) showClient(state.selected, false);
  }

  var events = new EventSource(base + "/events");
  events.addEventListener("open", function () {
    $("live").textContent = "live";
    $("live").className = "live";
  });
  events.addEventListener("error", function () {
    $("live").textContent = "reconnecting…";
    $("live").className = "live off";
  });
  events.addEventListener("hello", function (message) {
    var data = JSON.parse(message.data);
    state.bucket = data.bucket;
    state.history = data.history;
    state.log = data.log.slice().reverse();
    $("token-box").hidden = !data.editNeedsToken;
    state.version = -1;
    reread(data.version);
    draw();
  });
  events.addEventListener("tick", function (message) {
    var data = JSON.parse(message.data);
    state.bucket = data.bucket;
    state.history.push(data.second);
    if (state.history.length > HISTORY) state.history.shift();
    state.log = data.entries.slice().reverse().concat(state.log).slice(0, LOG);
    reread(data.version);
    draw();
  });
})();
`;
