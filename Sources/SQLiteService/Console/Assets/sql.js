// The SQL editor: one statement to /query (read-only) or /update, the result as a grid with the declared types.
import { request } from './api.js';
import { byId, clear, el, showError, valueCell } from './dom.js';

// The number of the latest run: the answer to an earlier one, arriving after it, is dropped.
let runs = 0;

async function run(endpoint) {
  const current = ++runs;
  const sql = byId('sql-text').value;
  const info = byId('sql-info');
  const grid = clear(byId('sql-grid'));
  showError(byId('sql-error'), null);
  info.textContent = 'Running…';
  const started = performance.now();
  try {
    const result = await request('POST', endpoint, { sql, shape: 'arrays' });
    if (current !== runs) return;
    const took = performance.now() - started;
    const parts = [];
    if (result.columns) {
      grid.append(el('thead', {}, el('tr', {}, result.columns.map((name, index) => el('th', {},
        name, el('span', { class: 'type' }, result.types && result.types[index] ? result.types[index] : ''))))));
      const body = el('tbody');
      for (const row of result.rows) body.append(el('tr', {}, row.map((value) => valueCell(value, 'value.bin'))));
      grid.append(body);
      parts.push(result.rows.length + (result.rows.length === 1 ? ' row' : ' rows'));
      if (result.truncated) parts.push('truncated at the row limit');
    }
    if (result.changes !== undefined) parts.push(result.changes + ' changed');
    if (result.last_insert_rowid !== undefined && result.last_insert_rowid !== null) {
      parts.push('last rowid ' + result.last_insert_rowid);
    }
    parts.push(took.toFixed(1) + ' ms');
    info.textContent = parts.join(' · ');
  } catch (error) {
    if (current !== runs) return;
    info.textContent = (performance.now() - started).toFixed(1) + ' ms';
    showError(byId('sql-error'), error);
  }
}

export function install() {
  byId('sql-run-query').addEventListener('click', () => run('/query'));
  byId('sql-run-update').addEventListener('click', () => run('/update'));
  byId('sql-text').addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === 'Enter') {
      event.preventDefault();
      run(event.shiftKey ? '/update' : '/query');
    }
  });
}
