// The Cluster page's Headroom panel: how far the node that answered is from each limit that
// would make it refuse (Status's headroom, the figures of its headroom gauges). A figure past
// its threshold is marked in words as well as in colour. The thresholds are the alert rules'
// and come with the figures (headroom.thresholds): the page keeps no copy of the numbers, so
// it and an alert never disagree on what needs an operator.
import { $, bytes, fillRows } from './api.js';

const INT64_MAX = 9223372036854775807n;
const DAY_MS = 86400000;

// figure writes text into el and, when past, marks it: a class for the colour and a word
// for whoever cannot see colour ("past the alert's threshold", with the threshold itself).
function figure(el, text, past, threshold) {
  el.replaceChildren(text);
  el.classList.toggle('past', past);
  el.dataset.past = String(past);
  if (past) {
    const flag = document.createElement('strong');
    flag.className = 'flag';
    flag.textContent = `alert: ${threshold}`;
    el.append(' ', flag);
  }
}

function cellOf(row, text, past = false, threshold = '', tone = 'num') {
  const td = row.insertCell();
  td.className = tone;
  figure(td, text, past, threshold);
  return td;
}

const percent = (ratio) => `${Number((ratio * 100).toPrecision(3))} %`;
const grouped = (n) => BigInt(n).toLocaleString('en');

// days writes a count of days the way a person plans with it.
function days(d) {
  if (d >= 365) return `${(d / 365.25).toFixed(1)} years`;
  return d >= 2 ? `${d.toFixed(1)} days` : `${(d * 24).toFixed(1)} hours`;
}

// nearest is the database's counter nearest the int64 limit: its identity counter or HiLo
// tag with the fewest values left.
function nearest(d) {
  const identity = { kind: 'identity', name: d.largestIdentity, left: BigInt(d.identityValuesLeft ?? INT64_MAX) };
  const hilo = { kind: 'HiLo', name: d.largestHiloTag, left: BigInt(d.hiloValuesLeft ?? INT64_MAX) };
  return hilo.name && hilo.left < identity.left ? hilo : identity;
}

// MAX_ROWS bounds the table, refreshed every second, whatever the number of databases: those
// nearest a limit come first, and the caption says how many are left out.
const MAX_ROWS = 50;

// tightest is the least fraction left of a database's counters and worker IDs: how near it
// is to a limit, for the order of the rows.
function tightest(d) {
  const bits = Number(d.workerBits ?? 0);
  const workers = bits ? (Number(d.workersFree ?? 0) + Number(d.workersNeverUsed ?? 0)) / 2 ** bits : 1;
  return Math.min(workers, Number(nearest(d).left) / Number(INT64_MAX));
}

function showDatabases(all, th) {
  const databases = all.map((d) => ({ d, t: tightest(d) }))
    .sort((a, b) => a.t - b.t || a.d.database.localeCompare(b.d.database))
    .slice(0, MAX_ROWS).map((x) => x.d);
  $('headroom-more').textContent = all.length > databases.length
    ? `; the ${databases.length} nearest a limit of ${all.length}` : '';
  fillRows('headroom-databases', databases, (row, d) => {
    row.dataset.database = d.database;
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = d.database;
    row.append(name);
    const bits = Number(d.workerBits ?? 0);
    if (bits === 0) {
      const none = cellOf(row, 'no worker leased yet', false, '', 'workers');
      none.colSpan = 4;
    } else {
      const available = Number(d.workersFree ?? 0) + Number(d.workersNeverUsed ?? 0);
      const ratio = available / 2 ** bits;
      cellOf(row, String(d.workersLeased ?? 0), false, '', 'num leased');
      cellOf(row, String(d.workersFree ?? 0));
      cellOf(row, String(d.workersNeverUsed ?? 0));
      cellOf(row, `${percent(ratio)} of ${2 ** bits}`, ratio < th.workersAvailableRatio,
        `under ${percent(th.workersAvailableRatio)}`, 'num available');
    }
    const c = nearest(d);
    const ratio = Number(c.left) / Number(INT64_MAX);
    const counter = cellOf(row, c.name ? `${c.kind} ${c.name}: ${percent(ratio)} left (${grouped(c.left)} values)` : 'none used',
      ratio < th.counterHeadroomRatio, `under ${percent(th.counterHeadroomRatio)} left`, 'counter');
    counter.dataset.counter = c.name || '';
    cellOf(row, String(d.sequenceSaturations ?? 0));
    cellOf(row, String(d.hiloAbandoned ?? 0), false, '', 'num abandoned');
  });
}

// showNode writes the node's own figures: numeric time left, disk, certificates, clock.
function showNode(h, th, self) {
  const years = h.numericYearsLeft || {};
  for (const layout of ['default', 'js-safe']) {
    const y = Number(years[layout]);
    figure($(`headroom-time-${layout}`), Number.isFinite(y) ? `${y.toFixed(1)} years` : '?',
      y < th.numericYearsLeft, `under ${th.numericYearsLeft} years`);
  }
  const free = Number(h.diskFreeBytes ?? 0);
  figure($('headroom-disk-free'), free > 0 ? bytes(free) : 'unknown', false);
  const full = Number(h.diskFullInDays); // "Infinity" while the disk is not filling
  figure($('headroom-disk-full'), Number.isFinite(full) ? `in ${days(full)}` : 'not filling',
    full < th.diskFullInDays, `under ${th.diskFullInDays} days`);
  const certs = h.certificates || [];
  if (certs.length === 0) {
    figure($('headroom-certs'), 'no TLS', false);
  } else {
    const list = document.createElement('ul');
    list.className = 'certs';
    for (const c of certs) {
      const li = document.createElement('li');
      li.dataset.kind = c.kind;
      const left = (Number(c.notAfterMs) - Date.now()) / DAY_MS;
      figure(li, `${c.kind}: ${left < 0 ? 'expired' : `in ${days(left)}`}`, left < th.certificateDaysLeft,
        `under ${th.certificateDaysLeft} days`);
      li.title = c.subject || '';
      list.append(li);
    }
    const el = $('headroom-certs');
    el.replaceChildren(list);
    el.dataset.past = String(certs.some((c) => (Number(c.notAfterMs) - Date.now()) / DAY_MS < th.certificateDaysLeft));
  }
  const me = self || {};
  const offset = Number(me.clockOffsetSeconds ?? 0);
  figure($('headroom-clock'), me.clockOffsetMeasured ? `${offset >= 0 ? '+' : '−'}${Math.abs(offset).toFixed(3)} s` : 'not measured yet',
    Boolean(me.clockOffsetMeasured) && Math.abs(offset) > th.clockOffsetSeconds, `over ${th.clockOffsetSeconds} s either way`);
}

// show writes the headroom of a Status answer st.
export function show(st) {
  const h = st.headroom;
  $('headroom').hidden = !h;
  if (!h) return; // a node from before headroom
  const th = h.thresholds || {};
  showNode(h, th, (st.nodes || []).find((n) => n.tag === st.self));
  showDatabases(h.databases || [], th);
}
