// The console's one way to reach the node: its public HTTP/JSON API, with the caller's own
// credential. Helpers that write what the node said into the page, always as text.

const KEY = 'idnode.console.key';

// CALL_TIMEOUT_MS bounds every call the console makes. A page reads itself again only once its
// last read ended, and a dashboard is left open for days: one call that never answers (a node
// stopped or swamped, a proxy holding the connection open) would freeze its page for good,
// saying nothing. The node bounds its own work (a call forwarded to the leader gives up within
// seconds), so an answer that has not come within 15 s is most likely not coming: the page
// says so, and a page that reads itself again asks again.
export const CALL_TIMEOUT_MS = 15000;

export const $ = (id) => document.getElementById(id);

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY, key); else sessionStorage.removeItem(KEY);
}

// api GETs a path of the node's API and returns its JSON, or throws the node's own message
// (err.status is the HTTP status).
export async function api(path, params = {}) {
  const text = await call('GET', withQuery(path, params));
  try { return JSON.parse(text); } catch { return text; } // not JSON: /readyz
}

// send makes a change through the node's API: a POST (or DELETE) of body as JSON. Only the
// actions call it, each after the person confirmed what it changes (confirm.js).
export async function send(method, path, body) {
  return JSON.parse(await call(method, path, body));
}

// call makes one call and reads its whole answer, both within CALL_TIMEOUT_MS.
function call(method, url, body) {
  const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
  return bounded(url, 'did not answer within', async () => (await request(method, url, body, signal)).text());
}

// stream GETs a server-streaming call (the gateway answers one JSON object per line,
// {"result": …} or {"error": …}) and hands each result to onItem as it arrives, so a long
// journal is never held whole as text. A long journal may take longer than CALL_TIMEOUT_MS in
// all, so the bound is on silence instead: the wait for the answer to begin, and for each
// next part of it.
export async function stream(path, params, onItem) {
  const url = withQuery(path, params);
  const silence = new AbortController();
  let timer = 0;
  const heard = () => {
    clearTimeout(timer);
    timer = setTimeout(() => silence.abort(new DOMException('silent', 'TimeoutError')), CALL_TIMEOUT_MS);
  };
  const take = (line) => {
    if (line.trim() === '') return;
    const msg = JSON.parse(line);
    if (msg.error) throw new Error(`${path}: ${msg.error.message || JSON.stringify(msg.error)}`);
    onItem(msg.result);
  };
  heard();
  try {
    await bounded(url, 'sent nothing for', async () => {
      const resp = await request('GET', url, undefined, silence.signal);
      const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = '';
      for (;;) {
        heard();
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
        const lines = buffered.split('\n');
        buffered = lines.pop();
        lines.forEach(take);
      }
      take(buffered);
    });
  } finally {
    clearTimeout(timer);
    silence.abort(); // a stream left early (an error in it) lets its connection go
  }
}

// bounded runs a call of url, and turns its bound's end into the reader's words: the path, what
// it failed to do ("did not answer within", "sent nothing for") and CALL_TIMEOUT_MS in seconds.
// err.timedOut marks it.
async function bounded(url, failed, run) {
  try {
    return await run();
  } catch (err) {
    if (err?.name !== 'TimeoutError') throw err;
    const late = new Error(`${url.split('?')[0]} ${failed} ${CALL_TIMEOUT_MS / 1000} s`);
    late.timedOut = true;
    throw late;
  }
}

// withQuery adds params to path, leaving out empty ones; an array is a repeated parameter.
function withQuery(path, params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one !== '' && one != null) query.append(k, one);
    }
  }
  return query.size ? `${path}?${query}` : path;
}

// request calls the node with the tab's credential, until signal (its bound) ends it; a refusal
// throws the node's own message.
async function request(method, url, body, signal) {
  const key = sessionStorage.getItem(KEY);
  const headers = key ? { Authorization: 'Bearer ' + key } : {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const resp = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'same-origin',
    signal,
  });
  if (resp.ok) return resp;
  const text = await resp.text();
  let why = text.trim() || resp.statusText;
  try { why = JSON.parse(text).message || why; } catch { /* not JSON: a proxy's page */ }
  const err = new Error(`${url.split('?')[0]}: ${resp.status} ${why}`);
  err.status = resp.status;
  throw err;
}

// explain turns an API error into what the reader should do about it.
export function explain(err) {
  if (err.status === 401 || err.status === 403) {
    return `${err.message}. Enter a key that may read this.`;
  }
  return err.message;
}

// explainRead is explain for a page that reads itself again (readWhileShown, a loop of its
// own): a call it gave up on is not the end of it, and the page says so.
export function explainRead(err) {
  return err.timedOut ? `${err.message}; reading again.` : explain(err);
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

// bytes writes a count of bytes in binary units, to three digits.
export function bytes(v) {
  let i = 0;
  while (Math.abs(v) >= 1024 && i < BYTE_UNITS.length - 1) { v /= 1024; i++; }
  return `${Number(v.toPrecision(3))} ${BYTE_UNITS[i]}`;
}

export function set(id, text, tone) {
  const el = $(id);
  el.textContent = text;
  el.classList.toggle('bad', tone === 'bad');
  el.classList.toggle('good', tone === 'good');
}

// fillRows replaces the rows of table id with one per item, each filled by fill(row, item, i).
export function fillRows(id, items, fill) {
  const body = $(id).tBodies[0];
  body.replaceChildren();
  items.forEach((item, i) => fill(body.insertRow(), item, i));
}

// Pages is where a listing stands among its pages: the token of the page shown and of the
// next, behind the buttons First page and Next page (<prefix>-first, <prefix>-next), which
// call load. It puts them at the start of the listing's pager, <prefix>-pager, so that every
// paged listing has the same two.
export class Pages {
  constructor(prefix, load) {
    this.token = '';
    this.next = '';
    this.first = button(`${prefix}-first`, 'First page', () => { this.token = ''; load(); });
    this.following = button(`${prefix}-next`, 'Next page', () => { this.token = this.next; load(); });
    $(`${prefix}-pager`).prepend(this.first, this.following);
  }

  // shown records the next page's token of the page just shown.
  shown(nextToken) {
    this.next = nextToken || '';
    this.following.disabled = this.next === '';
    this.first.disabled = this.token === '';
  }
}

// readWhileShown makes a page read itself again every ms while it is shown, so that what moves
// on the node (a counter, a pool) shows its new value without a click. It returns the page's
// show and its load, for its searches and buttons: a load by hand starts the wait anew.
export function readWhileShown(read, ms) {
  let timer = 0;
  let visible = false;
  const load = async () => {
    clearTimeout(timer);
    await read();
    if (visible) timer = setTimeout(load, ms);
  };
  const show = (v) => {
    visible = v;
    if (v) load(); else clearTimeout(timer);
  };
  return { load, show };
}

function button(id, label, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = id;
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
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
