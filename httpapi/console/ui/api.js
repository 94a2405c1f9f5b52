// The console's one way to reach the node: its public HTTP/JSON API, with the caller's own
// credential. Helpers that write what the node said into the page, always as text.

const KEY = 'idnode.console.key';

export const $ = (id) => document.getElementById(id);

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY, key); else sessionStorage.removeItem(KEY);
}

// api GETs a path of the node's API and returns its JSON, or throws the node's own message
// (err.status is the HTTP status).
export async function api(path, params = {}) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '' && v != null));
  const url = query.size ? `${path}?${query}` : path;
  const key = sessionStorage.getItem(KEY);
  const resp = await fetch(url, {
    headers: key ? { Authorization: 'Bearer ' + key } : {},
    cache: 'no-store',
    credentials: 'same-origin',
  });
  const text = await resp.text();
  let body = null;
  try { body = JSON.parse(text); } catch { /* not JSON: /readyz, or a proxy's page */ }
  if (!resp.ok) {
    const why = body && body.message ? body.message : text.trim() || resp.statusText;
    const err = new Error(`${path}: ${resp.status} ${why}`);
    err.status = resp.status;
    throw err;
  }
  return body ?? text;
}

// explain turns an API error into what the reader should do about it.
export function explain(err) {
  if (err.status === 401 || err.status === 403) {
    return `${err.message}. Enter a key that may read this.`;
  }
  return err.message;
}

export function set(id, text, tone) {
  const el = $(id);
  el.textContent = text;
  el.classList.toggle('bad', tone === 'bad');
  el.classList.toggle('good', tone === 'good');
}

export function cell(row, text, tone) {
  const td = row.insertCell();
  td.textContent = text;
  if (tone) td.className = tone;
  return td;
}

// Problems are reported per page; the alert shows those of the page in view.
const problems = new Map();
let shown = '';

export function report(page, list) {
  problems.set(page, list);
  render();
}

export function showProblemsOf(page) {
  shown = page;
  render();
}

function render() {
  const list = problems.get(shown) || [];
  const p = $('problem');
  p.hidden = list.length === 0;
  p.textContent = list.join(' ');
}
