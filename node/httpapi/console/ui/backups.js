// The Cluster page's Scheduled backups panel: what this node knows of the backups the
// cluster takes of itself (GET /v1/backups). The leader takes them and knows; a follower
// says so and where to look, with what it saw when it last led, if it has.
import { $, bytes, cell, fillRows, set } from './api.js';

// age writes a duration in milliseconds the way a person reads the age of a backup.
function age(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} days`;
}

function summary(b) {
  if (!b.scheduled) {
    return 'This node takes no scheduled backups: it was started without --backup-target (docs/scheduled-backups.md).';
  }
  const where = `The backups go to ${b.store}, one every ${age(b.intervalMs)}.`;
  let seen;
  if (b.leader) {
    seen = `This node leads and takes them: the store holds ${b.count}.`;
  } else if (b.checkedAtMs) {
    seen = `This node does not lead: the leader takes them, and its console shows them (or idctl backup list --target). `
      + `Below is what this node saw when it last led, at ${new Date(b.checkedAtMs).toLocaleString()}: ${b.count}.`;
  } else {
    seen = 'This node does not lead: the leader takes them, and its console shows them (or idctl backup list --target).';
  }
  const newest = b.newestAgeMs === undefined ? '' : ` The newest is ${age(b.newestAgeMs)} old.`;
  return `${where} ${seen}${newest}`;
}

export function show(b) {
  $('backups-summary').textContent = summary(b);
  const failures = b.lastFailure
    ? `${b.failures} since this node started; the last at ${new Date(b.lastFailure.atMs).toLocaleString()}: ${b.lastFailure.error}`
    : `${b.failures ?? 0} since this node started`;
  set('backups-failures', failures, b.failures > 0 ? 'bad' : '');
  fillRows('backups-list', b.backups ?? [], (row, k) => {
    row.dataset.name = k.name;
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = k.name;
    row.append(name);
    cell(row, new Date(k.storedAtMs).toLocaleString());
    cell(row, bytes(k.sizeBytes), 'num');
    cell(row, age(k.ageMs), 'num');
  });
}
