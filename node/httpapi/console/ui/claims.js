// The Claims page: claimed semantic IDs and their owners (GetClaims: a page by prefix, or
// exact IDs), and for an admin of the database a Release of one claim, confirmed first and
// sent with its owner, so a claim someone else took meanwhile is not released by mistake.
import { $, api, cell, explain, fillRows, Pages, report, send } from './api.js';
import { act } from './confirm.js';
import { may } from './rights.js';

const PAGE_SIZE = 50;
const state = { database: '', prefix: '', ids: [] };
let pages;

async function load() {
  try {
    const page = await api('/v1/claims', {
      database: state.database, prefix: state.prefix, ids: state.ids,
      page_size: state.ids.length ? undefined : PAGE_SIZE, page_token: pages.token,
    });
    const claims = page.claims || [];
    fillRows('claim-table', claims, (row, c, i) => {
      row.dataset.id = c.id;
      cell(row, c.id);
      cell(row, c.owner || '(none)');
      const release = document.createElement('button');
      release.type = 'button';
      release.id = `claim-release-${i}`;
      release.dataset.action = '';
      release.dataset.needs = 'database';
      release.hidden = !may('database');
      release.textContent = 'Release…';
      release.setAttribute('aria-label', `Release ${c.id}`);
      release.addEventListener('click', () => releaseClaim(c));
      row.insertCell().append(release);
    });
    pages.shown(page.nextPageToken);
    const where = ` in database ${state.database || 'default'}`;
    $('claim-caption').textContent = claims.length ? `Claims${where}` : `No claims${state.prefix || state.ids.length ? ' found' : ''}${where}.`;
    report('claims', []);
  } catch (err) {
    report('claims', [explain(err)]);
  }
}

async function releaseClaim(c) {
  const database = state.database || 'default';
  const done = await act('claim-status', `Release ${c.id}?`, [
    `The claim on ${c.id} in database ${database}, held by ${c.owner || 'no named owner'}, is released.`,
    'The ID becomes free: anyone may claim it again, and a document may then carry it twice.',
  ], `Release ${c.id}`, () => send('POST', '/v1/claims:release', { ids: [c.id], owner: c.owner, database: state.database }));
  if (done) load();
}

export function show(visible) {
  if (visible) load();
}

export function start() {
  $('claim-search').addEventListener('submit', (e) => {
    e.preventDefault();
    state.database = $('claim-database').value.trim();
    state.prefix = $('claim-prefix').value.trim();
    state.ids = $('claim-ids').value.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
    pages.token = '';
    load();
  });
  pages = new Pages('claim', load);
}
