// The explain box: what an ID is, as Explain answers it (GET /v1/explain), in the database
// the Counters page searches. An opaque ID reads back to its value for the admin role only;
// the node decides that from the tab's credential, and the box shows what it answered.
import { $, api, explain } from './api.js';

// The answer's fields, in the order shown, and their labels.
const FIELDS = [
  ['kind', 'Kind'], ['opaque', 'Opaque'], ['prefix', 'Prefix'], ['number', 'Number'],
  ['value', 'Value'], ['encoding', 'Read as'], ['layout', 'Layout'], ['time', 'Time'],
  ['worker', 'Worker'], ['sequence', 'Sequence'], ['nodeTag', 'Node tag'], ['guidVersion', 'UUID version'],
];

// show writes the answer into the box, always as text.
function show(answer) {
  const list = $('explain-result');
  list.replaceChildren();
  const row = (label, text) => {
    const div = document.createElement('div');
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = label;
    dd.textContent = text;
    div.append(dt, dd);
    list.append(div);
  };
  for (const [field, label] of FIELDS) {
    const v = answer[field];
    if (v === undefined || v === '' || v === 0 || v === '0' || v === false) continue;
    row(label, v === true ? 'yes' : String(v));
  }
  for (const note of answer.notes || []) row('Note', note);
}

async function ask(e) {
  e.preventDefault();
  const id = $('explain-id').value.trim();
  const database = $('counter-database').value.trim();
  $('explain-status').textContent = '';
  try {
    show(await api('/v1/explain', { id, database }));
  } catch (err) {
    $('explain-result').replaceChildren();
    $('explain-status').textContent = explain(err);
  }
}

export function start() {
  $('explain').addEventListener('submit', ask);
}
