// idnode console: the entry point. Pages are sections of one document, chosen by the URL's
// fragment (#cluster, #counters, #databases, #hilo, #claims, #series), so a page can be
// bookmarked and the browser's back works.
import { $, setKey, showProblemsOf } from './api.js';
import * as claims from './claims.js';
import * as cluster from './cluster.js';
import * as counters from './counters.js';
import * as databases from './databases.js';
import * as explainBox from './explain.js';
import * as hilo from './hilo.js';
import * as graphs from './graphs.js';
import * as rights from './rights.js';
import * as series from './series.js';

const pages = { cluster, counters, databases, hilo, claims, series };

function route() {
  const name = location.hash.slice(1) in pages ? location.hash.slice(1) : 'cluster';
  for (const [page, view] of Object.entries(pages)) {
    $(page).hidden = page !== name;
    if (view.show) view.show(page === name);
  }
  for (const a of document.querySelectorAll('nav a[data-page]')) {
    if (a.dataset.page === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  showProblemsOf(name);
}

$('credential').addEventListener('submit', (e) => {
  e.preventDefault();
  setKey($('key').value.trim());
  $('key').value = '';
  credentialChanged();
});
$('forget').addEventListener('click', () => { setKey(''); credentialChanged(); });
window.addEventListener('hashchange', route);

// credentialChanged asks the node again who the caller is, then shows every page anew.
async function credentialChanged() {
  await rights.refresh();
  cluster.refresh();
  route();
}

cluster.start();
graphs.start();
counters.start();
explainBox.start();
databases.start();
hilo.start();
claims.start();
series.start();
credentialChanged();
