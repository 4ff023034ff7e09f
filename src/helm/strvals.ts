// helm's `--set` / `--set-string` parser (Go helm.sh/helm/v4/pkg/strvals ParseInto/ParseIntoString):
// comma-separated key=value pairs merged into a values map, with helm's typing, quirks and error texts.
import { goInt64, goTypeName, isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';

export interface ParseSetOptions {
  /** `--set-string`: every value stays a string (no bool/int/null typing). */
  stringValues?: boolean;
}

/** Largest list index helm accepts (`a[65536]` is allowed, `a[65537]` is not). */
export const MAX_INDEX = 65536;
/** Deepest dotted nesting helm accepts in one key. */
export const MAX_NESTED_NAME_LEVEL = 30;

/**
 * Merges one `--set` argument into `into` (mutating it) as helm's strvals.ParseInto does, or
 * ParseIntoString with `stringValues`. Throws an Error with helm's message (without the CLI's
 * `failed parsing --set data: ` prefix) when helm would fail; pairs before the failing one have
 * then already been merged, as in helm.
 */
export function parseSet(expr: string, into: GoMap, options: ParseSetOptions = {}): void {
  const p = new Parser(expr, options.stringValues === true);
  for (;;) {
    const err = p.key(into, 0);
    if (err === null) continue;
    if (err.eof) return;
    throw new Error(err.message);
  }
}

/** strvals.Parse / ParseString: the argument parsed into a fresh map. */
export function parseSetValues(expr: string, options: ParseSetOptions = {}): GoMap {
  const out: GoMap = {};
  parseSet(expr, out, options);
  return out;
}

// ---- errors, modelled on Go's error values ----

/** A Go error: `eof` is errors.Is(err, io.EOF) (kept through %w wrapping); `notList` is ErrNotList. */
interface GoErr {
  message: string;
  eof: boolean;
  notList?: boolean;
}

const EOF: GoErr = { message: 'EOF', eof: true };
const NOT_LIST: GoErr = { message: 'not a list', eof: false, notList: true };

function errorf(message: string): GoErr {
  return { message, eof: false };
}

function wrap(prefix: string, err: GoErr): GoErr {
  return { message: prefix + err.message, eof: err.eof, notList: err.notList === true };
}

/** A Go runtime panic (failed type assertion), recovered by the nearest key(). */
class Panic {
  constructor(readonly message: string) {}
}

function goDynamicType(v: GoValue | undefined): string {
  return v === undefined || v === null ? 'nil' : goTypeName(v);
}

function assertList(v: GoValue | undefined): GoValue[] {
  if (Array.isArray(v)) return v;
  throw new Panic(`interface conversion: interface {} is ${goDynamicType(v)}, not []interface {}`);
}

function assertMap(v: GoValue | undefined): GoMap {
  if (isGoMap(v)) return v;
  throw new Panic(`interface conversion: interface {} is ${goDynamicType(v)}, not map[string]interface {}`);
}

// ---- the parser ----

interface RunesResult {
  runes: string[];
  last: string;
  err: GoErr | null;
}

class Parser {
  private readonly runes: string[];
  private pos = 0;

  constructor(
    expr: string,
    private readonly stringValues: boolean,
  ) {
    // Code points, as bytes.Buffer.ReadRune yields them (a lone surrogate reads as U+FFFD).
    this.runes = Array.from(expr, (c) => (/^[\uD800-\uDFFF]$/.test(c) ? '\uFFFD' : c));
  }

  private readRune(): string | undefined {
    if (this.pos >= this.runes.length) return undefined;
    return this.runes[this.pos++];
  }

  private unreadRune(): void {
    this.pos--;
  }

  /** Reads until a stop rune (consumed, returned as last) or EOF; `\x` yields x literally. */
  private runesUntil(stop: string): RunesResult {
    const runes: string[] = [];
    for (;;) {
      const r = this.readRune();
      if (r === undefined) return { runes, last: '', err: EOF };
      if (stop.includes(r)) return { runes, last: r, err: null };
      if (r === '\\') {
        const next = this.readRune();
        if (next === undefined) return { runes, last: '', err: EOF };
        runes.push(next);
      } else {
        runes.push(r);
      }
    }
  }

  key(data: GoMap, nestedNameLevel: number): GoErr | null {
    try {
      return this.keyBody(data, nestedNameLevel);
    } catch (e) {
      if (e instanceof Panic) return errorf(`unable to parse key: ${e.message}`);
      throw e;
    }
  }

  private keyBody(data: GoMap, nestedNameLevel: number): GoErr | null {
    const { runes, last, err } = this.runesUntil('=[,.');
    const k = runes.join('');
    if (err !== null) {
      if (runes.length === 0) return err;
      return errorf(`key ${goQuote(k)} has no value`);
    }
    switch (last) {
      case '[': {
        const idx = this.keyIndex();
        if (idx.err !== null) return wrap('error parsing index: ', idx.err);
        let list: GoValue[] = [];
        if (Object.hasOwn(data, k)) list = assertList(data[k]);
        const res = this.listItem(list, idx.index, nestedNameLevel);
        set(data, k, res.list);
        return res.err;
      }
      case '=': {
        const vl = this.valList();
        if (vl.err === null) {
          set(data, k, vl.list);
          return null;
        }
        if (vl.err.eof) {
          set(data, k, '');
          return vl.err;
        }
        if (vl.err.notList === true) {
          const v = this.val();
          set(data, k, this.typed(v));
          return null;
        }
        return vl.err;
      }
      case ',':
        set(data, k, '');
        return errorf(`key ${goQuote(k)} has no value (cannot end with ,)`);
      default: {
        // '.': a nested map
        const level = nestedNameLevel + 1;
        if (level > MAX_NESTED_NAME_LEVEL) {
          return errorf(
            `value name nested level is greater than maximum supported nested level of ${MAX_NESTED_NAME_LEVEL}`,
          );
        }
        let inner: GoMap = {};
        if (Object.hasOwn(data, k)) inner = assertMap(data[k]);
        const e = this.key(inner, level);
        const empty = Object.keys(inner).length === 0;
        if (e === null && empty) return errorf(`key map ${goQuote(k)} has no value`);
        if (!empty) set(data, k, inner);
        return e;
      }
    }
  }

  /** The index between `[` and `]`, read with strconv.Atoi. */
  private keyIndex(): { index: bigint; err: GoErr | null } {
    const { runes, err } = this.runesUntil(']');
    if (err !== null) return { index: 0n, err };
    return atoi(runes.join(''));
  }

  private listItem(
    list: GoValue[],
    i: bigint,
    nestedNameLevel: number,
  ): { list: GoValue[]; err: GoErr | null } {
    if (i < 0n) return { list, err: errorf(`negative ${i} index not allowed`) };
    const { runes, last, err } = this.runesUntil('[.=');
    if (runes.length > 0) {
      return {
        list,
        err: errorf(`unexpected data at end of array index: [${runes.map(goQuoteRune).join(' ')}]`),
      };
    }
    if (err !== null) return { list, err };
    switch (last) {
      case '=': {
        const vl = this.valList();
        if (vl.err === null) return setIndex(list, i, vl.list);
        if (vl.err.eof) return setIndex(list, i, '');
        if (vl.err.notList === true) return setIndex(list, i, this.typed(this.val()));
        return { list, err: vl.err };
      }
      case '[': {
        const next = this.keyIndex();
        if (next.err !== null) return { list, err: wrap('error parsing index: ', next.err) };
        let current: GoValue[] = [];
        if (BigInt(list.length) > i) {
          const existing = list[Number(i)];
          if (existing !== null && existing !== undefined) current = assertList(existing);
        }
        const res = this.listItem(current, next.index, nestedNameLevel);
        if (res.err !== null) return { list, err: res.err };
        return setIndex(list, i, res.list);
      }
      default: {
        // '.': a map inside the list
        let inner: GoMap = {};
        if (BigInt(list.length) > i) {
          const existing = list[Number(i)];
          if (isGoMap(existing)) {
            inner = existing;
          } else {
            // Indices out of order: helm resets the element in place.
            inner = {};
            list[Number(i)] = inner;
          }
        }
        const e = this.key(inner, nestedNameLevel);
        if (e !== null) return { list, err: e };
        return setIndex(list, i, inner);
      }
    }
  }

  /** The rest of a plain value, up to the next unescaped comma. */
  private val(): string {
    return this.runesUntil(',').runes.join('');
  }

  /** `{a,b}` list syntax; NOT_LIST (nothing consumed) when the value does not start with `{`. */
  private valList(): { list: GoValue[]; err: GoErr | null } {
    const r = this.readRune();
    if (r === undefined) return { list: [], err: EOF };
    if (r !== '{') {
      this.unreadRune();
      return { list: [], err: NOT_LIST };
    }
    const list: GoValue[] = [];
    for (;;) {
      const { runes, last, err } = this.runesUntil(',}');
      if (err !== null) {
        return { list, err: err.eof ? errorf("list must terminate with '}'") : err };
      }
      list.push(this.typed(runes.join('')));
      if (last === '}') {
        // A comma right after the closing brace is consumed.
        const after = this.readRune();
        if (after !== undefined && after !== ',') this.unreadRune();
        return { list, err: null };
      }
    }
  }

  private typed(val: string): GoValue {
    return this.stringValues ? val : typedVal(val);
  }
}

function set(data: GoMap, key: string, val: GoValue): void {
  if (key.length === 0) return;
  // defineProperty, so that a key like `__proto__` is an ordinary entry as in a Go map.
  Object.defineProperty(data, key, { value: val, writable: true, enumerable: true, configurable: true });
}

function setIndex(list: GoValue[], index: bigint, val: GoValue): { list: GoValue[]; err: GoErr | null } {
  if (index < 0n) return { list, err: errorf(`negative ${index} index not allowed`) };
  if (index > BigInt(MAX_INDEX)) {
    return {
      list,
      err: errorf(`index of ${index} is greater than maximum supported index of ${MAX_INDEX}`),
    };
  }
  const i = Number(index);
  let out = list;
  if (list.length <= i) {
    // Go allocates a new slice when growing; the old one is left as it was.
    out = list.slice();
    while (out.length <= i) out.push(null);
  }
  out[i] = val;
  return { list: out, err: null };
}

// ---- value typing (strvals.typedVal) ----

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** true/false/null (case-insensitive), "0", and base-10 int64s not starting with '0'; else the string. */
export function typedVal(val: string): GoValue {
  if (equalFold(val, 'true')) return true;
  if (equalFold(val, 'false')) return false;
  if (equalFold(val, 'null')) return null;
  if (val === '0') return goInt64(0n);
  if (val.length !== 0 && val[0] !== '0') {
    const n = parseInt64(val);
    if (n !== undefined) return goInt64(n);
  }
  return val;
}

/** strings.EqualFold against an ASCII lower-case word (Unicode folding: ſ folds to s). */
function equalFold(s: string, word: string): boolean {
  const a = Array.from(s);
  if (a.length !== word.length) return false;
  return a.every((c, i) => {
    const folded = c === '\u017F' ? 's' : /^[A-Z]$/.test(c) ? c.toLowerCase() : c;
    return folded === word[i];
  });
}

/** strconv.ParseInt(s, 10, 64) without the error details. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s.startsWith('+') ? s.slice(1) : s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** strconv.Atoi on a 64-bit platform, with its error texts. */
function atoi(s: string): { index: bigint; err: GoErr | null } {
  const fail = (why: string) => ({
    index: 0n,
    err: errorf(`strconv.Atoi: parsing ${goQuote(s)}: ${why}`),
  });
  const m = /^([+-]?)([0-9]*)(.*)$/s.exec(s);
  const sign = m?.[1] ?? '';
  const digits = m?.[2] ?? '';
  const rest = m?.[3] ?? '';
  if (digits.length === 0) return fail('invalid syntax');
  // ParseUint reports uint64 overflow as soon as it happens, before looking at later characters.
  const magnitude = BigInt(digits);
  if (magnitude > 2n ** 64n - 1n) return fail('value out of range');
  if (rest !== '') return fail('invalid syntax');
  if (magnitude > (sign === '-' ? 2n ** 63n : 2n ** 63n - 1n)) return fail('value out of range');
  return { index: sign === '-' ? -magnitude : magnitude, err: null };
}

// ---- Go's %q ----

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function quoteRuneBody(r: string, quote: string): string {
  const cp = r.codePointAt(0) ?? 0;
  if (r === quote || r === '\\') return '\\' + r;
  if (PRINTABLE.test(r)) return r;
  switch (cp) {
    case 7:
      return '\\a';
    case 8:
      return '\\b';
    case 12:
      return '\\f';
    case 10:
      return '\\n';
    case 13:
      return '\\r';
    case 9:
      return '\\t';
    case 11:
      return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

/** strconv.Quote / fmt %q of a string. */
function goQuote(s: string): string {
  return '"' + Array.from(s, (r) => quoteRuneBody(r, '"')).join('') + '"';
}

/** strconv.QuoteRune / fmt %q of a rune. */
function goQuoteRune(r: string): string {
  return "'" + quoteRuneBody(r, "'") + "'";
}
