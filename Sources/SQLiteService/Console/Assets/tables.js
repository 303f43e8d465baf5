// The schema and the table browser, on the Tables API: keyset pages, filters, sort, edit, delete, CSV export.
import { APIError, answer, fetchRaw, request, tablePath } from './api.js';
import { Real } from './json.js';
import { byId, clear, download, el, isBlob, showError, valueCell, valueText } from './dom.js';

const state = {
  tables: [],
  objects: [],
  table: null,
  filters: [],
  order: null,
  // Keyset paging: the `_after` cursor of each page visited (null for the first), so Previous goes back exactly.
  cursors: [null],
  next: null,
  count: null,
  columns: [],
  rows: [],
  canWrite: false,
  // The number of the latest page asked for: an answer to an older request (a click since) is dropped.
  asked: 0,
};

/** Whether the token may write (edit and delete buttons); the rows shown are drawn again. */
export function setCanWrite(value) {
  state.canWrite = value;
  if (state.table) renderRows();
}

/** Loads the list of tables and the schema's indexes. */
export async function loadTables() {
  const [tables, schema] = await Promise.all([request('GET', '/tables'), request('GET', '/schema')]);
  state.tables = tables.tables;
  state.objects = schema.objects;
  const list = clear(byId('table-list'));
  byId('table-list-empty').hidden = state.tables.length > 0;
  for (const table of state.tables) {
    list.append(el('li', {}, el('button', {
      type: 'button',
      'data-table': table.name,
      'aria-current': state.table && state.table.name === table.name ? 'true' : 'false',
      onclick: () => selectTable(table.name),
    }, table.name)));
  }
  if (state.table) {
    const still = state.tables.find((t) => t.name === state.table.name);
    if (still) { state.table = still; await loadPage(); } else { state.table = null; }
  }
}

export async function selectTable(name) {
  state.table = state.tables.find((t) => t.name === name) || null;
  state.filters = [];
  state.order = null;
  resetPaging();
  for (const button of byId('table-list').querySelectorAll('button')) {
    button.setAttribute('aria-current', button.dataset.table === name ? 'true' : 'false');
  }
  byId('table-title').textContent = name;
  renderSchema();
  const columnSelect = clear(byId('filter-column'));
  for (const column of state.table.columns) columnSelect.append(el('option', { value: column.name }, column.name));
  byId('filter-form').hidden = false;
  byId('rows-toolbar').hidden = false;
  renderFilters();
  await loadPage();
}

function resetPaging() {
  state.cursors = [null];
  state.next = null;
  state.count = null;
}

function renderSchema() {
  const table = state.table;
  const body = clear(byId('table-schema-body'));
  byId('table-schema').hidden = false;
  const grid = el('table', { class: 'grid' },
    el('tr', {}, ['column', 'type', 'not null', 'default', 'key'].map((h) => el('th', {}, h))));
  for (const column of table.columns) {
    grid.append(el('tr', {},
      el('td', {}, column.name),
      el('td', {}, column.type || ''),
      el('td', {}, column.notnull ? 'yes' : ''),
      el('td', {}, column.default === null ? '' : String(column.default)),
      el('td', {}, table.key.includes(column.name) ? 'key ' + (table.key.indexOf(column.name) + 1) : '')));
  }
  body.append(el('p', {}, 'Key: ', table.key.join(', ')), grid);
  const indexes = state.objects.filter((o) => o.type === 'index' && o.tbl_name === table.name);
  body.append(el('h3', {}, indexes.length ? 'Indexes' : 'No indexes'));
  for (const index of indexes) body.append(el('pre', {}, index.sql || index.name + ' (automatic)'));
}

/** The query string of the current filters and order (`extra` adds options). */
function query(extra) {
  const params = new URLSearchParams();
  for (const filter of state.filters) {
    if (filter.op.startsWith('__isnull=')) params.append(filter.column + '__isnull', filter.op.slice(9));
    else params.append(filter.column + filter.op, filter.value);
  }
  if (state.order) params.set('_order', (state.order.desc ? '-' : '') + state.order.column);
  for (const [name, value] of Object.entries(extra || {})) if (value !== null) params.set(name, value);
  return params.toString();
}

export async function loadPage() {
  const table = state.table;
  if (!table) return;
  const cursor = state.cursors[state.cursors.length - 1];
  const limit = byId('page-size').value;
  const first = state.cursors.length === 1;
  const path = tablePath(table.name, '/rows?' + query({
    _shape: 'arrays', _limit: limit, _after: cursor, _count: first ? 'true' : null,
  }));
  const asked = ++state.asked;
  try {
    const page = await request('GET', path);
    if (asked !== state.asked) return;
    state.columns = page.columns;
    state.rows = page.rows;
    state.next = page.next;
    if (first) state.count = page.count;
    showError(byId('rows-error'), null);
  } catch (error) {
    if (asked !== state.asked) return;
    state.columns = [];
    state.rows = [];
    state.next = null;
    showError(byId('rows-error'), error);
  }
  renderRows();
}

function renderRows() {
  const grid = clear(byId('rows-grid'));
  const types = new Map(state.table.columns.map((c) => [c.name, c.type]));
  const head = el('tr');
  for (const name of state.columns) {
    const sorted = state.order && state.order.column === name;
    const arrow = sorted ? (state.order.desc ? ' ▼' : ' ▲') : '';
    head.append(el('th', { 'aria-sort': sorted ? (state.order.desc ? 'descending' : 'ascending') : 'none' },
      el('button', { type: 'button', title: 'Sort by ' + name, onclick: () => sortBy(name) }, name + arrow),
      el('span', { class: 'type' }, types.get(name) || '')));
  }
  if (state.canWrite) head.append(el('th', {}, ''));
  grid.append(el('thead', {}, head));
  const body = el('tbody');
  state.rows.forEach((row, index) => {
    const tr = el('tr', { 'data-row': index });
    row.forEach((value, column) => tr.append(valueCell(value, state.table.name + '-' + state.columns[column] + '.bin')));
    if (state.canWrite) {
      tr.append(el('td', { class: 'actions' },
        el('button', { type: 'button', class: 'edit', onclick: () => editRow(row) }, 'Edit'),
        el('button', { type: 'button', class: 'delete', onclick: () => deleteRow(row) }, 'Delete')));
    }
    body.append(tr);
  });
  grid.append(body);
  const page = state.cursors.length;
  const count = state.count === null || state.count === undefined ? '' : ' of ' + state.count + ' matching';
  byId('rows-info').textContent = 'Page ' + page + ' · ' + state.rows.length + ' rows' + count;
  byId('page-prev').disabled = page === 1;
  byId('page-next').disabled = !state.next;
}

function sortBy(column) {
  if (!state.order || state.order.column !== column) state.order = { column, desc: false };
  else if (!state.order.desc) state.order = { column, desc: true };
  else state.order = null;
  resetPaging();
  loadPage();
}

function renderFilters() {
  const list = clear(byId('filter-list'));
  state.filters.forEach((filter, index) => {
    const label = filter.op.startsWith('__isnull=')
      ? filter.column + (filter.op.endsWith('true') ? ' is NULL' : ' is not NULL')
      : filter.column + ' ' + opName(filter.op) + ' ' + filter.value;
    list.append(el('li', {}, label, el('button', {
      type: 'button',
      title: 'Remove this filter',
      'aria-label': 'Remove filter ' + label,
      onclick: () => { state.filters.splice(index, 1); renderFilters(); resetPaging(); loadPage(); },
    }, '×')));
  });
}

function opName(op) {
  return { '': '=', __ne: '≠', __lt: '<', __lte: '≤', __gt: '>', __gte: '≥' }[op] || op;
}

function addFilter(event) {
  event.preventDefault();
  const column = byId('filter-column').value;
  const op = byId('filter-op').value;
  const value = byId('filter-value').value;
  if (!column) return;
  state.filters.push({ column, op, value });
  byId('filter-value').value = '';
  renderFilters();
  resetPaging();
  loadPage();
}

/** The `{key}` path segment of a row: its key values in key order, each percent-encoded, joined by `,`. */
function keyPath(row) {
  return state.table.key.map((name) => {
    const value = row[state.columns.indexOf(name)];
    return encodeURIComponent(isBlob(value) ? value.base64 : String(value));
  }).join(',');
}

function editRow(row) {
  const dialog = byId('edit-dialog');
  const fields = clear(byId('edit-fields'));
  showError(byId('edit-error'), null);
  byId('edit-title').textContent = 'Edit row of ' + state.table.name;
  const inputs = [];
  state.columns.forEach((name, index) => {
    const value = row[index];
    const isKey = state.table.key.includes(name);
    const box = el('div', { class: 'edit-field' });
    const id = 'edit-' + index;
    box.append(el('label', { for: id }, name + (isKey ? ' (key)' : '')));
    if (isBlob(value)) {
      box.append(el('p', { class: 'muted' }, 'BLOB (not editable here)'));
    } else {
      const input = el('textarea', { id, rows: 1, 'data-column': name });
      input.value = valueText(value);
      const nullBox = el('input', { type: 'checkbox', 'data-null': name });
      nullBox.checked = value === null;
      input.disabled = isKey || value === null;
      nullBox.disabled = isKey;
      nullBox.addEventListener('change', () => { input.disabled = nullBox.checked; });
      box.append(input, el('label', { class: 'null-toggle' }, nullBox, ' NULL'));
      if (!isKey) inputs.push({ name, value, input, nullBox });
    }
    fields.append(box);
  });
  const form = byId('edit-form');
  form.onsubmit = async (event) => {
    event.preventDefault();
    const patch = {};
    for (const field of inputs) {
      const next = field.nullBox.checked ? null : typed(field.input.value, field.value);
      if (!same(next, field.value)) patch[field.name] = next;
    }
    if (Object.keys(patch).length === 0) { dialog.close(); return; }
    try {
      await request('PATCH', tablePath(state.table.name, '/rows/' + keyPath(row)), patch);
      dialog.close();
      await loadPage();
    } catch (error) {
      showError(byId('edit-error'), error);
    }
  };
  byId('edit-cancel').onclick = () => dialog.close();
  dialog.showModal();
}

/** The value to send for edited text: a number stays a number when the old value was one, else text. */
function typed(text, old) {
  const wasNumber = typeof old === 'number' || typeof old === 'bigint' || old instanceof Real;
  if (wasNumber && /^-?(0|[1-9][0-9]*)$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  if (wasNumber && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) return new Real(text);
  return text;
}

function same(a, b) {
  if (a === null || b === null) return a === b;
  return typeof a === typeof b && String(a) === String(b);
}

async function deleteRow(row) {
  const dialog = byId('confirm-dialog');
  byId('confirm-text').textContent = 'Delete the row with key ' + decodeURIComponent(keyPath(row)) + ' from '
    + state.table.name + '?';
  dialog.returnValue = '';
  dialog.onclose = async () => {
    if (dialog.returnValue !== 'yes') return;
    try {
      await request('DELETE', tablePath(state.table.name, '/rows/' + keyPath(row)));
      await loadPage();
    } catch (error) {
      showError(byId('rows-error'), error);
    }
  };
  dialog.showModal();
}

/** CSV of the filtered rows: the server's streaming export when it has one, else the pages, written here. */
async function exportCSV() {
  const table = state.table;
  const button = byId('export-csv');
  button.disabled = true;
  try {
    const streamed = await fetchRaw(tablePath(table.name, '/rows?' + query({})), 'text/csv');
    if (streamed.ok && (streamed.headers.get('Content-Type') || '').startsWith('text/csv')) {
      download(table.name + '.csv', await streamed.blob());
      return;
    }
    if (!streamed.ok) await answer(streamed);
    const lines = [];
    let after = null;
    let header = null;
    for (;;) {
      const page = await request('GET', tablePath(table.name, '/rows?' + query({
        _shape: 'arrays', _limit: '1000', _after: after,
      })));
      if (!header) { header = page.columns; lines.push(header.map((name) => csvField(name)).join(',')); }
      for (const row of page.rows) lines.push(row.map(csvField).join(','));
      if (!page.next) break;
      after = page.next;
    }
    download(table.name + '.csv', new Blob([lines.map((line) => line + '\r\n').join('')], { type: 'text/csv' }));
  } catch (error) {
    showError(byId('rows-error'), error instanceof APIError ? error : new APIError(0, 'EXPORT', String(error)));
  } finally {
    button.disabled = false;
  }
}

/** A field as API.md's CSV writes it: NULL empty and unquoted, empty text `""`, quotes where needed. */
function csvField(value) {
  if (value === null || value === undefined) return '';
  const text = valueText(value);
  if (text === '' || /[",\r\n]/.test(text)) return '"' + text.replaceAll('"', '""') + '"';
  return text;
}

export function install() {
  byId('filter-form').addEventListener('submit', addFilter);
  byId('page-next').addEventListener('click', () => {
    if (!state.next) return;
    state.cursors.push(state.next);
    loadPage();
  });
  byId('page-prev').addEventListener('click', () => {
    if (state.cursors.length > 1) state.cursors.pop();
    loadPage();
  });
  byId('page-size').addEventListener('change', () => { resetPaging(); loadPage(); });
  byId('export-csv').addEventListener('click', exportCSV);
}
