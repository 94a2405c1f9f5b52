// The Cluster page's graphs of the last hour: what the node sampled (GET /v1/history), drawn
// as inline SVG by this script, with the leadership changes marked on each time axis. The
// node keeps the samples, so the graphs cover the time before this tab was opened.
import { $, api, bytes, explainRead, set } from './api.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const HEIGHT = 150;
const PAD = { left: 70, right: 12, top: 14, bottom: 24 };
// What each series shows, in words, as the node names them.
const TITLES = {
  ids: 'IDs handed out per second, by strategy',
  identity_latency: 'Identity latency, p50 and p99 (ms)',
  commit_rate: 'Commit index rate (entries per second)',
  disk_free: 'Free disk under the data dir',
  clock_offset: 'Clock offset from the leader, by node (ms)',
};
const MAX_REFRESH_MS = 10000;

function el(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

// format writes a value in its series' unit, short enough for an axis.
function format(v, unit) {
  if (unit === 'bytes') return bytes(v);
  return String(Number(v.toPrecision(3)));
}

const clock = (ms) => new Date(ms).toLocaleTimeString();

// plot draws one series on the times given, with the leadership changes in that span marked.
function plot(series, times, changes, intervalMs) {
  const figure = document.createElement('figure');
  figure.className = 'graph';
  figure.dataset.series = series.name;
  const caption = document.createElement('figcaption');
  caption.textContent = TITLES[series.name] || `${series.name} (${series.unit})`;
  const svg = el('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img' });
  figure.append(caption, svg);

  const values = series.lines.flatMap((l) => l.values.filter((v) => v !== null));
  const end = times.length ? times[times.length - 1] : Date.now();
  const start = times.length > 1 ? times[0] : end - intervalMs;
  const x = (t) => PAD.left + ((t - start) / (end - start)) * (WIDTH - PAD.left - PAD.right);
  const plotBottom = HEIGHT - PAD.bottom;
  svg.append(el('line', { class: 'axis', x1: PAD.left, x2: WIDTH - PAD.right, y1: plotBottom, y2: plotBottom }));
  svg.append(el('text', { class: 'tick', x: PAD.left, y: HEIGHT - 6 }, clock(start)));
  svg.append(el('text', { class: 'tick', x: WIDTH - PAD.right, y: HEIGHT - 6, 'text-anchor': 'end' }, clock(end)));

  if (values.length === 0) {
    figure.dataset.empty = 'true';
    svg.setAttribute('aria-label', `${caption.textContent}: no data`);
    svg.append(el('text', { class: 'nodata', x: WIDTH / 2, y: HEIGHT / 2, 'text-anchor': 'middle' }, 'no data'));
  } else {
    let lo = Math.min(0, ...values);
    let hi = Math.max(...values);
    if (series.unit === 'bytes') lo = Math.min(...values) * 0.98; // free space: its change shows
    if (hi <= lo) hi = lo + 1;
    const y = (v) => PAD.top + (1 - (v - lo) / (hi - lo)) * (plotBottom - PAD.top);
    svg.append(el('text', { class: 'tick', x: PAD.left - 4, y: PAD.top + 4, 'text-anchor': 'end' }, format(hi, series.unit)));
    svg.append(el('text', { class: 'tick', x: PAD.left - 4, y: plotBottom, 'text-anchor': 'end' }, format(lo, series.unit)));
    const legend = document.createElement('ul');
    legend.className = 'legend';
    const latest = [];
    series.lines.forEach((line, i) => {
      // A null sample breaks the line: a gap says "no value then", not zero.
      let d = '';
      let points = 0;
      let pen = 'M';
      line.values.forEach((v, j) => {
        if (v === null) { pen = 'M'; return; }
        d += `${pen}${x(times[j]).toFixed(1)} ${y(v).toFixed(1)} `;
        pen = 'L';
        points++;
      });
      const path = el('path', { class: `line k${i % 8}`, d: d.trim() || 'M0 0', 'data-line': line.name, 'data-points': points });
      svg.append(path);
      const last = line.values.findLast((v) => v !== null);
      const li = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = `swatch k${i % 8}`;
      li.append(swatch, `${line.name} ${last == null ? '–' : format(last, series.unit)}`);
      legend.append(li);
      if (last != null) latest.push(`${line.name} ${format(last, series.unit)}`);
    });
    figure.append(legend);
    svg.setAttribute('aria-label', `${caption.textContent}, ${clock(start)} to ${clock(end)}; latest: ${latest.join(', ')}`);
  }
  for (const c of changes) {
    const at = Number(c.atMs);
    if (at < start || at > end) continue;
    const cx = x(at).toFixed(1);
    const who = c.leader ? `leader ${c.leader}` : 'no leader';
    const mark = el('g', { class: 'leader-change', 'data-leader': c.leader || '', 'data-at': at });
    mark.append(el('title', {}, `${clock(at)}: ${who} (term ${c.term ?? 0})`),
      el('line', { x1: cx, x2: cx, y1: PAD.top - 4, y2: plotBottom }),
      el('text', { x: cx, y: PAD.top - 4, 'text-anchor': 'middle' }, c.leader || '–'));
    svg.append(mark);
  }
  return figure;
}

let refreshMs = 1000;

async function refresh() {
  try {
    const h = await api('/v1/history');
    const times = (h.times || []).map(Number);
    const intervalMs = Number(h.intervalMs) || 10000;
    refreshMs = Math.min(Math.max(intervalMs, 1000), MAX_REFRESH_MS);
    const span = Math.round((intervalMs * Number(h.capacity || 0)) / 60000);
    $('graph-span').textContent = `every ${intervalMs / 1000} s, the last ${span} minutes at most`;
    $('graph-list').replaceChildren(...(h.series || []).map((s) => plot(s, times, h.leaderChanges || [], intervalMs)));
    set('graph-status', '');
  } catch (err) {
    set('graph-status', explainRead(err), 'bad');
  }
}

export function start() {
  const loop = () => refresh().finally(() => setTimeout(loop, refreshMs));
  loop();
}
