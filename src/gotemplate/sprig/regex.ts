// Go regexp (RE2 syntax, leftmost-first) on top of JS RegExp for sprig's regex functions: the
// pattern is translated construct by construct; what JS cannot do faithfully is rejected.

import type { GoFunc, GoValue } from '../value.js';
import { argIntNum, argString, arity, tagSlice } from './cast.js';

/** A Go regexp compile error (`error parsing regexp: …`). */
export class GoRegexpError extends Error {}

/** A pattern valid in Go that this translation cannot run faithfully. */
export class UnsupportedRegexpError extends Error {}

const SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);
const GC = new Set(
  'C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(
    ' ',
  ),
);
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

function parseErr(code: string, arg: string): GoRegexpError {
  return new GoRegexpError(`error parsing regexp: ${code}: \`${arg}\``);
}

function escapeLiteral(ch: string): string {
  if (SYNTAX.has(ch)) return '\\' + ch;
  if (/[0-9A-Za-z_\s]/.test(ch) || ch.codePointAt(0)! > 0x7f) return ch === '\n' ? '\\n' : ch;
  return `\\u{${ch.codePointAt(0)!.toString(16)}}`;
}

interface Translated {
  source: string;
  flags: string;
  names: (string | undefined)[];
}

/** Translate a Go RE2 pattern to JS source; throws GoRegexpError or UnsupportedRegexpError. */
export function translateRegexp(expr: string): Translated {
  const cps = [...expr];
  let i = 0;
  let flags = '';
  let dotAll = false;
  // Leading flag groups (?i) (?s) (?m) (?ims)…
  for (;;) {
    const m = /^\(\?([imsU]+)\)/.exec(cps.slice(i).join(''));
    if (!m) break;
    for (const f of m[1]!) {
      if (f === 'U') throw new UnsupportedRegexpError('ungreedy flag (?U) is not supported');
      if (f === 's') dotAll = true;
      else if (!flags.includes(f)) flags += f;
    }
    i += m[0].length;
  }
  let out = '';
  const names: (string | undefined)[] = [undefined];
  let depth = 0;
  let lastAtom = false; // whether a repetition operator has something to apply to
  let lastRepeat = false;
  const peek = (k = 0): string => cps[i + k] ?? '';

  const escape = (inClass: boolean): string => {
    // At a backslash: returns JS text for the escape and advances i.
    const c = peek(1);
    if (c === '') throw parseErr('trailing backslash at end of expression', '');
    i += 2;
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 'n':
      case 't':
      case 'r':
      case 'f':
      case 'v':
        return '\\' + c;
      case 'a':
        return '\\x07';
      case 'b':
      case 'B':
        if (inClass) throw parseErr('invalid escape sequence', '\\' + c);
        return '\\' + c;
      case 's':
        return inClass ? '\\t\\n\\f\\r ' : '[\\t\\n\\f\\r ]';
      case 'S':
        return '[^\\t\\n\\f\\r ]';
      case 'A':
        if (inClass) throw parseErr('invalid escape sequence', '\\A');
        return '(?<![\\s\\S])';
      case 'z':
        if (inClass) throw parseErr('invalid escape sequence', '\\z');
        return '(?![\\s\\S])';
      case 'x': {
        if (peek() === '{') {
          const end = cps.indexOf('}', i);
          if (end < 0) throw parseErr('invalid escape sequence', '\\x{');
          const hex = cps.slice(i + 1, end).join('');
          if (!/^[0-9A-Fa-f]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff) {
            throw parseErr('invalid escape sequence', '\\x{' + hex + '}');
          }
          i = end + 1;
          return `\\u{${hex}}`;
        }
        const hex = peek() + peek(1);
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw parseErr('invalid escape sequence', '\\x' + hex);
        i += 2;
        return '\\x' + hex;
      }
      case 'p':
      case 'P': {
        let name: string;
        if (peek() === '{') {
          const end = cps.indexOf('}', i);
          if (end < 0) throw parseErr('invalid character class range', '\\' + c + '{');
          name = cps.slice(i + 1, end).join('');
          i = end + 1;
        } else {
          name = peek();
          i += 1;
        }
        let neg = c === 'P';
        if (name.startsWith('^')) {
          neg = !neg;
          name = name.slice(1);
        }
        let prop: string;
        if (name === 'Any') return neg ? '[]' : '[\\s\\S]';
        if (GC.has(name)) prop = name;
        else if (/^[A-Z][A-Za-z_]*$/.test(name)) prop = 'Script=' + name;
        else throw parseErr('invalid character class range', `\\${c}{${name}}`);
        try {
          new RegExp(`\\p{${prop}}`, 'u');
        } catch {
          throw parseErr('invalid character class range', `\\${c}{${name}}`);
        }
        return `\\${neg ? 'P' : 'p'}{${prop}}`;
      }
      case 'Q': {
        let lit = '';
        while (i < cps.length && !(peek() === '\\' && peek(1) === 'E')) {
          lit += escapeLiteral(peek());
          i++;
        }
        if (i < cps.length) i += 2;
        return inClass ? lit : `(?:${lit})`;
      }
      case 'C':
        throw new UnsupportedRegexpError('\\C (any byte) is not supported');
    }
    if (/[0-7]/.test(c)) {
      if (c === '0' || (/[0-7]/.test(peek()) && c !== '0')) {
        throw new UnsupportedRegexpError('octal escapes are not supported');
      }
      throw parseErr('invalid escape sequence', '\\' + c);
    }
    if (/[A-Za-z0-9]/.test(c)) throw parseErr('invalid escape sequence', '\\' + c);
    // Escaped punctuation is a literal.
    return escapeLiteral(c);
  };

  const charClass = (): string => {
    // At '['.
    const start = i;
    i++;
    let s = '[';
    let negated = false;
    if (peek() === '^') {
      negated = true;
      i++;
    }
    // Negated members (\S, [:^alpha:]) cannot sit inside a JS class: combined around it below.
    const negParts: string[] = [];
    let first = true;
    for (;;) {
      const c = peek();
      if (c === '') throw parseErr('missing closing ]', cps.slice(start).join(''));
      if (c === ']' && !first) {
        i++;
        break;
      }
      first = false;
      if (c === '[' && peek(1) === ':') {
        const rest = cps.slice(i).join('');
        const m = /^\[:(\^?)([a-z]+):\]/.exec(rest);
        if (m && POSIX[m[2]!] !== undefined) {
          if (m[1]) negParts.push(POSIX[m[2]!]!);
          else s += POSIX[m[2]!];
          i += m[0].length;
          continue;
        }
        if (m) throw parseErr('invalid character class range', m[0]);
      }
      if (c === '\\' && peek(1) === 'S') {
        negParts.push('\\t\\n\\f\\r ');
        i += 2;
        continue;
      }
      if (c === '\\') {
        s += escape(true);
        continue;
      }
      if (c === '-' && s.length > 1 && peek(1) !== ']') {
        s += '-';
        i++;
        continue;
      }
      s += c === '-' || c === '[' || c === ']' || c === '^' || c === '\\' ? '\\' + c : c;
      i++;
    }
    const body = s.slice(1);
    if (negParts.length === 0) return negated ? `[^${body}]` : `[${body}]`;
    if (!negated) {
      // In the class, or outside any negated member.
      const alts = negParts.map((n) => `[^${n}]`);
      if (body !== '') alts.unshift(`[${body}]`);
      return `(?:${alts.join('|')})`;
    }
    // Not in the class, and inside every negated member.
    const [firstNeg, ...others] = negParts as [string, ...string[]];
    return `(?:${body !== '' ? `(?![${body}])` : ''}${others.map((n) => `(?=[${n}])`).join('')}[${firstNeg}])`;
  };

  while (i < cps.length) {
    const c = peek();
    switch (c) {
      case '\\': {
        const e = escape(false);
        out += e;
        lastAtom = !e.startsWith('(?<!') && !e.startsWith('(?!') && e !== '\\b' && e !== '\\B';
        if (!lastAtom) lastAtom = true; // Go allows repeating empty-width assertions
        lastRepeat = false;
        continue;
      }
      case '[':
        out += charClass();
        lastAtom = true;
        lastRepeat = false;
        continue;
      case '(': {
        const rest = cps.slice(i, i + 4).join('');
        if (rest.startsWith('(?P<') || rest.startsWith('(?<')) {
          const off = rest.startsWith('(?P<') ? 4 : 3;
          if (rest.startsWith('(?<=') || rest.startsWith('(?<!')) {
            throw parseErr('invalid or unsupported Perl syntax', rest.slice(0, 4));
          }
          const end = cps.indexOf('>', i);
          const name = end < 0 ? '' : cps.slice(i + off, end).join('');
          if (end < 0 || !/^[A-Za-z0-9_]+$/.test(name)) {
            throw parseErr('invalid named capture', cps.slice(i, end < 0 ? undefined : end + 1).join(''));
          }
          if (names.includes(name)) throw parseErr('duplicate capture group name', name);
          names.push(name);
          // JS group names cannot start with a digit; map them.
          out += /^[0-9]/.test(name) ? '(' : `(?<${name}>`;
          i = end + 1;
        } else if (rest.startsWith('(?:')) {
          out += '(?:';
          i += 3;
        } else if (rest.startsWith('(?')) {
          const m = /^\(\?([a-zA-Z-]*)([:)])/.exec(cps.slice(i).join(''));
          if (m && /^[imsU-]*$/.test(m[1]!)) {
            throw new UnsupportedRegexpError(`inline flags \`${m[0]}\` are only supported at the start`);
          }
          throw parseErr('invalid or unsupported Perl syntax', cps.slice(i, i + 3).join(''));
        } else {
          names.push(undefined);
          out += '(';
          i += 1;
        }
        depth++;
        lastAtom = false;
        lastRepeat = false;
        continue;
      }
      case ')':
        if (depth === 0) throw parseErr('unexpected )', expr);
        depth--;
        out += ')';
        i++;
        lastAtom = true;
        lastRepeat = false;
        continue;
      case '*':
      case '+':
      case '?': {
        if (lastRepeat) throw parseErr('invalid nested repetition operator', (cps[i - 1] ?? '') + c);
        if (!lastAtom) throw parseErr('missing argument to repetition operator', c);
        out += c;
        i++;
        if (peek() === '?') {
          out += '?';
          i++;
        }
        lastRepeat = true;
        continue;
      }
      case '{': {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(cps.slice(i).join(''));
        if (m) {
          const lo = Number(m[1]);
          const hi = m[3] ? Number(m[3]) : lo;
          if (lo > 1000 || hi > 1000 || (m[3] && hi < lo)) throw parseErr('invalid repeat count', m[0]);
          if (lastRepeat) throw parseErr('invalid nested repetition operator', m[0]);
          if (!lastAtom) throw parseErr('missing argument to repetition operator', m[0]);
          out += m[0];
          i += m[0].length;
          if (peek() === '?') {
            out += '?';
            i++;
          }
          lastRepeat = true;
          continue;
        }
        out += '\\{';
        i++;
        lastAtom = true;
        lastRepeat = false;
        continue;
      }
      case '}':
      case ']':
      case '/':
        out += '\\' + c;
        i++;
        lastAtom = true;
        lastRepeat = false;
        continue;
      case '.':
        out += dotAll ? '[\\s\\S]' : '[^\\n]';
        i++;
        lastAtom = true;
        lastRepeat = false;
        continue;
      case '|':
        out += '|';
        i++;
        lastAtom = false;
        lastRepeat = false;
        continue;
      case '^':
      case '$':
        out += c;
        i++;
        lastAtom = true;
        lastRepeat = false;
        continue;
      default:
        out += c === '\n' ? '\\n' : c;
        i++;
        lastAtom = true;
        lastRepeat = false;
    }
  }
  if (depth > 0) throw parseErr('missing closing )', expr);
  return { source: out, flags, names };
}

/** A compiled Go regexp. */
export class GoRegexp {
  private readonly re: RegExp;
  private readonly names: (string | undefined)[];
  constructor(readonly expr: string) {
    const t = translateRegexp(expr);
    this.names = t.names;
    try {
      this.re = new RegExp(t.source, 'gu' + t.flags);
    } catch (e) {
      throw new GoRegexpError(`error parsing regexp: ${(e as Error).message}`);
    }
  }

  private execAt(s: string, pos: number): RegExpExecArray | null {
    this.re.lastIndex = pos;
    return this.re.exec(s);
  }

  /** Go's allMatches: successive matches, empty matches abutting a previous match skipped. */
  allMatches(s: string, n: number): RegExpExecArray[] {
    const out: RegExpExecArray[] = [];
    let pos = 0;
    let prevEnd = -1;
    while ((n < 0 || out.length < n) && pos <= s.length) {
      const m = this.execAt(s, pos);
      if (!m) break;
      const end = m.index + m[0].length;
      let accept = true;
      if (end === pos) {
        if (m.index === prevEnd) accept = false;
        pos += pos < s.length ? String.fromCodePoint(s.codePointAt(pos)!).length : 1;
      } else {
        pos = end;
      }
      prevEnd = end;
      if (accept) out.push(m);
    }
    return out;
  }

  matchString(s: string): boolean {
    return this.execAt(s, 0) !== null;
  }

  findString(s: string): string {
    return this.execAt(s, 0)?.[0] ?? '';
  }

  findAllString(s: string, n: number): string[] | null {
    if (n === 0) return null;
    const ms = this.allMatches(s, n);
    return ms.length === 0 ? null : ms.map((m) => m[0]);
  }

  replaceAll(src: string, repl: (m: RegExpExecArray) => string): string {
    let out = '';
    let lastEnd = 0;
    let searchPos = 0;
    while (searchPos <= src.length) {
      const m = this.execAt(src, searchPos);
      if (!m) break;
      const a0 = m.index;
      const a1 = a0 + m[0].length;
      out += src.slice(lastEnd, a0);
      if (a1 > lastEnd || a0 === 0) out += repl(m);
      lastEnd = a1;
      const width = searchPos < src.length ? String.fromCodePoint(src.codePointAt(searchPos)!).length : 1;
      if (searchPos + width > a1) searchPos += width;
      else if (searchPos + 1 > a1) searchPos++;
      else searchPos = a1;
    }
    return out + src.slice(lastEnd);
  }

  /** Regexp.Expand's template language: $1, ${1}, $name, ${name}, $$. */
  expand(template: string, m: RegExpExecArray): string {
    let out = '';
    let t = template;
    for (;;) {
      const k = t.indexOf('$');
      if (k < 0) break;
      out += t.slice(0, k);
      t = t.slice(k);
      if (t.length > 1 && t[1] === '$') {
        out += '$';
        t = t.slice(2);
        continue;
      }
      let name: string | undefined;
      let rest = t;
      const braced = /^\$\{([A-Za-z0-9_]+)\}/.exec(t);
      const plain = /^\$([A-Za-z0-9_]+)/.exec(t);
      if (t[1] === '{') {
        if (braced) {
          name = braced[1];
          rest = t.slice(braced[0].length);
        }
      } else if (plain) {
        name = plain[1];
        rest = t.slice(plain[0].length);
      }
      if (name === undefined) {
        out += '$';
        t = t.slice(1);
        continue;
      }
      t = rest;
      if (/^[0-9]+$/.test(name)) {
        const idx = Number(name);
        if (idx < m.length) out += m[idx] ?? '';
      } else {
        const gi = this.names.indexOf(name);
        if (gi > 0) out += m[gi] ?? '';
      }
    }
    return out + t;
  }

  split(s: string, n: number): string[] | null {
    if (n === 0) return null;
    if (this.expr.length > 0 && s.length === 0) return [''];
    const matches = this.allMatches(s, n);
    const out: string[] = [];
    let beg = 0;
    let end = 0;
    for (const m of matches) {
      if (n > 0 && out.length === n - 1) break;
      end = m.index;
      const mEnd = m.index + m[0].length;
      if (mEnd !== 0) out.push(s.slice(beg, end));
      beg = mEnd;
    }
    if (end !== s.length) out.push(s.slice(beg));
    return out;
  }
}

const cache = new Map<string, GoRegexp>();

/** regexp.Compile with a small cache (templates compile the same patterns per render). */
export function compileGo(expr: string): GoRegexp {
  let re = cache.get(expr);
  if (!re) {
    re = new GoRegexp(expr);
    if (cache.size > 500) cache.clear();
    cache.set(expr, re);
  }
  return re;
}

/** regexp.MustCompile: its panic text. */
function mustCompile(expr: string): GoRegexp {
  try {
    return compileGo(expr);
  } catch (e) {
    if (e instanceof GoRegexpError) {
      // strconv.CanBackquote: no backquote and no control characters but tab.
      const canBackquote = [...expr].every((ch) => ch !== '`' && ch !== '\x7f' && (ch >= ' ' || ch === '\t'));
      const q = canBackquote ? '`' + expr + '`' : JSON.stringify(expr);
      throw new GoRegexpError(`regexp: Compile(${q}): ${e.message}`);
    }
    throw e;
  }
}

/** regexp.QuoteMeta. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

const strs = (a: string[] | null): GoValue => tagSlice(a ?? [], '[]string');

export function regexFunctions(): Record<string, GoFunc> {
  return {
    regexMatch: (...a) => {
      arity('regexMatch', a, 2);
      const expr = argString(a[0]);
      const s = argString(a[1]);
      try {
        return compileGo(expr).matchString(s);
      } catch (e) {
        if (e instanceof GoRegexpError) return false;
        throw e;
      }
    },
    mustRegexMatch: (...a) => {
      arity('mustRegexMatch', a, 2);
      const expr = argString(a[0]);
      return compileGo(expr).matchString(argString(a[1]));
    },
    regexFindAll: (...a) => {
      arity('regexFindAll', a, 3);
      const [expr, s, n] = [argString(a[0]), argString(a[1]), argIntNum(a[2])];
      return strs(mustCompile(expr).findAllString(s, n));
    },
    mustRegexFindAll: (...a) => {
      arity('mustRegexFindAll', a, 3);
      const [expr, s, n] = [argString(a[0]), argString(a[1]), argIntNum(a[2])];
      return strs(compileGo(expr).findAllString(s, n));
    },
    regexFind: (...a) => {
      arity('regexFind', a, 2);
      return mustCompile(argString(a[0])).findString(argString(a[1]));
    },
    mustRegexFind: (...a) => {
      arity('mustRegexFind', a, 2);
      return compileGo(argString(a[0])).findString(argString(a[1]));
    },
    regexReplaceAll: (...a) => {
      arity('regexReplaceAll', a, 3);
      const re = mustCompile(argString(a[0]));
      const repl = argString(a[2]);
      return re.replaceAll(argString(a[1]), (m) => re.expand(repl, m));
    },
    mustRegexReplaceAll: (...a) => {
      arity('mustRegexReplaceAll', a, 3);
      const re = compileGo(argString(a[0]));
      const repl = argString(a[2]);
      return re.replaceAll(argString(a[1]), (m) => re.expand(repl, m));
    },
    regexReplaceAllLiteral: (...a) => {
      arity('regexReplaceAllLiteral', a, 3);
      const re = mustCompile(argString(a[0]));
      const repl = argString(a[2]);
      return re.replaceAll(argString(a[1]), () => repl);
    },
    mustRegexReplaceAllLiteral: (...a) => {
      arity('mustRegexReplaceAllLiteral', a, 3);
      const re = compileGo(argString(a[0]));
      const repl = argString(a[2]);
      return re.replaceAll(argString(a[1]), () => repl);
    },
    regexSplit: (...a) => {
      arity('regexSplit', a, 3);
      const [expr, s, n] = [argString(a[0]), argString(a[1]), argIntNum(a[2])];
      return strs(mustCompile(expr).split(s, n));
    },
    mustRegexSplit: (...a) => {
      arity('mustRegexSplit', a, 3);
      const [expr, s, n] = [argString(a[0]), argString(a[1]), argIntNum(a[2])];
      return strs(compileGo(expr).split(s, n));
    },
    regexQuoteMeta: (...a) => quoteMeta(argString(a[0])),
  };
}
