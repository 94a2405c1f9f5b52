// The Cluster page: this node's view of the cluster, refreshed every second: members with
// their indexes and lag, the leadership changes the node saw in the last hour, the rates at
// which it hands out IDs, its headroom (headroom.js) and the replica check (replicas.js), all
// from one Status answer.
import { $, api, cell, explainRead, fillRows, report, send, set } from './api.js';
import { act } from './confirm.js';
import * as backups from './backups.js';
import * as headroom from './headroom.js';
import * as replicas from './replicas.js';

const REFRESH_MS = 1000;
// The strategies whose rates the page shows, in this order, as Status's issued names them.
const STRATEGIES = ['identity', 'hilo', 'server-side', 'series', 'numeric', 'semantic', 'guid'];
let lastIssued = null; // { at, issued } of the previous refresh

// showChanges lists the leadership changes the node saw in the last hour (Status keeps them,
// so the list covers the time before this tab was opened).
function showChanges(changes) {
  $('changes').replaceChildren(...changes.map((c) => {
    const li = document.createElement('li');
    const at = new Date(Number(c.atMs));
    const t = document.createElement('time');
    t.dateTime = at.toISOString();
    t.textContent = at.toLocaleTimeString();
    li.append(t, ' ', c.leader ? `leader ${c.leader}` : 'no leader', ` (term ${c.term ?? 0})`);
    return li;
  }));
}

// showRates turns two answers' counts of IDs handed out into per-second rates.
function showRates(issued) {
  const now = performance.now();
  fillRows('rates', STRATEGIES, (row, name) => {
    const count = BigInt(issued[name] ?? 0);
    row.dataset.strategy = name;
    cell(row, name);
    let rate = '…';
    if (lastIssued) {
      const seconds = (now - lastIssued.at) / 1000;
      const delta = count - BigInt(lastIssued.issued[name] ?? 0);
      rate = seconds > 0 ? (Number(delta) / seconds).toFixed(0) : '…';
    }
    cell(row, rate, 'num');
    cell(row, String(count), 'num');
  });
  lastIssued = { at: now, issued };
}

// showVersion shows the finalised cluster version, and whether an upgrade awaits finalisation
// (idctl cluster version finalise) or a member runs an older build.
function showVersion(cv) {
  const finalised = cv.finalised ?? 1;
  const effective = cv.effective ?? finalised;
  const older = (cv.members || []).filter((m) => (m.version ?? 1) < finalised).map((m) => m.tag);
  if (older.length > 0) {
    set('cluster-version', `${finalised}; older builds on ${older.join(', ')}`, 'bad');
  } else if (effective > finalised) {
    set('cluster-version', `${finalised}; every member supports ${effective}: finalise it (idctl cluster version finalise)`);
  } else {
    set('cluster-version', String(finalised), 'good');
  }
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
  showVersion(st.clusterVersion || {});
  replicas.show(st);
  const digests = replicas.verdicts(st);
  const commit = BigInt(st.commitIndex ?? 0);
  fillRows('nodes', st.nodes || [], (row, n) => {
    row.dataset.tag = n.tag;
    cell(row, n.tag + (n.tag === st.self ? ' (this node)' : ''));
    cell(row, n.state + (n.joinUnfinished ? ', join unfinished' : ''), n.state === 'leader' ? 'good' : undefined);
    cell(row, n.voter ? 'yes' : 'no');
    cell(row, n.reachable ? 'yes' : 'no', n.reachable ? 'good' : 'bad');
    if (n.reachable) {
      const behind = commit - BigInt(n.appliedIndex ?? 0);
      cell(row, String(n.appliedIndex ?? 0), 'num');
      cell(row, behind > 0n ? String(behind) : '0', behind > 16n ? 'num bad' : 'num');
    } else {
      cell(row, '?', 'num');
      cell(row, '?', 'num');
    }
    cell(row, n.storageFault || (n.reachable ? 'ok' : '?'), n.storageFault ? 'bad' : undefined);
    const digest = digests.get(n.tag) || '';
    cell(row, digest, digest.startsWith('differs') || digest.startsWith('fenced') ? 'bad' : undefined);
    cell(row, n.raftAddress || '');
    cell(row, n.grpcAddress || '');
    cell(row, n.version || '');
  });
  showChanges(st.leaderChanges || []);
  showRates(st.issued || {});
  headroom.show(st);
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
    problems.push(explainRead(err));
  }
  try {
    backups.show(await api('/v1/backups'));
  } catch (err) {
    problems.push(explainRead(err));
  }
  try {
    await api('/readyz');
    set('ready', 'yes', 'good');
  } catch (err) {
    set('ready', err.status === 503 ? 'no' : 'unknown', 'bad');
    if (err.status !== 503) problems.push(explainRead(err));
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
