// The Cluster page: this node's view of the cluster, refreshed every second whether shown or
// not, so the leadership changes it lists are complete for the time the tab is open.
import { $, api, cell, explain, report, send, set } from './api.js';
import { act } from './confirm.js';

const REFRESH_MS = 1000;
const HOUR_MS = 60 * 60 * 1000;
const CHANGES = 'idnode.console.leaderChanges';

function recordLeader(leader) {
  const now = Date.now();
  let seen = [];
  try { seen = JSON.parse(sessionStorage.getItem(CHANGES) || '[]'); } catch { seen = []; }
  seen = seen.filter((c) => now - c.at < HOUR_MS);
  if (seen.length === 0 || seen[seen.length - 1].leader !== leader) {
    seen.push({ at: now, leader });
  }
  sessionStorage.setItem(CHANGES, JSON.stringify(seen));
  $('changes').replaceChildren(...seen.map((c) => {
    const li = document.createElement('li');
    const t = document.createElement('time');
    t.dateTime = new Date(c.at).toISOString();
    t.textContent = new Date(c.at).toLocaleTimeString();
    li.append(t, ' ', c.leader ? `leader ${c.leader}` : 'no leader');
    return li;
  }));
}

function showStatus(st) {
  set('self', st.self || '?');
  const leader = st.leader || '';
  set('leader', leader || 'none (election)', leader ? 'good' : 'bad');
  $('leader').dataset.leader = leader;
  set('term', String(st.term ?? 0));
  set('commit', String(st.commitIndex ?? 0));
  const lag = BigInt(st.commitIndex ?? 0) - BigInt(st.appliedIndex ?? 0);
  set('applied', `${st.appliedIndex ?? 0} (${lag} behind)`, lag > 16n ? 'bad' : undefined);
  set('storage', st.storageFault || 'ok', st.storageFault ? 'bad' : 'good');
  const body = $('nodes').tBodies[0];
  body.replaceChildren();
  for (const n of st.nodes || []) {
    const row = body.insertRow();
    row.dataset.tag = n.tag;
    cell(row, n.tag + (n.tag === st.self ? ' (this node)' : ''));
    cell(row, n.state + (n.joinUnfinished ? ', join unfinished' : ''), n.state === 'leader' ? 'good' : undefined);
    cell(row, n.voter ? 'yes' : 'no');
    cell(row, n.reachable ? 'yes' : 'no', n.reachable ? 'good' : 'bad');
    cell(row, n.raftAddress || '');
    cell(row, n.grpcAddress || '');
    cell(row, n.version || '');
  }
  recordLeader(leader);
  offerTransfer(st);
}

let current = null; // the last status shown
let offered = '';    // the followers the transfer form offers, as a key

// offerTransfer keeps the transfer form's choice of nodes to the voting followers there are
// now, rebuilding it only when they change so a choice being made is left alone.
function offerTransfer(st) {
  current = st;
  const tags = (st.nodes || []).filter((n) => n.tag !== st.leader && n.voter).map((n) => n.tag);
  if (tags.join(',') === offered) return;
  offered = tags.join(',');
  const select = $('transfer-to');
  const chosen = select.value;
  select.replaceChildren(new Option('any follower (Raft picks)', ''), ...tags.map((t) => new Option(`node ${t}`, t)));
  select.value = tags.includes(chosen) ? chosen : '';
}

async function transfer(e) {
  e.preventDefault();
  const to = $('transfer-to').value;
  const from = current?.leader || 'the current leader';
  const done = await act('transfer-status', 'Transfer leadership?', [
    `Node ${from} stops leading; ${to ? `node ${to}` : 'a follower Raft picks'} takes over.`,
    'Identity, HiLo and series calls pause for the election (about a second) and are retried by clients.',
  ], 'Transfer leadership', () => send('POST', '/v1/leader:transfer', { tag: to }));
  if (done) refresh();
}

export async function refresh() {
  const problems = [];
  try {
    showStatus(await api('/v1/status'));
  } catch (err) {
    problems.push(explain(err));
  }
  try {
    await api('/readyz');
    set('ready', 'yes', 'good');
  } catch (err) {
    set('ready', err.status === 503 ? 'no' : 'unknown', 'bad');
    if (err.status !== 503) problems.push(explain(err));
  }
  report('cluster', problems);
  const now = new Date();
  $('updated').dateTime = now.toISOString();
  $('updated').textContent = now.toLocaleTimeString();
}

export function start() {
  $('transfer').addEventListener('submit', transfer);
  const loop = () => refresh().finally(() => setTimeout(loop, REFRESH_MS));
  loop();
}
