// Every change goes through confirm: a modal dialog that names what will change, with Cancel
// focused first, so a stray Enter changes nothing.
import { $, set } from './api.js';

// confirm shows title and what (lines of text) and resolves to whether the person confirmed
// with the button labelled verb.
export function confirm(title, what, verb) {
  const dialog = $('confirm');
  $('confirm-title').textContent = title;
  $('confirm-what').replaceChildren(...what.map((line) => {
    const li = document.createElement('li');
    li.textContent = line;
    return li;
  }));
  $('confirm-ok').textContent = verb;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    // A dialog fires close after it closed, as a task of its own: the close of the last
    // confirmation may arrive once this one is open, and must not answer it.
    const closed = () => {
      if (dialog.open) return;
      dialog.removeEventListener('close', closed);
      resolve(dialog.returnValue === 'ok');
    };
    dialog.addEventListener('close', closed);
    dialog.showModal();
    $('confirm-cancel').focus();
  });
}

// act runs change after confirmation and reports in the element status: what was done, the
// node's refusal, or, when the node did not answer in time (api.js, CALL_TIMEOUT_MS), that
// nobody knows yet. It resolves to change's result, or undefined when cancelled, refused or
// unanswered.
export async function act(status, title, what, verb, change) {
  if (!(await confirm(title, what, verb))) {
    set(status, 'Cancelled: nothing changed.');
    return undefined;
  }
  try {
    const result = await change();
    set(status, 'Done.', 'good');
    return result ?? {};
  } catch (err) {
    // A change the node did not answer may have been made: saying "refused" would invite a
    // second one.
    set(status, err.timedOut ? `${err.message}: it may or may not have been done; look before trying again.`
      : `Refused: ${err.message}`, 'bad');
    return undefined;
  }
}

