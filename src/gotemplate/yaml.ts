// helm's toYaml/toYamlPretty/fromYaml/fromYamlArray: sigs.k8s.io/yaml (JSON round trip) over go-yaml v2's emitter and resolver.
// The emitter follows libyaml's state machine (indentation, quoting choice, 80-column folding) so output is byte-identical.

import {
  parseDocument,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  Scalar,
  type Node as YNode,
  type Document,
} from 'yaml';
import { formatFloat, formatFloatJSON } from './strconv.js';
import { sprintf } from './fmt.js';
import { JSONMarshalError, jsonKindName } from './json.js';
import { GoSizedInt, isGoOpaque, type GoMap, type GoValue } from './value.js';

// ---------------------------------------------------------------------------------------------
// go-yaml v2's resolver: what tag a plain scalar would get. Used both to decide quoting on the
// way out and to type plain scalars on the way in.

type Resolved =
  | { tag: 'str'; value: string }
  | { tag: 'bool'; value: boolean }
  | { tag: 'null'; value: null }
  | { tag: 'int'; value: bigint }
  | { tag: 'float'; value: number }
  | { tag: 'timestamp'; value: string }
  | { tag: 'merge'; value: string };

const resolveMap = new Map<string, Resolved>();
for (const s of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'])
  resolveMap.set(s, { tag: 'bool', value: true });
for (const s of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'])
  resolveMap.set(s, { tag: 'bool', value: false });
for (const s of ['', '~', 'null', 'Null', 'NULL']) resolveMap.set(s, { tag: 'null', value: null });
for (const s of ['.nan', '.NaN', '.NAN']) resolveMap.set(s, { tag: 'float', value: NaN });
for (const s of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'])
  resolveMap.set(s, { tag: 'float', value: Infinity });
for (const s of ['-.inf', '-.Inf', '-.INF']) resolveMap.set(s, { tag: 'float', value: -Infinity });
resolveMap.set('<<', { tag: 'merge', value: '<<' });

const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const base60float = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const INT64_MIN = -(1n << 63n);
const UINT64_MAX = (1n << 64n) - 1n;

/** Go's strconv.ParseInt/ParseUint with base 0 (no underscores: the caller removed them); undefined on syntax error. */
function parseGoInt(s: string): bigint | undefined {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  let body = m[2]!;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt('0o' + body.slice(2));
  else if (/^0[0-7]+$/.test(body)) v = BigInt('0o' + body.slice(1));
  else {
    if (/^0[xXbB]/.test(body)) body = '0' + body[1]!.toLowerCase() + body.slice(2);
    v = BigInt(body);
  }
  return m[1] === '-' ? -v : v;
}

/** Go's strconv.ParseFloat accepted forms (decimal, hex floats, inf/nan words); undefined if rejected. */
function parseGoFloat(s: string): number | undefined {
  if (/^[-+]?(inf|infinity|nan)$/i.test(s)) {
    const l = s.toLowerCase();
    return l.includes('nan') ? NaN : l.startsWith('-') ? -Infinity : Infinity;
  }
  if (/^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/.test(s)) {
    const f = Number(s);
    // Out of float64 range is a ParseFloat error, not an infinity.
    return Number.isFinite(f) ? f : undefined;
  }
  return undefined;
}

function daysIn(month: number, year: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** go-yaml's parseTimestamp: the subset of time formats it accepts. */
function isTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt ])(\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(
      s,
    );
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return false;
  if (m[4] === undefined) return true;
  if (Number(m[5]) > 23 || Number(m[6]) > 59 || Number(m[7]) > 59) return false;
  // "T"/"t" forms need a zone; the space form must not have one.
  if (m[4] === ' ') return m[9] === undefined;
  if (m[9] === undefined) return false;
  if (m[9] !== 'Z' && (Number(m[9].slice(1, 3)) > 23 || Number(m[9].slice(4)) > 59)) return false;
  return true;
}

function resolvePlain(s: string): Resolved {
  const c = s[0];
  const hint =
    s === ''
      ? 'N'
      : c === '+' || c === '-'
        ? 'S'
        : c !== undefined && c >= '0' && c <= '9'
          ? 'D'
          : 'yYnNtTfFoO~'.includes(c!)
            ? 'M'
            : c === '.'
              ? '.'
              : '';
  if (hint === '') return { tag: 'str', value: s };
  const item = resolveMap.get(s);
  if (item) return item;
  if (hint === '.') {
    const f = parseGoFloat(s);
    if (f !== undefined) return { tag: 'float', value: f };
  } else if (hint === 'D' || hint === 'S') {
    if (isTimestamp(s)) return { tag: 'timestamp', value: s };
    const plain = s.replaceAll('_', '');
    const iv = parseGoInt(plain);
    if (iv !== undefined && iv >= INT64_MIN && iv <= UINT64_MAX) return { tag: 'int', value: iv };
    if (yamlStyleFloat.test(plain)) {
      const f = parseGoFloat(plain);
      if (f !== undefined) return { tag: 'float', value: f };
    }
    // Out of 64-bit range and not float-like (hex, octal): go-yaml keeps it as a big.Int.
    if (iv !== undefined) return { tag: 'int', value: iv };
  }
  return { tag: 'str', value: s };
}

// ---------------------------------------------------------------------------------------------
// The emitter (go-yaml v2 / libyaml, block style, best_indent 2, best_width 80, unicode on).

type Style = 'plain' | 'single' | 'double' | 'literal';

type ENode =
  | { kind: 'scalar'; value: string; style: Style }
  | { kind: 'seq'; items: ENode[] }
  | { kind: 'map'; pairs: [ENode, ENode][] };

interface Analysis {
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

function isBreak(cp: number | undefined): boolean {
  return cp === 0x0d || cp === 0x0a || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
}

function isBlankz(cp: number | undefined): boolean {
  return cp === undefined || cp === 0x20 || cp === 0x09 || isBreak(cp) || cp === 0;
}

function analyzeScalar(cps: number[]): Analysis {
  if (cps.length === 0)
    return { multiline: false, flowPlain: false, blockPlain: true, singleQuoted: true, block: false };
  let blockInd = false;
  let flowInd = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWs = true;
  let prevSpace = false;
  let prevBreak = false;
  const str = String.fromCodePoint(...cps.slice(0, 3));
  if (str === '---' || str === '...') {
    blockInd = true;
    flowInd = true;
  }
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    const followedByWs =
      i + 1 >= cps.length || cps[i + 1] === 0x20 || cps[i + 1] === 0x09 || isBreak(cps[i + 1]);
    const ch = String.fromCodePoint(c);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowInd = true;
        blockInd = true;
      } else if (ch === '?' || ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      } else if (ch === '-' && followedByWs) {
        flowInd = true;
        blockInd = true;
      }
    } else {
      if (',?[]{}'.includes(ch)) flowInd = true;
      else if (ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      } else if (ch === '#' && precededByWs) {
        flowInd = true;
        blockInd = true;
      }
    }
    if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === cps.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cps.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWs = isBlankz(c);
  }
  const a: Analysis = {
    multiline: lineBreaks,
    flowPlain: true,
    blockPlain: true,
    singleQuoted: true,
    block: true,
  };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    a.flowPlain = false;
    a.blockPlain = false;
  }
  if (trailingSpace) a.block = false;
  if (breakSpace) {
    a.flowPlain = false;
    a.blockPlain = false;
    a.singleQuoted = false;
  }
  if (spaceBreak || special) {
    a.flowPlain = false;
    a.blockPlain = false;
    a.singleQuoted = false;
    a.block = false;
  }
  if (lineBreaks) {
    a.flowPlain = false;
    a.blockPlain = false;
  }
  if (flowInd) a.flowPlain = false;
  if (blockInd) a.blockPlain = false;
  return a;
}

const BEST_INDENT = 2;
const BEST_WIDTH = 80;

/** go-yaml v2 (toYaml) or v3 with SetIndent(2) (toYamlPretty): v3 never folds lines and indents sequences under keys. */
type Flavor = 'v2' | 'v3';

class Emitter {
  readonly bestWidth: number;
  readonly indentSequences: boolean;
  constructor(flavor: Flavor) {
    this.bestWidth = flavor === 'v2' ? BEST_WIDTH : Infinity;
    this.indentSequences = flavor === 'v3';
  }
  out = '';
  column = 0;
  whitespace = true;
  indention = true;
  indent = -1;
  indents: number[] = [];
  flowLevel = 0;
  mappingContext = false;
  simpleKeyContext = false;

  put(s: string): void {
    this.out += s;
    this.column++;
  }

  putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace))
      this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  writeIndicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of ind) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  emitNode(n: ENode, mapping: boolean, simpleKey: boolean): void {
    this.mappingContext = mapping;
    this.simpleKeyContext = simpleKey;
    if (n.kind === 'scalar') this.emitScalar(n);
    else if (n.kind === 'seq') {
      if (this.flowLevel > 0 || n.items.length === 0) this.emitFlowSeq(n.items);
      else this.emitBlockSeq(n.items);
    } else {
      if (this.flowLevel > 0 || n.pairs.length === 0) this.emitFlowMap(n.pairs);
      else this.emitBlockMap(n.pairs);
    }
  }

  emitFlowSeq(items: ENode[]): void {
    this.writeIndicator('[', true, true, false);
    this.increaseIndent(true, false);
    this.flowLevel++;
    items.forEach((it, i) => {
      if (i > 0) this.writeIndicator(',', false, false, false);
      if (this.column > this.bestWidth) this.writeIndent();
      this.emitNode(it, false, false);
    });
    this.flowLevel--;
    this.popIndent();
    this.writeIndicator(']', false, false, false);
  }

  emitFlowMap(pairs: [ENode, ENode][]): void {
    // Only empty maps reach here from the block emitter.
    this.writeIndicator('{', true, true, false);
    this.increaseIndent(true, false);
    this.flowLevel++;
    if (pairs.length > 0) throw new Error('flow mappings with content are not emitted');
    this.flowLevel--;
    this.popIndent();
    this.writeIndicator('}', false, false, false);
  }

  emitBlockSeq(items: ENode[]): void {
    this.increaseIndent(false, !this.indentSequences && this.mappingContext && !this.indention);
    for (const it of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.emitNode(it, false, false);
    }
    this.popIndent();
  }

  isSimpleKey(k: ENode): boolean {
    if (k.kind === 'scalar') {
      const cps = Array.from(k.value, (c) => c.codePointAt(0)!);
      if (analyzeScalar(cps).multiline) return false;
      return Buffer.byteLength(k.value, 'utf8') <= 128;
    }
    if (k.kind === 'seq') return k.items.length === 0;
    return k.pairs.length === 0;
  }

  emitBlockMap(pairs: [ENode, ENode][]): void {
    this.increaseIndent(false, false);
    for (const [k, v] of pairs) {
      this.writeIndent();
      if (this.isSimpleKey(k)) {
        this.emitNode(k, false, true);
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.emitNode(k, true, false);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.emitNode(v, true, false);
    }
    this.popIndent();
  }

  emitScalar(n: { value: string; style: Style }): void {
    const cps = Array.from(n.value, (c) => c.codePointAt(0)!);
    const a = analyzeScalar(cps);
    let style = n.style;
    if (this.simpleKeyContext && a.multiline) style = 'double';
    if (style === 'plain') {
      if ((this.flowLevel > 0 && !a.flowPlain) || (this.flowLevel === 0 && !a.blockPlain)) style = 'single';
      if (cps.length === 0 && (this.flowLevel > 0 || this.simpleKeyContext)) style = 'single';
    }
    if (style === 'single' && !a.singleQuoted) style = 'double';
    if (style === 'literal' && (!a.block || this.flowLevel > 0 || this.simpleKeyContext)) style = 'double';
    this.increaseIndent(true, false);
    const allowBreaks = !this.simpleKeyContext;
    switch (style) {
      case 'plain':
        this.writePlain(cps, allowBreaks);
        break;
      case 'single':
        this.writeSingle(cps, allowBreaks);
        break;
      case 'double':
        this.writeDouble(cps, allowBreaks);
        break;
      case 'literal':
        this.writeLiteral(cps);
        break;
    }
    this.popIndent();
  }

  writeChar(cp: number): void {
    this.out += String.fromCodePoint(cp);
    this.column++;
  }

  writeBreak(cp: number): void {
    if (cp === 0x0a) this.putBreak();
    else {
      this.writeChar(cp);
      this.column = 0;
    }
  }

  writePlain(cps: number[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i]!;
      if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > this.bestWidth && cps[i + 1] !== 0x20) this.writeIndent();
        else this.writeChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  writeSingle(cps: number[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i]!;
      if (c === 0x20) {
        if (
          allowBreaks &&
          !spaces &&
          this.column > this.bestWidth &&
          i > 0 &&
          i < cps.length - 1 &&
          cps[i + 1] !== 0x20
        )
          this.writeIndent();
        else this.writeChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === 0x27) this.put("'");
        this.writeChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeDouble(cps: number[], allowBreaks: boolean): void {
    let spaces = false;
    this.writeIndicator('"', true, false, false);
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i]!;
      if (!isPrintable(c) || c === 0xfeff || isBreak(c) || c === 0x22 || c === 0x5c) {
        const esc: Record<number, string> = {
          0: '0',
          7: 'a',
          8: 'b',
          9: 't',
          10: 'n',
          11: 'v',
          12: 'f',
          13: 'r',
          0x1b: 'e',
          0x22: '"',
          0x5c: '\\',
          0x85: 'N',
          0xa0: '_',
          0x2028: 'L',
          0x2029: 'P',
        };
        let s = '\\';
        const e = esc[c];
        if (e !== undefined) s += e;
        else if (c <= 0xff) s += 'x' + c.toString(16).toUpperCase().padStart(2, '0');
        else if (c <= 0xffff) s += 'u' + c.toString(16).toUpperCase().padStart(4, '0');
        else s += 'U' + c.toString(16).toUpperCase().padStart(8, '0');
        for (const ch of s) this.put(ch);
        spaces = false;
      } else if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > this.bestWidth && i > 0 && i < cps.length - 1) {
          this.writeIndent();
          if (cps[i + 1] === 0x20) this.put('\\');
        } else this.writeChar(c);
        spaces = true;
      } else {
        this.writeChar(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeLiteral(cps: number[]): void {
    this.writeIndicator('|', true, false, false);
    // Block scalar hints: an indentation indicator when the text starts with a space or break, then chomping.
    if (cps[0] === 0x20 || isBreak(cps[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    let chomp = '';
    const n = cps.length;
    if (n === 0 || !isBreak(cps[n - 1])) chomp = '-';
    else if (n === 1) chomp = '+';
    else if (isBreak(cps[n - 2])) chomp = '+';
    if (chomp !== '') this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of cps) {
      if (isBreak(c)) {
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeChar(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Marshalling: value → JSON (encoding/json) → go-yaml value → emitter nodes.

/** keyList.Less from go-yaml's sorter, for string keys: letters before other runes, digit runs compared as numbers. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  const isLetter = (c: string): boolean => /^\p{L}$/u.test(c);
  const isDigit = (c: string | undefined): boolean => c !== undefined && /^\p{Nd}$/u.test(c);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++)
      an = BigInt.asIntN(64, an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48));
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++)
      bn = BigInt.asIntN(64, bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

/** Lone surrogates become U+FFFD, as encoding/json does with invalid UTF-8. */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** Characters encoding/json leaves raw but go-yaml's reader refuses, making the JSON→YAML step fail. */
const READER_REJECTS = /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

function stringNode(s: string, flavor: Flavor = 'v2'): ENode {
  if (flavor === 'v2' && READER_REJECTS.test(s))
    throw new JSONMarshalError('yaml: control characters are not allowed');
  const r = resolvePlain(s);
  const canUsePlain = r.tag === 'str' && !(/^[-+0-9]/.test(s) && s.includes(':') && base60float.test(s));
  const style: Style = s.includes('\n') ? 'literal' : canUsePlain ? 'plain' : 'double';
  return { kind: 'scalar', value: s, style };
}

/** A JSON number's text as go-yaml re-reads and re-prints it (int stays int, else float 'g'). */
function numberNode(text: string): ENode {
  const r = resolvePlain(text);
  if (r.tag === 'int') return { kind: 'scalar', value: r.value.toString(), style: 'plain' };
  if (r.tag === 'float') return { kind: 'scalar', value: formatFloat(r.value, 'g', -1), style: 'plain' };
  return { kind: 'scalar', value: text, style: 'plain' };
}

function toNode(v: GoValue, flavor: Flavor): ENode {
  if (v === null) return { kind: 'scalar', value: 'null', style: 'plain' };
  switch (typeof v) {
    case 'boolean':
      return { kind: 'scalar', value: v ? 'true' : 'false', style: 'plain' };
    case 'string':
      return stringNode(wellFormed(v), flavor);
    case 'number':
      if (flavor === 'v3') {
        // v3 encodes the float64 itself: strconv 'g', with YAML's spellings of the specials.
        const t = formatFloat(v, 'g', -1);
        return {
          kind: 'scalar',
          value: t === '+Inf' ? '.inf' : t === '-Inf' ? '-.inf' : t === 'NaN' ? '.nan' : t,
          style: 'plain',
        };
      }
      if (!Number.isFinite(v)) throw new JSONMarshalError('json: unsupported value');
      return numberNode(formatFloatJSON(v));
    case 'bigint':
      return flavor === 'v3'
        ? { kind: 'scalar', value: v.toString(), style: 'plain' }
        : numberNode(v.toString());
    case 'function':
      // The value goes through encoding/json first, which refuses functions.
      throw new JSONMarshalError('json: unsupported type: func()');
  }
  if (Array.isArray(v)) return { kind: 'seq', items: v.map((e) => toNode(e, flavor)) };
  if (v instanceof GoSizedInt) return toNode(v.value, flavor);
  if (isGoOpaque(v)) {
    const text = v.marshalText?.() ?? v.format();
    // go-yaml v3 writes a time.Time itself, as a plain timestamp; v2 sees encoding/json's string.
    if (flavor === 'v3' && v.goType === 'time.Time') return { kind: 'scalar', value: text, style: 'plain' };
    return stringNode(text, flavor);
  }
  const m = v as GoMap;
  const keys = Object.keys(m).sort((a, b) => (a === b ? 0 : yamlKeyLess(a, b) ? -1 : 1));
  return {
    kind: 'map',
    pairs: keys.map((k) => [stringNode(wellFormed(k), flavor), toNode(m[k] ?? null, flavor)]),
  };
}

/** yaml.Marshal of sigs.k8s.io/yaml: the full document text, with its trailing newline. Throws JSONMarshalError. */
export function marshalYAML(v: GoValue, flavor: Flavor = 'v2'): string {
  const node = toNode(v, flavor);
  const e = new Emitter(flavor);
  e.emitNode(node, false, false);
  e.writeIndent();
  return e.out;
}

/** helm's toYaml: the YAML text without its final newline; "" when the value cannot be marshalled. */
export function toYaml(v: GoValue): string {
  try {
    return marshalYAML(v).replace(/\n$/, '');
  } catch (e) {
    if (e instanceof JSONMarshalError) return '';
    throw e;
  }
}

/** helm's toYamlPretty: go-yaml v3's encoder with SetIndent(2) on the value itself (no JSON round trip). */
export function toYamlPretty(v: GoValue): string {
  try {
    return marshalYAML(v, 'v3').replace(/\n$/, '');
  } catch (e) {
    if (e instanceof JSONMarshalError) return '';
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Unmarshalling: YAML text → go-yaml v2 values (YAML 1.1 resolution) → JSON → float64 numbers.

/** An error while reading YAML, worded like sigs.k8s.io/yaml where we can. */
export class YAMLError extends Error {}

function decodeNode(doc: Document, node: unknown, seen: Set<unknown>): GoValue {
  if (isAlias(node)) {
    const target = node.resolve(doc);
    if (target === undefined)
      throw new YAMLError(`error converting YAML to JSON: yaml: unknown anchor '${node.source}' referenced`);
    if (seen.has(target)) throw new YAMLError('yaml: anchor cycle');
    seen.add(target);
    const r = decodeNode(doc, target, seen);
    seen.delete(target);
    return r;
  }
  if (isScalar(node)) return decodeScalar(node);
  if (isSeq(node)) return node.items.map((it) => decodeNode(doc, it, seen));
  if (isMap(node)) {
    const out: GoMap = {};
    const merges: GoValue[] = [];
    for (const pair of node.items) {
      const k = pair.key;
      if (isScalar(k) && k.type === Scalar.PLAIN && k.value === '<<' && !k.tag) {
        merges.push(decodeNode(doc, pair.value, seen));
        continue;
      }
      const val = decodeNode(doc, pair.value, seen);
      out[keyString(decodeNode(doc, k, seen), val)] = val;
    }
    // Merge keys: explicit keys win, earlier merged maps win over later ones.
    for (const m of merges) {
      const list = Array.isArray(m) ? m : [m];
      const merged: GoMap = {};
      for (const mm of list) {
        if (mm === null || typeof mm !== 'object' || Array.isArray(mm))
          throw new YAMLError('yaml: map merge requires map or sequence of maps as the value');
        for (const [k, val] of Object.entries(mm as GoMap)) if (!(k in merged)) merged[k] = val;
      }
      for (const [k, val] of Object.entries(merged)) if (!(k in out)) out[k] = val;
    }
    return out;
  }
  if (node === null || node === undefined) return null;
  throw new YAMLError('yaml: unsupported node');
}

/** sigs.k8s.io/yaml turns non-string keys into strings. */
function keyString(k: GoValue, v: GoValue): string {
  if (typeof k === 'string') return k;
  if (k === null)
    throw new YAMLError(
      `error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: ${sprintf('%#v', [v])}`,
    );
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (typeof k === 'bigint') return k.toString();
  if (typeof k === 'number') {
    if (k === Infinity) return '.inf';
    if (k === -Infinity) return '-.inf';
    if (Number.isNaN(k)) return '.nan';
    return formatFloat(Math.fround(k), 'g', -1);
  }
  throw new YAMLError('error converting YAML to JSON: unsupported map key');
}

function decodeScalar(s: Scalar): GoValue {
  const text = String(s.source ?? s.value ?? '');
  const tag = s.tag;
  if (tag && tag !== '?') {
    switch (tag) {
      case 'tag:yaml.org,2002:str':
        return text;
      case 'tag:yaml.org,2002:binary':
        return Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8');
      case 'tag:yaml.org,2002:int':
      case 'tag:yaml.org,2002:float':
      case 'tag:yaml.org,2002:bool':
      case 'tag:yaml.org,2002:null': {
        const r = resolvePlain(text);
        return toJSONable(r, text);
      }
      default:
        return toJSONable(resolvePlain(text), text);
    }
  }
  if (s.type !== Scalar.PLAIN) return text;
  return toJSONable(resolvePlain(text), text);
}

function toJSONable(r: Resolved, text: string): GoValue {
  switch (r.tag) {
    case 'str':
    case 'timestamp':
    case 'merge':
      return text;
    case 'bool':
      return r.value;
    case 'null':
      return null;
    case 'int':
      // A big.Int does not survive sigs.k8s.io/yaml's JSON conversion as a number: the text stays.
      if (r.value < INT64_MIN || r.value > UINT64_MAX) return text;
      return Number(r.value);
    case 'float':
      if (!Number.isFinite(r.value))
        throw new YAMLError(
          `error converting YAML to JSON: json: unsupported value: ${Number.isNaN(r.value) ? 'NaN' : r.value > 0 ? '+Inf' : '-Inf'}`,
        );
      return r.value;
  }
}

/** libyaml's wording for the common syntax errors the yaml package reports in its own words. */
function libyamlMessage(code: string, message: string, line: number | undefined): string {
  const first = message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const at = line !== undefined ? `line ${line}: ` : '';
  if (/^Missing closing .quote/.test(first)) return 'yaml: found unexpected end of stream';
  if (/^Flow sequence/.test(first)) return `yaml: ${at}did not find expected ',' or ']'`;
  if (/^Flow map/.test(first)) return `yaml: ${at}did not find expected ',' or '}'`;
  // A scanner error: go-yaml names the line only when it is not the first (its 0-based mark is then non-zero).
  if (code === 'BLOCK_AS_IMPLICIT_KEY')
    return `yaml: ${line !== undefined && line > 1 ? `line ${line}: ` : ''}mapping values are not allowed in this context`;
  if (code === 'TAB_AS_INDENT' || /^Plain value cannot start with reserved character/.test(first))
    return 'yaml: found character that cannot start any token';
  if (/^Invalid escape sequence/.test(first)) return 'yaml: found unknown escape character';
  return `yaml: ${at}${first}`;
}

/** sigs.k8s.io/yaml.Unmarshal into interface{}: the first document, numbers as float64. */
export function parseYAML(text: string): GoValue {
  const doc = parseDocument(text, {
    version: '1.1',
    schema: 'failsafe',
    uniqueKeys: false,
    keepSourceTokens: false,
    strict: false,
  });
  // go-yaml's Unmarshal reads the first document and ignores the rest.
  const errors = doc.errors.filter((e) => e.code !== 'MULTIPLE_DOCS');
  if (errors.length > 0) {
    const err = errors[0]!;
    throw new YAMLError(
      `error converting YAML to JSON: ${libyamlMessage(err.code, err.message, err.linePos?.[0]?.line)}`,
    );
  }
  return decodeNode(doc, doc.contents as YNode | null, new Set());
}

/** helm's fromYaml: a map, or {Error: message}. */
export function fromYaml(s: string): GoValue {
  try {
    const v = parseYAML(s);
    if (v === null) return {};
    if (jsonKindName(v) !== 'object')
      return {
        Error: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKindName(v)} into Go value of type map[string]interface {}`,
      };
    return v;
  } catch (e) {
    if (e instanceof YAMLError) return { Error: e.message };
    throw e;
  }
}

/** helm's fromYamlArray: a list, or [message]. */
export function fromYamlArray(s: string): GoValue {
  try {
    const v = parseYAML(s);
    if (v === null) return [];
    if (!Array.isArray(v))
      return [
        `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKindName(v)} into Go value of type []interface {}`,
      ];
    return v;
  } catch (e) {
    if (e instanceof YAMLError) return [e.message];
    throw e;
  }
}
