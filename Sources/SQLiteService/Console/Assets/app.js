// The console's entry point: the views, the token prompt, and what the token may do.
import { APIError, fetchRaw, request, setToken, token } from './api.js';
import { byId, showError } from './dom.js';
import * as sql from './sql.js';
import * as status from './status.js';
import * as tables from './tables.js';

const views = ['tables', 'sql', 'status'];
const sampleSeconds = 2;

function show(view) {
  for (const name of views) {
    const selected = name === view;
    const tab = byId('tab-' + name);
    tab.setAttribute('aria-selected', selected ? 'true' : 'false');
    tab.tabIndex = selected ? 0 : -1;
    byId('view-' + name).hidden = !selected;
  }
  status.run(view === 'status' ? sampleSeconds : 0);
  if (location.hash !== '#' + view) history.replaceState(null, '', '#' + view);
}

function installTabs() {
  views.forEach((name, index) => {
    const tab = byId('tab-' + name);
    tab.addEventListener('click', () => show(name));
    // Arrow keys move between the tabs, as in a tab list.
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = views[(index + step + views.length) % views.length];
      show(next);
      byId('tab-' + next).focus();
    });
  });
}

function banner(error) {
  showError(byId('banner'), error);
}

function askToken(reason) {
  byId('token-reason').textContent = reason;
  byId('token-input').value = '';
  const dialog = byId('token-dialog');
  if (!dialog.open) dialog.showModal();
  byId('token-input').focus();
}

/** What the token may do: `admin` (reads /metrics), `write` (its /update is checked, not refused), or `read`. */
async function role() {
  const metrics = await fetchRaw('/metrics');
  if (metrics.ok) return 'admin';
  try {
    // An empty statement object: a write token gets 400 INVALID_REQUEST (nothing runs), a read token 403.
    await request('POST', '/update', {});
  } catch (error) {
    if (error instanceof APIError && error.status === 400) return 'write';
  }
  return 'read';
}

async function start() {
  banner(null);
  try {
    await tables.loadTables();
  } catch (error) {
    if (error.status === 401) {
      askToken(token() ? 'The server refused this token: ' + error.message : 'This server needs a token.');
      return;
    }
    banner(error);
    return;
  }
  const may = await role();
  tables.setCanWrite(may !== 'read');
  byId('who').textContent = (token() ? 'token: ' : 'no token: ') + may;
  byId('who').dataset.role = may;
}

function installToken() {
  byId('token-form').addEventListener('submit', () => {
    setToken(byId('token-input').value.trim());
    start();
  });
  byId('token-forget').addEventListener('click', () => {
    setToken(null);
    byId('token-dialog').close();
    location.reload();
  });
  byId('token-button').addEventListener('click', () => askToken('Enter a token (it replaces the one in use).'));
}

installTabs();
installToken();
tables.install();
sql.install();
const initial = location.hash.slice(1);
show(views.includes(initial) ? initial : 'tables');
start();
