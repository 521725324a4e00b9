// Plots run.sh's "every row" table as one SVG: throughput and p99 against the Chat Completions body size, one pair
// of panels per connection count, for the routed gateway (keyed: a model two clusters serve), the gateway for a
// model one cluster serves (not keyed), the bare Helidon pass-through and nginx.
//
//   node plot.mjs RESULTS_MD OUT_SVG
//
// RESULTS_MD is the results file run.sh writes (--out). No dependencies.
import fs from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node plot.mjs RESULTS_MD OUT_SVG');
  process.exit(2);
}

// "| chat-32k-c16 | gateway | 5120 | ... | p50 | p99 | ..." rows of the every-row table (13 cells).
const rows = [];
for (const line of fs.readFileSync(input, 'utf8').split('\n')) {
  const cells = line.split('|').slice(1, -1).map((c) => c.trim());
  const load = /^chat-(\d+)k-c(\d+)$/.exec(cells[0] ?? '');
  if (cells.length !== 13 || !load) {
    continue;
  }
  rows.push({ kib: Number(load[1]), connections: Number(load[2]), path: cells[1],
    rps: Number(cells[2]), p99: Number(cells[6]) });
}
if (rows.length === 0) {
  console.error(`${input}: no chat rows of the every-row table`);
  process.exit(1);
}

const paths = [
  { path: 'keyed', label: 'gateway, routed (keyed)', color: '#d62728', dash: '' },
  { path: 'gateway', label: 'gateway, one cluster', color: '#ff9896', dash: '5,3' },
  { path: 'bare', label: 'bare Helidon', color: '#2ca02c', dash: '' },
  { path: 'nginx', label: 'nginx', color: '#1f77b4', dash: '' },
];
const sizes = [...new Set(rows.map((r) => r.kib))].sort((a, b) => a - b);
const counts = [...new Set(rows.map((r) => r.connections))].sort((a, b) => a - b);
const panel = { w: 330, h: 200 };
const width = 2 * (panel.w + 110) + 20;
const height = 60 + counts.length * (panel.h + 80);

function panelSvg(x0, y0, title, metric, connections) {
  const series = paths.map((p) => ({
    ...p,
    values: sizes.map((kib) => rows.find((r) => r.kib === kib && r.connections === connections && r.path === p.path)),
  }));
  const all = series.flatMap((s) => s.values.filter(Boolean).map((r) => r[metric])).filter(Number.isFinite);
  const max = Math.max(1, ...all) * 1.15;
  const xs = (i) => x0 + 60 + (sizes.length === 1 ? panel.w / 2 : (i * panel.w) / (sizes.length - 1));
  const ys = (v) => y0 + panel.h - (v / max) * panel.h;
  let svg = `<text x="${x0 + 60}" y="${y0 - 10}" font-weight="bold">${title}</text>\n`;
  svg += `<line x1="${x0 + 60}" y1="${ys(0)}" x2="${x0 + 60 + panel.w}" y2="${ys(0)}" stroke="#888"/>\n`;
  svg += `<line x1="${x0 + 60}" y1="${y0}" x2="${x0 + 60}" y2="${y0 + panel.h}" stroke="#888"/>\n`;
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    svg += `<text x="${x0 + 54}" y="${ys(v) + 4}" text-anchor="end">${v >= 100 ? v.toFixed(0) : v.toFixed(1)}</text>\n`;
  }
  sizes.forEach((kib, i) => {
    svg += `<text x="${xs(i)}" y="${y0 + panel.h + 16}" text-anchor="middle">${kib} KiB</text>\n`;
  });
  for (const s of series) {
    const points = s.values
      .map((r, i) => (r && Number.isFinite(r[metric]) ? `${xs(i).toFixed(1)},${ys(r[metric]).toFixed(1)}` : null))
      .filter(Boolean);
    if (points.length > 0) {
      svg += `<polyline points="${points.join(' ')}" fill="none" stroke="${s.color}" stroke-width="2"`
        + `${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>\n`;
      for (const p of points) {
        const [x, y] = p.split(',');
        svg += `<circle cx="${x}" cy="${y}" r="3" fill="${s.color}"/>\n`;
      }
    }
  }
  return svg;
}

let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" `
  + `viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">\n`;
svg += `<rect width="${width}" height="${height}" fill="white"/>\n`;
paths.forEach((p, i) => {
  const x = 60 + i * 190;
  svg += `<line x1="${x}" y1="16" x2="${x + 24}" y2="16" stroke="${p.color}" stroke-width="3"`
    + `${p.dash ? ` stroke-dasharray="${p.dash}"` : ''}/><text x="${x + 30}" y="20">${p.label}</text>\n`;
});
counts.forEach((connections, row) => {
  const y0 = 70 + row * (panel.h + 80);
  svg += panelSvg(0, y0, `Requests per second, ${connections} connections`, 'rps', connections);
  svg += panelSvg(panel.w + 110, y0, `p99 latency (ms), ${connections} connections`, 'p99', connections);
});
svg += '</svg>\n';
fs.writeFileSync(output, svg);
console.log(`${output}: ${rows.length} rows, body sizes ${sizes.join(', ')} KiB, connections ${counts.join(', ')}`);
