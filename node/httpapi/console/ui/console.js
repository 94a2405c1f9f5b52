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

// credentialChanged shows every page anew and asks the node again who the caller is. The pages
// do not wait for that answer: the node judges each of their calls itself, and a node slow to
// say who the caller is must not leave every page blank. A page that reads differently by
// what the caller may do (rightsKnown) reads again once the node has said.
async function credentialChanged() {
  cluster.refresh();
  route();
  await rights.refresh();
  for (const view of Object.values(pages)) view.rightsKnown?.();
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
