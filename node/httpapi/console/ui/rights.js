// What the caller may do, as the node judges its credential (GET /v1/whoami), and the page's
// actions shown or hidden to match. Hiding is a courtesy, not the guard: the node refuses any
// call the caller may not make, whatever the page shows.
import { $, api } from './api.js';

let caller = { admin: '', keysRequired: false, key: null };

// may reports whether the caller is an admin for actions of the kind need names: "admin" (the
// cluster's admin calls: databases, keys, leadership) or "database" (a database's contents:
// raising a counter, releasing a claim), which once the cluster has keys needs an admin key
// or a credential that passes the key check (a certificate or the token, not loopback).
export function may(need) {
  const strong = caller.admin === 'certificate' || caller.admin === 'token';
  switch (need) {
    case 'admin': return caller.admin !== '';
    case 'database': return strong || caller.key?.role === 'admin' || (caller.admin !== '' && !caller.keysRequired);
    default: return false;
  }
}

function describe() {
  const parts = [];
  if (caller.admin) parts.push(`admin (by ${caller.admin})`);
  if (caller.key) parts.push(`API key ${caller.key.id}: ${caller.key.role} of database ${caller.key.database}`);
  if (parts.length === 0) parts.push(caller.keysRequired ? 'no credential this cluster knows: reading needs an API key' : 'no credential: you may read and mint, not administer');
  return 'You are: ' + parts.join('; ') + '.';
}

function apply() {
  for (const el of document.querySelectorAll('[data-needs]')) el.hidden = !may(el.dataset.needs);
  $('caller').textContent = describe();
}

// ASK_AGAIN_MS is how long the page waits before it asks again who the caller is, when the
// question never reached the node or went unanswered (a dropped connection, a node
// restarting): nothing else asks again but a new credential, and the page would go on hiding
// every action. A refusal is the node's answer, and stands.
const ASK_AGAIN_MS = 2000;

let asking = 0; // the newest refresh; an older one stops asking

export async function refresh() {
  const mine = ++asking;
  for (;;) {
    try {
      const who = await api('/v1/whoami');
      if (mine !== asking) return;
      caller = { admin: who.admin || '', keysRequired: !!who.keysRequired, key: who.key || null };
      apply();
      return;
    } catch (err) {
      if (mine !== asking) return;
      caller = { admin: '', keysRequired: true, key: null };
      const again = err.status === undefined;
      $('caller').textContent = `Could not ask the node who you are: ${err.message}${again ? '; asking again.' : ''}`;
      for (const el of document.querySelectorAll('[data-needs]')) el.hidden = true;
      if (!again) return;
    }
    await new Promise((resolve) => setTimeout(resolve, ASK_AGAIN_MS));
    if (mine !== asking) return;
  }
}
