// The one door to the server: every request of the console goes through `request`, with the tab's token.
import { parse, stringify } from './json.js';

const tokenKey = 'sqlited.token';

/** The token kept in this tab's session storage, or null. */
export function token() { return sessionStorage.getItem(tokenKey); }

export function setToken(value) {
  if (value) sessionStorage.setItem(tokenKey, value); else sessionStorage.removeItem(tokenKey);
}

/** An error answer of the API: its status, its stable code and its message. */
export class APIError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

function headers(extra) {
  const result = new Headers(extra || {});
  const value = token();
  if (value) result.set('Authorization', 'Bearer ' + value);
  return result;
}

/**
 * Sends a request and returns its JSON body (parsed without losing integers); an error answer throws APIError.
 * `body` is sent as JSON.
 */
export async function request(method, path, body) {
  const init = { method, headers: headers(), cache: 'no-store' };
  if (body !== undefined) {
    init.headers.set('Content-Type', 'application/json');
    init.body = stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new APIError(0, 'NETWORK', 'the server cannot be reached: ' + error.message, null);
  }
  return answer(response);
}

/** The body of a response, or the API's error. */
export async function answer(response) {
  const text = await response.text();
  let data = null;
  if (text && (response.headers.get('Content-Type') || '').startsWith('application/json')) {
    try { data = parse(text); } catch (error) { data = null; }
  }
  if (!response.ok) {
    const error = data && data.error ? data.error : {};
    throw new APIError(response.status, error.code || 'HTTP_' + response.status,
      error.message || response.statusText || 'request failed', data);
  }
  return data === null ? text : data;
}

/** A raw fetch with the token (for streaming exports and the metrics text). */
export function fetchRaw(path, accept) {
  return fetch(path, { headers: headers(accept ? { Accept: accept } : {}), cache: 'no-store' });
}

/** The path of a table's resource: `/tables/{table}/…`, the name percent-encoded. */
export function tablePath(table, rest) {
  return '/tables/' + encodeURIComponent(table) + rest;
}
