// The Cluster page's replica check (docs/replica-checks.md): the leader's last comparison of
// the members' state digests, and the members the cluster fenced for a digest that differed.
// Only the leader's Status carries the check; every node's carries the fences.
import { set } from './api.js';

function fenced(st) {
  return (st.nodes || []).filter((n) => BigInt(n.divergedAtIndex ?? 0) > 0n);
}

// verdicts maps each member's tag to what the members table says of its state digest.
export function verdicts(st) {
  const out = new Map();
  for (const m of st.replicaCheck?.members || []) {
    out.set(m.tag, m.verdict + (m.detail ? ` (${m.detail})` : ''));
  }
  for (const n of fenced(st)) out.set(n.tag, `fenced at index ${n.divergedAtIndex}`);
  return out;
}

// show sums the check up in the #replicas fact: bad when a member differs or is fenced.
export function show(st) {
  const check = st.replicaCheck;
  const fences = fenced(st).map((n) => n.tag);
  const fenceText = fences.length ? `; fenced: ${fences.join(', ')}` : '';
  if (!check) {
    const none = st.leader === st.self ? 'no check yet' : 'the leader\'s console shows the last check';
    set('replicas', none + fenceText, fences.length ? 'bad' : undefined);
    return;
  }
  const members = check.members || [];
  const differ = members.filter((m) => m.verdict === 'differs').map((m) => m.tag);
  const agree = members.filter((m) => m.verdict === 'agrees').length;
  const silent = members.length - agree - differ.length;
  let text = `at index ${check.index ?? 0}, ${new Date(Number(check.atMs ?? 0)).toLocaleTimeString()}: ${agree} agree`;
  if (differ.length) text += `, ${differ.join(', ')} ${differ.length === 1 ? 'differs' : 'differ'}`;
  if (silent) text += `, ${silent} not reporting`;
  set('replicas', text + fenceText, differ.length || fences.length ? 'bad' : 'good');
}
