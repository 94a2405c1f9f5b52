// The HiLo page: a database's HiLo tags a page at a time (ListHiLo), each with its Max, the
// floor a seed raised it to, and every node's pool of it: what the cluster reserved to the
// pool, what it holds now, the size it is kept at, and when it was last topped up. A pool
// under a quarter of its size is running dry: a node cut off from the majority can grant
// only what its pool holds.
import { $, api, cell, explainRead, fillRows, Pages, readWhileShown, report } from './api.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 2000;
const state = { database: '', prefix: '' };
let pages;

function pools(tag) {
  const list = document.createElement('ul');
  list.className = 'pools';
  for (const p of tag.pools || []) {
    const li = document.createElement('li');
    li.dataset.node = p.node;
    if (!p.answered) {
      li.textContent = `node ${p.node}: ${p.reserved ?? 0} reserved; did not answer`;
      li.className = 'bad';
    } else {
      const remaining = Number(p.remaining ?? 0);
      const target = Number(p.target ?? 0);
      const dry = target > 0 && remaining < target / 4;
      const when = p.toppedUpMs && Number(p.toppedUpMs) ? new Date(Number(p.toppedUpMs)).toLocaleTimeString() : 'not since it started';
      li.textContent = `node ${p.node}: ${remaining} left` + (target ? ` of ${target}` : '') +
        `, ${p.reserved ?? 0} reserved in all, topped up ${when}` + (dry ? ' (running dry)' : '');
      if (dry) li.className = 'bad';
    }
    list.append(li);
  }
  if (!list.children.length) list.textContent = 'no pool: granted through Raft only';
  return list;
}

async function read() {
  try {
    const page = await api('/v1/hilo', {
      database: state.database, prefix: state.prefix, page_size: PAGE_SIZE, page_token: pages.token,
    });
    const tags = page.tags || [];
    fillRows('hilo-table', tags, (row, t) => {
      row.dataset.tag = t.tag;
      cell(row, t.tag);
      cell(row, String(t.max ?? 0), 'num');
      cell(row, t.floor && Number(t.floor) ? String(t.floor) : 'none', 'num');
      row.insertCell().append(pools(t));
    });
    pages.shown(page.nextPageToken);
    const where = ` in database ${state.database || 'default'}`;
    $('hilo-caption').textContent = tags.length ? `HiLo tags${where}` : `No HiLo tags${where}.`;
    report('hilo', []);
  } catch (err) {
    report('hilo', [explainRead(err)]);
  }
}

const { load, show } = readWhileShown(read, REFRESH_MS);
export { show };

export function start() {
  $('hilo-search').addEventListener('submit', (e) => {
    e.preventDefault();
    state.database = $('hilo-database').value.trim();
    state.prefix = $('hilo-prefix').value.trim();
    pages.token = '';
    load();
  });
  pages = new Pages('hilo', load);
}
