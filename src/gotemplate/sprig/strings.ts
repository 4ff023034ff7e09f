// sprig's string functions (strings.go, goutils and xstrings helpers) with Go's byte-oriented
// semantics: lengths and offsets count UTF-8 bytes, as Go's len and slicing do.

import type { GoFunc, GoMap, GoValue } from '../value.js';
import { argInt, argIntNum, argString, arity, strval, tagSlice } from './cast.js';
import { randomBelow } from './entropy.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A Go string's bytes. */
function bytesOf(s: string): Uint8Array {
  return enc.encode(s);
}

/** Go's s[a:b] on bytes (invalid UTF-8 at cut points becomes U+FFFD: JS strings cannot hold it). */
function byteSlice(s: string, a: number, b?: number): string {
  if (/^\p{ASCII}*$/u.test(s)) return s.slice(a, b);
  return dec.decode(bytesOf(s).subarray(a, b));
}

function byteLen(s: string): number {
  if (/^\p{ASCII}*$/u.test(s)) return s.length;
  return bytesOf(s).length;
}

function sliceBoundsPanic(a: number, b: number, cap: number): never {
  if (b > cap) throw new Error(`runtime error: slice bounds out of range [:${b}] with length ${cap}`);
  if (a < 0) throw new Error(`runtime error: slice bounds out of range [${a}:]`);
  throw new Error(`runtime error: slice bounds out of range [${a}:${b}]`);
}

/** Go's s[a:b] with its panics. */
function goSlice(s: string, a: number, b: number): string {
  const n = byteLen(s);
  if (b > n || a < 0 || a > b || b < 0) {
    if (b < 0) throw new Error(`runtime error: slice bounds out of range [:${b}]`);
    if (a > b && b <= n && a >= 0) throw new Error(`runtime error: slice bounds out of range [${a}:${b}]`);
    sliceBoundsPanic(a, b, n);
  }
  return byteSlice(s, a, b);
}

/** unicode.IsSpace. */
export function isSpace(c: number): boolean {
  if (c <= 0xff) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85 || c === 0xa0;
  return /\s/u.test(String.fromCodePoint(c)) && c !== 0xfeff;
}

function isUpper(ch: string): boolean {
  return /\p{Lu}/u.test(ch);
}
function isLower(ch: string): boolean {
  return /\p{Ll}/u.test(ch);
}
function isTitle(ch: string): boolean {
  return /\p{Lt}/u.test(ch);
}
function isLetter(ch: string): boolean {
  return /\p{L}/u.test(ch);
}
function isNumber(ch: string): boolean {
  return /\p{N}/u.test(ch);
}
function isPunct(ch: string): boolean {
  return /\p{P}/u.test(ch);
}

/** unicode.ToUpper on one rune: a single-rune mapping only (no ß → SS). */
function runeUpper(ch: string): string {
  const u = ch.toUpperCase();
  return [...u].length === 1 ? u : ch;
}
function runeLower(ch: string): string {
  const l = ch.toLowerCase();
  return [...l].length === 1 ? l : ch;
}
function runeTitle(ch: string): string {
  // Title case differs from upper case only for a few digraphs (ǆ → ǅ).
  const special: Record<string, string> = { ǆ: 'ǅ', Ǆ: 'ǅ', ǉ: 'ǈ', Ǉ: 'ǈ', ǌ: 'ǋ', Ǌ: 'ǋ', ǳ: 'ǲ', Ǳ: 'ǲ' };
  return special[ch] ?? runeUpper(ch);
}

export function goToUpper(s: string): string {
  if (/^\p{ASCII}*$/u.test(s)) return s.toUpperCase();
  return [...s].map(runeUpper).join('');
}

export function goToLower(s: string): string {
  if (/^\p{ASCII}*$/u.test(s)) return s.toLowerCase();
  return [...s].map(runeLower).join('');
}

/** strings.TrimSpace. */
export function trimSpace(s: string): string {
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  while (a < b && isSpace(cps[a]!.codePointAt(0)!)) a++;
  while (b > a && isSpace(cps[b - 1]!.codePointAt(0)!)) b--;
  return cps.slice(a, b).join('');
}

/** strings.Trim(s, cutset). */
function trimCutset(s: string, cutset: string): string {
  if (s === '' || cutset === '') return s;
  const set = new Set([...cutset]);
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  while (a < b && set.has(cps[a]!)) a++;
  while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join('');
}

/** strings.Title (deprecated in Go, but what sprig calls). */
function title(s: string): string {
  let prev = ' ';
  let out = '';
  for (const ch of s) {
    // Go's isSeparator, applied to the previous rune.
    let sep: boolean;
    const p = prev.codePointAt(0)!;
    if (p <= 0x7f) {
      sep = !/[0-9A-Za-z_]/.test(prev);
    } else if (isLetter(prev) || isNumber(prev)) {
      sep = false;
    } else {
      sep = isSpace(p);
    }
    out += sep ? runeTitle(ch) : ch;
    prev = ch;
  }
  return out;
}

/** goutils.Uncapitalize: lower-case the first rune of each whitespace-separated word. */
function untitle(s: string): string {
  let next = true;
  let out = '';
  for (const ch of s) {
    if (isSpace(ch.codePointAt(0)!)) {
      next = true;
      out += ch;
    } else if (next) {
      out += runeLower(ch);
      next = false;
    } else out += ch;
  }
  return out;
}

/** goutils.SwapCase. */
function swapcase(s: string): string {
  let ws = true;
  let out = '';
  for (const ch of s) {
    if (isUpper(ch) || isTitle(ch)) {
      out += runeLower(ch);
      ws = false;
    } else if (isLower(ch)) {
      out += ws ? runeTitle(ch) : runeUpper(ch);
      ws = false;
    } else {
      ws = isSpace(ch.codePointAt(0)!);
      out += ch;
    }
  }
  return out;
}

/** Bytes of a Go string read as runes one byte at a time (goutils does `rune(str[i])`). */
function latin1Runes(s: string): number[] {
  return Array.from(bytesOf(s));
}

/** goutils.DeleteWhiteSpace (byte-wise, as goutils does). */
function nospace(s: string): string {
  const bs = latin1Runes(s);
  const kept = bs.filter((b) => !isSpace(b));
  if (kept.length === bs.length) return s;
  return String.fromCodePoint(...kept);
}

/** goutils.Initials (byte-wise). */
function initials(s: string): string {
  let gap = true;
  let out = '';
  for (const b of latin1Runes(s)) {
    if (isSpace(b)) gap = true;
    else if (gap) {
      out += String.fromCodePoint(b);
      gap = false;
    }
  }
  return out;
}

/** goutils.AbbreviateFull; null where goutils returns an error (sprig then yields ""). */
function abbreviateFull(str: string, offset: number, maxWidth: number): string {
  if (str === '') return '';
  if (maxWidth < 4) return '';
  const n = byteLen(str);
  if (n <= maxWidth) return str;
  let off = offset;
  if (off > n) off = n;
  if (n - off < maxWidth - 3) off = n - (maxWidth - 3);
  const marker = '...';
  if (off <= 4) return goSlice(str, 0, maxWidth - 3) + marker;
  if (maxWidth < 7) return '';
  if (off + maxWidth - 3 < n) return marker + abbreviateFull(byteSlice(str, off), 0, maxWidth - 3);
  return marker + byteSlice(str, n - (maxWidth - 3));
}

/** goutils.WrapCustom. */
function wrapCustom(str: string, wrapLength: number, newLine: string, wrapLong: boolean): string {
  if (str === '') return '';
  const nl = newLine === '' ? '\n' : newLine;
  const wl = wrapLength < 1 ? 1 : wrapLength;
  const n = byteLen(str);
  let offset = 0;
  let out = '';
  while (n - offset > wl) {
    if (byteSlice(str, offset, offset + 1) === ' ') {
      offset++;
      continue;
    }
    const end = wl + offset + 1;
    const space = byteSlice(str, offset, end).lastIndexOf(' ');
    const at = space < 0 ? -1 : byteLen(byteSlice(str, offset, end).slice(0, space)) + offset;
    if (at >= offset) {
      out += byteSlice(str, offset, at) + nl;
      offset = at + 1;
    } else if (wrapLong) {
      out += byteSlice(str, offset, wl + offset) + nl;
      offset += wl;
    } else {
      const e = wl + offset;
      const rest = byteSlice(str, e);
      const idx = rest.indexOf(' ');
      if (idx === -1) {
        out += byteSlice(str, offset);
        offset = n;
      } else {
        const sp = byteLen(rest.slice(0, idx)) + e;
        out += byteSlice(str, offset, sp) + nl;
        offset = sp + 1;
      }
    }
  }
  return out + byteSlice(str, offset);
}

// ---- xstrings case conversion ----

function isConnector(ch: string): boolean {
  return ch === '-' || ch === '_' || isSpace(ch.codePointAt(0)!);
}

function isAlphabet(ch: string): boolean {
  if (!isLetter(ch)) return false;
  // xstrings treats CJK ideographs as non-alphabet.
  return !/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u.test(ch);
}

type WordType = 'invalid' | 'number' | 'upper' | 'alpha' | 'connector' | 'punct' | 'other';

function nextWord(cps: string[], start: number): [WordType, number] {
  if (start >= cps.length) return ['invalid', start];
  let i = start;
  const r = cps[i]!;
  i++;
  const n = cps.length;
  if (isConnector(r)) {
    while (i < n && isConnector(cps[i]!)) i++;
    return ['connector', i];
  }
  if (isPunct(r)) {
    while (i < n && isPunct(cps[i]!)) i++;
    return ['punct', i];
  }
  if (isUpper(r)) {
    if (i >= n) return ['upper', i];
    const r2 = cps[i]!;
    if (isUpper(r2)) {
      i++;
      while (i < n && isUpper(cps[i]!)) i++;
      if (i < n && isAlphabet(cps[i]!)) i--;
    } else if (isAlphabet(r2)) {
      i++;
      while (i < n && isAlphabet(cps[i]!) && !isUpper(cps[i]!)) i++;
    }
    return ['upper', i];
  }
  if (isAlphabet(r)) {
    while (i < n && isAlphabet(cps[i]!) && !isUpper(cps[i]!)) i++;
    return ['alpha', i];
  }
  if (isNumber(r)) {
    while (i < n && isNumber(cps[i]!)) i++;
    return ['number', i];
  }
  while (i < n) {
    const c = cps[i]!;
    if (isConnector(c) || isAlphabet(c) || isNumber(c) || isPunct(c)) break;
    i++;
  }
  return ['other', i];
}

function caseToLower(str: string, connector: string): string {
  if (str === '') return '';
  const cps = [...str];
  let out = '';
  const lower = (wt: WordType, w: string): void => {
    if (wt !== 'upper' && wt !== 'connector') {
      out += w;
      return;
    }
    for (const ch of w) out += isConnector(ch) ? connector : isUpper(ch) ? runeLower(ch) : ch;
  };
  const st = { pos: 0, wt: 'invalid' as WordType, word: '' };
  const advance = (): void => {
    const [t, end] = nextWord(cps, st.pos);
    st.wt = t;
    st.word = cps.slice(st.pos, end).join('');
    st.pos = end;
  };
  // A getter defeats TypeScript's narrowing across advance(), which mutates the state.
  const wt = (): WordType => st.wt;
  advance();
  while (st.pos < cps.length) {
    if (wt() !== 'connector') lower(wt(), st.word);
    const prev = wt();
    const last = st.word;
    advance();
    switch (prev) {
      case 'number':
        while (wt() === 'alpha' || wt() === 'number') {
          lower(wt(), st.word);
          advance();
        }
        if (wt() !== 'invalid' && wt() !== 'punct' && wt() !== 'connector') out += connector;
        break;
      case 'connector':
        lower(prev, last);
        break;
      case 'punct':
        break;
      default: {
        if (wt() !== 'number') {
          if (wt() !== 'connector' && wt() !== 'punct') out += connector;
          break;
        }
        if (st.pos >= cps.length) break;
        const lastNum = st.word;
        advance();
        if (wt() !== 'alpha') {
          lower('number', lastNum);
          if (wt() !== 'connector' && wt() !== 'punct') out += connector;
          break;
        }
        out += connector;
        lower('number', lastNum);
        while (wt() === 'alpha' || wt() === 'number') {
          lower(wt(), st.word);
          advance();
        }
        if (wt() !== 'invalid' && wt() !== 'connector' && wt() !== 'punct') out += connector;
      }
    }
  }
  lower(wt(), st.word);
  return out;
}

/**
 * xstrings.ToPascalCase (v1.5): connectors dropped, each word's first rune upper-cased, and the
 * upper-case run after an upper-case word start lower-cased ("ALL_CAPS" → "AllCaps").
 */
function pascalCase(str: string): string {
  if (str === '') return '';
  const cps = [...str];
  let out = '';
  let i = 0;
  let r0 = '';
  let firstUpper = false;
  for (; i < cps.length; i++) {
    r0 = cps[i]!;
    if (!isConnector(r0)) {
      firstUpper = isUpper(r0);
      r0 = runeUpper(r0);
      i++;
      break;
    }
    out += r0;
  }
  // A string of connectors only ends up with its last one twice, as xstrings writes it.
  if (i >= cps.length) return out + r0;
  for (; i < cps.length; i++) {
    const r1 = r0;
    r0 = cps[i]!;
    if (isConnector(r0) && isConnector(r1)) {
      out += r1;
      continue;
    }
    if (isConnector(r1)) {
      firstUpper = isUpper(r0);
      r0 = runeUpper(r0);
    } else {
      if (firstUpper) {
        if (isUpper(r0)) r0 = runeLower(r0);
        else firstUpper = false;
      }
      out += r1;
    }
  }
  return out + r0;
}

/** Go's %q of a string (strconv.Quote). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c === 0xfffd) out += ch;
    else if (/[\p{L}\p{M}\p{N}\p{P}\p{S}]|\x20/u.test(ch)) out += ch;
    else if (c < 0x10000) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += '\\U' + c.toString(16).padStart(8, '0');
  }
  return out + '"';
}

/** sprig's strslice: a list's non-nil elements as strings; a scalar as a one-element list. */
export function strslice(v: GoValue | undefined): string[] {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map((x) => strval(x));
  if (v === null || v === undefined) return [];
  return [strval(v)];
}

/** strings.SplitN / Split with Go's rules for an empty separator (split into runes). */
export function goSplitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const cps = [...s];
    if (n < 0 || n > cps.length) return cps;
    return [...cps.slice(0, n - 1), cps.slice(n - 1).join('')];
  }
  if (n < 0) return s.split(sep);
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

function toIndexMap(parts: string[]): GoMap {
  const m: GoMap = {};
  parts.forEach((p, i) => (m[`_${i}`] = p));
  return m;
}

/** strings.Repeat, which panics on a negative count. */
function goRepeat(s: string, count: number): string {
  if (count < 0) throw new Error('strings: negative Repeat count');
  return s.repeat(count);
}

const s1 =
  (f: (s: string) => GoValue): GoFunc =>
  (...a) => {
    return f(argString(a[0]));
  };

export function stringFunctions(): Record<string, GoFunc> {
  return {
    trim: s1(trimSpace),
    upper: s1(goToUpper),
    lower: s1(goToLower),
    title: s1(title),
    untitle: s1(untitle),
    substr: (...a) => {
      arity('substr', a, 3);
      const start = argIntNum(a[0]);
      const end = argIntNum(a[1]);
      const s = argString(a[2]);
      if (start < 0) return goSlice(s, 0, end);
      if (end < 0 || end > byteLen(s)) return goSlice(s, start, byteLen(s));
      return goSlice(s, start, end);
    },
    repeat: (...a) => {
      arity('repeat', a, 2);
      const count = argIntNum(a[0]);
      const s = argString(a[1]);
      return goRepeat(s, count);
    },
    trimall: (...a) => trimCutset(argString(a[1]), argString(a[0])),
    trimAll: (...a) => trimCutset(argString(a[1]), argString(a[0])),
    trimSuffix: (...a) => {
      const suf = argString(a[0]);
      const s = argString(a[1]);
      return suf !== '' && s.endsWith(suf) ? s.slice(0, s.length - suf.length) : s;
    },
    trimPrefix: (...a) => {
      const pre = argString(a[0]);
      const s = argString(a[1]);
      return s.startsWith(pre) ? s.slice(pre.length) : s;
    },
    nospace: s1(nospace),
    initials: s1(initials),
    swapcase: s1(swapcase),
    shuffle: s1((s) => {
      const cps = [...s];
      for (let i = cps.length - 1; i > 0; i--) {
        const j = randomBelow(i + 1);
        [cps[i], cps[j]] = [cps[j]!, cps[i]!];
      }
      return cps.join('');
    }),
    snakecase: s1((s) => caseToLower(s, '_')),
    kebabcase: s1((s) => caseToLower(s, '-')),
    camelcase: s1(pascalCase),
    abbrev: (...a) => {
      arity('abbrev', a, 2);
      const width = argIntNum(a[0]);
      const s = argString(a[1]);
      if (width < 4) return s;
      return abbreviateFull(s, 0, width);
    },
    abbrevboth: (...a) => {
      arity('abbrevboth', a, 3);
      const left = argIntNum(a[0]);
      const right = argIntNum(a[1]);
      const s = argString(a[2]);
      if (right < 4 || (left > 0 && right < 7)) return s;
      return abbreviateFull(s, left, right);
    },
    trunc: (...a) => {
      arity('trunc', a, 2);
      const c = argIntNum(a[0]);
      const s = argString(a[1]);
      const n = byteLen(s);
      if (c < 0 && n + c > 0) return byteSlice(s, n + c);
      if (c >= 0 && n > c) return byteSlice(s, 0, c);
      return s;
    },
    wrap: (...a) => {
      arity('wrap', a, 2);
      return wrapCustom(argString(a[1]), argIntNum(a[0]), '', false);
    },
    wrapWith: (...a) => {
      arity('wrapWith', a, 3);
      return wrapCustom(argString(a[2]), argIntNum(a[0]), argString(a[1]), true);
    },
    contains: (...a) => argString(a[1]).includes(argString(a[0])),
    hasPrefix: (...a) => argString(a[1]).startsWith(argString(a[0])),
    hasSuffix: (...a) => argString(a[1]).endsWith(argString(a[0])),
    quote: (...a) =>
      a
        .filter((x) => x !== null)
        .map((x) => goQuote(strval(x)))
        .join(' '),
    squote: (...a) =>
      a
        .filter((x) => x !== null)
        .map((x) => `'${strval(x)}'`)
        .join(' '),
    cat: (...a) =>
      a
        .filter((x) => x !== null)
        .map((x) => strval(x))
        .join(' '),
    indent: (...a) => {
      arity('indent', a, 2);
      const pad = goRepeat(' ', argIntNum(a[0]));
      return pad + argString(a[1]).replaceAll('\n', '\n' + pad);
    },
    nindent: (...a) => {
      arity('nindent', a, 2);
      const pad = goRepeat(' ', argIntNum(a[0]));
      return '\n' + pad + argString(a[1]).replaceAll('\n', '\n' + pad);
    },
    replace: (...a) => {
      arity('replace', a, 3);
      const old = argString(a[0]);
      const nw = argString(a[1]);
      const src = argString(a[2]);
      if (old === '') {
        // strings.Replace with an empty old inserts at every rune boundary.
        const cps = [...src];
        return nw + cps.map((c) => c + nw).join('');
      }
      return src.split(old).join(nw);
    },
    plural: (...a) => {
      arity('plural', a, 3);
      const one = argString(a[0]);
      const many = argString(a[1]);
      return argInt(a[2]) === 1n ? one : many;
    },
    toString: ((...a: GoValue[]) => strval(a[0])) as GoFunc,
    toStrings: (...a) => tagSlice(strslice(a[0]), '[]string'),
    join: (...a) => {
      arity('join', a, 2);
      return strslice(a[1]).join(argString(a[0]));
    },
    splitList: (...a) => tagSlice(goSplitN(argString(a[1]), argString(a[0]), -1), '[]string'),
    split: (...a) => toIndexMap(goSplitN(argString(a[1]), argString(a[0]), -1)),
    splitn: (...a) => {
      arity('splitn', a, 3);
      const sep = argString(a[0]);
      const n = argIntNum(a[1]);
      return toIndexMap(goSplitN(argString(a[2]), sep, n));
    },
    sortAlpha: (...a) => {
      const v = a[0];
      if (Array.isArray(v)) {
        return tagSlice(
          strslice(v).sort((x, y) => compareGoStrings(x, y)),
          '[]string',
        );
      }
      return tagSlice([strval(v)], '[]string');
    },
  };
}

/** Go compares strings bytewise (UTF-8), JS by UTF-16 units; they differ only past the BMP. */
export function compareGoStrings(x: string, y: string): number {
  if (x === y) return 0;
  const bx = Buffer.from(x, 'utf8');
  const by = Buffer.from(y, 'utf8');
  return Buffer.compare(bx, by);
}
