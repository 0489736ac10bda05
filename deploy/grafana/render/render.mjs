// Draws the panels of a Grafana dashboard JSON from a Prometheus, without Grafana: each panel's targets'
// PromQL (with $instance, $__rate_interval, $__interval and $__range substituted as Grafana would for
// "All" instances) is evaluated through Prometheus' /api/v1/query_range, drawn as line charts (uPlot) laid
// out by the panels' gridPos, with their titles, units and legendFormat, in headless Chromium, and saved
// as a PNG. Not Grafana: no thresholds, overrides, stacking or transformations.
//
//   node render.mjs --prometheus http://127.0.0.1:9090 --start EPOCH_S --end EPOCH_S --scrape 2 \
//       --dashboard ../rubix-bookkeeper.json --out ../../../docs/images/dashboard.png [--html page.html]
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) =>
  arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs, []));
for (const required of ["prometheus", "start", "end", "dashboard", "out"]) {
  if (!args[required]) {
    console.error(`missing --${required}`);
    process.exit(2);
  }
}
const start = Number(args.start);
const end = Number(args.end);
const scrape = Number(args.scrape ?? 15);
const width = Number(args.width ?? 1500);
const dashboard = JSON.parse(readFileSync(args.dashboard, "utf8"));
// one point per pixel is more than a chart this size shows: Grafana picks about width/3 points too
const step = Math.max(scrape, Math.ceil((end - start) / 240));
// Grafana's definition: max($__interval + scrape interval, 4 * scrape interval)
const rateInterval = Math.max(step + scrape, 4 * scrape);

function substitute(expr) {
  return expr
    .replace(/\$__rate_interval|\$\{__rate_interval\}/g, `${rateInterval}s`)
    .replace(/\$__interval|\$\{__interval\}/g, `${step}s`)
    .replace(/\$__range|\$\{__range\}/g, `${end - start}s`)
    .replace(/\$\{?(\w+)(?::\w+)?\}?/g, (text, name) => {
      const variable = (dashboard.templating?.list ?? []).find((v) => v.name === name);
      // every variable at "All": its allValue (a regex for multi-value variables), else .*
      return variable ? (variable.allValue ?? ".*") : text;
    });
}

async function queryRange(expr) {
  const url = new URL("/api/v1/query_range", args.prometheus);
  url.search = new URLSearchParams({ query: expr, start, end, step }).toString();
  const response = await fetch(url);
  const body = await response.json();
  if (body.status !== "success") {
    throw new Error(`Prometheus answered ${response.status} to ${expr}: ${body.error}`);
  }
  return body.data.result;
}

function legend(format, metric) {
  if (!format || format === "__auto") {
    return JSON.stringify(metric);
  }
  return format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, label) => metric[label] ?? "");
}

/** Panels in dashboard order, the panels of collapsed rows included. */
function panels() {
  return (dashboard.panels ?? []).flatMap((p) => (p.type === "row" && Array.isArray(p.panels) ? [p, ...p.panels] : [p]));
}

const times = [];
for (let t = start; t <= end; t += step) {
  times.push(t);
}
const drawn = [];
let emptyPanels = 0;
for (const panel of panels()) {
  const entry = { title: panel.title ?? "", type: panel.type, gridPos: panel.gridPos, unit: panel.fieldConfig?.defaults?.unit ?? "short", series: [] };
  for (const target of panel.targets ?? []) {
    if (!target.expr || target.hide) {
      continue;
    }
    const expr = substitute(target.expr);
    for (const result of await queryRange(expr)) {
      const values = new Map(result.values.map(([t, v]) => [Math.round(t), Number(v)]));
      entry.series.push({
        label: legend(target.legendFormat, result.metric),
        values: times.map((t) => (Number.isFinite(values.get(t)) ? values.get(t) : null)),
      });
    }
  }
  if (panel.type !== "row") {
    const points = entry.series.reduce((n, s) => n + s.values.filter((v) => v !== null).length, 0);
    console.log(`${entry.title}: ${entry.series.length} series, ${points} points`);
    if (points === 0) {
      emptyPanels++;
    }
  }
  drawn.push(entry);
}

const require = createRequire(import.meta.url);
const uplotJs = readFileSync(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8");
const uplotCss = readFileSync(require.resolve("uplot/dist/uPlot.min.css"), "utf8");
const columns = 24;
const unitHeight = 30;
const headerHeight = 56;
const maxY = Math.max(...drawn.map((p) => (p.gridPos ? p.gridPos.y + p.gridPos.h : 0)));
const height = headerHeight + maxY * unitHeight + 8;
const utc = (s) => new Date(s * 1000).toISOString().replace("T", " ").slice(0, 19);

const html = `<!doctype html><html><head><meta charset="utf-8"><style>${uplotCss}
body { margin: 0; background: #111217; color: #ccccdc; font: 12px Inter, "DejaVu Sans", sans-serif; }
#header { height: ${headerHeight}px; padding: 8px 12px; box-sizing: border-box; }
#header h1 { font-size: 16px; margin: 0 0 4px 0; color: #fff; font-weight: 500; }
.panel { position: absolute; box-sizing: border-box; background: #181b1f; border: 1px solid #2c3235; border-radius: 2px; padding: 4px 6px; overflow: hidden; }
.panel h2 { font-size: 12px; margin: 0 0 2px 0; color: #fff; font-weight: 500; white-space: nowrap; overflow: hidden; }
.row { position: absolute; font-size: 14px; color: #fff; padding: 6px 4px; box-sizing: border-box; }
.empty { color: #8e8e8e; padding-top: 40px; text-align: center; }
.u-legend { font-size: 10px; text-align: left; line-height: 1.2; }
.u-legend .u-series { padding: 0 6px 0 0; }
.u-legend .u-marker { width: 10px; height: 3px; }
.u-legend .u-value { display: none; }
</style><script>${uplotJs}</script></head><body>
<div id="header"><h1>${escape(dashboard.title ?? "")}</h1>
The dashboard's own panels and PromQL (deploy/grafana/rubix-bookkeeper.json), evaluated by a real Prometheus and drawn by
deploy/grafana/render/render.mjs, not by Grafana. ${utc(start)} to ${utc(end)} UTC, step ${step} s, $__rate_interval ${rateInterval}s, instance = All.</div>
<div id="panels" style="position: relative; width: ${width}px;"></div>
<script>
const panels = ${JSON.stringify(drawn)};
const times = ${JSON.stringify(times)};
const width = ${width}, columns = ${columns}, unitHeight = ${unitHeight};
const colors = ["#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2", "#b877d9", "#705da0", "#37872d", "#fade2a"];
function si(v, base, units) {
  if (v === null || v === undefined) return "";
  let i = 0, x = Math.abs(v);
  while (x >= base && i < units.length - 1) { x /= base; i++; }
  const n = Math.sign(v) * x;
  return (Math.abs(n) >= 100 || n === Math.round(n) ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2)) + units[i];
}
const units = {
  bytes: (v) => si(v, 1024, [" B", " KiB", " MiB", " GiB", " TiB"]),
  Bps: (v) => si(v, 1000, [" B/s", " kB/s", " MB/s", " GB/s"]),
  percentunit: (v) => v === null ? "" : (v * 100).toFixed(v * 100 === Math.round(v * 100) ? 0 : 1) + "%",
  percent: (v) => v === null ? "" : v.toFixed(0) + "%",
  ops: (v) => si(v, 1000, [" ops/s", "K ops/s", "M ops/s"]),
  reqps: (v) => si(v, 1000, [" req/s", "K req/s", "M req/s"]),
  short: (v) => si(v, 1000, ["", " K", " Mil", " Bil"]),
  s: (v) => si(v, 1000, [" s"]),
  ms: (v) => si(v, 1000, [" ms", " s"]),
};
const root = document.getElementById("panels");
const charts = [];
for (const p of panels) {
  if (!p.gridPos) continue;
  const x = p.gridPos.x * width / columns, y = p.gridPos.y * unitHeight, w = p.gridPos.w * width / columns - 4, h = p.gridPos.h * unitHeight - 4;
  const div = document.createElement("div");
  if (p.type === "row") {
    Object.assign(div.style, { left: x + "px", top: y + "px", width: w + "px" });
    div.className = "row";
    div.textContent = p.title;
    root.appendChild(div);
    continue;
  }
  div.className = "panel";
  Object.assign(div.style, { left: x + "px", top: y + "px", width: w + "px", height: h + "px" });
  const title = document.createElement("h2");
  title.textContent = p.title;
  div.appendChild(title);
  root.appendChild(div);
  const format = units[p.unit] ?? units.short;
  if (p.series.every((s) => s.values.every((v) => v === null))) {
    const empty = document.createElement("div");
    empty.className = "empty";
    empty.textContent = "No data";
    div.appendChild(empty);
    continue;
  }
  const chart = new uPlot({
    width: w - 12,
    height: h - 60,
    legend: { show: true, live: false },
    cursor: { show: false },
    scales: { x: { time: true }, y: { range: (u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
    axes: [
      { stroke: "#ccccdc", grid: { stroke: "#2c3235" }, ticks: { stroke: "#2c3235" }, font: "10px sans-serif" },
      { stroke: "#ccccdc", grid: { stroke: "#2c3235" }, ticks: { stroke: "#2c3235" }, font: "10px sans-serif", size: 70,
        values: (u, splits) => splits.map(format) },
    ],
    series: [{}, ...p.series.map((s, i) => ({ label: s.label, stroke: colors[i % colors.length], width: 1.5, spanGaps: false, points: { show: false } }))],
  }, [times, ...p.series.map((s) => s.values)], div);
  charts.push([chart, w, h]);
}
// once laid out, each legend wraps to as many lines as its series need: the plot gets what is left
requestAnimationFrame(() => {
  for (const [chart, w, h] of charts) {
    chart.setSize({ width: w - 12, height: h - 30 - chart.root.querySelector(".u-legend").offsetHeight });
  }
  requestAnimationFrame(() => { window.rendered = true; });
});
</script></body></html>`;

function escape(text) {
  return text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);
}

if (args.html) {
  writeFileSync(args.html, html);
}
const browser = await chromium.launch({
  executablePath: args.chromium ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: width + 4, height } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.setContent(html);
  await page.waitForFunction(() => window.rendered === true, null, { timeout: 30000 });
  if (errors.length > 0) {
    throw new Error(`the page failed: ${errors.join("; ")}`);
  }
  await page.screenshot({ path: args.out, fullPage: true });
} finally {
  await browser.close();
}
console.log(`${drawn.filter((p) => p.type !== "row").length} panels (${emptyPanels} without data) drawn into ${args.out}`);
