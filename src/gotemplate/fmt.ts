// Go's fmt package for template values: Sprintf with its verbs, flags and error forms, Sprint, Sprintln.
// Templates' print/printf/println and the value output of actions go through here, so it must match Go byte for byte.

import { formatFloat } from './strconv.js';
import { GoSizedInt, goTypeName, integerValue, isGoOpaque, type GoValue, type GoMap } from './value.js';

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
  wid: number;
  widPresent: boolean;
  prec: number;
  precPresent: boolean;
}

function newFlags(): Flags {
  return {
    plus: false,
    minus: false,
    sharp: false,
    space: false,
    zero: false,
    plusV: false,
    sharpV: false,
    wid: 0,
    widPresent: false,
    prec: 0,
    precPresent: false,
  };
}

const INT64_MIN = -(1n << 63n);
const UINT64 = 1n << 64n;

/** Go's strings are UTF-8; width and precision count runes. */
function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function utf8Bytes(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/** One formatting pass (Go's pp + fmt); collects output in buf. */
class Printer {
  buf = '';
  f: Flags = newFlags();

  writePadding(n: number): void {
    if (n <= 0) return;
    // Zero padding is only to the left; Go turns zero off when minus is set.
    const c = this.f.zero && !this.f.minus ? '0' : ' ';
    this.buf += c.repeat(n);
  }

  pad(s: string): void {
    if (!this.f.widPresent || this.f.wid === 0) {
      this.buf += s;
      return;
    }
    const width = this.f.wid - runeCount(s);
    if (!this.f.minus) {
      this.writePadding(width);
      this.buf += s;
    } else {
      this.buf += s;
      this.writePadding(width);
    }
  }

  fmtBoolean(v: boolean): void {
    this.pad(v ? 'true' : 'false');
  }

  truncate(s: string): string {
    if (this.f.precPresent) {
      const runes = Array.from(s);
      if (runes.length > this.f.prec) return runes.slice(0, this.f.prec).join('');
    }
    return s;
  }

  fmtS(s: string): void {
    this.pad(this.truncate(s));
  }

  fmtSbx(s: string, digits: string): void {
    let bytes = utf8Bytes(s);
    let length = bytes.length;
    if (this.f.precPresent && this.f.prec < length) length = this.f.prec;
    bytes = bytes.slice(0, length);
    let width = 2 * length;
    if (width > 0) {
      if (this.f.space) {
        if (this.f.sharp) width *= 2;
        width += length - 1;
      } else if (this.f.sharp) {
        width += 2;
      }
    } else {
      if (this.f.widPresent) this.writePadding(this.f.wid);
      return;
    }
    if (this.f.widPresent && this.f.wid > width && !this.f.minus) this.writePadding(this.f.wid - width);
    let out = '';
    const x = digits === 'X' ? 'X' : 'x';
    const hex = digits === 'X' ? '0123456789ABCDEF' : '0123456789abcdef';
    if (this.f.sharp) out += '0' + x;
    for (let i = 0; i < length; i++) {
      if (this.f.space && i > 0) {
        out += ' ';
        if (this.f.sharp) out += '0' + x;
      }
      const b = bytes[i]!;
      out += hex[b >> 4]! + hex[b & 15]!;
    }
    this.buf += out;
    if (this.f.widPresent && this.f.wid > width && this.f.minus) this.writePadding(this.f.wid - width);
  }

  fmtQ(s: string): void {
    s = this.truncate(s);
    if (this.f.sharp && canBackquote(s)) {
      this.pad('`' + s + '`');
      return;
    }
    this.pad(quote(s, this.f.plus));
  }

  fmtInteger(v: bigint, base: number, verb: string, upper: boolean): void {
    const f = this.f;
    const negative = v < 0n;
    let u = negative ? -v : v;
    if (u >= UINT64) u = u % UINT64;
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      if (prec === 0 && u === 0n) {
        const z = f.zero;
        f.zero = false;
        this.writePadding(f.wid);
        f.zero = z;
        return;
      }
    } else if (f.zero && !f.minus && f.widPresent) {
      prec = f.wid;
      if (negative || f.plus || f.space) prec--;
    }
    let digits = u.toString(base);
    if (upper) digits = digits.toUpperCase();
    if (digits.length < prec) digits = '0'.repeat(prec - digits.length) + digits;
    if (f.sharp) {
      if (base === 2) digits = '0b' + digits;
      else if (base === 8) {
        if (digits[0] !== '0') digits = '0' + digits;
      } else if (base === 16) digits = (upper ? '0X' : '0x') + digits;
    }
    if (verb === 'O') digits = '0o' + digits;
    if (negative) digits = '-' + digits;
    else if (f.plus) digits = '+' + digits;
    else if (f.space) digits = ' ' + digits;
    const z = f.zero;
    f.zero = false;
    this.pad(digits);
    f.zero = z;
  }

  fmtC(v: bigint): void {
    let r = v < 0n || v > 0x10ffffn ? 0xfffd : Number(v);
    if (r >= 0xd800 && r <= 0xdfff) r = 0xfffd;
    this.pad(String.fromCodePoint(r));
  }

  fmtQc(v: bigint): void {
    let r = v < 0n || v > 0x10ffffn ? 0xfffd : Number(v);
    if (r >= 0xd800 && r <= 0xdfff) r = 0xfffd;
    const ch = String.fromCodePoint(r);
    if (this.f.sharp && r !== 39 && isPrint(r) && r !== 0xfeff) {
      this.pad("'" + ch + "'");
      return;
    }
    this.pad(quoteWith(ch, "'", this.f.plus));
  }

  fmtUnicode(v: bigint): void {
    let u = v < 0n ? v + UINT64 : v;
    if (u >= UINT64) u %= UINT64;
    let s = u.toString(16).toUpperCase();
    let prec = 4;
    if (this.f.precPresent && this.f.prec > 4) prec = this.f.prec;
    if (s.length < prec) s = '0'.repeat(prec - s.length) + s;
    s = 'U+' + s;
    if (this.f.sharp && u <= 0x10ffffn && isPrint(Number(u)))
      s += " '" + String.fromCodePoint(Number(u)) + "'";
    const z = this.f.zero;
    this.f.zero = false;
    this.pad(s);
    this.f.zero = z;
  }

  fmtFloat(v: number, verb: string, prec: number): void {
    const f = this.f;
    if (f.precPresent) prec = f.prec;
    let num = formatFloat(v, verb, prec);
    if (num[0] !== '-' && num[0] !== '+') num = '+' + num;
    if (f.space && num[0] === '+' && !f.plus) num = ' ' + num.slice(1);
    if (num[1] === 'I' || num[1] === 'N') {
      const z = f.zero;
      f.zero = false;
      if (num[1] === 'N' && !f.space && !f.plus) num = num.slice(1);
      this.pad(num);
      f.zero = z;
      return;
    }
    if (f.sharp) {
      let digits = 0;
      if (verb === 'v' || verb === 'g' || verb === 'G' || verb === 'x') {
        digits = prec;
        if (digits === -1) digits = 6;
      }
      let tail = '';
      let body = num;
      const ei = verb === 'x' || verb === 'X' ? -1 : body.search(/[eE]/);
      if (ei >= 0) {
        tail = body.slice(ei);
        body = body.slice(0, ei);
      }
      let hasDot = false;
      let sawNonzero = false;
      for (let i = 1; i < body.length; i++) {
        const c = body[i]!;
        if (c === '.') hasDot = true;
        else {
          if (c !== '0') sawNonzero = true;
          if (sawNonzero) digits--;
        }
      }
      if (!hasDot) {
        if (body.length === 2 && body[1] === '0') digits--;
        body += '.';
      }
      while (digits > 0) {
        body += '0';
        digits--;
      }
      num = body + tail;
    }
    if (f.plus || num[0] !== '+') {
      if (f.zero && !f.minus && f.widPresent && f.wid > num.length) {
        this.buf += num[0]!;
        this.writePadding(f.wid - num.length);
        this.buf += num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  badVerb(verb: string, arg: GoValue | undefined): void {
    this.buf += '%!' + verb + '(';
    if (arg === undefined || arg === null) {
      this.buf += '<nil>';
    } else {
      // Go prints the operand with the verb's flags still set (so %.1f of "hello" shows "h").
      this.buf += goTypeName(arg) + '=';
      this.printArg(arg, 'v', 0);
    }
    this.buf += ')';
  }

  printArg(arg: GoValue | undefined, verb: string, depth: number): void {
    if (arg === undefined || arg === null) {
      if (depth > 0) {
        // An interface{} element holding nil.
        if (this.f.sharpV) this.buf += 'interface {}(nil)';
        else this.pad('<nil>');
        return;
      }
      if (verb === 'T' || verb === 'v') this.pad('<nil>');
      else this.badVerb(verb, arg);
      return;
    }
    if (verb === 'T') {
      this.fmtS(goTypeName(arg));
      return;
    }
    switch (typeof arg) {
      case 'boolean':
        if (verb === 't' || verb === 'v') this.fmtBoolean(arg);
        else this.badVerb(verb, arg);
        return;
      case 'string':
        this.fmtString(arg, verb);
        return;
      case 'bigint':
        this.fmtIntVerb(arg, verb);
        return;
      case 'number':
        this.fmtFloatVerb(arg, verb);
        return;
      case 'function':
        // Go prints a func's address; there is no stable equivalent.
        if (verb === 'v' || verb === 'p') this.pad('0x0');
        else this.badVerb(verb, arg);
        return;
    }
    if (Array.isArray(arg)) {
      if (this.f.sharpV) {
        this.buf += '[]interface {}{';
        arg.forEach((e, i) => {
          if (i > 0) this.buf += ', ';
          this.printArg(e, verb, depth + 1);
        });
        this.buf += '}';
        return;
      }
      this.buf += '[';
      arg.forEach((e, i) => {
        if (i > 0) this.buf += ' ';
        this.printArg(e, verb, depth + 1);
      });
      this.buf += ']';
      return;
    }
    if (arg instanceof GoSizedInt) {
      this.fmtIntVerb(arg.value, verb, arg.unsigned, arg);
      return;
    }
    if (isGoOpaque(arg)) {
      if (verb === 'v' || verb === 's') this.fmtS(arg.format());
      else if (verb === 'q') this.fmtQ(arg.format());
      else this.badVerb(verb, arg);
      return;
    }
    const m = arg as GoMap;
    const keys = Object.keys(m).sort(compareStrings);
    if (this.f.sharpV) {
      this.buf += 'map[string]interface {}{';
      keys.forEach((k, i) => {
        if (i > 0) this.buf += ', ';
        this.fmtString(k, verb);
        this.buf += ':';
        this.printArg(m[k], verb, depth + 1);
      });
      this.buf += '}';
      return;
    }
    this.buf += 'map[';
    keys.forEach((k, i) => {
      if (i > 0) this.buf += ' ';
      this.fmtString(k, verb);
      this.buf += ':';
      this.printArg(m[k], verb, depth + 1);
    });
    this.buf += ']';
  }

  fmtString(s: string, verb: string): void {
    switch (verb) {
      case 'v':
        if (this.f.sharpV) this.fmtQ(s);
        else this.fmtS(s);
        return;
      case 's':
        this.fmtS(s);
        return;
      case 'x':
        this.fmtSbx(s, 'x');
        return;
      case 'X':
        this.fmtSbx(s, 'X');
        return;
      case 'q':
        this.fmtQ(s);
        return;
    }
    this.badVerb(verb, s);
  }

  fmtIntVerb(v: bigint, verb: string, unsigned = false, arg: GoValue = v): void {
    // Template integers are int (int64); wrap like Go would. Sized ints arrive already wrapped.
    if (!unsigned && (v < INT64_MIN || v >= 1n << 63n)) v = BigInt.asIntN(64, v);
    switch (verb) {
      case 'v':
        // %#v shows unsigned integers in hex.
        if (unsigned && this.f.sharpV) {
          const sharp = this.f.sharp;
          this.f.sharp = true;
          this.fmtInteger(v, 16, verb, false);
          this.f.sharp = sharp;
          return;
        }
        this.fmtInteger(v, 10, verb, false);
        return;
      case 'd':
        this.fmtInteger(v, 10, verb, false);
        return;
      case 'b':
        this.fmtInteger(v, 2, verb, false);
        return;
      case 'o':
      case 'O':
        this.fmtInteger(v, 8, verb, false);
        return;
      case 'x':
        this.fmtInteger(v, 16, verb, false);
        return;
      case 'X':
        this.fmtInteger(v, 16, verb, true);
        return;
      case 'c':
        this.fmtC(v);
        return;
      case 'q':
        this.fmtQc(v);
        return;
      case 'U':
        this.fmtUnicode(v);
        return;
    }
    this.badVerb(verb, arg);
  }

  fmtFloatVerb(v: number, verb: string): void {
    switch (verb) {
      case 'v':
        this.fmtFloat(v, 'g', -1);
        return;
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
        this.fmtFloat(v, verb, -1);
        return;
      case 'f':
      case 'e':
      case 'E':
        this.fmtFloat(v, verb, 6);
        return;
      case 'F':
        this.fmtFloat(v, 'f', 6);
        return;
    }
    this.badVerb(verb, v);
  }
}

function compareStrings(a: string, b: string): number {
  // Go compares strings bytewise (UTF-8), which orders like code points, not UTF-16 units.
  if (a === b) return 0;
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return Buffer.compare(ab, bb);
}

/** Roughly unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space. */
function isPrint(r: number): boolean {
  if (r === 0x20) return true;
  if (r === 0xfffd) return true;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(String.fromCodePoint(r));
}

function canBackquote(s: string): boolean {
  for (const ch of s) {
    const r = ch.codePointAt(0)!;
    if (r === 0xfeff) return false;
    if (r === 0x60) return false;
    if (r < 0x20 && r !== 0x09) return false;
    if (r === 0x7f) return false;
  }
  return true;
}

/** strconv.Quote (asciiOnly: QuoteToASCII). */
export function quote(s: string, asciiOnly = false): string {
  return quoteWith(s, '"', asciiOnly);
}

function quoteWith(s: string, q: string, asciiOnly: boolean): string {
  let out = q;
  for (const ch of s) {
    const r = ch.codePointAt(0)!;
    if (r >= 0xd800 && r <= 0xdfff) {
      // A lone surrogate is not valid UTF-8; Go would see U+FFFD.
      out += asciiOnly ? '\\ufffd' : '\ufffd';
      continue;
    }
    if (ch === q || ch === '\\') {
      out += '\\' + ch;
      continue;
    }
    if (asciiOnly ? r < 0x80 && isPrint(r) : isPrint(r)) {
      out += ch;
      continue;
    }
    switch (r) {
      case 7:
        out += '\\a';
        continue;
      case 8:
        out += '\\b';
        continue;
      case 12:
        out += '\\f';
        continue;
      case 10:
        out += '\\n';
        continue;
      case 13:
        out += '\\r';
        continue;
      case 9:
        out += '\\t';
        continue;
      case 11:
        out += '\\v';
        continue;
    }
    if (r < 0x20 || r === 0x7f) out += '\\x' + r.toString(16).padStart(2, '0');
    else if (r < 0x10000) out += '\\u' + r.toString(16).padStart(4, '0');
    else out += '\\U' + r.toString(16).padStart(8, '0');
  }
  return out + q;
}

function parseNum(s: string, start: number): { num: number; isnum: boolean; end: number } {
  let num = 0;
  let isnum = false;
  let i = start;
  while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) {
    if (num > 1e6) return { num: 0, isnum: false, end: s.length }; // Go: overflow
    num = num * 10 + (s.charCodeAt(i) - 48);
    isnum = true;
    i++;
  }
  return { num, isnum, end: i };
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: GoValue[]): string {
  const p = new Printer();
  let argNum = 0;
  let afterIndex = false;
  let reordered = false;
  let goodArgNum = true;
  const end = format.length;

  const argNumber = (i: number): { i: number; found: boolean } => {
    if (i >= end || format[i] !== '[') return { i, found: false };
    reordered = true;
    if (end - i < 3) {
      goodArgNum = false;
      return { i: i + 1, found: false };
    }
    // Find the closing bracket.
    for (let j = i + 1; j < end; j++) {
      if (format[j] === ']') {
        const r = parseNum(format, i + 1);
        if (!r.isnum || r.end !== j) {
          goodArgNum = false;
          return { i: j + 1, found: false };
        }
        const idx = r.num - 1;
        if (idx >= 0 && idx < args.length) {
          argNum = idx;
          return { i: j + 1, found: true };
        }
        goodArgNum = false;
        return { i: j + 1, found: true };
      }
    }
    goodArgNum = false;
    return { i: i + 1, found: false };
  };

  const intFromArg = (): { n: number; ok: boolean } => {
    let n = 0;
    let ok = false;
    if (argNum < args.length) {
      const a = integerValue(args[argNum]);
      if (a !== undefined) {
        ok = true;
        if (a > 1000000n || a < -1000000n) {
          ok = false;
        } else n = Number(a);
      }
      argNum++;
    }
    return { n, ok };
  };

  let i = 0;
  while (i < end) {
    goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) p.buf += format.slice(lasti, i);
    if (i >= end) break;
    i++; // skip %
    p.f = newFlags();
    const f = p.f;
    flags: for (; i < end; i++) {
      switch (format[i]) {
        case '#':
          f.sharp = true;
          break;
        case '0':
          f.zero = true;
          break;
        case '+':
          f.plus = true;
          break;
        case '-':
          f.minus = true;
          break;
        case ' ':
          f.space = true;
          break;
        default:
          break flags;
      }
    }
    // Argument index and width.
    let r = argNumber(i);
    i = r.i;
    afterIndex = r.found;
    if (i < end && format[i] === '*') {
      i++;
      const w = intFromArg();
      f.wid = w.n;
      f.widPresent = w.ok;
      if (!w.ok) p.buf += '%!(BADWIDTH)';
      if (f.wid < 0) {
        f.wid = -f.wid;
        f.minus = true;
        f.zero = false;
      }
      afterIndex = false;
    } else {
      const n = parseNum(format, i);
      f.wid = n.num;
      f.widPresent = n.isnum;
      i = n.end;
      if (afterIndex && f.widPresent) goodArgNum = false;
    }
    // Precision.
    if (i + 1 <= end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      r = argNumber(i);
      i = r.i;
      afterIndex = r.found;
      if (i < end && format[i] === '*') {
        i++;
        const pr = intFromArg();
        f.prec = pr.n;
        f.precPresent = pr.ok;
        // Negative precision arguments don't make sense.
        if (f.prec < 0) {
          f.prec = 0;
          f.precPresent = false;
        }
        if (!f.precPresent) p.buf += '%!(BADPREC)';
        afterIndex = false;
      } else {
        const n = parseNum(format, i);
        f.prec = n.num;
        f.precPresent = true;
        i = n.end;
      }
    }
    if (!afterIndex) {
      r = argNumber(i);
      i = r.i;
      afterIndex = r.found;
    }
    if (i >= end) {
      p.buf += '%!(NOVERB)';
      break;
    }
    const cp = format.codePointAt(i)!;
    const verb = String.fromCodePoint(cp);
    i += verb.length;
    if (verb === '%') {
      p.buf += '%';
      continue;
    }
    if (!goodArgNum) {
      p.buf += '%!' + verb + '(BADINDEX)';
      continue;
    }
    if (argNum >= args.length) {
      p.buf += '%!' + verb + '(MISSING)';
      continue;
    }
    if (verb === 'w') {
      // Sprintf has no error wrapping: Go reports %w as a bad verb.
      p.badVerb('w', args[argNum]);
      argNum++;
      continue;
    }
    if (verb === 'v') {
      if (f.sharp) {
        f.sharp = false;
        f.sharpV = true;
      }
      if (f.plus) {
        f.plus = false;
        f.plusV = true;
      }
    }
    p.printArg(args[argNum], verb, 0);
    argNum++;
  }
  if (!reordered && argNum < args.length) {
    p.f = newFlags();
    p.buf += '%!(EXTRA ';
    for (let k = argNum; k < args.length; k++) {
      if (k > argNum) p.buf += ', ';
      const a = args[k];
      if (a === null || a === undefined) p.buf += '<nil>';
      else {
        p.buf += goTypeName(a) + '=';
        p.printArg(a, 'v', 0);
      }
    }
    p.buf += ')';
  }
  return p.buf;
}

/** What %v (and template output, print) make of one value. */
export function formatValue(v: GoValue): string {
  const p = new Printer();
  p.printArg(v, 'v', 0);
  return p.buf;
}

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: GoValue[]): string {
  const p = new Printer();
  let prevString = false;
  args.forEach((a, n) => {
    const isString = typeof a === 'string';
    if (n > 0 && !isString && !prevString) p.buf += ' ';
    p.f = newFlags();
    p.printArg(a, 'v', 0);
    prevString = isString;
  });
  return p.buf;
}

/** fmt.Sprintln: always a space between operands, and a newline at the end. */
export function sprintln(args: GoValue[]): string {
  const p = new Printer();
  args.forEach((a, n) => {
    if (n > 0) p.buf += ' ';
    p.f = newFlags();
    p.printArg(a, 'v', 0);
  });
  return p.buf + '\n';
}
