// JSON without losing what the API says: an integer beyond 2^53 stays exact (a BigInt), and a REAL keeps the
// text the server wrote (`1.0` stays a REAL, not the integer 1). JSON.parse would turn both into doubles.

/** A REAL as the server wrote it. */
export class Real {
  constructor(text) { this.text = text; }
  valueOf() { return Number(this.text); }
  toString() { return this.text; }
}

/** Parses JSON text; throws SyntaxError on malformed input. */
export function parse(text) {
  let i = 0;
  const fail = (what) => { throw new SyntaxError(`JSON: ${what} at ${i}`); };
  const space = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i += 1; else break;
    }
  };
  const string = () => {
    i += 1;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) { out += text.slice(start, i); i += 1; return out; }
      if (c === 0x5c) {
        out += text.slice(start, i);
        const e = text[i + 1];
        i += 2;
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            const hex = text.slice(i, i + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default: fail('bad escape');
        }
        start = i;
      } else {
        i += 1;
      }
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!match) fail('bad number');
    i += match[0].length;
    if (match[2] === undefined && match[3] === undefined) {
      const n = Number(match[0]);
      return Number.isSafeInteger(n) ? n : BigInt(match[0]);
    }
    return new Real(match[0]);
  };
  const value = () => {
    space();
    const c = text[i];
    if (c === '{') {
      i += 1;
      const object = {};
      space();
      if (text[i] === '}') { i += 1; return object; }
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        space();
        if (text[i] !== ':') fail('expected :');
        i += 1;
        Object.defineProperty(object, key, { value: value(), enumerable: true, writable: true, configurable: true });
        space();
        if (text[i] === ',') { i += 1; continue; }
        if (text[i] === '}') { i += 1; return object; }
        fail('expected , or }');
      }
    }
    if (c === '[') {
      i += 1;
      const array = [];
      space();
      if (text[i] === ']') { i += 1; return array; }
      for (;;) {
        array.push(value());
        space();
        if (text[i] === ',') { i += 1; continue; }
        if (text[i] === ']') { i += 1; return array; }
        fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    return number();
  };
  const result = value();
  space();
  if (i !== text.length) fail('trailing text');
  return result;
}

/** JSON text of a value built from parse's kinds (BigInt and Real written exactly). */
export function stringify(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Real) return value.text;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(stringify).join(',') + ']';
  return '{' + Object.keys(value).map((k) => JSON.stringify(k) + ':' + stringify(value[k])).join(',') + '}';
}
