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
  return call('GET', query.size ? `${path}?${query}` : path);
}

// send makes a change through the node's API: a POST (or DELETE) of body as JSON. Only the
// actions call it, each after the person confirmed what it changes (confirm.js).
export async function send(method, path, body) {
  return call(method, path, body);
}

async function call(method, url, body) {
  const key = sessionStorage.getItem(KEY);
  const headers = key ? { Authorization: 'Bearer ' + key } : {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const resp = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'same-origin',
  });
  const text = await resp.text();
  let parsed = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON: /readyz, or a proxy's page */ }
  if (!resp.ok) {
    const why = parsed && parsed.message ? parsed.message : text.trim() || resp.statusText;
    const err = new Error(`${url.split('?')[0]}: ${resp.status} ${why}`);
    err.status = resp.status;
    throw err;
  }
  return parsed ?? text;
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
