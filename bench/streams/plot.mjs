// Plots bench/streams/run.sh's results as one SVG of two panels against N (streams open at once): memory per stream
// (nginx's RSS, the gateway's RSS above idle plus its live heap) and the added first-event p99 of a new stream over
// direct's, for nginx and the gateway.
//
//   node plot.mjs RESULTS_TXT OUT_SVG
//
// RESULTS_TXT holds run.sh's raw lines: "N PATH key=value ...". No dependencies.
import fs from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node plot.mjs RESULTS_TXT OUT_SVG');
  process.exit(2);
}

const rows = fs.readFileSync(input, 'utf8').trim().split('\n').map((line) => {
  const [n, path, ...pairs] = line.trim().split(/\s+/);
  const fields = Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  return { n: Number(n), path, fields };
});
const value = (n, path, f) => rows.find((r) => r.n === n && r.path === path)?.fields[f];
const ns = [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b);

const memory = (path) => ns.map((n) => {
  const rss = Number(value(n, path, 'rss_kib_per_stream'));
  const heap = Number(value(n, path, 'heap_kib_per_stream') ?? 0);
  return Number.isFinite(rss) ? rss + heap : null;
});
const addedP99 = (path) => ns.map((n) => {
  const p = Number(value(n, path, 'p99_ms'));
  const d = Number(value(n, 'direct', 'p99_ms'));
  return Number.isFinite(p) && Number.isFinite(d) ? p - d : null;
});

const colors = { nginx: '#1f77b4', gateway: '#d62728' };
const width = 940;
const height = 380;
const panel = { w: 380, h: 260, top: 60 };

function panelSvg(x0, title, unit, series) {
  const all = series.flatMap((s) => s.values).filter((v) => v !== null);
  const max = Math.max(1, ...all) * 1.15;
  const min = Math.min(0, ...all);
  const xs = (i) => x0 + 50 + (ns.length === 1 ? panel.w / 2 : (i * panel.w) / (ns.length - 1));
  const ys = (v) => panel.top + panel.h - ((v - min) / (max - min)) * panel.h;
  let svg = `<text x="${x0 + 50}" y="${panel.top - 16}" font-weight="bold">${title}</text>\n`;
  svg += `<line x1="${x0 + 50}" y1="${ys(min)}" x2="${x0 + 50 + panel.w}" y2="${ys(min)}" stroke="#888"/>\n`;
  svg += `<line x1="${x0 + 50}" y1="${panel.top}" x2="${x0 + 50}" y2="${panel.top + panel.h}" stroke="#888"/>\n`;
  for (let k = 0; k <= 4; k++) {
    const v = min + ((max - min) * k) / 4;
    svg += `<text x="${x0 + 44}" y="${ys(v) + 4}" text-anchor="end">${v.toFixed(v < 10 ? 1 : 0)}</text>\n`;
  }
  svg += `<text x="${x0 + 10}" y="${panel.top - 2}">${unit}</text>\n`;
  ns.forEach((n, i) => {
    svg += `<text x="${xs(i)}" y="${panel.top + panel.h + 16}" text-anchor="middle">${n.toLocaleString('en')}</text>\n`;
  });
  svg += `<text x="${x0 + 50 + panel.w / 2}" y="${panel.top + panel.h + 34}" text-anchor="middle">streams open (N)</text>\n`;
  for (const s of series) {
    const points = s.values.map((v, i) => (v === null ? null : `${xs(i)},${ys(v)}`)).filter(Boolean);
    svg += `<polyline fill="none" stroke="${colors[s.path]}" stroke-width="2.5" points="${points.join(' ')}"/>\n`;
    s.values.forEach((v, i) => {
      if (v !== null) svg += `<circle cx="${xs(i)}" cy="${ys(v)}" r="3.5" fill="${colors[s.path]}"/>\n`;
    });
  }
  return svg;
}

let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">\n`;
svg += `<rect width="${width}" height="${height}" fill="white"/>\n`;
Object.entries(colors).forEach(([path, color], i) => {
  svg += `<line x1="${60 + i * 120}" y1="16" x2="${84 + i * 120}" y2="16" stroke="${color}" stroke-width="3"/><text x="${90 + i * 120}" y="20">${path}</text>\n`;
});
svg += panelSvg(0, 'Memory per stream', 'KiB', ['nginx', 'gateway'].map((path) => ({ path, values: memory(path) })));
svg += panelSvg(470, 'Added first-event p99 over direct', 'ms', ['nginx', 'gateway'].map((path) => ({ path, values: addedP99(path) })));
svg += '</svg>\n';
fs.writeFileSync(output, svg);
