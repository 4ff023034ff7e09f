// helm's toJson/fromJson/fromJsonArray and sprig's toPrettyJson/toRawJson, as Go's encoding/json writes and reads them.
// Sorted map keys, HTML escaping in all but toRawJson, float64 like Go's encoder, and Go's decoder error texts.

import { formatFloatJSON } from './strconv.js';
import { GoSizedInt, isGoOpaque, type GoMap, type GoValue } from './value.js';
import { sliceTypeName } from './sprig/cast.js';

/** Raised when encoding/json would fail (NaN, ±Inf, functions); callers turn it into Go's behaviour. */
export class JSONMarshalError extends Error {}

const HEX = '0123456789abcdef';

/** Go's JSON string encoding: \n \r \t \b \f short forms, other controls as \u00XX, U+2028/2029 always escaped. */
export function quoteJSON(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (
      c >= 0x20 &&
      c !== 0x22 &&
      c !== 0x5c &&
      c < 0x7f &&
      !(escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26))
    ) {
      out += s[i];
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
    }
    if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) {
      out += '\\u00' + HEX[c >> 4]! + HEX[c & 15]!;
      continue;
    }
    if (c === 0x2028 || c === 0x2029) {
      out += '\\u202' + HEX[c & 15]!;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
      out += '\ufffd';
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff) {
      out += '\ufffd';
      continue;
    }
    out += s[i];
  }
  return out + '"';
}

function byteCompare(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** encoding/json.Marshal (indent '' = compact; otherwise MarshalIndent with that indent). */
export function marshalJSON(v: GoValue, escapeHTML: boolean, indent = ''): string {
  const enc = (x: GoValue | undefined, depth: number): string => {
    if (x === null || x === undefined) return 'null';
    switch (typeof x) {
      case 'boolean':
        return x ? 'true' : 'false';
      case 'string':
        return quoteJSON(x, escapeHTML);
      case 'bigint':
        return x.toString();
      case 'number':
        if (!Number.isFinite(x))
          throw new JSONMarshalError(
            `json: unsupported value: ${Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf'}`,
          );
        return formatFloatJSON(x);
      case 'function':
        throw new JSONMarshalError('json: unsupported type: func()');
    }
    const nl = indent === '' ? '' : '\n' + indent.repeat(depth + 1);
    const close = indent === '' ? '' : '\n' + indent.repeat(depth);
    if (Array.isArray(x)) {
      // encoding/json writes a []byte as base64 text.
      if (sliceTypeName(x) === '[]uint8')
        return quoteJSON(Buffer.from(x.map(Number)).toString('base64'), escapeHTML);
      if (x.length === 0) return '[]';
      return '[' + x.map((e) => nl + enc(e, depth + 1)).join(',') + close + ']';
    }
    if (x instanceof GoSizedInt) return x.value.toString();
    if (isGoOpaque(x)) return quoteJSON(x.marshalText?.() ?? x.format(), escapeHTML);
    const m = x as GoMap;
    const keys = Object.keys(m).sort(byteCompare);
    if (keys.length === 0) return '{}';
    const sep = indent === '' ? ':' : ': ';
    return (
      '{' +
      keys.map((k) => nl + quoteJSON(k, escapeHTML) + sep + enc(m[k], depth + 1)).join(',') +
      close +
      '}'
    );
  };
  return enc(v, 0);
}

/** helm's toJson: json.Marshal, "" on error. */
export function toJson(v: GoValue): string {
  try {
    return marshalJSON(v, true);
  } catch (e) {
    if (e instanceof JSONMarshalError) return '';
    throw e;
  }
}

/** sprig's toPrettyJson: json.MarshalIndent(v, "", "  "), "" on error. */
export function toPrettyJson(v: GoValue): string {
  try {
    return marshalJSON(v, true, '  ');
  } catch (e) {
    if (e instanceof JSONMarshalError) return '';
    throw e;
  }
}

/** sprig's toRawJson: an Encoder without HTML escaping, trailing newline trimmed. */
export function toRawJson(v: GoValue): string {
  try {
    return marshalJSON(v, false);
  } catch (e) {
    if (e instanceof JSONMarshalError) return '';
    throw e;
  }
}

/** A JSON syntax error with Go's wording. */
export class JSONSyntaxError extends Error {}

function describeChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const cp = c.codePointAt(0)!;
  if (cp < 0x20)
    return `'${JSON.stringify(c)
      .slice(1, -1)
      .replace(/^\\u00/, '\\x')}'`;
  return `'${c}'`;
}

/** encoding/json's decoder into interface{}: numbers become float64. */
export function parseJSON(text: string): GoValue {
  return parseJSONReporting(text).value;
}

/**
 * Decode, also returning the first type error Go reports while still decoding the rest
 * (a number out of float64 range becomes nil and the error is kept).
 */
export function parseJSONReporting(text: string): { value: GoValue; typeError?: string } {
  let typeError: string | undefined;
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const fail = (ctx: string): never => {
    if (i >= n) throw new JSONSyntaxError('unexpected end of JSON input');
    throw new JSONSyntaxError(
      `invalid character ${describeChar(String.fromCodePoint(text.codePointAt(i)!))} ${ctx}`,
    );
  };
  const literal = (word: string, v: GoValue): GoValue => {
    for (let k = 0; k < word.length; k++) {
      if (i >= n) fail('');
      if (text[i] !== word[k]) fail(`in literal ${word} (expecting '${word[k]}')`);
      i++;
    }
    return v;
  };
  const str = (): string => {
    i++; // opening quote
    let out = '';
    while (true) {
      if (i >= n) fail('');
      const c = text[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        i++;
        if (i >= n) fail('');
        const e = text[i]!;
        const map: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e in map) {
          out += map[e];
          i++;
        } else if (e === 'u') {
          const hex = text.slice(i + 1, i + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            i++;
            while (i < n && /[0-9a-fA-F]/.test(text[i]!)) i++;
            fail('in \\u hexadecimal character escape');
          }
          out += String.fromCharCode(parseInt(hex, 16));
          i += 5;
        } else fail('in string escape code');
        continue;
      }
      if (c.charCodeAt(0) < 0x20) fail('in string literal');
      out += c;
      i++;
    }
  };
  const num = (): number | null => {
    const start = i;
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (i < n && text[i]! >= '1' && text[i]! <= '9')
      while (i < n && text[i]! >= '0' && text[i]! <= '9') i++;
    else fail('in numeric literal');
    if (text[i] === '.') {
      i++;
      if (!(i < n && text[i]! >= '0' && text[i]! <= '9')) fail('after decimal point in numeric literal');
      while (i < n && text[i]! >= '0' && text[i]! <= '9') i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!(i < n && text[i]! >= '0' && text[i]! <= '9')) fail('in exponent of numeric literal');
      while (i < n && text[i]! >= '0' && text[i]! <= '9') i++;
    }
    const lit = text.slice(start, i);
    const v = Number(lit);
    if (!Number.isFinite(v)) {
      typeError ??= `json: cannot unmarshal number ${lit} into Go value of type float64`;
      return null;
    }
    return v;
  };
  const value = (ctx: string): GoValue => {
    ws();
    if (i >= n) fail('');
    const c = text[i]!;
    if (c === '{') {
      i++;
      const m: GoMap = {};
      ws();
      if (text[i] === '}') {
        i++;
        return m;
      }
      while (true) {
        ws();
        if (text[i] !== '"') fail('looking for beginning of object key string');
        const k = str();
        ws();
        if (text[i] !== ':') fail('after object key');
        i++;
        m[k] = value('looking for beginning of value');
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return m;
        }
        fail('after object key:value pair');
      }
    }
    if (c === '[') {
      i++;
      const a: GoValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      while (true) {
        a.push(value('looking for beginning of value'));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return a;
        }
        fail('after array element');
      }
    }
    if (c === '"') return str();
    if (c === 't') return literal('true', true);
    if (c === 'f') return literal('false', false);
    if (c === 'n') return literal('null', null);
    if (c === '-' || (c >= '0' && c <= '9')) return num();
    return fail(ctx);
  };
  const v = value('looking for beginning of value');
  ws();
  if (i < n) fail('after top-level value');
  return typeError === undefined ? { value: v } : { value: v, typeError };
}

/** The JSON kind word encoding/json's "cannot unmarshal X into Go value" errors use. */
export function jsonKindName(v: GoValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (v instanceof GoSizedInt) return 'number';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'bool';
  }
  return 'object';
}

/** helm's fromJson: a map, or {Error: message} when the text is not a JSON object. */
export function fromJson(s: string): GoValue {
  try {
    const { value: v, typeError } = parseJSONReporting(s);
    if (v === null) return {};
    if (jsonKindName(v) !== 'object') {
      return {
        Error: `json: cannot unmarshal ${jsonKindName(v)} into Go value of type map[string]interface {}`,
      };
    }
    // Go keeps decoding after a type error; helm adds the error to the partly filled map.
    if (typeError !== undefined) (v as GoMap)['Error'] = typeError;
    return v;
  } catch (e) {
    if (e instanceof JSONSyntaxError) return { Error: e.message };
    throw e;
  }
}

/** helm's fromJsonArray: a list, or [message] when the text is not a JSON array. */
export function fromJsonArray(s: string): GoValue {
  try {
    const { value: v, typeError } = parseJSONReporting(s);
    if (v === null) return [];
    if (!Array.isArray(v))
      return [`json: cannot unmarshal ${jsonKindName(v)} into Go value of type []interface {}`];
    if (typeError !== undefined) return [typeError];
    return v;
  } catch (e) {
    if (e instanceof JSONSyntaxError) return [e.message];
    throw e;
  }
}
