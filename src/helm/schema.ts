// helm's values.schema.json check: a JSON Schema validator (drafts 4/6/7/2019-09/2020-12) that reproduces
// santhosh-tekuri/jsonschema v6.0.2 as helm 4.1.4 uses it, down to the wording of its error tree.
import { compileGo, type GoRegexp } from '../gotemplate/sprig/regex.js';
import { GoSizedInt, isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import type { Chart } from './chart.js';

const ROOT_URL = 'file:///values.schema.json';

// ---------------------------------------------------------------------------------------------------------
// Schema JSON: numbers keep their literal text because the library decodes with UseNumber and prints enum
// and const numbers exactly as written ("2.50", "1e3").

class JNum {
  constructor(readonly lit: string) {}
}
type JObj = Map<string, J>;
type J = null | boolean | string | JNum | J[] | JObj;

class SchemaError extends Error {}

function parseSchemaJSON(text: string): J {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const charAt = (): string => {
    const c = text.codePointAt(i)!;
    return goQuoteRune(c);
  };
  const eof = (): never => {
    throw new SchemaError('unexpected EOF');
  };
  const value = (ctx: string): J => {
    ws();
    if (i >= n) eof();
    const c = text[i]!;
    if (c === '{') {
      i++;
      const obj: JObj = new Map();
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (i >= n) eof();
        if (text[i] !== '"')
          throw new SchemaError(`invalid character ${charAt()} looking for beginning of object key string`);
        const key = str();
        ws();
        if (i >= n) eof();
        if (text[i] !== ':') throw new SchemaError(`invalid character ${charAt()} after object key`);
        i++;
        obj.set(key, value('value'));
        ws();
        if (i >= n) eof();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        throw new SchemaError(`invalid character ${charAt()} after object key:value pair`);
      }
    }
    if (c === '[') {
      i++;
      const arr: J[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value('value'));
        ws();
        if (i >= n) eof();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        throw new SchemaError(`invalid character ${charAt()} after array element`);
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m && (c === '-' || (c >= '0' && c <= '9'))) {
      i += m[0].length;
      return new JNum(m[0]);
    }
    throw new SchemaError(`invalid character ${charAt()} looking for beginning of ${ctx}`);
  };
  const str = (): string => {
    const start = i;
    i++;
    for (; i < n; i++) {
      const c = text[i]!;
      if (c === '\\') i++;
      else if (c === '"') {
        i++;
        return JSON.parse(text.slice(start, i)) as string;
      } else if (c < ' ') throw new SchemaError(`invalid character ${charAt()} in string literal`);
    }
    return eof();
  };
  ws();
  if (i >= n) throw new SchemaError('EOF');
  const v = value('value');
  ws();
  if (i < n) throw new SchemaError('invalid character after top-level value');
  return v;
}

const isObj = (v: J | undefined): v is JObj => v instanceof Map;

// ---------------------------------------------------------------------------------------------------------
// Exact decimal numbers: the library compares through big.Rat built from fmt.Sprint of the value, so a YAML
// 0.3 is exactly 3/10 and `multipleOf: 0.1` accepts it.

interface Dec {
  m: bigint;
  e: number;
}

function parseDec(s: string): Dec | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const frac = m[3] ?? '';
  const mant = BigInt(`${m[1] === '-' ? '-' : ''}${m[2]}${frac}` || '0');
  return { m: mant, e: Number(m[4] ?? '0') - frac.length };
}

function align(a: Dec, b: Dec): [bigint, bigint] {
  const e = Math.min(a.e, b.e);
  return [a.m * 10n ** BigInt(a.e - e), b.m * 10n ** BigInt(b.e - e)];
}

function cmpDec(a: Dec, b: Dec): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function isIntDec(d: Dec): boolean {
  if (d.e >= 0) return true;
  return d.m % 10n ** BigInt(-d.e) === 0n;
}

const decToFloat = (d: Dec): number => Number(`${d.m}e${d.e}`);

/** A number of the values tree: float64 from YAML, int64 from --set. */
type ValNum = number | bigint | GoSizedInt;

function isValNum(v: Val): v is ValNum {
  return typeof v === 'number' || typeof v === 'bigint' || v instanceof GoSizedInt;
}

function numDec(v: ValNum | JNum): Dec | null {
  if (v instanceof JNum) return parseDec(v.lit);
  if (v instanceof GoSizedInt) return { m: v.value, e: 0 };
  if (typeof v === 'bigint') return { m: v, e: 0 };
  return Number.isFinite(v) ? parseDec(String(v)) : null;
}

// ---------------------------------------------------------------------------------------------------------
// Message formatting: golang.org/x/text/message's English printer groups digits ("2,000") and writes
// scientific floats as "1.5×10⁰⁶"; fmt's %q rules decide how strings are quoted.

function groupDigits(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function fmtInt(n: number | bigint): string {
  const s = String(n);
  return s.startsWith('-') ? `-${groupDigits(s.slice(1))}` : groupDigits(s);
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

function fmtFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  if (x === 0) return '0';
  const sign = x < 0 ? '-' : '';
  const [mant, expPart] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const e = Number(expPart);
  if (e < -4 || e >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ed = String(Math.abs(e)).padStart(2, '0');
    const sup = [...ed].map((d) => SUPERSCRIPT[Number(d)]).join('');
    return `${sign}${m}×10${e < 0 ? '⁻' : ''}${sup}`;
  }
  let int: string;
  let frac: string;
  if (e >= 0) {
    int = digits.slice(0, e + 1).padEnd(e + 1, '0');
    frac = digits.slice(e + 1);
  } else {
    int = '0';
    frac = '0'.repeat(-e - 1) + digits;
  }
  return `${sign}${groupDigits(int)}${frac ? `.${frac}` : ''}`;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function goEscapeRune(cp: number, quote: string): string {
  const ch = String.fromCodePoint(cp);
  if (ch === quote || ch === '\\') return `\\${ch}`;
  if (PRINTABLE.test(ch)) return ch;
  const simple: Record<number, string> = { 7: 'a', 8: 'b', 12: 'f', 10: 'n', 13: 'r', 9: 't', 11: 'v' };
  if (simple[cp] !== undefined) return `\\${simple[cp]}`;
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** fmt's %q of a rune. */
function goQuoteRune(cp: number): string {
  return `'${goEscapeRune(cp, "'")}'`;
}

/** The library's quote(): Go's %q, then re-quoted with single quotes. */
function quote(s: string): string {
  let out = '';
  for (const ch of s) out += goEscapeRune(ch.codePointAt(0)!, '"');
  return `'${out.replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
}

const joinQuoted = (arr: string[]): string => arr.map(quote).join(', ');

/** kind.display: fmt's %v for enum/const values (numbers as written in the schema). */
function display(v: J): string {
  if (typeof v === 'string') return quote(v);
  if (v === null) return '<nil>';
  if (v instanceof JNum) return v.lit;
  if (typeof v === 'boolean') return String(v);
  return 'value';
}

const escapeTok = (t: string): string => t.replaceAll('~', '~0').replaceAll('/', '~1');
const jsonPtr = (toks: string[]): string => toks.map((t) => `/${escapeTok(t)}`).join('');

// ---------------------------------------------------------------------------------------------------------
// Formats: asserted only for drafts 4, 6 and 7 (from 2019-09 on, helm leaves format as an annotation).

class FormatError extends Error {}
const fail = (msg: string): never => {
  throw new FormatError(msg);
};

function validateIPv4(s: string): void {
  const groups = s.split('.');
  if (groups.length !== 4) fail('expected four decimals');
  for (const g of groups) {
    if (g.length > 1 && g[0] === '0') fail('leading zeros');
    if (!/^[+-]?\d+$/.test(g)) fail(`strconv.Atoi: parsing ${JSON.stringify(g)}: invalid syntax`);
    const n = Number(g);
    if (n < 0 || n > 255) fail('decimal must be between 0 and 255');
  }
}

function validateIPv6(s: string): void {
  if (!s.includes(':')) fail('missing colon');
  if (s.includes('%')) fail('zone id is not a part of ipv6 address');
  try {
    new URL(`http://[${s}]/`);
  } catch {
    fail(`ParseAddr(${JSON.stringify(s)}): invalid IPv6 address`);
  }
}

function validateHostname(s: string): void {
  s = s.endsWith('.') ? s.slice(0, -1) : s;
  if (Buffer.byteLength(s) > 253) fail('more than 253 characters long');
  for (const label of s.split('.')) {
    const len = Buffer.byteLength(label);
    if (len < 1 || len > 63) fail('label must be 1 to 63 characters long');
    if (label.startsWith('-')) fail('label starts with hyphen');
    if (label.endsWith('-')) fail('label ends with hyphen');
    for (const ch of label)
      if (!/[a-zA-Z0-9-]/.test(ch)) fail(`invalid character ${goQuoteRune(ch.codePointAt(0)!)}`);
  }
}

function validateEmail(s: string): void {
  if (Buffer.byteLength(s) > 254) fail('more than 255 characters long');
  const at = s.lastIndexOf('@');
  if (at === -1) fail('missing @');
  const local = s.slice(0, at);
  let domain = s.slice(at + 1);
  if (Buffer.byteLength(local) > 64) fail('local part more than 64 characters long');
  if (local.length > 1 && local.startsWith('"')) {
    const inner = local.slice(1, -1);
    if (inner.includes('\\') || inner.includes('"'))
      fail('backslash and quote are not allowed within quoted local part');
  } else {
    if (local.startsWith('.')) fail('starts with dot');
    if (local.endsWith('.')) fail('ends with dot');
    if (local.includes('..')) fail('consecutive dots');
    for (const ch of local)
      if (!/[a-zA-Z0-9.!#$%&'*+\-/=?^_`{|}~]/.test(ch))
        fail(`invalid character ${goQuoteRune(ch.codePointAt(0)!)}`);
  }
  const wrap = (prefix: string, f: () => void): void => {
    try {
      f();
    } catch (e) {
      fail(`${prefix}: ${(e as Error).message}`);
    }
  };
  if (domain.startsWith('[') && domain.endsWith(']')) {
    domain = domain.slice(1, -1);
    if (domain.startsWith('IPv6:')) return wrap('invalid ipv6 address', () => validateIPv6(domain.slice(5)));
    return wrap('invalid ipv4 address', () => validateIPv4(domain));
  }
  wrap('invalid domain', () => validateHostname(domain));
}

/** time.Parse with layout 2006-01-02, with Go's wording for the usual failures. */
function validateDate(s: string): void {
  const q = JSON.stringify(s);
  const y = /^\d{4}/.exec(s);
  if (!y) fail(`parsing time ${q} as "2006-01-02": cannot parse ${JSON.stringify(s)} as "2006"`);
  let rest = s.slice(4);
  const elems: [string, number][] = [
    ['01', 12],
    ['02', 31],
  ];
  const nums: number[] = [];
  for (const [el] of elems) {
    if (!rest.startsWith('-'))
      fail(`parsing time ${q} as "2006-01-02": cannot parse ${JSON.stringify(rest)} as "-"`);
    rest = rest.slice(1);
    const d = /^\d{2}/.exec(rest);
    if (!d) fail(`parsing time ${q} as "2006-01-02": cannot parse ${JSON.stringify(rest)} as "${el}"`);
    nums.push(Number(rest.slice(0, 2)));
    rest = rest.slice(2);
    if (el === '01' && (nums[0]! < 1 || nums[0]! > 12)) fail(`parsing time ${q}: month out of range`);
  }
  if (rest !== '') fail(`parsing time ${q}: extra text: ${JSON.stringify(rest)}`);
  const [mo, d] = nums as [number, number];
  const days = new Date(Date.UTC(Number(s.slice(0, 4)), mo, 0)).getUTCDate();
  if (d < 1 || d > days) fail(`parsing time ${q}: day out of range`);
}

function validateTime(str: string): void {
  if (str.length < 9) fail('less than 9 characters long');
  if (str[2] !== ':' || str[5] !== ':') fail('missing colon in correct place');
  const hms = str
    .slice(0, 8)
    .split(':')
    .map((t) => (/^[+-]?\d+$/.test(t) ? Number(t) : fail('invalid hour/min/sec')));
  if (hms.some((x) => x < 0)) fail('non-positive hour/min/sec');
  let [h, m] = hms as [number, number, number];
  const sec = hms[2]!;
  if (h > 23 || m > 59 || sec > 60) fail('hour/min/sec out of range');
  str = str.slice(8);
  if (str.startsWith('.')) {
    const digits = /^\d*/.exec(str.slice(1))![0].length;
    if (digits === 0) fail('no digits in second fraction');
    str = str.slice(1 + digits);
  }
  if (str !== 'z' && str !== 'Z') {
    if (str.length !== 6) fail('offset must be 6 characters long');
    const sign = str[0] === '+' ? -1 : str[0] === '-' ? 1 : fail('offset must begin with plus/minus');
    str = str.slice(1);
    if (str[2] !== ':') fail('missing colon in offset in correct place');
    const zhm = str
      .split(':')
      .map((t) => (/^[+-]?\d+$/.test(t) ? Number(t) : fail('invalid hour/min in offset')));
    if (zhm.some((x) => x < 0)) fail('non-positive hour/min in offset');
    const [zh, zm] = zhm as [number, number];
    if (zh > 23 || zm > 59) fail('hour/min in offset out of range');
    let hm = h * 60 + m + sign * (zh * 60 + zm);
    if (hm < 0) hm += 24 * 60;
    h = Math.floor(hm / 60);
    m = hm % 60;
  }
  if (sec >= 60 && (h !== 23 || m !== 59)) fail('invalid leap second');
}

function validateDateTime(s: string): void {
  if (s.length < 20) fail('less than 20 characters long');
  if (s[10] !== 't' && s[10] !== 'T') fail('11th character must be t or T');
  try {
    validateDate(s.slice(0, 10));
  } catch (e) {
    fail(`invalid date element: ${(e as Error).message}`);
  }
  try {
    validateTime(s.slice(11));
  } catch (e) {
    fail(`invalid time element: ${(e as Error).message}`);
  }
}

// Go's url.Parse rejects little; what it does reject most often is a space or control byte in the host.
function validateURI(s: string, absolute: boolean): void {
  if (!absolute && s.includes('\\')) fail('contains \\');
  if ([...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\x7f'))
    fail(`parse ${JSON.stringify(s)}: net/url: invalid control character in URL`);
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s);
  if (absolute && !scheme) fail('relative url');
}

function validateUUID(s: string): void {
  const lens = [8, 4, 4, 4, 12];
  const groups = s.split('-');
  if (groups.length !== 5) fail('must have 5 elements');
  groups.forEach((g, i) => {
    if (g.length !== lens[i]) fail(`element ${i + 1} must be ${lens[i]} characters long`);
    for (const ch of g)
      if (!/[0-9a-fA-F]/.test(ch)) fail(`non-hex character ${goQuoteRune(ch.codePointAt(0)!)}`);
  });
}

function validateDuration(s: string): void {
  if (!s.startsWith('P')) fail('must start with P');
  s = s.slice(1);
  if (s === '') fail('nothing after P');
  if (s.endsWith('W')) {
    const w = s.slice(0, -1);
    if (w === '') fail('no number in week');
    if (!/^\d+$/.test(w)) fail('invalid week');
    return;
  }
  const allUnits = ['YMD', 'HMS'];
  s.split('T').forEach((part, i) => {
    if (i !== 0 && part === '') fail('no time elements');
    if (i >= allUnits.length) fail('more than one T');
    let units = allUnits[i]!;
    while (part !== '') {
      const digits = /^\d*/.exec(part)![0].length;
      if (digits === 0) fail('missing number');
      part = part.slice(digits);
      if (part === '') fail('missing unit');
      const unit = part[0]!;
      const j = units.indexOf(unit);
      if (j === -1) {
        if (allUnits[i]!.includes(unit)) fail(`unit ${goQuoteRune(unit.codePointAt(0)!)} out of order`);
        fail(`invalid unit ${goQuoteRune(unit.codePointAt(0)!)}`);
      }
      units = units.slice(j + 1);
      part = part.slice(1);
    }
  });
}

function validateJSONPointer(s: string): void {
  if (s === '') return;
  if (!s.startsWith('/')) fail('not starting with /');
  for (const tok of s.split('/').slice(1)) {
    if (/~(?![01])/.test(tok)) fail('~ must be followed by 0 or 1');
  }
}

function validateRelativeJSONPointer(s: string): void {
  const digits = /^\d*/.exec(s)![0].length;
  if (digits === 0) fail('must start with non-negative integer');
  if (digits > 1 && s.startsWith('0')) fail('starts with zero');
  s = s.slice(digits);
  if (s !== '#') validateJSONPointer(s);
}

const FORMATS: Record<string, (s: string) => void> = {
  'json-pointer': validateJSONPointer,
  'relative-json-pointer': validateRelativeJSONPointer,
  uuid: validateUUID,
  duration: validateDuration,
  ipv4: validateIPv4,
  ipv6: validateIPv6,
  hostname: validateHostname,
  email: validateEmail,
  date: validateDate,
  time: validateTime,
  'date-time': validateDateTime,
  uri: (s) => validateURI(s, true),
  iri: (s) => validateURI(s, true),
  'uri-reference': (s) => validateURI(s, false),
  'iri-reference': (s) => validateURI(s, false),
  regex: (s) => {
    try {
      compileRegex(s);
    } catch (e) {
      fail(`error parsing regexp: ${(e as Error).message}`);
    }
  },
};

// ---------------------------------------------------------------------------------------------------------
// Regular expressions: Go's RE2 syntax, through the template engine's RE2 translation (sprig's regex*).
function compileRegex(src: string): GoRegexp {
  try {
    return compileGo(src);
  } catch (e) {
    throw new SchemaError((e as Error).message.replace(/^error parsing regexp: /, ''));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Compiled schemas.

const T_NULL = 1,
  T_BOOL = 2,
  T_NUM = 4,
  T_INT = 8,
  T_STR = 16,
  T_ARR = 32,
  T_OBJ = 64;
const TYPE_NAMES: [number, string][] = [
  [T_NULL, 'null'],
  [T_BOOL, 'boolean'],
  [T_NUM, 'number'],
  [T_INT, 'integer'],
  [T_STR, 'string'],
  [T_ARR, 'array'],
  [T_OBJ, 'object'],
];

interface Schema {
  loc: string;
  draft: number;
  bool?: boolean;
  types?: number;
  hasConst?: boolean;
  constVal?: J;
  enumVals?: J[];
  enumTypes?: number;
  format?: { name: string; fn: (s: string) => void };
  ref?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  items?: Schema | Schema[];
  additionalItems?: boolean | Schema;
  prefixItems?: Schema[];
  items2020?: Schema;
  properties?: Map<string, Schema>;
  patternProperties?: [GoRegexp, Schema][];
  additionalProperties?: boolean | Schema;
  dependencies?: Map<string, string[] | Schema>;
  dependentRequired?: Map<string, string[]>;
  dependentSchemas?: Map<string, Schema>;
  propertyNames?: Schema;
  contains?: Schema;
  minContains?: number;
  maxContains?: number;
  ifS?: Schema;
  thenS?: Schema;
  elseS?: Schema;
  minimum?: Dec;
  maximum?: Dec;
  exclusiveMinimum?: Dec;
  exclusiveMaximum?: Dec;
  multipleOf?: Dec;
  minLength?: number;
  maxLength?: number;
  pattern?: { re: GoRegexp; src: string };
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
}

const DRAFTS: Record<string, number> = {
  'http://json-schema.org/draft-04/schema': 4,
  'http://json-schema.org/draft-06/schema': 6,
  'http://json-schema.org/draft-07/schema': 7,
  'https://json-schema.org/draft/2019-09/schema': 2019,
  'https://json-schema.org/draft/2020-12/schema': 2020,
};

function draftOf(url: string): number | undefined {
  const u = url.replace(/#$/, '');
  return DRAFTS[u] ?? DRAFTS[u.replace(/^https:/, 'http:')] ?? DRAFTS[u.replace(/^http:/, 'https:')];
}

/** The JSON pointer text as the library puts it in a location: tokens escaped, then path-escaped. */
function encodePtr(ptr: string): string {
  return ptr
    .split('/')
    .map((t) => encodeURIComponent(t).replace(/%24/g, '$').replace(/%40/g, '@').replace(/%3A/gi, ':'))
    .join('/')
    .replace(/%26/g, '&')
    .replace(/%3D/g, '=')
    .replace(/%2B/g, '+')
    .replace(/%2C/g, ',')
    .replace(/%3B/g, ';');
}

function splitUrl(u: string): [string, string] {
  const h = u.indexOf('#');
  return h === -1 ? [u, ''] : [u.slice(0, h), u.slice(h + 1)];
}

function resolveUrl(ref: string, base: string): string {
  try {
    return new URL(ref, base).href;
  } catch {
    if (ref.startsWith('#')) return splitUrl(base)[0] + ref;
    try {
      return new URL(ref).href;
    } catch {
      throw new SchemaError(`invalid $ref ${JSON.stringify(ref)}`);
    }
  }
}

const SUBSCHEMA_MAPS = ['definitions', 'properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SUBSCHEMA_ONE = [
  'not',
  'additionalProperties',
  'additionalItems',
  'propertyNames',
  'contains',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
  'items',
];
const SUBSCHEMA_ARR = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];

class Compiler {
  private readonly resources = new Map<string, string>(); // resource URL → JSON pointer in the document
  private readonly anchors = new Map<string, string>(); // url#anchor → JSON pointer
  private readonly compiled = new Map<string, Schema>();
  readonly draft: number;

  constructor(private readonly doc: J) {
    let draft = 2020;
    if (isObj(doc)) {
      const s = doc.get('$schema');
      if (typeof s === 'string') {
        const d = draftOf(s);
        // helm would fetch an unknown metaschema over the network; see loadRemote.
        if (d === undefined) loadRemote(s);
        else draft = d;
      }
    }
    this.draft = draft;
    this.resources.set(ROOT_URL, '');
    this.scan(doc, '', ROOT_URL);
  }

  private scan(node: J, ptr: string, base: string): void {
    if (!isObj(node)) return;
    const idKey = this.draft === 4 ? 'id' : '$id';
    const id = node.get(idKey);
    if (typeof id === 'string' && !(this.draft < 2019 && id.startsWith('#'))) {
      const [u, frag] = splitUrl(resolveUrl(id, base));
      base = u;
      if (!this.resources.has(u)) this.resources.set(u, ptr);
      if (frag && this.draft < 2019) this.anchors.set(`${u}#${frag}`, ptr);
    } else if (typeof id === 'string') this.anchors.set(`${splitUrl(base)[0]}#${id.slice(1)}`, ptr);
    for (const k of ['$anchor', '$dynamicAnchor']) {
      const a = node.get(k);
      if (this.draft >= 2019 && typeof a === 'string') this.anchors.set(`${splitUrl(base)[0]}#${a}`, ptr);
    }
    for (const [k, v] of node) {
      const kp = `${ptr}/${escapeTok(k)}`;
      if (SUBSCHEMA_MAPS.includes(k) && isObj(v)) {
        for (const [k2, v2] of v) this.scan(v2, `${kp}/${escapeTok(k2)}`, base);
      } else if (SUBSCHEMA_ARR.includes(k) && Array.isArray(v)) {
        v.forEach((v2, i) => this.scan(v2, `${kp}/${i}`, base));
      } else if (SUBSCHEMA_ONE.includes(k)) this.scan(v, kp, base);
      else if (k === 'dependencies' && isObj(v)) {
        for (const [k2, v2] of v) this.scan(v2, `${kp}/${escapeTok(k2)}`, base);
      }
    }
  }

  private lookup(ptr: string, urlForError: string): J {
    let node: J = this.doc;
    for (const raw of ptr.split('/').slice(1)) {
      const tok = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      let next: J | undefined;
      if (isObj(node)) next = node.get(tok);
      else if (Array.isArray(node) && /^\d+$/.test(tok)) next = node[Number(tok)];
      if (next === undefined)
        throw new SchemaError(`json-pointer in ${JSON.stringify(urlForError)} not found`);
      node = next;
    }
    return node;
  }

  /** The base URL in effect at a pointer: the nearest enclosing resource. */
  private baseAt(ptr: string): string {
    let best = ROOT_URL;
    let bestLen = -1;
    for (const [u, p] of this.resources) {
      if ((ptr === p || ptr.startsWith(`${p}/`)) && p.length > bestLen) {
        best = u;
        bestLen = p.length;
      }
    }
    return best;
  }

  schemaAt(ptr: string): Schema {
    const have = this.compiled.get(ptr);
    if (have) return have;
    const loc = `${ROOT_URL}#${encodePtr(ptr)}`;
    const node = this.lookup(ptr, loc);
    const s: Schema = { loc, draft: this.draft };
    this.compiled.set(ptr, s);
    if (typeof node === 'boolean') {
      s.bool = node;
      return s;
    }
    if (!isObj(node)) return s;
    this.compileObj(s, node, ptr);
    return s;
  }

  private resolveRef(ref: string, ptr: string): Schema {
    const [u, rawFrag] = splitUrl(resolveUrl(ref, this.baseAt(ptr)));
    let frag = rawFrag;
    try {
      frag = decodeURIComponent(rawFrag);
    } catch {
      /* keep raw */
    }
    const resPtr = this.resources.get(u);
    if (resPtr === undefined) {
      if (u.startsWith('urn:')) return { loc: `${u}#`, draft: this.draft, bool: true };
      return loadRemote(u);
    }
    if (frag === '' || frag.startsWith('/')) {
      const target = resPtr + frag;
      this.lookup(target, `${u}#${encodePtr(frag)}`);
      return this.schemaAt(target);
    }
    const anchorPtr = this.anchors.get(`${u}#${frag}`);
    if (anchorPtr === undefined)
      throw new SchemaError(
        `anchor in ${JSON.stringify(`${u}#${frag}`)} not found in schema ${JSON.stringify(u)}`,
      );
    return this.schemaAt(anchorPtr);
  }

  private compileObj(s: Schema, o: JObj, ptr: string): void {
    const d = this.draft;
    const sub = (k: string): Schema | undefined =>
      o.has(k) ? this.schemaAt(`${ptr}/${escapeTok(k)}`) : undefined;
    const subArr = (k: string): Schema[] | undefined => {
      const v = o.get(k);
      return Array.isArray(v) ? v.map((_, i) => this.schemaAt(`${ptr}/${escapeTok(k)}/${i}`)) : undefined;
    };
    const subMap = (k: string): Map<string, Schema> | undefined => {
      const v = o.get(k);
      if (!isObj(v)) return undefined;
      const m = new Map<string, Schema>();
      for (const key of v.keys()) m.set(key, this.schemaAt(`${ptr}/${escapeTok(k)}/${escapeTok(key)}`));
      return m;
    };
    const num = (k: string): Dec | undefined => {
      const v = o.get(k);
      return v instanceof JNum ? (parseDec(v.lit) ?? undefined) : undefined;
    };
    const int = (k: string): number | undefined => {
      const n = num(k);
      return n && isIntDec(n) ? decToFloat(n) : undefined;
    };
    const strs = (v: J | undefined): string[] =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

    const ref = o.get('$ref');
    if (typeof ref === 'string') {
      s.ref = this.resolveRef(ref, ptr);
      // Before 2019-09, everything beside a $ref is ignored.
      if (d < 2019) return;
    }

    s.allOf = subArr('allOf');
    s.anyOf = subArr('anyOf');
    s.oneOf = subArr('oneOf');
    s.not = sub('not');
    if (d < 2020 && o.has('items')) {
      if (Array.isArray(o.get('items'))) {
        s.items = subArr('items');
        const ai = o.get('additionalItems');
        s.additionalItems = typeof ai === 'boolean' ? ai : sub('additionalItems');
      } else s.items = sub('items');
    }
    s.properties = subMap('properties');
    const pp = o.get('patternProperties');
    if (isObj(pp)) {
      s.patternProperties = [...pp.keys()].map((k) => [
        compileRegex(k),
        this.schemaAt(`${ptr}/patternProperties/${escapeTok(k)}`),
      ]);
    }
    const ap = o.get('additionalProperties');
    s.additionalProperties = typeof ap === 'boolean' ? ap : sub('additionalProperties');
    const deps = o.get('dependencies');
    if (isObj(deps)) {
      s.dependencies = new Map();
      for (const [k, v] of deps)
        s.dependencies.set(
          k,
          Array.isArray(v) ? strs(v) : this.schemaAt(`${ptr}/dependencies/${escapeTok(k)}`),
        );
    }

    const t = o.get('type');
    let types = 0;
    for (const name of typeof t === 'string' ? [t] : strs(t)) {
      const found = TYPE_NAMES.find(([, n]) => n === name);
      if (found) types |= found[0];
    }
    if (types) s.types = types;
    const en = o.get('enum');
    if (Array.isArray(en)) {
      s.enumVals = en;
      s.enumTypes = en.reduce<number>((acc, v) => acc | typeOfJ(v), 0);
    }
    s.multipleOf = num('multipleOf');
    s.maximum = num('maximum');
    if (o.get('exclusiveMaximum') === true) {
      s.exclusiveMaximum = s.maximum;
      s.maximum = undefined;
    } else s.exclusiveMaximum = num('exclusiveMaximum');
    s.minimum = num('minimum');
    if (o.get('exclusiveMinimum') === true) {
      s.exclusiveMinimum = s.minimum;
      s.minimum = undefined;
    } else s.exclusiveMinimum = num('exclusiveMinimum');
    s.minLength = int('minLength');
    s.maxLength = int('maxLength');
    const pat = o.get('pattern');
    if (typeof pat === 'string') s.pattern = { re: compileRegex(pat), src: pat };
    s.minItems = int('minItems');
    s.maxItems = int('maxItems');
    s.uniqueItems = o.get('uniqueItems') === true;
    s.maxProperties = int('maxProperties');
    s.minProperties = int('minProperties');
    if (Array.isArray(o.get('required'))) s.required = strs(o.get('required'));
    const f = o.get('format');
    if (d < 2019 && typeof f === 'string' && FORMATS[f]) s.format = { name: f, fn: FORMATS[f] };

    if (d >= 6) {
      s.contains = sub('contains');
      s.propertyNames = sub('propertyNames');
      if (o.has('const')) {
        s.hasConst = true;
        s.constVal = o.get('const')!;
      }
    }
    if (d >= 7) {
      s.ifS = sub('if');
      if (s.ifS) {
        const b = o.get('if');
        if (b !== false) s.thenS = sub('then');
        if (b !== true) s.elseS = sub('else');
      }
    }
    if (d >= 2019) {
      if (s.contains) {
        s.minContains = int('minContains');
        s.maxContains = int('maxContains');
      }
      const dr = o.get('dependentRequired');
      if (isObj(dr)) {
        s.dependentRequired = new Map();
        for (const [k, v] of dr) if (Array.isArray(v)) s.dependentRequired.set(k, strs(v));
      }
      s.dependentSchemas = subMap('dependentSchemas');
    }
    if (d >= 2020) {
      s.prefixItems = subArr('prefixItems');
      s.items2020 = sub('items');
    }
  }
}

/**
 * Divergence from helm: helm downloads http(s) and file: references (and unknown $schema metaschemas).
 * The hub renders for many tenants, so it never reaches out to the network or the disk for a schema;
 * the chart fails with an error that names the URL instead.
 */
function loadRemote(url: string): never {
  throw new SchemaError(
    `failing loading ${JSON.stringify(url)}: fleethub does not load remote schemas (helm would fetch it)`,
  );
}

function typeOfJ(v: J): number {
  if (v === null) return T_NULL;
  if (typeof v === 'boolean') return T_BOOL;
  if (typeof v === 'string') return T_STR;
  if (v instanceof JNum) return T_NUM;
  if (Array.isArray(v)) return T_ARR;
  return T_OBJ;
}

// ---------------------------------------------------------------------------------------------------------
// Validation, following validator.go keyword by keyword so that errors nest and order as the library's do.

type Val = GoValue;

interface VErr {
  loc: string[];
  /** The message; undefined for the "validation failed" of a group or a $ref. */
  msg?: string;
  ref?: boolean;
  causes: VErr[];
}

function typeOfV(v: Val): number {
  if (v === null) return T_NULL;
  if (typeof v === 'boolean') return T_BOOL;
  if (typeof v === 'string') return T_STR;
  if (isValNum(v)) return T_NUM;
  if (Array.isArray(v)) return T_ARR;
  if (isGoMap(v)) return T_OBJ;
  return 0;
}

function isInteger(v: Val): boolean {
  if (typeof v === 'bigint' || v instanceof GoSizedInt) return true;
  return typeof v === 'number' && Number.isFinite(v) && Number.isInteger(v);
}

function typeName(t: number): string {
  return TYPE_NAMES.find(([b]) => b === t)?.[1] ?? '';
}

function equalsVJ(v: Val, j: J): boolean {
  if (j === null) return v === null;
  if (typeof j === 'boolean') return v === j;
  if (typeof j === 'string') return v === j;
  if (j instanceof JNum) {
    if (!isValNum(v)) return false;
    const a = numDec(v);
    const b = parseDec(j.lit);
    return a !== null && b !== null && cmpDec(a, b) === 0;
  }
  if (Array.isArray(j))
    return Array.isArray(v) && v.length === j.length && j.every((x, i) => equalsVJ(v[i]!, x));
  if (!isGoMap(v)) return false;
  const keys = Object.keys(v);
  return keys.length === j.size && keys.every((k) => j.has(k) && equalsVJ(v[k]!, j.get(k)!));
}

function equalsVV(a: Val, b: Val): boolean {
  if (isValNum(a) && isValNum(b)) {
    const x = numDec(a);
    const y = numDec(b);
    return x !== null && y !== null && cmpDec(x, y) === 0;
  }
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => equalsVV(x, b[i]!));
  if (isGoMap(a)) {
    if (!isGoMap(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && equalsVV(a[k]!, b[k]!));
  }
  return a === b;
}

interface Scope {
  sch: Schema;
  refKw: string;
  vid: number;
  parent: Scope | null;
}

function kwLoc(sc: Scope): string {
  let loc = '';
  let cur: Scope = sc;
  while (cur.parent) {
    if (cur.refKw) loc = `/${escapeTok(cur.refKw)}${loc}`;
    else loc = cur.sch.loc.slice(cur.parent.sch.loc.length) + loc;
    cur = cur.parent;
  }
  return loc;
}

// Go iterates maps in random order, so helm lists several property errors in a different order on each run;
// sorted key order is one of the orders helm prints, and keeps the hub's output stable.
const sortedKeys = (o: GoMap): string[] => Object.keys(o).sort();

class Validator {
  private readonly errors: VErr[] = [];

  constructor(
    private readonly v: Val,
    private readonly vloc: string[],
    private readonly sch: Schema,
    private readonly scp: Scope,
  ) {}

  private err(msg: string | undefined, causes: VErr[] = []): VErr {
    return { loc: this.vloc, msg, causes };
  }

  private add(msg: string): void {
    this.errors.push(this.err(msg));
  }

  private addErr(e: VErr | null): void {
    if (e) this.errors.push(e);
  }

  private self(sch: Schema, refKw = ''): VErr | null {
    const scp: Scope = { sch, refKw, vid: this.scp.vid, parent: this.scp };
    return new Validator(this.v, this.vloc, sch, scp).run();
  }

  private val(sch: Schema, v: Val, tok: string): VErr | null {
    const scp: Scope = { sch, refKw: '', vid: this.scp.vid + 1, parent: this.scp };
    return new Validator(v, [...this.vloc, tok], sch, scp).run();
  }

  private ref(sch: Schema, kw: string): VErr | null {
    const e = this.self(sch, kw);
    if (!e) return null;
    const causes = e.msg === undefined && !e.ref ? e.causes : [e];
    return { loc: this.vloc, ref: true, causes };
  }

  run(): VErr | null {
    const s = this.sch;
    const v = this.v;
    if (s.bool !== undefined) return s.bool ? null : this.err('false schema');

    for (let p = this.scp.parent; p && p.vid === this.scp.vid; p = p.parent) {
      if (p.sch === s)
        return this.err(
          `both ${kwLoc(this.scp)} and ${kwLoc(p)} resolve to ${JSON.stringify(s.loc)} causing reference cycle`,
        );
    }

    const t = typeOfV(v);
    if (t === 0) return this.err(`invalid jsonType ${typeof v}`);
    if (s.types !== undefined) {
      const ok = (s.types & t) !== 0 || ((s.types & T_INT) !== 0 && t === T_NUM && isInteger(v));
      if (!ok) {
        const want = TYPE_NAMES.filter(([b]) => (s.types! & b) !== 0).map(([, n]) => n);
        return this.err(`got ${typeName(t)}, want ${want.join(' or ')}`);
      }
    }
    if (s.hasConst && !equalsVJ(v, s.constVal!)) {
      const c = s.constVal!;
      return this.err(Array.isArray(c) || isObj(c) ? "'const' failed" : `value must be ${display(c)}`);
    }
    if (s.enumVals) {
      const matched = (s.enumTypes! & t) !== 0 && s.enumVals.some((x) => equalsVJ(v, x));
      if (!matched) {
        const vals = s.enumVals;
        let msg: string;
        if (vals.some((x) => Array.isArray(x) || isObj(x))) msg = "'enum' failed";
        else if (vals.length === 1) msg = `value must be ${display(vals[0]!)}`;
        else msg = `value must be one of ${vals.map(display).join(', ')}`;
        return this.err(msg);
      }
    }
    if (s.format && typeof v === 'string') {
      try {
        s.format.fn(v);
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        return this.err(`${quote(v)} is not valid ${s.format.name}: ${e.message}`);
      }
    }
    if (s.ref) {
      const e = this.ref(s.ref, '$ref');
      if (s.draft < 2019) return e;
      this.addErr(e);
    }

    if (t === T_OBJ) this.obj(v as GoMap);
    else if (t === T_ARR) this.arr(v as Val[]);
    else if (t === T_STR) this.str(v as string);
    else if (t === T_NUM) this.num(v as ValNum);

    this.cond();

    if (this.errors.length === 0) return null;
    if (this.errors.length === 1) return this.errors[0]!;
    return this.err(undefined, this.errors);
  }

  private missing(obj: GoMap, reqd: string[]): string[] {
    return reqd.filter((p) => !Object.hasOwn(obj, p));
  }

  private obj(obj: GoMap): void {
    const s = this.sch;
    const n = Object.keys(obj).length;
    if (s.minProperties !== undefined && n < s.minProperties)
      this.add(`minProperties: got ${fmtInt(n)}, want ${fmtInt(s.minProperties)}`);
    if (s.maxProperties !== undefined && n > s.maxProperties)
      this.add(`maxProperties: got ${fmtInt(n)}, want ${fmtInt(s.maxProperties)}`);
    if (s.required) {
      const m = this.missing(obj, s.required);
      if (m.length === 1) this.add(`missing property ${quote(m[0]!)}`);
      else if (m.length > 1) this.add(`missing properties ${joinQuoted(m)}`);
    }
    if (s.dependencies) {
      for (const [p, dep] of s.dependencies) {
        if (!Object.hasOwn(obj, p)) continue;
        if (Array.isArray(dep)) {
          const m = this.missing(obj, dep);
          if (m.length) this.add(`properties ${joinQuoted(m)} required, if ${quote(p)} exists`);
        } else this.addErr(this.self(dep));
      }
    }
    const additional: string[] = [];
    for (const p of sortedKeys(obj)) {
      const pv = obj[p]!;
      let evaluated = false;
      const ps = s.properties?.get(p);
      if (ps) {
        evaluated = true;
        this.addErr(this.val(ps, pv, p));
      }
      for (const [re, sch] of s.patternProperties ?? []) {
        if (re.matchString(p)) {
          evaluated = true;
          this.addErr(this.val(sch, pv, p));
        }
      }
      if (!evaluated && s.additionalProperties !== undefined) {
        if (s.additionalProperties === false) additional.push(p);
        else if (s.additionalProperties !== true) this.addErr(this.val(s.additionalProperties, pv, p));
      }
    }
    if (additional.length) this.add(`additional properties ${joinQuoted(additional)} not allowed`);
    if (s.draft === 4) return;
    if (s.propertyNames) {
      for (const p of sortedKeys(obj)) {
        const scp: Scope = { sch: s.propertyNames, refKw: '', vid: 0, parent: null };
        const e = new Validator(p, [], s.propertyNames, scp).run();
        if (e) {
          // The library re-labels the name's own error tree, keeping its causes.
          const causes = e.msg === undefined && !e.ref ? e.causes : [e];
          this.errors.push({ loc: [], msg: `invalid propertyName ${quote(p)}`, causes });
        }
      }
    }
    if (s.draft === 6) return;
    for (const [p, sch] of s.dependentSchemas ?? []) if (Object.hasOwn(obj, p)) this.addErr(this.self(sch));
    for (const [p, reqd] of s.dependentRequired ?? []) {
      if (!Object.hasOwn(obj, p)) continue;
      const m = this.missing(obj, reqd);
      if (m.length) this.add(`properties ${joinQuoted(m)} required, if ${quote(p)} exists`);
    }
  }

  private arr(arr: Val[]): void {
    const s = this.sch;
    if (s.minItems !== undefined && arr.length < s.minItems)
      this.add(`minItems: got ${fmtInt(arr.length)}, want ${fmtInt(s.minItems)}`);
    if (s.maxItems !== undefined && arr.length > s.maxItems)
      this.add(`maxItems: got ${fmtInt(arr.length)}, want ${fmtInt(s.maxItems)}`);
    if (s.uniqueItems && arr.length > 1) {
      outer: for (let i = 1; i < arr.length; i++)
        for (let j = 0; j < i; j++)
          if (equalsVV(arr[i]!, arr[j]!)) {
            this.add(`items at ${fmtInt(j)} and ${fmtInt(i)} are equal`);
            break outer;
          }
    }
    // The library numbers items after a tuple from 0 again (a quirk kept for identical locations).
    if (s.draft < 2020) {
      let evaluated = 0;
      if (Array.isArray(s.items)) {
        evaluated = Math.min(arr.length, s.items.length);
        for (let i = 0; i < evaluated; i++) this.addErr(this.val(s.items[i]!, arr[i]!, String(i)));
      } else if (s.items) {
        arr.forEach((x, i) => this.addErr(this.val(s.items as Schema, x, String(i))));
        evaluated = arr.length;
      }
      if (s.additionalItems === false && evaluated !== arr.length)
        this.add(`last ${fmtInt(arr.length - evaluated)} additionalItem(s) not allowed`);
      else if (typeof s.additionalItems === 'object')
        arr
          .slice(evaluated)
          .forEach((x, i) => this.addErr(this.val(s.additionalItems as Schema, x, String(i))));
    } else {
      const evaluated = Math.min(s.prefixItems?.length ?? 0, arr.length);
      for (let i = 0; i < evaluated; i++) this.addErr(this.val(s.prefixItems![i]!, arr[i]!, String(i)));
      if (s.items2020)
        arr.slice(evaluated).forEach((x, i) => this.addErr(this.val(s.items2020!, x, String(i))));
    }
    if (s.contains) {
      const errs: VErr[] = [];
      const matched: number[] = [];
      arr.forEach((x, i) => {
        const e = this.val(s.contains!, x, String(i));
        if (e) errs.push(e);
        else matched.push(i);
      });
      if (s.minContains !== undefined) {
        if (matched.length < s.minContains) {
          const msg =
            matched.length === 0
              ? `min ${fmtInt(s.minContains)} items required to match contains schema, but none matched`
              : `min ${fmtInt(s.minContains)} items required to match contains schema, but matched ${fmtInt(matched.length)} items at ${matched.join(' ')}`;
          this.errors.push(this.err(msg, errs));
        }
      } else if (matched.length === 0) this.errors.push(this.err('no items match contains schema', errs));
      if (s.maxContains !== undefined && matched.length > s.maxContains)
        this.add(
          `max ${fmtInt(s.maxContains)} items required to match contains schema, but matched ${fmtInt(matched.length)} items at ${matched.join(' ')}`,
        );
    }
  }

  private str(str: string): void {
    const s = this.sch;
    const len = [...str].length;
    if (s.minLength !== undefined && len < s.minLength)
      this.add(`minLength: got ${fmtInt(len)}, want ${fmtInt(s.minLength)}`);
    if (s.maxLength !== undefined && len > s.maxLength)
      this.add(`maxLength: got ${fmtInt(len)}, want ${fmtInt(s.maxLength)}`);
    if (s.pattern) {
      if (!s.pattern.re.matchString(str))
        this.add(`${quote(str)} does not match pattern ${quote(s.pattern.src)}`);
    }
  }

  private num(v: ValNum): void {
    const s = this.sch;
    const n = numDec(v);
    if (n === null) return;
    const got = fmtFloat(decToFloat(n));
    const check = (name: string, want: Dec | undefined, bad: (c: number) => boolean): void => {
      if (want && bad(cmpDec(n, want))) this.add(`${name}: got ${got}, want ${fmtFloat(decToFloat(want))}`);
    };
    check('minimum', s.minimum, (c) => c < 0);
    check('maximum', s.maximum, (c) => c > 0);
    check('exclusiveMinimum', s.exclusiveMinimum, (c) => c <= 0);
    check('exclusiveMaximum', s.exclusiveMaximum, (c) => c >= 0);
    if (s.multipleOf && s.multipleOf.m !== 0n) {
      const [a, b] = align(n, s.multipleOf);
      if (a % b !== 0n) this.add(`multipleOf: got ${got}, want ${fmtFloat(decToFloat(s.multipleOf))}`);
    }
  }

  private cond(): void {
    const s = this.sch;
    if (s.not && this.self(s.not) === null) this.add("'not' failed");
    if (s.allOf?.length) {
      const errs = s.allOf.map((x) => this.self(x)).filter((e): e is VErr => e !== null);
      if (errs.length) this.errors.push(this.err("'allOf' failed", errs));
    }
    if (s.anyOf?.length) {
      const errs: VErr[] = [];
      let matched = false;
      for (const x of s.anyOf) {
        const e = this.self(x);
        if (!e) {
          matched = true;
          break;
        }
        errs.push(e);
      }
      if (!matched) this.errors.push(this.err("'anyOf' failed", errs));
    }
    if (s.oneOf?.length) {
      let matched = -1;
      const errs: VErr[] = [];
      for (let i = 0; i < s.oneOf.length; i++) {
        const e = this.self(s.oneOf[i]!);
        if (e) {
          if (matched === -1) errs.push(e);
        } else if (matched === -1) matched = i;
        else {
          this.add(`'oneOf' failed, subschemas ${fmtInt(matched)}, ${fmtInt(i)} matched`);
          break;
        }
      }
      if (matched === -1) this.errors.push(this.err("'oneOf' failed, none matched", errs));
    }
    if (s.ifS) {
      if (this.self(s.ifS) === null) {
        if (s.thenS) this.addErr(this.self(s.thenS));
      } else if (s.elseS) this.addErr(this.self(s.elseS));
    }
  }
}

function display_(e: VErr, indent: number, out: string[]): void {
  const skip = e.ref === true && e.causes.length === 1;
  if (!skip) {
    out.push(`\n${'  '.repeat(indent)}- at ${quote(jsonPtr(e.loc))}: ${e.msg ?? 'validation failed'}`);
    indent++;
  }
  for (const c of e.causes) display_(c, indent, out);
}

// ---------------------------------------------------------------------------------------------------------

/**
 * helm's ValidateAgainstSingleSchema followed by JSONSchemaValidationError.Error(): null when the values
 * are valid, else the per-chart text (validation errors end with a newline, schema errors do not).
 */
export function validateValues(schemaJson: Buffer | string, values: GoMap): string | null {
  let root: Schema;
  try {
    const doc = parseSchemaJSON(typeof schemaJson === 'string' ? schemaJson : schemaJson.toString('utf8'));
    if (typeof doc !== 'boolean' && !isObj(doc)) {
      return `"${ROOT_URL}#" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': got ${typeName(typeOfJ(doc))}, want boolean or object`;
    }
    root = new Compiler(doc).schemaAt('');
  } catch (e) {
    if (e instanceof SchemaError) return e.message;
    throw e;
  }
  const scp: Scope = { sch: root, refKw: '', vid: 0, parent: null };
  const e = new Validator(values, [], root, scp).run();
  if (!e) return null;
  const causes = e.msg === undefined && !e.ref ? e.causes : [e];
  const out: string[] = [];
  for (const c of causes) display_(c, 0, out);
  // Error() starts with "jsonschema validation failed with '...#'\n", which helm trims.
  return `${out.join('').slice(1)}\n`;
}

function goTypeOf(v: GoValue): string {
  if (typeof v === 'bigint') return 'int64';
  if (v instanceof GoSizedInt) return v.goType;
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** helm's ValidateAgainstSchema: the chart against its schema, then each subchart against its own values. */
export function validateAgainstSchema(chart: Chart, values: GoMap): string | null {
  let out = '';
  if (chart.schema !== null) {
    const err = validateValues(chart.schema, values);
    if (err !== null) out += `${chart.metadata.name}:\n${err}`;
  }
  for (const sub of chart.dependencies) {
    const raw = values[sub.metadata.name];
    if (raw === undefined || raw === null) continue;
    if (!isGoMap(raw)) {
      out += `${sub.metadata.name}:\ninvalid type for values: expected object (map), got ${goTypeOf(raw)}\n`;
      continue;
    }
    const err = validateAgainstSchema(sub, raw);
    if (err !== null) out += err;
  }
  return out === '' ? null : out;
}
