/**
 * What the console's page draws of the traffic (docs/design/local-tenant.md, "The console"): the
 * bucket's level, the rates of the last seconds by kind, and the log of the requests. Numbers are
 * drawn as SVG attributes and everything else as text, so nothing of the tenant is parsed as
 * markup.
 */

import { type BucketInfo, HISTORY_SECONDS, type LogEntry, type Second } from "../shared.js";
import { el } from "./dom.js";

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

/**
 * The bucket's chart: its level over the last seconds (`history`) against its capacity and the
 * reserve it keeps for the program, and the line above it (`info`) that says its figures.
 */
export function drawBucket(
  chart: SVGSVGElement,
  info: HTMLElement,
  bucket: BucketInfo | null,
  history: readonly Second[],
): void {
  if (bucket === null) {
    info.textContent = "no rate limit (start it with --rate-limit R --burst B)";
    chart.replaceChildren();
    return;
  }
  info.textContent = `${bucket.rate}/s, capacity ${bucket.burst}, reserve ${bucket.reserve}`;
  const y = (tokens: number) => (HEIGHT - 8 - (tokens / bucket.burst) * (HEIGHT - 16)).toFixed(1);
  const x0 = WIDTH - history.length * STEP;
  const points = history
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
  chart.replaceChildren(
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

/**
 * The rates' chart: each of the last seconds' requests (`history`) stacked by kind, and the line
 * (`info`) that says its scale and the last second's counts.
 */
export function drawRates(
  chart: SVGSVGElement,
  info: HTMLElement,
  history: readonly Second[],
): void {
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
  chart.replaceChildren(...bars);
  const last = history.at(-1);
  info.textContent =
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

/** The log's rows (`log`, newest first), those of `caller` alone unless it is empty, in `body`. */
export function drawLog(
  body: HTMLTableSectionElement,
  log: readonly LogEntry[],
  caller: string,
): void {
  const rows = log
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
  body.replaceChildren(...rows);
}
