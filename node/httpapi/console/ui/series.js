// The Series page: a database's fiscal series (ListSeries), one series' journal a page of
// entries at a time (Journal by seq range), its verification (VerifySeries) with the first
// break shown and marked in the journal, and the whole journal as CSV for an auditor.
import { $, api, cell, explain, fillRows, report, set, stream } from './api.js';

const PAGE = 100;
const state = { database: '', series: null, from: 1, breakSeq: 0, csvURL: '' };

const short = (hex) => (hex && hex.length > 16 ? `${hex.slice(0, 16)}…` : hex || '');
const when = (ms) => (ms ? new Date(Number(ms)).toISOString() : '');
const kind = (k) => (k === 'SERIES_ENTRY_KIND_VOIDED' ? 'voided' : 'issued');
const policy = (p) => (p === 'SERIES_POLICY_GAPS_ALLOWED_JOURNALED' ? 'journaled gaps' : 'gapless');
const fieldsText = (e) => (e.fields || []).map((f) => `${f.key}=${f.value}`).join('; ');
const period = (p) => ({ SERIES_PERIOD_YEAR: 'yearly', SERIES_PERIOD_MONTH: 'monthly' })[p] || 'never';

async function list() {
  try {
    const { series = [] } = await api('/v1/series', { database: state.database });
    fillRows('series-table', series, (row, s) => {
      row.dataset.name = s.name;
      const open = document.createElement('button');
      open.type = 'button';
      open.textContent = s.name;
      open.setAttribute('aria-label', `Open the journal of series ${s.name}`);
      open.addEventListener('click', () => openSeries(s));
      row.insertCell().append(open);
      cell(row, s.format);
      cell(row, `${policy(s.policy)}, restarts ${period(s.period)}`);
      cell(row, String(s.entries ?? 0), 'num');
      cell(row, String(s.issued ?? 0), 'num');
      cell(row, String(s.voided ?? 0), 'num');
      cell(row, [s.currentPeriod, s.lastNumber].filter(Boolean).join(' / ') || '0', 'num');
      cell(row, short(s.headHash)).title = s.headHash || '';
    });
    $('series-caption').textContent = series.length ? `Series of database ${state.database || 'default'}` : `No series in database ${state.database || 'default'}.`;
    report('series', []);
  } catch (err) {
    report('series', [explain(err)]);
  }
}

function openSeries(s) {
  state.series = s;
  state.from = 1;
  state.breakSeq = 0;
  $('journal').hidden = false;
  $('journal-title').textContent = `Journal of ${s.name}`;
  set('verdict', 'Not verified yet.');
  if (state.csvURL) URL.revokeObjectURL(state.csvURL);
  state.csvURL = '';
  $('csv-link').hidden = true;
  journal();
}

async function journal() {
  const s = state.series;
  const total = Number(s.entries ?? 0);
  const body = $('journal-table').tBodies[0];
  body.replaceChildren();
  try {
    await stream(`/v1/series/${encodeURIComponent(s.name)}/journal`, {
      database: state.database, from_seq: state.from, to_seq: state.from + PAGE - 1,
    }, (e) => {
      const row = body.insertRow();
      row.dataset.seq = e.seq;
      const voided = e.kind === 'SERIES_ENTRY_KIND_VOIDED';
      if (voided) row.classList.add('void');
      if (Number(e.seq) === state.breakSeq) {
        row.classList.add('break');
        row.setAttribute('aria-label', `Entry ${e.seq}: the first break of the chain`);
      }
      cell(row, e.seq, 'num');
      // Not by colour alone: the row that breaks the chain says so.
      cell(row, Number(e.seq) === state.breakSeq ? `${kind(e.kind)}, broken here` : kind(e.kind));
      cell(row, e.id);
      cell(row, when(e.timeMs));
      cell(row, e.actor);
      cell(row, voided ? [e.reason, e.correcting && `corrected by ${e.correcting}`].filter(Boolean).join('; ') : '');
      cell(row, fieldsText(e));
      cell(row, short(e.documentHash)).title = e.documentHash || '';
      cell(row, short(e.hash)).title = e.hash || '';
    });
    report('series', []);
  } catch (err) {
    report('series', [explain(err)]);
  }
  const last = Math.min(state.from + PAGE - 1, total);
  $('journal-range').textContent = total ? `Entries ${state.from}–${last} of ${total}` : 'No entries yet.';
  $('journal-prev').disabled = state.from <= 1;
  $('journal-next').disabled = last >= total;
}

function goTo(from) {
  state.from = Math.max(1, from);
  journal();
}

async function verify() {
  const s = state.series;
  try {
    const v = await api(`/v1/series/${encodeURIComponent(s.name)}:verify`, { database: state.database });
    if (v.ok) {
      state.breakSeq = 0;
      await journal();
      set('verdict', `The chain and the numbering hold: ${v.entries ?? 0} entries, ${v.issued ?? 0} issued, ${v.voided ?? 0} voided.`, 'good');
      return;
    }
    // The page holding the break is shown, its row marked, before the verdict is.
    state.breakSeq = Number(v.breakSeq);
    state.from = Math.floor((state.breakSeq - 1) / PAGE) * PAGE + 1;
    await journal();
    document.querySelector('#journal-table tr.break')?.scrollIntoView({ block: 'center' });
    set('verdict', `Broken at entry ${v.breakSeq}: ${v.breakReason}. Entries before it verify; it and every later entry cannot be trusted.`, 'bad');
  } catch (err) {
    set('verdict', explain(err), 'bad');
  }
}

// csvCell quotes a value for CSV and defuses spreadsheet formulas: a caller's field starting
// with = + - @ would otherwise run when an auditor opens the file.
function csvCell(v) {
  let text = v == null ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const CSV_COLUMNS = ['seq', 'kind', 'period', 'number', 'id', 'time', 'actor', 'request_id',
  'document_hash', 'fields', 'reason', 'correcting', 'prev_hash', 'hash'];

async function exportCSV() {
  const s = state.series;
  const lines = [CSV_COLUMNS.join(',')];
  set('csv-status', `Reading the journal of ${s.name}…`);
  try {
    await stream(`/v1/series/${encodeURIComponent(s.name)}/journal`, { database: state.database }, (e) => {
      lines.push([e.seq, kind(e.kind), e.period, e.number, e.id, when(e.timeMs), e.actor, e.requestId,
        e.documentHash, fieldsText(e), e.reason, e.correcting, e.prevHash, e.hash].map(csvCell).join(','));
    });
  } catch (err) {
    set('csv-status', explain(err), 'bad');
    return;
  }
  if (state.csvURL) URL.revokeObjectURL(state.csvURL);
  state.csvURL = URL.createObjectURL(new Blob([lines.join('\r\n') + '\r\n'], { type: 'text/csv' }));
  const link = $('csv-link');
  link.href = state.csvURL;
  link.download = `${s.name}-journal.csv`;
  link.textContent = `Download ${link.download} (${lines.length - 1} entries)`;
  link.hidden = false;
  set('csv-status', '');
  link.click();
}

export function show(visible) {
  if (visible) list();
}

export function start() {
  $('series-search').addEventListener('submit', (e) => {
    e.preventDefault();
    state.database = $('series-database').value.trim();
    $('journal').hidden = true;
    list();
  });
  $('journal-prev').addEventListener('click', () => goTo(state.from - PAGE));
  $('journal-next').addEventListener('click', () => goTo(state.from + PAGE));
  $('journal-verify').addEventListener('click', verify);
  $('journal-csv').addEventListener('click', exportCSV);
}
