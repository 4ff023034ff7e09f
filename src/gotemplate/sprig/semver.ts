// Masterminds/semver v3 (as helm 4.1.4 links it) for sprig's `semver` and `semverCompare`:
// coercing version parsing, constraint parsing (ranges, ||, commas, x-ranges, ~, ^) and checks.

import { GoSizedInt, type GoFunc, type GoOpaque, type GoValue } from '../value.js';
import { argString, arity, GoArgTypeError, typeNameOf } from './cast.js';

const cvRegex =
  String.raw`v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?` +
  String.raw`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
  String.raw`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const looseRe = new RegExp(
  '^' +
    String.raw`v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?` +
    String.raw`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
    String.raw`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
    '$',
);
const ops = String.raw`=||!=|>|<|>=|=>|<=|=<|~|~>|\^`;
const constraintRe = new RegExp(String.raw`^\s*(${ops})\s*(${cvRegex})\s*$`);
const rangeRe = new RegExp(String.raw`\s*(${cvRegex})\s+-\s+(${cvRegex})\s*`, 'g');
const findRe = new RegExp(String.raw`(${ops})\s*(${cvRegex})`, 'g');
const validRe = new RegExp(
  String.raw`^(\s*(${ops})\s*(${cvRegex})\s*)((?:\s+|,\s*)(${ops})\s*(${cvRegex})\s*)*$`,
);

const NUM = /^[0-9]*$/;
const ALLOWED = /^[0-9A-Za-z-]*$/;
const MAXU64 = 18446744073709551615n;

/** A *semver.Version. */
export class SemverVersion implements GoOpaque {
  readonly goType = '*semver.Version';
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string,
    readonly metadata: string,
    readonly original: string,
  ) {}
  format(): string {
    return this.String();
  }
  // Methods a template may call on the value ({{ (semver "1.2.3").Major }}).
  String(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre !== '') s += '-' + this.pre;
    if (this.metadata !== '') s += '+' + this.metadata;
    return s;
  }
  Major(): bigint {
    return this.major;
  }
  Minor(): bigint {
    return this.minor;
  }
  Patch(): bigint {
    return this.patch;
  }
  Prerelease(): string {
    return this.pre;
  }
  Metadata(): string {
    return this.metadata;
  }
  Original(): string {
    return this.original;
  }
  Compare(o: SemverVersion): bigint {
    return BigInt(compareVersions(this, o));
  }
  /** Methods reachable from templates (the executor's GoObject protocol). */
  getMethod(name: string): GoFunc | undefined {
    const other = (o: GoValue | undefined): SemverVersion => {
      if (o instanceof SemverVersion) return o;
      throw new GoArgTypeError(`wrong type for value; expected *semver.Version; got ${typeNameOf(o)}`);
    };
    const inc = (major: bigint, minor: bigint, patch: bigint): SemverVersion => {
      const v = new SemverVersion(major, minor, patch, '', '', '');
      const prefix = this.original.startsWith('v') ? 'v' : '';
      return new SemverVersion(major, minor, patch, '', '', prefix + v.String());
    };
    const methods: Record<string, GoFunc> = {
      String: () => this.String(),
      Major: () => new GoSizedInt('uint64', this.major),
      Minor: () => new GoSizedInt('uint64', this.minor),
      Patch: () => new GoSizedInt('uint64', this.patch),
      Prerelease: () => this.pre,
      Metadata: () => this.metadata,
      Original: () => this.original,
      Compare: (o) => BigInt(compareVersions(this, other(o))),
      LessThan: (o) => compareVersions(this, other(o)) < 0,
      LessThanEqual: (o) => compareVersions(this, other(o)) <= 0,
      GreaterThan: (o) => compareVersions(this, other(o)) > 0,
      GreaterThanEqual: (o) => compareVersions(this, other(o)) >= 0,
      Equal: (o) => compareVersions(this, other(o)) === 0,
      IncMajor: () => inc(this.major + 1n, 0n, 0n),
      IncMinor: () => inc(this.major, this.minor + 1n, 0n),
      IncPatch: () =>
        this.pre !== ''
          ? inc(this.major, this.minor, this.patch)
          : inc(this.major, this.minor, this.patch + 1n),
    };
    return methods[name];
  }
  deepEquals(o: unknown): boolean {
    return o instanceof SemverVersion && o.String() === this.String() && o.original === this.original;
  }
}

function parseSegment(s: string): bigint {
  const n = BigInt(s);
  if (n > MAXU64)
    throw new Error(`error parsing version segment: strconv.ParseUint: parsing "${s}": value out of range`);
  return n;
}

function validatePrerelease(p: string): void {
  for (const part of p.split('.')) {
    if (part === '') throw new Error('invalid prerelease string');
    if (NUM.test(part)) {
      if (part.length > 1 && part.startsWith('0')) throw new Error('version segment starts with 0');
    } else if (!ALLOWED.test(part)) throw new Error('invalid prerelease string');
  }
}

function validateMetadata(m: string): void {
  for (const part of m.split('.')) {
    if (part === '' || !ALLOWED.test(part)) throw new Error('invalid metadata string');
  }
}

/** semver.NewVersion (coercing, the v3.4 default). Throws Go's error text. */
export function newVersion(v: string): SemverVersion {
  const m = looseRe.exec(v);
  if (!m) throw new Error('invalid semantic version');
  const major = parseSegment(m[1]!);
  const minor = m[2] ? parseSegment(m[2].slice(1)) : 0n;
  const patch = m[3] ? parseSegment(m[3].slice(1)) : 0n;
  const pre = m[5] ?? '';
  const meta = m[8] ?? '';
  if (pre !== '') validatePrerelease(pre);
  if (meta !== '') validateMetadata(meta);
  return new SemverVersion(major, minor, patch, pre, meta, v);
}

function cmpSeg(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return o !== '' ? -1 : 1;
  if (o === '') return 1;
  const oNum = /^[0-9]+$/.test(o) && BigInt(o) <= MAXU64;
  const sNum = /^[0-9]+$/.test(s) && BigInt(s) <= MAXU64;
  if (!oNum && !sNum) return s > o ? 1 : -1;
  if (!oNum) return -1;
  if (!sNum) return 1;
  return BigInt(s) > BigInt(o) ? 1 : -1;
}

function comparePrerelease(v: string, o: string): number {
  const sp = v.split('.');
  const op = o.split('.');
  const l = Math.max(sp.length, op.length);
  for (let i = 0; i < l; i++) {
    const d = comparePrePart(sp[i] ?? '', op[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

export function compareVersions(v: SemverVersion, o: SemverVersion): number {
  const d = cmpSeg(v.major, o.major) || cmpSeg(v.minor, o.minor) || cmpSeg(v.patch, o.patch);
  if (d !== 0) return d;
  if (v.pre === '' && o.pre === '') return 0;
  if (v.pre === '') return 1;
  if (o.pre === '') return -1;
  return comparePrerelease(v.pre, o.pre);
}

interface Constraint {
  con: SemverVersion;
  orig: string;
  op: string;
  minorDirty: boolean;
  patchDirty: boolean;
  dirty: boolean;
}

const isX = (x: string): boolean => x === 'x' || x === '*' || x === 'X';

function parseConstraint(c: string): Constraint {
  const m = constraintRe.exec(c);
  if (!m) throw new Error(`improper constraint: ${c}`);
  const orig = m[2]!;
  const op = m[1]!;
  let ver = orig;
  let minorDirty = false;
  let patchDirty = false;
  let dirty = false;
  const g3 = m[3] ?? '';
  const g4 = m[4] ?? '';
  const g5 = m[5] ?? '';
  const g6 = m[6] ?? '';
  if (isX(g3) || g3 === '') {
    ver = `0.0.0${g6}`;
    dirty = true;
  } else if (isX(g4.replace(/^\./, '')) || g4 === '') {
    minorDirty = true;
    dirty = true;
    ver = `${g3}.0.0${g6}`;
  } else if (isX(g5.replace(/^\./, '')) || g5 === '') {
    dirty = true;
    patchDirty = true;
    ver = `${g3}${g4}.0${g6}`;
  }
  let con: SemverVersion;
  try {
    con = newVersion(ver);
  } catch {
    throw new Error('constraint parser error');
  }
  return { con, orig, op, minorDirty, patchDirty, dirty };
}

function tilde(v: SemverVersion, c: Constraint): boolean {
  if (compareVersions(v, c.con) < 0) return false;
  if (c.con.major === 0n && c.con.minor === 0n && c.con.patch === 0n && !c.minorDirty && !c.patchDirty)
    return true;
  if (v.major !== c.con.major) return false;
  if (v.minor !== c.con.minor && !c.minorDirty) return false;
  return true;
}

function check(v: SemverVersion, c: Constraint, includePre: boolean): boolean {
  if (v.pre !== '' && !includePre) return false;
  const con = c.con;
  switch (c.op) {
    case '':
    case '=':
      if (c.dirty) return tilde(v, c);
      return compareVersions(v, con) === 0;
    case '!=':
      if (c.dirty) {
        if (con.major !== v.major) return true;
        if (con.minor !== v.minor && !c.minorDirty) return true;
        else if (c.minorDirty) return false;
        else if (con.patch !== v.patch && !c.patchDirty) return true;
        else if (c.patchDirty) {
          if (v.pre !== '' || con.pre !== '') return comparePrerelease(v.pre, con.pre) !== 0;
          return false;
        }
      }
      return compareVersions(v, con) !== 0;
    case '>':
      if (!c.dirty) return compareVersions(v, con) === 1;
      if (v.major > con.major) return true;
      if (v.major < con.major) return false;
      if (c.minorDirty) return false;
      if (c.patchDirty) return v.minor > con.minor;
      return compareVersions(v, con) === 1;
    case '<':
      return compareVersions(v, con) < 0;
    case '>=':
    case '=>':
      return compareVersions(v, con) >= 0;
    case '<=':
    case '=<':
      if (!c.dirty) return compareVersions(v, con) <= 0;
      if (v.major > con.major) return false;
      if (v.major === con.major && v.minor > con.minor && !c.minorDirty) return false;
      return true;
    case '~':
    case '~>':
      return tilde(v, c);
    case '^':
      if (compareVersions(v, con) < 0) return false;
      if (con.major > 0n || c.minorDirty) return v.major === con.major;
      if (con.major === 0n && v.major > 0n) return false;
      if (con.minor > 0n || c.patchDirty) return v.minor === con.minor;
      if (con.minor === 0n && v.minor > 0n) return false;
      return con.patch === v.patch;
  }
  return false;
}

/** semver.Constraints: OR groups of AND-ed constraints, with per-group prerelease opt-in. */
export class SemverConstraints {
  private constructor(
    private readonly groups: Constraint[][],
    private readonly containsPre: boolean[],
  ) {}

  static parse(input: string): SemverConstraints {
    // rewriteRange: "a - b" → ">= a, <= b ".
    const c = input.replace(rangeRe, (_all: string, ...g: string[]) => `>= ${g[0]}, <= ${g[10]} `);
    const groups: Constraint[][] = [];
    const pre: boolean[] = [];
    for (const v of c.split('||')) {
      if (!validRe.test(v)) throw new Error(`improper constraint: ${v}`);
      const cs = [...v.matchAll(findRe)].map((m) => m[0]);
      if (cs.length === 0) cs.push(v);
      const parsed = cs.map(parseConstraint);
      groups.push(parsed);
      pre.push(parsed.some((p) => p.con.pre !== ''));
    }
    return new SemverConstraints(groups, pre);
  }

  check(v: SemverVersion): boolean {
    return this.groups.some((g, i) => g.every((c) => check(v, c, this.containsPre[i]!)));
  }
}

const constraintCache = new Map<string, SemverConstraints>();

/** Charts evaluate the same few constraints on every render: parse each once. */
function parseConstraintCached(s: string): SemverConstraints {
  let c = constraintCache.get(s);
  if (!c) {
    c = SemverConstraints.parse(s);
    if (constraintCache.size > 1000) constraintCache.clear();
    constraintCache.set(s, c);
  }
  return c;
}

export function semverFunctions(): Record<string, GoFunc> {
  return {
    semver: (...a) => {
      arity('semver', a, 1);
      return newVersion(argString(a[0]));
    },
    semverCompare: (...a) => {
      arity('semverCompare', a, 2);
      const c = parseConstraintCached(argString(a[0]));
      const v = newVersion(argString(a[1]));
      return c.check(v);
    },
  };
}
