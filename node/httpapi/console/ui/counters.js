// The Counters page: identity counters a page at a time (ListIdentities, read on the leader),
// searched by name prefix, in any database the caller may read. The page in view is read
// again every few seconds, so a counter that moves shows its new value.
import { $, api, cell, explainRead, fillRows, Pages, readWhileShown, report, send } from './api.js';
import { act } from './confirm.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 2000;

const state = { database: '', prefix: '' };
let pages;

async function read() {
  try {
    const page = await api('/v1/identities', {
      database: state.database, prefix: state.prefix, page_size: PAGE_SIZE, page_token: pages.token,
    });
    fillRows('counter-table', page.identities || [], (row, c) => {
      row.dataset.name = c.name;
      cell(row, c.name);
      // An opaque collection's value is shown to the admin role only: 0 (an int64, so the
      // string "0") is "hidden", not 0.
      const value = String(c.value ?? 0);
      cell(row, c.opaque ? (value === '0' ? 'hidden (opaque)' : `${value} (opaque)`) : value, 'num');
    });
    pages.shown(page.nextPageToken);
    const where = state.database ? ` in database ${state.database}` : '';
    const which = state.prefix ? ` starting with "${state.prefix}"` : '';
    $('counter-caption').textContent = (page.identities || []).length === 0
      ? `No counters${which}${where}.`
      : `Counters${which}${where}${pages.token ? ' (a later page)' : ''}`;
    report('counters', []);
  } catch (err) {
    report('counters', [explainRead(err)]);
  }
}

const { load, show } = readWhileShown(read, REFRESH_MS);
export { show };

// raise seeds a counter upwards (never force: lowering a counter can repeat IDs, and stays an
// operator's deliberate idctl call).
async function raise(e) {
  e.preventDefault();
  const database = $('counter-database').value.trim();
  const name = $('seed-name').value.trim();
  const value = $('seed-value').value.trim();
  const where = database || 'default';
  const done = await act('seed-status', `Raise counter ${name}?`, [
    `Counter ${name} in database ${where} is raised to ${value}, so the next identity is ${name}/${BigInt(value) + 1n} or later.`,
    'A counter already past it stays where it is: nothing is lowered.',
  ], `Raise ${name}`, () => send('POST', `/v1/identities/${encodeURIComponent(name)}:seed`, { value, database }));
  if (done) load();
}

export function start() {
  $('seed').addEventListener('submit', raise);
  $('counter-search').addEventListener('submit', (e) => {
    e.preventDefault();
    state.database = $('counter-database').value.trim();
    state.prefix = $('counter-prefix').value.trim();
    pages.token = '';
    load();
  });
  pages = new Pages('counter', load);
  $('counter-refresh').addEventListener('click', () => load());
}
