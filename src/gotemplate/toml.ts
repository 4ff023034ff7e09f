// helm's toToml/fromToml: a port of the BurntSushi/toml v1.6.0 encoder, lexer and parser helm 4.1.4
// links, so the text written, the values read and the error messages are byte-identical to helm's.

import { quote } from './fmt.js';
import { formatFloat } from './strconv.js';
import { GoTime, formatTime, localLocation, type GoLocation } from './sprig/dates.js';
import { tagSlice } from './sprig/cast.js';
import { GoSizedInt, goInt64, isGoOpaque, type GoMap, type GoValue } from './value.js';

// ---------------------------------------------------------------------------------------------
// Shared: keys as BurntSushi prints them.

const DBL_QUOTED: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t' };
Object.assign(DBL_QUOTED, { '\n': '\\n', '\f': '\\f', '\r': '\\r' });

/** BurntSushi's dblQuotedReplacer: only `"`, `\` and control characters are escaped. */
function escapeBasic(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/["\\\x00-\x1f\x7f]/g, (c) => {
    return DBL_QUOTED[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
  });
}

function isBareKeyChar(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x5f ||
    c === 0x2d
  );
}

function keyPart(k: string): string {
  if (k === '') return '""';
  for (let i = 0; i < k.length; i++) if (!isBareKeyChar(k.charCodeAt(i))) return '"' + escapeBasic(k) + '"';
  return k;
}

/** toml.Key.String: the dotted key, each part quoted only when it is not bare. */
function keyString(key: readonly string[]): string {
  return key.map(keyPart).join('.');
}

/** Go's sort order for map keys: bytewise on UTF-8, which differs from UTF-16 order above U+D7FF. */
function byteLess(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return Buffer.compare(x, y);
}

// The zones BurntSushi gives local datetimes, dates and times: the process's offset at start-up
// under names that let the encoder write them back without an offset.
let localZones: { datetime: GoLocation; date: GoLocation; time: GoLocation } | undefined;
function zones(): { datetime: GoLocation; date: GoLocation; time: GoLocation } {
  if (!localZones) {
    const { offset } = localLocation().lookup(Math.floor(Date.now() / 1000));
    const fixed = (name: string): GoLocation => ({ name, lookup: () => ({ offset, abbrev: name }) });
    localZones = { datetime: fixed('datetime-local'), date: fixed('date-local'), time: fixed('time-local') };
  }
  return localZones;
}

const UTC: GoLocation = { name: 'UTC', lookup: () => ({ offset: 0, abbrev: 'UTC' }) };

// ---------------------------------------------------------------------------------------------
// Encoding (encode.go).

class TomlEncodeError extends Error {}

type TomlType = 'Integer' | 'Float' | 'Datetime' | 'String' | 'Bool' | 'Array' | 'Hash' | 'ArrayHash';

function isTable(t: TomlType | undefined): boolean {
  return t === 'Hash' || t === 'ArrayHash';
}

// tomlTypeOfGo: nil has no type; arrays are checked element by element, which is where an array
// holding nil anywhere (even after the first element that is not a table) is refused.
function tomlTypeOf(v: GoValue): TomlType | undefined {
  if (v === null) return undefined;
  switch (typeof v) {
    case 'boolean':
      return 'Bool';
    case 'bigint':
      return 'Integer';
    case 'number':
      return 'Float';
    case 'string':
      return 'String';
    case 'function':
      throw new TomlEncodeError('toml: unsupported type: func');
  }
  if (Array.isArray(v)) return isTableArray(v) ? 'ArrayHash' : 'Array';
  if (v instanceof GoTime) return 'Datetime';
  if (v instanceof GoSizedInt) return 'Integer';
  // Other Go values templates can hold (semver versions …) are TextMarshalers: written as strings.
  if (isGoOpaque(v)) return 'String';
  return 'Hash';
}

function isTableArray(a: GoValue[]): boolean {
  if (a.length === 0) return false;
  let ret = true;
  for (const e of a) {
    const t = tomlTypeOf(e);
    if (t === undefined) throw new TomlEncodeError('toml: cannot encode array with nil element');
    if (ret && t !== 'Hash') ret = false;
  }
  return ret;
}

const RFC3339_NANO = '2006-01-02T15:04:05.999999999Z07:00';

class Encoder {
  out = '';
  private hasWritten = false;
  private readonly indent = '  ';

  encode(key: string[], v: GoValue): void {
    if (v === null) return;
    if (isGoOpaque(v)) {
      this.writeKeyValue(key, v, false);
      return;
    }
    switch (typeof v) {
      case 'boolean':
      case 'bigint':
      case 'number':
      case 'string':
        this.writeKeyValue(key, v, false);
        return;
      case 'function':
        throw new TomlEncodeError(`unsupported type for key '${keyString(key)}': func`);
    }
    if (Array.isArray(v)) {
      if (tomlTypeOf(v) === 'ArrayHash') this.eArrayOfTables(key, v);
      else this.writeKeyValue(key, v, false);
      return;
    }
    this.eTable(key, v);
  }

  private eElement(v: GoValue): void {
    if (v instanceof GoTime) {
      const z = zones();
      let layout = RFC3339_NANO;
      if (v.loc === z.datetime) layout = '2006-01-02T15:04:05.999999999';
      else if (v.loc === z.date) layout = '2006-01-02';
      else if (v.loc === z.time) layout = '15:04:05.999999999';
      // Local kinds are written in UTC: with a non-zero local offset they do not round-trip.
      const t = layout === RFC3339_NANO ? v : new GoTime(v.sec, v.nsec, UTC);
      this.write(formatTime(t, layout));
      return;
    }
    if (v instanceof GoSizedInt) {
      this.write(v.value.toString());
      return;
    }
    if (isGoOpaque(v)) {
      this.writeQuoted(v.marshalText?.() ?? v.format());
      return;
    }
    if (v === null) throw new Error('reflect: call of reflect.Value.Interface on zero Value');
    switch (typeof v) {
      case 'string':
        this.writeQuoted(v);
        return;
      case 'boolean':
        this.write(v ? 'true' : 'false');
        return;
      case 'bigint':
        this.write(v.toString());
        return;
      case 'number':
        if (Number.isNaN(v)) this.write('nan');
        else if (!Number.isFinite(v)) this.write(v < 0 ? '-inf' : 'inf');
        else this.write(floatAddDecimal(formatFloat(v, 'g', -1)));
        return;
      case 'function':
        throw new TomlEncodeError('toml: unexpected type: func()');
    }
    if (Array.isArray(v)) {
      this.write('[');
      v.forEach((e, i) => {
        this.eElement(e);
        if (i !== v.length - 1) this.write(', ');
      });
      this.write(']');
      return;
    }
    this.eMap([], v, true);
  }

  private writeQuoted(s: string): void {
    this.write('"' + escapeBasic(s) + '"');
  }

  private eArrayOfTables(key: string[], a: GoValue[]): void {
    if (key.length === 0) throw new TomlEncodeError('toml: top-level values must be Go maps or structs');
    for (const t of a) {
      if (t === null) continue;
      this.newline();
      this.write(`${this.indentStr(key)}[[${keyString(key)}]]`);
      this.newline();
      this.eMap(key, t as GoMap, false);
    }
  }

  private eTable(key: string[], m: GoMap): void {
    // A blank line between top-level tables, unless nothing has been written yet.
    if (key.length === 1) this.newline();
    if (key.length > 0) {
      this.write(`${this.indentStr(key)}[${keyString(key)}]`);
      this.newline();
    }
    this.eMap(key, m, false);
  }

  // Keys holding plain values come first, then the ones holding tables or arrays of tables, as a
  // key written after a [table] header would belong to that table.
  private eMap(key: string[], m: GoMap, inline: boolean): void {
    const direct: string[] = [];
    const sub: string[] = [];
    for (const k of Object.keys(m)) (isTable(tomlTypeOf(m[k] ?? null)) ? sub : direct).push(k);
    const writeKeys = (keys: string[], trailComma: boolean): void => {
      keys.sort(byteLess);
      keys.forEach((k, i) => {
        const val = m[k] ?? null;
        // A nil value is skipped along with its comma: `{a = 1, }` when the last key is nil.
        if (val === null) return;
        if (inline) {
          this.writeKeyValue([k], val, true);
          if (trailComma || i !== keys.length - 1) this.write(', ');
        } else {
          this.encode([...key, k], val);
        }
      });
    };
    if (inline) this.write('{');
    writeKeys(direct, sub.length > 0);
    writeKeys(sub, false);
    if (inline) this.write('}');
  }

  private newline(): void {
    if (this.hasWritten) this.write('\n');
  }

  private writeKeyValue(key: string[], v: GoValue, inline: boolean): void {
    if (key.length === 0) {
      this.eElement(v);
      return;
    }
    this.write(`${this.indentStr(key)}${keyPart(key[key.length - 1]!)} = `);
    this.eElement(v);
    if (!inline) this.newline();
  }

  private write(s: string): void {
    this.out += s;
    this.hasWritten = true;
  }

  private indentStr(key: string[]): string {
    return this.indent.repeat(key.length - 1);
  }
}

function floatAddDecimal(s: string): string {
  return s.includes('e') || s.includes('.') ? s : s + '.0';
}

/**
 * helm's toToml: the TOML document BurntSushi's encoder writes, or its error text (helm returns the
 * message instead of failing). A top-level scalar or inline array is written as a bare value.
 */
export function toToml(v: GoValue): string {
  // reflect.ValueOf(nil) has no type: the encoder panics and text/template reports the panic.
  if (v === null) throw new Error('reflect: call of reflect.Value.Type on zero Value');
  const enc = new Encoder();
  try {
    enc.encode([], v);
  } catch (e) {
    if (e instanceof TomlEncodeError) return e.message;
    throw e;
  }
  return enc.out;
}

// ---------------------------------------------------------------------------------------------
// Lexing (lex.go): a state machine emitting items; the parser pulls them one at a time, so an
// error the lexer finds late surfaces only after the parser has used (and checked) earlier items.

const enum It {
  Error,
  EOF,
  Text,
  String,
  StringEsc,
  RawString,
  MultilineString,
  RawMultilineString,
  Bool,
  Integer,
  Float,
  Datetime,
  Array,
  ArrayEnd,
  TableStart,
  TableEnd,
  ArrayTableStart,
  ArrayTableEnd,
  KeyStart,
  KeyEnd,
  CommentStart,
  InlineTableStart,
  InlineTableEnd,
}

interface Pos {
  line: number;
}

interface Item {
  typ: It;
  val: string;
  err?: string;
  pos: Pos;
}

const EOF = 0;
const RUNE_ERROR = 0xfffd;

type StateFn = (lx: Lexer) => StateFn | null;

class Lexer {
  start = 0;
  pos = 0;
  line = 1;
  state: StateFn | null = lexTop;
  items: Item[] = [];
  esc = false;
  prevWidths = [0, 0, 0, 0];
  nprev = 0;
  atEOF = false;
  stack: StateFn[] = [];

  constructor(readonly input: string) {}

  nextItem(): Item {
    for (;;) {
      const it = this.items.shift();
      if (it) return it;
      if (this.state === null) throw new Error('BUG in lexer: no state');
      this.state = this.state(this);
    }
  }

  push(s: StateFn): void {
    this.stack.push(s);
  }

  pop(): StateFn {
    const s = this.stack.pop();
    if (!s) throw new Error('BUG in lexer: no states to pop');
    return s;
  }

  current(): string {
    return this.input.slice(this.start, this.pos);
  }

  getPos(): Pos {
    return { line: this.line };
  }

  emit(typ: It): void {
    this.items.push({ typ, pos: this.getPos(), val: this.current() });
    this.start = this.pos;
  }

  emitTrim(typ: It): void {
    this.items.push({ typ, pos: this.getPos(), val: this.current().trim() });
    this.start = this.pos;
  }

  next(): number {
    if (this.atEOF) throw new Error('BUG in lexer: next called after EOF');
    if (this.pos >= this.input.length) {
      this.atEOF = true;
      return EOF;
    }
    if (this.input.charCodeAt(this.pos) === 0x0a) this.line++;
    this.prevWidths[3] = this.prevWidths[2]!;
    this.prevWidths[2] = this.prevWidths[1]!;
    this.prevWidths[1] = this.prevWidths[0]!;
    if (this.nprev < 4) this.nprev++;
    const r = this.input.codePointAt(this.pos)!;
    const w = r > 0xffff ? 2 : 1;
    if (
      isControl(r) ||
      (r === 0x0d && (this.input.length - 1 === this.pos || this.input.charCodeAt(this.pos + 1) !== 0x0a))
    ) {
      this.errorPos(`TOML files cannot contain control characters: '0x${r.toString(16).padStart(2, '0')}'`);
      return RUNE_ERROR;
    }
    this.prevWidths[0] = w;
    this.pos += w;
    return r;
  }

  ignore(): void {
    this.start = this.pos;
  }

  backup(): void {
    if (this.atEOF) {
      this.atEOF = false;
      return;
    }
    if (this.nprev < 1) throw new Error('BUG in lexer: backed up too far');
    const w = this.prevWidths[0]!;
    this.prevWidths[0] = this.prevWidths[1]!;
    this.prevWidths[1] = this.prevWidths[2]!;
    this.prevWidths[2] = this.prevWidths[3]!;
    this.nprev--;
    this.pos -= w;
    if (this.pos < this.input.length && this.input.charCodeAt(this.pos) === 0x0a) this.line--;
  }

  accept(valid: number): boolean {
    if (this.next() === valid) return true;
    this.backup();
    return false;
  }

  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  skip(pred: (r: number) => boolean): void {
    for (;;) {
      const r = this.next();
      if (pred(r)) continue;
      this.backup();
      this.ignore();
      return;
    }
  }

  error(msg: string): null {
    if (this.atEOF) return this.errorPrevLine(msg);
    this.items.push({ typ: It.Error, pos: this.getPos(), val: '', err: msg });
    return null;
  }

  /** Unexpected EOF or newline errors are reported on the line they follow. */
  errorPrevLine(msg: string): null {
    this.items.push({ typ: It.Error, pos: { line: this.line - 1 }, val: '', err: msg });
    return null;
  }

  errorPos(msg: string): null {
    this.items.push({ typ: It.Error, pos: this.getPos(), val: '', err: msg });
    return null;
  }

  errorf(msg: string): null {
    if (this.atEOF) {
      let line = this.line;
      if (this.pos >= 1 && this.input.charCodeAt(this.pos - 1) === 0x0a) line--;
      this.items.push({ typ: It.Error, pos: { line }, val: '', err: msg });
      return null;
    }
    this.items.push({ typ: It.Error, pos: this.getPos(), val: '', err: msg });
    return null;
  }
}

const ch = (s: string): number => s.charCodeAt(0);
const isWhitespace = (r: number): boolean => r === 0x09 || r === 0x20;
const isNL = (r: number): boolean => r === 0x0a || r === 0x0d;
const isControl = (r: number): boolean =>
  r !== 0x09 && r !== 0x0d && r !== 0x0a && ((r >= 0 && r <= 0x1f) || r === 0x7f);
const isDigit = (r: number): boolean => r >= 0x30 && r <= 0x39;
const isBinary = (r: number): boolean => r === 0x30 || r === 0x31;
const isOctal = (r: number): boolean => r >= 0x30 && r <= 0x37;
const isHex = (r: number): boolean => isDigit(r) || ((r | 0x20) >= 0x61 && (r | 0x20) <= 0x66);
const LETTER = /^\p{L}$/u;
const isLetter = (r: number): boolean => LETTER.test(String.fromCodePoint(r));

/** Go's %q of a rune. */
function quoteRune(r: number): string {
  if (r === 0x27) return "'\\''";
  if (r === 0x22) return `'"'`;
  return "'" + quote(String.fromCodePoint(r)).slice(1, -1) + "'";
}

/** Go's %c. */
const runeStr = (r: number): string => String.fromCodePoint(r);

function runeOrEOF(r: number): string {
  return r === EOF ? 'end of file' : `'${runeStr(r)}'`;
}

function lexTop(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (isWhitespace(r) || isNL(r)) return lexSkip(lx, lexTop);
  switch (r) {
    case ch('#'):
      lx.push(lexTop);
      return lexCommentStart;
    case ch('['):
      return lexTableStart;
    case EOF:
      if (lx.pos > lx.start) return lx.errorf('unexpected EOF');
      lx.emit(It.EOF);
      return null;
  }
  lx.backup();
  lx.push(lexTopEnd);
  return lexKeyStart;
}

function lexTopEnd(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (r === ch('#')) {
    lx.push(lexTop);
    return lexCommentStart;
  }
  if (isWhitespace(r)) return lexTopEnd;
  if (isNL(r)) {
    lx.ignore();
    return lexTop;
  }
  if (r === EOF) {
    lx.emit(It.EOF);
    return null;
  }
  return lx.errorf(
    `expected a top-level item to end with a newline, comment, or EOF, but got ${quoteRune(r)} instead`,
  );
}

function lexTableStart(lx: Lexer): StateFn {
  if (lx.peek() === ch('[')) {
    lx.next();
    lx.emit(It.ArrayTableStart);
    lx.push(lexArrayTableEnd);
  } else {
    lx.emit(It.TableStart);
    lx.push(lexTableEnd);
  }
  return lexTableNameStart;
}

function lexTableEnd(lx: Lexer): StateFn {
  lx.emit(It.TableEnd);
  return lexTopEnd;
}

function lexArrayTableEnd(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (r !== ch(']'))
    return lx.errorf(`expected end of table array name delimiter ']', but got ${quoteRune(r)} instead`);
  lx.emit(It.ArrayTableEnd);
  return lexTopEnd;
}

function lexTableNameStart(lx: Lexer): StateFn | null {
  lx.skip(isWhitespace);
  const r = lx.peek();
  if (r === ch(']') || r === EOF)
    return lx.errorf('unexpected end of table name (table names cannot be empty)');
  if (r === ch('.')) return lx.errorf('unexpected table separator (table names cannot be empty)');
  if (r === ch('"') || r === ch("'")) {
    lx.ignore();
    lx.push(lexTableNameEnd);
    return lexQuotedName;
  }
  lx.push(lexTableNameEnd);
  return lexBareName;
}

function lexTableNameEnd(lx: Lexer): StateFn | null {
  lx.skip(isWhitespace);
  const r = lx.next();
  if (r === ch('.')) {
    lx.ignore();
    return lexTableNameStart;
  }
  if (r === ch(']')) return lx.pop();
  return lx.errorf(`expected '.' or ']' to end table name, but got ${quoteRune(r)} instead`);
}

function lexBareName(lx: Lexer): StateFn {
  const r = lx.next();
  if (isBareKeyChar(r)) return lexBareName;
  lx.backup();
  lx.emit(It.Text);
  return lx.pop();
}

function lexQuotedName(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (r === ch('"')) {
    lx.ignore();
    return lexString;
  }
  if (r === ch("'")) {
    lx.ignore();
    return lexRawString;
  }
  if (isWhitespace(r)) return lexSkip(lx, lexValue);
  if (r === EOF) return lx.errorf('unexpected EOF; expected value');
  return lx.errorf(`expected value but found ${quoteRune(r)} instead`);
}

function lexKeyStart(lx: Lexer): StateFn | null {
  lx.skip(isWhitespace);
  const r = lx.peek();
  if (r === ch('=') || r === EOF) return lx.errorf("unexpected '=': key name appears blank");
  if (r === ch('.')) return lx.errorf("unexpected '.': keys cannot start with a '.'");
  if (r === ch('"') || r === ch("'")) lx.ignore();
  lx.emit(It.KeyStart);
  return lexKeyNameStart;
}

function lexKeyNameStart(lx: Lexer): StateFn | null {
  lx.skip(isWhitespace);
  const r = lx.peek();
  if (r === ch('"') || r === ch("'")) {
    lx.ignore();
    lx.push(lexKeyEnd);
    return lexQuotedName;
  }
  if (r === ch('=') || r === EOF) return lx.errorf("unexpected '='");
  if (r === ch('.')) return lx.errorf("unexpected '.'");
  lx.push(lexKeyEnd);
  return lexBareName;
}

function lexKeyEnd(lx: Lexer): StateFn | null {
  lx.skip(isWhitespace);
  const r = lx.next();
  if (isWhitespace(r)) return lexSkip(lx, lexKeyEnd);
  if (r === EOF) return lx.errorf("unexpected EOF; expected key separator '='");
  if (r === ch('.')) {
    lx.ignore();
    return lexKeyNameStart;
  }
  if (r === ch('=')) {
    lx.emit(It.KeyEnd);
    return lexSkip(lx, lexValue);
  }
  if (r === 0x0a) return lx.errorPrevLine(`expected '.' or '=', but got ${quoteRune(r)} instead`);
  return lx.errorf(`expected '.' or '=', but got ${quoteRune(r)} instead`);
}

function lexValue(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (isWhitespace(r)) return lexSkip(lx, lexValue);
  if (isDigit(r)) {
    lx.backup();
    return lexNumberOrDateStart;
  }
  switch (r) {
    case ch('['):
      lx.ignore();
      lx.emit(It.Array);
      return lexArrayValue;
    case ch('{'):
      lx.ignore();
      lx.emit(It.InlineTableStart);
      return lexInlineTableValue;
    case ch('"'):
      if (lx.accept(ch('"'))) {
        if (lx.accept(ch('"'))) {
          lx.ignore();
          return lexMultilineString;
        }
        lx.backup();
      }
      lx.ignore();
      return lexString;
    case ch("'"):
      if (lx.accept(ch("'"))) {
        if (lx.accept(ch("'"))) {
          lx.ignore();
          return lexMultilineRawString;
        }
        lx.backup();
      }
      lx.ignore();
      return lexRawString;
    case ch('.'):
      return lx.errorf("floats must start with a digit, not '.'");
    case ch('i'):
    case ch('n'):
      if ((lx.accept(ch('n')) && lx.accept(ch('f'))) || (lx.accept(ch('a')) && lx.accept(ch('n')))) {
        lx.emit(It.Float);
        return lx.pop();
      }
      break;
    case ch('-'):
    case ch('+'):
      return lexDecimalNumberStart;
  }
  if (isLetter(r)) {
    lx.backup();
    return lexBool;
  }
  if (r === EOF) return lx.errorf('unexpected EOF; expected value');
  if (r === 0x0a) return lx.errorPrevLine(`expected value but found ${quoteRune(r)} instead`);
  return lx.errorf(`expected value but found ${quoteRune(r)} instead`);
}

function lexArrayValue(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (isWhitespace(r) || isNL(r)) return lexSkip(lx, lexArrayValue);
  if (r === ch('#')) {
    lx.push(lexArrayValue);
    return lexCommentStart;
  }
  if (r === ch(',')) return lx.errorf('unexpected comma');
  if (r === ch(']')) return lexArrayEnd;
  lx.backup();
  lx.push(lexArrayValueEnd);
  return lexValue;
}

function lexArrayValueEnd(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (isWhitespace(r) || isNL(r)) return lexSkip(lx, lexArrayValueEnd);
  if (r === ch('#')) {
    lx.push(lexArrayValueEnd);
    return lexCommentStart;
  }
  if (r === ch(',')) {
    lx.ignore();
    return lexArrayValue;
  }
  if (r === ch(']')) return lexArrayEnd;
  return lx.errorf(`expected a comma (',') or array terminator (']'), but got ${runeOrEOF(r)}`);
}

function lexArrayEnd(lx: Lexer): StateFn {
  lx.ignore();
  lx.emit(It.ArrayEnd);
  return lx.pop();
}

// TOML 1.1 as BurntSushi v1.6 reads it: newlines and comments are allowed inside inline tables.
function lexInlineTableValue(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (isWhitespace(r) || isNL(r)) return lexSkip(lx, lexInlineTableValue);
  if (r === ch('#')) {
    lx.push(lexInlineTableValue);
    return lexCommentStart;
  }
  if (r === ch(',')) return lx.errorf('unexpected comma');
  if (r === ch('}')) return lexInlineTableEnd;
  lx.backup();
  lx.push(lexInlineTableValueEnd);
  return lexKeyStart;
}

function lexInlineTableValueEnd(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (isWhitespace(r) || isNL(r)) return lexSkip(lx, lexInlineTableValueEnd);
  if (r === ch('#')) {
    lx.push(lexInlineTableValueEnd);
    return lexCommentStart;
  }
  if (r === ch(',')) {
    lx.ignore();
    lx.skip(isWhitespace);
    if (lx.peek() === ch('}')) return lexInlineTableValueEnd;
    return lexInlineTableValue;
  }
  if (r === ch('}')) return lexInlineTableEnd;
  return lx.errorf(`expected a comma or an inline table terminator '}', but got ${runeOrEOF(r)} instead`);
}

function lexInlineTableEnd(lx: Lexer): StateFn {
  lx.ignore();
  lx.emit(It.InlineTableEnd);
  return lx.pop();
}

function lexString(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (r === EOF) return lx.errorf(`unexpected EOF; expected '"'`);
  if (isNL(r)) return lx.errorPrevLine('strings cannot contain newlines');
  if (r === ch('\\')) {
    lx.push(lexString);
    return lexStringEscape;
  }
  if (r === ch('"')) {
    lx.backup();
    if (lx.esc) {
      lx.esc = false;
      lx.emit(It.StringEsc);
    } else {
      lx.emit(It.String);
    }
    lx.next();
    lx.ignore();
    return lx.pop();
  }
  return lexString;
}

function lexMultilineString(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (r === EOF) return lx.errorf(`unexpected EOF; expected '"""'`);
  if (r === ch('\\')) return lexMultilineStringEscape;
  if (r !== ch('"')) return lexMultilineString;
  if (lx.accept(ch('"'))) {
    if (lx.accept(ch('"'))) {
      // Up to two quotes may end the content ("""str"""""); a sixth is an error.
      if (lx.peek() === ch('"')) {
        const cur = lx.current();
        if (cur.endsWith('"""""') && !cur.endsWith('\\"""""')) return lx.errorf(`unexpected '""""""'`);
        lx.backup();
        lx.backup();
        return lexMultilineString;
      }
      lx.backup();
      lx.backup();
      lx.backup();
      lx.esc = false;
      lx.emit(It.MultilineString);
      lx.next();
      lx.next();
      lx.next();
      lx.ignore();
      return lx.pop();
    }
    lx.backup();
  }
  return lexMultilineString;
}

function lexRawString(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (r === EOF) return lx.errorf(`unexpected EOF; expected "'"`);
  if (isNL(r)) return lx.errorPrevLine('strings cannot contain newlines');
  if (r === ch("'")) {
    lx.backup();
    lx.emit(It.RawString);
    lx.next();
    lx.ignore();
    return lx.pop();
  }
  return lexRawString;
}

function lexMultilineRawString(lx: Lexer): StateFn | null {
  const r = lx.next();
  if (r === EOF) return lx.errorf(`unexpected EOF; expected "'''"`);
  if (r !== ch("'")) return lexMultilineRawString;
  if (lx.accept(ch("'"))) {
    if (lx.accept(ch("'"))) {
      if (lx.peek() === ch("'")) {
        if (lx.current().endsWith("'''''")) return lx.errorf(`unexpected "''''''"`);
        lx.backup();
        lx.backup();
        return lexMultilineRawString;
      }
      lx.backup();
      lx.backup();
      lx.backup();
      lx.emit(It.RawMultilineString);
      lx.next();
      lx.next();
      lx.next();
      lx.ignore();
      return lx.pop();
    }
    lx.backup();
  }
  return lexMultilineRawString;
}

function lexMultilineStringEscape(lx: Lexer): StateFn | null {
  if (isNL(lx.next())) return lexMultilineString;
  lx.backup();
  lx.push(lexMultilineString);
  return lexStringEscape(lx);
}

function lexStringEscape(lx: Lexer): StateFn | null {
  lx.esc = true;
  const r = lx.next();
  // Whitespace after \ is only valid before a newline in """ strings; the parser checks that.
  switch (r) {
    case ch('e'):
    case ch('b'):
    case ch('t'):
    case ch('n'):
    case ch('f'):
    case ch('r'):
    case ch('"'):
    case ch(' '):
    case ch('\t'):
    case ch('\\'):
      return lx.pop();
    case ch('x'):
      return lexHexDigits(2, 'two', 'x');
    case ch('u'):
      return lexHexDigits(4, 'four', 'u');
    case ch('U'):
      return lexHexDigits(8, 'eight', 'U');
  }
  return lx.error(`invalid escape in string '\\${runeStr(r)}'`);
}

function lexHexDigits(n: number, word: string, esc: string): StateFn {
  return (lx) => {
    for (let i = 0; i < n; i++) {
      if (!isHex(lx.next()))
        return lx.errorf(
          `expected ${word} hexadecimal digits after '\\${esc}', but got ${quote(lx.current())} instead`,
        );
    }
    return lx.pop();
  };
}

function lexNumberOrDateStart(lx: Lexer): StateFn {
  if (lx.next() === ch('0')) return lexBaseNumberOrDate;
  return lexNumberOrDate;
}

function lexNumberOrDate(lx: Lexer): StateFn {
  const r = lx.next();
  if (isDigit(r)) return lexNumberOrDate;
  switch (r) {
    case ch('-'):
    case ch(':'):
      return lexDatetime;
    case ch('_'):
      return lexDecimalNumber;
    case ch('.'):
    case ch('e'):
    case ch('E'):
      return lexFloat;
  }
  lx.backup();
  lx.emit(It.Integer);
  return lx.pop();
}

function lexDatetime(lx: Lexer): StateFn {
  const r = lx.next();
  if (isDigit(r) || '-:Tt .Zz+'.includes(runeStr(r))) return lexDatetime;
  lx.backup();
  lx.emitTrim(It.Datetime);
  return lx.pop();
}

function lexBaseInteger(pred: (r: number) => boolean): StateFn {
  const state: StateFn = (lx) => {
    const r = lx.next();
    if (pred(r) || r === ch('_')) return state;
    lx.backup();
    lx.emit(It.Integer);
    return lx.pop();
  };
  return state;
}

const lexHexInteger = lexBaseInteger(isHex);
const lexOctalInteger = lexBaseInteger(isOctal);
const lexBinaryInteger = lexBaseInteger(isBinary);

function lexDecimalNumber(lx: Lexer): StateFn {
  const r = lx.next();
  if (isDigit(r) || r === ch('_')) return lexDecimalNumber;
  if (r === ch('.') || r === ch('e') || r === ch('E')) return lexFloat;
  lx.backup();
  lx.emit(It.Integer);
  return lx.pop();
}

function lexDecimalNumberStart(lx: Lexer): StateFn | null {
  const r = lx.next();
  switch (r) {
    case ch('i'):
      if (!lx.accept(ch('n')) || !lx.accept(ch('f'))) return lx.errorf(`invalid float: '${lx.current()}'`);
      lx.emit(It.Float);
      return lx.pop();
    case ch('n'):
      if (!lx.accept(ch('a')) || !lx.accept(ch('n'))) return lx.errorf(`invalid float: '${lx.current()}'`);
      lx.emit(It.Float);
      return lx.pop();
    case ch('0'): {
      const p = lx.peek();
      if (p === ch('b') || p === ch('o') || p === ch('x'))
        return lx.errorf(`cannot use sign with non-decimal numbers: '${lx.current()}${runeStr(p)}'`);
      break;
    }
    case ch('.'):
      return lx.errorf("floats must start with a digit, not '.'");
  }
  if (isDigit(r)) return lexDecimalNumber;
  return lx.errorf(`expected a digit but got ${quoteRune(r)}`);
}

function lexBaseNumberOrDate(lx: Lexer): StateFn {
  const r = lx.next();
  if (isDigit(r)) return lexNumberOrDate;
  switch (r) {
    case ch('_'):
      return lexDecimalNumber;
    case ch('.'):
    case ch('e'):
    case ch('E'):
      return lexFloat;
    // As in BurntSushi, a bad digit after the prefix is reported but lexing carries on.
    case ch('b'): {
      const p = lx.peek();
      if (!isBinary(p)) lx.errorf(`not a binary number: '${lx.current()}${runeStr(p)}'`);
      return lexBinaryInteger;
    }
    case ch('o'): {
      const p = lx.peek();
      if (!isOctal(p)) lx.errorf(`not an octal number: '${lx.current()}${runeStr(p)}'`);
      return lexOctalInteger;
    }
    case ch('x'): {
      const p = lx.peek();
      if (!isHex(p)) lx.errorf(`not a hexadecimal number: '${lx.current()}${runeStr(p)}'`);
      return lexHexInteger;
    }
  }
  lx.backup();
  lx.emit(It.Integer);
  return lx.pop();
}

function lexFloat(lx: Lexer): StateFn {
  const r = lx.next();
  if (isDigit(r) || '_.-+eE'.includes(runeStr(r))) return lexFloat;
  lx.backup();
  lx.emit(It.Float);
  return lx.pop();
}

function lexBool(lx: Lexer): StateFn | null {
  let s = '';
  for (;;) {
    const r = lx.next();
    if (!isLetter(r)) {
      lx.backup();
      break;
    }
    s += runeStr(r);
  }
  if (s === 'true' || s === 'false') {
    lx.emit(It.Bool);
    return lx.pop();
  }
  return lx.errorf(`expected value but found ${quote(s)} instead`);
}

function lexCommentStart(lx: Lexer): StateFn {
  lx.ignore();
  lx.emit(It.CommentStart);
  return lexComment;
}

function lexComment(lx: Lexer): StateFn {
  const r = lx.next();
  if (isNL(r) || r === EOF) {
    lx.backup();
    lx.emit(It.Text);
    return lx.pop();
  }
  return lexComment;
}

function lexSkip(lx: Lexer, next: StateFn): StateFn {
  lx.ignore();
  return next;
}

// ---------------------------------------------------------------------------------------------
// Parsing (parse.go). Tables are Maps while parsing; arrays of tables a class of their own, since
// the parser (and helm's result) tells them apart from plain arrays by their Go type.

class TableArray {
  constructor(readonly tables: Table[]) {}
}
type Table = Map<string, Node>;
type Node = GoValue | Table | TableArray | Node[];

/** A TOML syntax error, with BurntSushi's ParseError.Error() text. */
export class TomlParseError extends Error {}

class Parser {
  private lx: Lexer;
  private context: string[] = [];
  private currentKey = '';
  private pos: Pos = { line: 0 };
  private keyInfo = new Map<string, TomlType>();
  readonly mapping: Table = new Map();
  private implicits = new Set<string>();

  constructor(input: string) {
    this.lx = new Lexer(input);
  }

  run(): void {
    for (;;) {
      const item = this.next();
      if (item.typ === It.EOF) break;
      this.topLevel(item);
    }
  }

  private fail(line: number, msg: string): never {
    const last = this.current();
    throw new TomlParseError(
      last === '' ? `toml: line ${line}: ${msg}` : `toml: line ${line} (last key ${quote(last)}): ${msg}`,
    );
  }

  private panicItem(it: Item, msg: string): never {
    this.fail(it.pos.line, msg);
  }

  private panicf(msg: string): never {
    this.fail(this.pos.line, msg);
  }

  private next(): Item {
    const it = this.lx.nextItem();
    if (it.typ === It.Error) this.panicItem(it, it.err ?? it.val);
    return it;
  }

  private nextPos(): Item {
    const it = this.next();
    this.pos = it.pos;
    return it;
  }

  private expect(typ: It): Item {
    const it = this.next();
    if (it.typ !== typ) throw new Error(`BUG: Expected '${typ}' but got '${it.typ}'.`);
    return it;
  }

  private readKey(first: Item, end: It): string[] {
    const key: string[] = [];
    let k = first;
    for (; k.typ !== end && k.typ !== It.EOF; k = this.next()) key.push(this.keyString(k));
    if (k.typ !== end) throw new Error('BUG: unterminated key');
    return key;
  }

  private topLevel(item: Item): void {
    switch (item.typ) {
      case It.CommentStart:
        this.expect(It.Text);
        return;
      case It.TableStart: {
        const key = this.readKey(this.nextPos(), It.TableEnd);
        this.addContext(key, false);
        this.setType('', 'Hash');
        return;
      }
      case It.ArrayTableStart: {
        const key = this.readKey(this.nextPos(), It.ArrayTableEnd);
        this.addContext(key, true);
        this.setType('', 'ArrayHash');
        return;
      }
      case It.KeyStart: {
        const outerContext = this.context;
        const key = this.readKey(this.nextPos(), It.KeyEnd);
        this.currentKey = key[key.length - 1]!;
        const parent = key.slice(0, -1);
        for (let i = 0; i < parent.length; i++) this.addImplicitContext([...this.context, parent[i]!]);
        const vItem = this.next();
        const [val, typ] = this.value(vItem, false);
        this.setValue(this.currentKey, val);
        this.setType(this.currentKey, typ);
        this.context = outerContext;
        this.currentKey = '';
        return;
      }
      default:
        throw new Error(`BUG: Unexpected type at top level: ${item.typ}`);
    }
  }

  private keyString(it: Item): string {
    if (it.typ === It.Text) return it.val;
    return this.value(it, false)[0] as string;
  }

  private value(it: Item, parentIsArray: boolean): [Node, TomlType] {
    switch (it.typ) {
      case It.String:
      case It.RawString:
        return [it.val, 'String'];
      case It.StringEsc:
        return [this.replaceEscapes(it, it.val), 'String'];
      case It.MultilineString:
        return [this.replaceEscapes(it, stripEscapedNewlines(stripFirstNewline(it.val))), 'String'];
      case It.RawMultilineString:
        return [stripFirstNewline(it.val), 'String'];
      case It.Integer:
        // BurntSushi decodes TOML integers into interface{} as int64.
        return [goInt64(this.valueInteger(it)), 'Integer'];
      case It.Float:
        return [this.valueFloat(it), 'Float'];
      case It.Bool:
        return [it.val === 'true', 'Bool'];
      case It.Datetime:
        return [this.valueDatetime(it), 'Datetime'];
      case It.Array:
        return [this.valueArray(), 'Array'];
      case It.InlineTableStart:
        return [this.valueInlineTable(parentIsArray), 'Hash'];
      default:
        throw new Error(`BUG: Unexpected value type: ${it.typ}`);
    }
  }

  private valueInteger(it: Item): bigint {
    if (!numUnderscoresOK(it.val))
      this.panicItem(it, `Invalid integer ${quote(it.val)}: underscores must be surrounded by digits`);
    if (numHasLeadingZero(it.val))
      this.panicItem(it, `Invalid integer ${quote(it.val)}: cannot have leading zeroes`);
    const s = it.val.replaceAll('_', '');
    const neg = s.startsWith('-');
    const body = s.replace(/^[+-]/, '');
    const n = BigInt(body) * (neg ? -1n : 1n);
    if (n !== BigInt.asIntN(64, n)) this.panicItem(it, `${it.val} is out of range for int64`);
    return n;
  }

  private valueFloat(it: Item): number {
    const parts = it.val.split(/[.eE]/).filter((p) => p !== '');
    for (const part of parts) {
      if (!numUnderscoresOK(part))
        this.panicItem(it, `Invalid float ${quote(it.val)}: underscores must be surrounded by digits`);
    }
    if (parts.length > 0 && numHasLeadingZero(parts[0]!))
      this.panicItem(it, `Invalid float ${quote(it.val)}: cannot have leading zeroes`);
    if (!numPeriodsOK(it.val))
      this.panicItem(it, `Invalid float ${quote(it.val)}: '.' must be followed by one or more digits`);
    // Go keeps the sign of -nan, which only toToml would show; JavaScript has one NaN.
    let val = it.val.replaceAll('_', '');
    if (val === '+nan' || val === '-nan') val = 'nan';
    let num: number;
    const m = /^([+-]?)(inf|nan)$/.exec(val);
    if (m) num = m[2] === 'nan' ? NaN : m[1] === '-' ? -Infinity : Infinity;
    else if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(val)) {
      num = Number(val);
      if (!Number.isFinite(num)) this.panicItem(it, `${it.val} is out of range for float64`);
    } else {
      this.panicItem(it, `Invalid float value: ${quote(it.val)}`);
    }
    return num;
  }

  private valueDatetime(it: Item): GoTime {
    const val = it.val.replace(/[zt ]/g, (c) => (c === 'z' ? 'Z' : 'T'));
    const t = parseTomlDatetime(val);
    if (t === null) this.panicItem(it, `invalid datetime: ${quote(val)}`);
    return t;
  }

  private valueArray(): Node[] {
    this.setType(this.currentKey, 'Array');
    const array: Node[] = [];
    for (let e = this.next(); e.typ !== It.ArrayEnd; e = this.next()) {
      if (e.typ === It.CommentStart) {
        this.expect(It.Text);
        continue;
      }
      array.push(this.value(e, true)[0]);
    }
    return array;
  }

  private valueInlineTable(parentIsArray: boolean): Table {
    const topHash: Table = new Map();
    const outerContext = this.context;
    const outerKey = this.currentKey;
    this.context = [...this.context, this.currentKey];
    const prevContext = this.context;
    this.currentKey = '';
    this.addImplicit(this.context);
    this.addContext(this.context, parentIsArray);
    for (let it = this.next(); it.typ !== It.InlineTableEnd; it = this.next()) {
      if (it.typ === It.CommentStart) {
        this.expect(It.Text);
        continue;
      }
      const key = this.readKey(this.nextPos(), It.KeyEnd);
      this.currentKey = key[key.length - 1]!;
      const parent = key.slice(0, -1);
      for (let i = 0; i < parent.length; i++) this.addImplicitContext([...this.context, parent[i]!]);
      const [val, typ] = this.value(this.next(), false);
      this.setValue(this.currentKey, val);
      this.setType(this.currentKey, typ);
      let hash = topHash;
      for (const c of parent) {
        let h = hash.get(c);
        if (h === undefined) {
          h = new Map();
          hash.set(c, h);
        }
        if (!(h instanceof Map)) this.panicf(`${quote(keyString(this.context))} is not a table`);
        hash = h;
      }
      hash.set(this.currentKey, val);
      this.context = prevContext;
    }
    this.context = outerContext;
    this.currentKey = outerKey;
    return topHash;
  }

  // Establishes the table (or new element of an array of tables) that following keys go into,
  // creating implicit parent tables and refusing keys already used for something else.
  private addContext(key: string[], array: boolean): void {
    let hashContext = this.mapping;
    const keyContext: string[] = [];
    for (const k of key.slice(0, -1)) {
      keyContext.push(k);
      if (!hashContext.has(k)) {
        this.addImplicit(keyContext);
        hashContext.set(k, new Map());
      }
      const t = hashContext.get(k);
      if (t instanceof TableArray) hashContext = t.tables[t.tables.length - 1]!;
      else if (t instanceof Map) hashContext = t;
      else this.panicf(`Key '${keyString(keyContext)}' was already created as a hash.`);
    }
    this.context = keyContext;
    const last = key[key.length - 1]!;
    if (array) {
      if (!hashContext.has(last)) hashContext.set(last, new TableArray([]));
      const h = hashContext.get(last);
      if (h instanceof TableArray) h.tables.push(new Map());
      else this.panicf(`Key '${keyString(key)}' was already created and cannot be used as an array.`);
    } else {
      this.setValue(last, new Map());
    }
    this.context = [...this.context, last];
  }

  private setValue(key: string, value: Node): void {
    let hash = this.mapping;
    const keyContext: string[] = [];
    for (const k of this.context) {
      keyContext.push(k);
      const t = hash.get(k);
      if (t === undefined)
        throw new Error(`BUG: Context for key '${keyString(keyContext)}' has not been established.`);
      if (t instanceof TableArray) hash = t.tables[t.tables.length - 1]!;
      else if (t instanceof Map) hash = t;
      else this.panicf(`Key '${keyString(keyContext)}' has already been defined.`);
    }
    keyContext.push(key);
    if (hash.has(key)) {
      // A key made implicitly (by [a.b] or a.b = 1) may be defined once more, explicitly.
      if (this.isArray(keyContext)) {
        if (!this.isImplicit(keyContext))
          this.panicf(`Key '${keyString(keyContext)}' has already been defined.`);
        this.removeImplicit(keyContext);
        hash.set(key, value);
        return;
      }
      if (this.isImplicit(keyContext)) {
        this.removeImplicit(keyContext);
        return;
      }
      this.panicf(`Key '${keyString(keyContext)}' has already been defined.`);
    }
    hash.set(key, value);
  }

  private setType(key: string, typ: TomlType): void {
    let keyContext = [...this.context];
    if (key.length > 0) keyContext.push(key);
    if (keyContext.length === 0) keyContext = [''];
    this.keyInfo.set(keyString(keyContext), typ);
  }

  private addImplicit(key: string[]): void {
    this.implicits.add(keyString(key));
  }
  private removeImplicit(key: string[]): void {
    this.implicits.delete(keyString(key));
  }
  private isImplicit(key: string[]): boolean {
    return this.implicits.has(keyString(key));
  }
  private isArray(key: string[]): boolean {
    return this.keyInfo.get(keyString(key)) === 'Array';
  }
  private addImplicitContext(key: string[]): void {
    this.addImplicit(key);
    this.addContext(key, false);
  }

  private current(): string {
    if (this.currentKey.length === 0) return keyString(this.context);
    if (this.context.length === 0) return this.currentKey;
    return `${keyString(this.context)}.${this.currentKey}`;
  }

  private replaceEscapes(it: Item, str: string): string {
    let out = '';
    for (let i = 0; i < str.length; i++) {
      const c = str[i]!;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = str[i + 1];
      switch (e) {
        case ' ':
        case '\t':
          this.panicItem(it, `invalid escape: '\\${e}'`);
          break;
        case 'b':
          out += '\b';
          break;
        case 't':
          out += '\t';
          break;
        case 'n':
          out += '\n';
          break;
        case 'f':
          out += '\f';
          break;
        case 'r':
          out += '\r';
          break;
        case 'e':
          out += '\x1b';
          break;
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case 'x':
          out += this.hexEscape(it, str.slice(i + 2, i + 4));
          i += 2;
          break;
        case 'u':
          out += this.hexEscape(it, str.slice(i + 2, i + 6));
          i += 4;
          break;
        case 'U':
          out += this.hexEscape(it, str.slice(i + 2, i + 10));
          i += 8;
          break;
        default:
          throw new Error(`BUG: Expected valid escape code after \\, but got ${quote(e ?? '')}.`);
      }
      i++;
    }
    return out;
  }

  private hexEscape(it: Item, s: string): string {
    const n = parseInt(s, 16);
    if ((n >= 0xd800 && n <= 0xdfff) || n > 0x10ffff)
      this.panicItem(it, `Escaped character '\\u${s}' is not valid UTF-8.`);
    return String.fromCodePoint(n);
  }
}

function stripFirstNewline(s: string): string {
  if (s.startsWith('\n')) return s.slice(1);
  if (s.startsWith('\r\n')) return s.slice(2);
  return s;
}

/** A backslash ending a line in a """ string removes it and the whitespace that follows. */
function stripEscapedNewlines(str: string): string {
  let s = str;
  let out = '';
  let i = 0;
  for (;;) {
    const ix = s.indexOf('\\', i);
    if (ix < 0) return out + s;
    i = ix;
    if (s[i + 1] === '\\') {
      i += 2;
      continue;
    }
    let j = i + 1;
    while (j < s.length && ' \t\r\n'.includes(s[j]!)) j++;
    if (j === i + 1 || !s.slice(i, j).includes('\n')) {
      i++;
      continue;
    }
    out += s.slice(0, i);
    s = s.slice(j);
    i = 0;
  }
}

function numHasLeadingZero(s: string): boolean {
  if (s.length > 1 && s[0] === '0' && !(s[1] === 'b' || s[1] === 'o' || s[1] === 'x')) return true;
  return s.length > 2 && (s[0] === '-' || s[0] === '+') && s[1] === '0';
}

function numUnderscoresOK(s: string): boolean {
  if (['nan', '+nan', '-nan', 'inf', '-inf', '+inf'].includes(s)) return true;
  let accept = false;
  for (const c of s) {
    if (c === '_' && !accept) return false;
    accept = isHex(c.codePointAt(0)!);
  }
  return accept;
}

function numPeriodsOK(s: string): boolean {
  let period = false;
  for (const c of s) {
    if (period && !isDigit(c.codePointAt(0)!)) return false;
    period = c === '.';
  }
  return !period;
}

// ---------------------------------------------------------------------------------------------
// Datetimes: the layouts BurntSushi tries in order, parsed as Go's time.ParseInLocation would.

type ZoneKind = 'local' | 'datetime' | 'date' | 'time';
const DT_TYPES: [string, string[], ZoneKind][] = [
  [RFC3339_NANO, ['2006', '-', '01', '-', '02', 'T', '15', ':', '04', ':', '05', '.9', 'Z07:00'], 'local'],
  [
    '2006-01-02T15:04:05.999999999',
    ['2006', '-', '01', '-', '02', 'T', '15', ':', '04', ':', '05', '.9'],
    'datetime',
  ],
  ['2006-01-02', ['2006', '-', '01', '-', '02'], 'date'],
  ['15:04:05.999999999', ['15', ':', '04', ':', '05', '.9'], 'time'],
  ['2006-01-02T15:04Z07:00', ['2006', '-', '01', '-', '02', 'T', '15', ':', '04', 'Z07:00'], 'local'],
  ['2006-01-02T15:04', ['2006', '-', '01', '-', '02', 'T', '15', ':', '04'], 'datetime'],
  ['15:04', ['15', ':', '04'], 'time'],
];

/** The first layout that parses decides: a one-digit hour (Go accepts it, TOML not) is an error then. */
function parseTomlDatetime(val: string): GoTime | null {
  for (const [layout, tokens, kind] of DT_TYPES) {
    const t = goParse(tokens, val, kind);
    if (t === null) continue;
    return missingLeadingZero(val, layout) ? null : t;
  }
  return null;
}

function missingLeadingZero(d: string, l: string): boolean {
  for (let i = 0; i < l.length; i++) {
    const c = l[i]!;
    if (c === '.' || c === 'Z') return false;
    if (!isDigit(c.charCodeAt(0)) && d[i] !== c) return true;
  }
  return false;
}

const isDigitAt = (s: string, i: number): boolean => i < s.length && isDigit(s.charCodeAt(i));

/** Go's getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): [number, string] | null {
  if (!isDigitAt(s, 0)) return null;
  if (!isDigitAt(s, 1)) return fixed ? null : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

function parseNanoseconds(v: string, nbytes: number): number | null {
  const n = Math.min(nbytes, 10);
  const digits = v.slice(1, n);
  if (!/^\d+$/.test(digits)) return null;
  return Number(digits) * 10 ** (10 - n);
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (any year). */
function daysFromCivil(y0: number, m: number, d: number): number {
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function goParse(tokens: string[], value: string, kind: ZoneKind): GoTime | null {
  let v = value;
  let year = 0;
  let month = -1;
  let day = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let utc = false;
  let zoneOffset: number | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    let r: [number, string] | null;
    switch (tok) {
      case '2006':
        if (!/^\d{4}/.test(v)) return null;
        year = Number(v.slice(0, 4));
        v = v.slice(4);
        break;
      case '01':
        if (!(r = getnum(v, true))) return null;
        [month, v] = r;
        if (month <= 0 || month > 12) return null;
        break;
      case '02':
        if (!(r = getnum(v, true))) return null;
        [day, v] = r;
        break;
      case '15':
        if (!(r = getnum(v, false))) return null;
        [hour, v] = r;
        if (hour >= 24) return null;
        break;
      case '04':
        if (!(r = getnum(v, true))) return null;
        [min, v] = r;
        if (min >= 60) return null;
        break;
      case '05':
        if (!(r = getnum(v, true))) return null;
        [sec, v] = r;
        if (sec >= 60) return null;
        // A fraction the layout does not mention is still read.
        if (v.length >= 2 && (v[0] === '.' || v[0] === ',') && isDigitAt(v, 1) && tokens[i + 1] !== '.9') {
          let n = 2;
          while (isDigitAt(v, n)) n++;
          const ns = parseNanoseconds(v, n);
          if (ns === null) return null;
          nsec = ns;
          v = v.slice(n);
        }
        break;
      case '.9': {
        if (v.length < 2 || (v[0] !== '.' && v[0] !== ',') || !isDigitAt(v, 1)) break;
        let n = 1;
        while (isDigitAt(v, n)) n++;
        const ns = parseNanoseconds(v, n);
        if (ns === null) return null;
        nsec = ns;
        v = v.slice(n);
        break;
      }
      case 'Z07:00': {
        if (v[0] === 'Z') {
          v = v.slice(1);
          utc = true;
          break;
        }
        if (v.length < 6 || v[3] !== ':') return null;
        const hr = getnum(v.slice(1, 3), true);
        const mm = getnum(v.slice(4, 6), true);
        if (!hr || !mm || hr[0] > 24 || mm[0] > 60) return null;
        const off = (hr[0] * 60 + mm[0]) * 60;
        if (v[0] === '+') zoneOffset = off;
        else if (v[0] === '-') zoneOffset = -off;
        else return null;
        v = v.slice(6);
        break;
      }
      default:
        if (v[0] !== tok) return null;
        v = v.slice(1);
    }
  }
  if (v !== '') return null;
  if (month < 0) month = 1;
  if (day < 0) day = 1;
  if (day < 1 || day > daysIn(month, year)) return null;
  const wall = BigInt(daysFromCivil(year, month, day)) * 86400n + BigInt(hour * 3600 + min * 60 + sec);
  if (utc) return new GoTime(wall, nsec, UTC);
  if (zoneOffset !== undefined) {
    const t = wall - BigInt(zoneOffset);
    const local = localLocation();
    // Go uses Local when its offset at that instant is the one written, else an unnamed zone.
    if (local.lookup(Number(t)).offset === zoneOffset) return new GoTime(t, nsec, local);
    const off = zoneOffset;
    return new GoTime(t, nsec, { name: '', lookup: () => ({ offset: off, abbrev: '' }) });
  }
  const z = zones();
  const loc = kind === 'local' ? localLocation() : z[kind];
  return new GoTime(wall - BigInt(loc.lookup(0).offset), nsec, loc);
}

// ---------------------------------------------------------------------------------------------

function toGoValue(n: Node): GoValue {
  if (n instanceof TableArray) return tagSlice(n.tables.map(toGoValue), '[]map[string]interface {}');
  if (n instanceof Map) {
    const m: GoMap = {};
    for (const [k, v] of n) {
      // A key named __proto__ must stay a plain key.
      Object.defineProperty(m, k, {
        value: toGoValue(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return m;
  }
  if (Array.isArray(n)) return n.map(toGoValue);
  return n;
}

/** BurntSushi's toml.Unmarshal into map[string]interface{}; throws TomlParseError. */
export function parseToml(text: string): GoMap {
  let data = text;
  // A UTF-8 byte order mark is skipped (a UTF-16 one cannot occur in a decoded string).
  if (data.startsWith('\ufeff')) data = data.slice(1);
  if (data.slice(0, 6).includes('\0'))
    throw new TomlParseError(
      'toml: line 1: files cannot contain NULL bytes; probably using UTF-16; TOML files must be UTF-8',
    );
  const p = new Parser(data);
  p.run();
  return toGoValue(p.mapping) as GoMap;
}

/** helm's fromToml: the document as a map, or {Error: message} when it does not parse. */
export function fromToml(text: string): GoValue {
  try {
    return parseToml(text);
  } catch (e) {
    if (e instanceof TomlParseError) return { Error: e.message };
    throw e;
  }
}
