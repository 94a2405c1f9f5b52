// The Databases page: every database with its counts and limits (ListDatabases), the API keys
// by id and role (ListKeys, an admin call: never a secret), and, for admins, creating either.
import { $, api, cell, explain, fillRows, report, send } from './api.js';
import { act } from './confirm.js';
import { may } from './rights.js';

const state = { visible: false };

function limit(v) {
  return v && Number(v) !== 0 ? String(v) : 'none';
}

async function load() {
  const problems = [];
  try {
    const { databases = [] } = await api('/v1/databases');
    fillRows('database-table', databases, (row, d) => {
      row.dataset.name = d.name;
      cell(row, d.name);
      cell(row, String(d.identities ?? 0), 'num');
      cell(row, String(d.hiloTags ?? 0), 'num');
      cell(row, `${d.claims ?? 0} of ${d.maxClaims ?? 0}`, 'num');
      cell(row, limit(d.maxIdentities), 'num');
      cell(row, limit(d.maxCallsPerSecond), 'num');
    });
  } catch (err) {
    problems.push(explain(err));
  }
  let keys = [];
  if (may('admin')) {
    try {
      ({ keys = [] } = await api('/v1/keys'));
      $('key-caption').textContent = keys.length ? 'API keys (ids and roles; the cluster keeps no secret)' : 'No API keys: every call is taken without one.';
    } catch (err) {
      problems.push(explain(err));
    }
  } else {
    $('key-caption').textContent = 'API keys: only an admin may list them.';
  }
  fillRows('key-table', keys, (row, k) => {
    cell(row, k.id);
    cell(row, k.database);
    cell(row, k.role);
  });
  report('databases', problems);
}

async function createDatabase(e) {
  e.preventDefault();
  const name = $('db-name').value.trim();
  const req = {
    name,
    maxIdentities: $('db-max-identities').value || '0',
    maxCallsPerSecond: Number($('db-max-calls').value || 0),
    maxClaims: $('db-max-claims').value || '0',
  };
  const done = await act('db-status', `Create database ${name}?`, [
    `A database ${name} is created, with its own identities, HiLo tags, claims and series.`,
    `Limits, fixed for its life: identities ${limit(req.maxIdentities)}, calls per second on each node ${limit(req.maxCallsPerSecond)}, claims ${req.maxClaims === '0' ? 'the default' : req.maxClaims}.`,
  ], `Create ${name}`, () => send('POST', '/v1/databases', req));
  if (done) load();
}

async function createKey(e) {
  e.preventDefault();
  const database = $('key-database').value.trim() || 'default';
  const role = $('key-role').value;
  $('new-key').hidden = true;
  const made = await act('key-status', `Create a ${role} key for ${database}?`, [
    `A new API key may make ${role} calls in database ${database}.`,
    'From then on this cluster has API keys: every ID call needs one (or admin).',
    'The key is shown once, here; the cluster keeps only its hash.',
  ], 'Create key', () => send('POST', '/v1/keys', { database, role }));
  if (made && made.key) {
    $('new-key-value').textContent = made.key;
    $('new-key').hidden = false;
    load();
  }
}

export function show(visible) {
  state.visible = visible;
  if (visible) load();
}

// rightsKnown reads the page again once the node has said who the caller is: only an admin's
// reading lists the keys.
export function rightsKnown() {
  if (state.visible) load();
}

export function start() {
  $('db-create').addEventListener('submit', createDatabase);
  $('key-create').addEventListener('submit', createKey);
  $('database-refresh').addEventListener('click', () => load());
}
