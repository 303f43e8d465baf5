// Building the page. Text from the server (names, values, messages) only ever becomes a text node: never HTML.
import { Real } from './json.js';

/** An element with attributes and children (strings become text nodes). */
export function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(node) { node.replaceChildren(); return node; }

export function byId(id) { return document.getElementById(id); }

/** Shows `error` (an APIError or any Error) in `node`: its code and message. */
export function showError(node, error) {
  clear(node);
  if (!error) { node.hidden = true; return; }
  node.hidden = false;
  node.append(el('span', { class: 'code' }, error.code || 'ERROR'), error.message || String(error));
}

/** The bytes of a `{"base64": …}` value. */
export function blobBytes(value) {
  const binary = atob(value.base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function isBlob(value) {
  return value !== null && typeof value === 'object' && !(value instanceof Real) && typeof value.base64 === 'string';
}

/** Offers `data` (a Blob) as a download named `name`. */
export function download(name, data) {
  const url = URL.createObjectURL(data);
  const link = el('a', { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/** The size of a blob of `count` bytes, for people. */
export function size(count) {
  if (count < 1024) return count + ' B';
  if (count < 1024 * 1024) return (count / 1024).toFixed(1) + ' KiB';
  return (count / 1024 / 1024).toFixed(1) + ' MiB';
}

/** The characters of a text shown in a grid cell. */
const shownText = 200;

/** A value as a table cell: NULL and empty text told apart, numbers exact, a blob as its size and a download. */
export function valueCell(value, fileName) {
  const cell = el('td');
  if (value === null || value === undefined) {
    cell.append(el('span', { class: 'null', title: 'NULL' }, 'NULL'));
  } else if (typeof value === 'string') {
    if (value === '') cell.append(el('span', { class: 'empty', title: 'empty text' }, "''"));
    else if (value.length <= shownText) cell.textContent = value;
    else {
      // A long text is cut in the grid (the edit dialog and the CSV export have all of it).
      cell.append(value.slice(0, shownText), el('span', { class: 'more' }, '… ' + value.length + ' characters'));
    }
  } else if (typeof value === 'number' || typeof value === 'bigint' || value instanceof Real) {
    cell.className = 'num';
    cell.textContent = String(value);
  } else if (isBlob(value)) {
    const bytes = blobBytes(value);
    cell.append(el('span', { class: 'blob' }, 'BLOB ' + size(bytes.length),
      el('button', {
        type: 'button',
        title: 'Download the blob',
        onclick: () => download(fileName || 'blob.bin', new Blob([bytes])),
      }, '⤓')));
  } else {
    cell.textContent = String(value);
  }
  return cell;
}

/** A value as text for an input or a CSV field (a blob as base64). */
export function valueText(value) {
  if (value === null || value === undefined) return '';
  if (isBlob(value)) return value.base64;
  return String(value);
}
