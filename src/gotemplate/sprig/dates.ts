// Go's time.Time, time.Duration and layout formatting/parsing ("2006-01-02T15:04:05Z07:00") for
// sprig's date functions; zones come from the runtime's IANA data (Intl), Local from TZ.

import { readFileSync } from 'node:fs';
import { GoSizedInt, goInt64, integerValue, type GoFunc, type GoOpaque, type GoValue } from '../value.js';
import { argInt, argString, arity, GoArgTypeError, typeNameOf } from './cast.js';
import { entropy } from './entropy.js';

/** A time zone: UTC, Local, an IANA zone, or a fixed offset. */
export interface GoLocation {
  readonly name: string;
  /** Offset east of UTC in seconds and the zone abbreviation at an instant (unix seconds). */
  lookup(unixSec: number): { offset: number; abbrev: string };
}

const UTC: GoLocation = { name: 'UTC', lookup: () => ({ offset: 0, abbrev: 'UTC' }) };

function fixedZone(name: string, offset: number): GoLocation {
  return { name, lookup: () => ({ offset, abbrev: name }) };
}

const zoneCache = new Map<string, GoLocation | null>();

/**
 * Zone abbreviations by UTC offset from the system's TZif file (what Go reads), the latest
 * transition winning; Intl only knows localized names such as "GMT+1".
 */
function tzifAbbrevs(tz: string): Map<number, string> | null {
  let b: Buffer;
  try {
    b = readFileSync(`/usr/share/zoneinfo/${tz}`);
  } catch {
    return null;
  }
  if (b.length < 44 || b.toString('latin1', 0, 4) !== 'TZif') return null;
  const counts = (off: number): number[] => [0, 1, 2, 3, 4, 5].map((i) => b.readUInt32BE(off + 20 + i * 4));
  let off = 0;
  let [isut, isstd, leap, time, type, chars] = counts(0) as [number, number, number, number, number, number];
  let tsize = 4;
  if (b[4]! >= 0x32) {
    // Skip the v1 block to the 64-bit one.
    off = 44 + time * 4 + time + type * 6 + chars + leap * 8 + isstd + isut;
    [isut, isstd, leap, time, type, chars] = counts(off) as [number, number, number, number, number, number];
    tsize = 8;
  }
  const data = off + 44;
  const idxStart = data + time * tsize;
  const typeStart = idxStart + time;
  const charStart = typeStart + type * 6;
  const abbrevOf = (t: number): [number, string] => {
    const utoff = b.readInt32BE(typeStart + t * 6);
    const di = b[typeStart + t * 6 + 5]!;
    const end = b.indexOf(0, charStart + di);
    return [utoff, b.toString('latin1', charStart + di, end < 0 ? charStart + chars : end)];
  };
  const out = new Map<number, string>();
  for (let t = 0; t < type; t++) {
    const [o, a] = abbrevOf(t);
    if (!out.has(o)) out.set(o, a);
  }
  for (let i = 0; i < time; i++) {
    const [o, a] = abbrevOf(b[idxStart + i]!);
    out.set(o, a);
  }
  return out;
}

function ianaZone(tz: string, name: string): GoLocation | null {
  let fmt: Intl.DateTimeFormat;
  let abbrFmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    abbrFmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'short' });
  } catch {
    return null;
  }
  const resolved = fmt.resolvedOptions().timeZone;
  const abbrevs = tzifAbbrevs(tz);
  const isUtc = resolved === 'UTC' || resolved === 'Etc/UTC' || resolved === 'Etc/GMT';
  return {
    name,
    lookup(unixSec: number) {
      if (isUtc) return { offset: 0, abbrev: 'UTC' };
      const ms = unixSec * 1000;
      const parts: Record<string, string> = {};
      for (const p of fmt.formatToParts(new Date(ms))) parts[p.type] = p.value;
      let year = Number(parts.year);
      if (parts.era === 'BC') year = 1 - year;
      const wall = Date.UTC(
        year,
        Number(parts.month) - 1,
        Number(parts.day),
        Number(parts.hour),
        Number(parts.minute),
        Number(parts.second),
      );
      const offset = Math.round((wall - Math.floor(ms / 1000) * 1000) / 1000);
      const tzName = abbrFmt.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
      // Go prints tzdata abbreviations; Intl gives "GMT+1" where none is common: print Go's "+01".
      let abbrev = abbrevs?.get(offset) ?? tzName;
      if ((!abbrevs?.has(offset) && !/^[A-Z]{3,5}$/.test(tzName)) || tzName === 'GMT') {
        const sign = offset < 0 ? '-' : '+';
        const a = Math.abs(offset);
        abbrev =
          sign +
          String(Math.floor(a / 3600)).padStart(2, '0') +
          (a % 3600 ? String(Math.floor((a % 3600) / 60)).padStart(2, '0') : '');
        if (offset === 0 && tzName === 'GMT') abbrev = 'GMT';
      }
      return { offset, abbrev };
    },
  };
}

/** time.LoadLocation; null where Go returns an error. */
export function loadLocation(name: string): GoLocation | null {
  if (name === '' || name === 'UTC') return UTC;
  if (name === 'Local') return localLocation();
  if (zoneCache.has(name)) return zoneCache.get(name)!;
  const z = /^[A-Za-z0-9_+\-/]+$/.test(name) ? ianaZone(name, name) : null;
  zoneCache.set(name, z);
  return z;
}

let local: GoLocation | undefined;
/** time.Local: $TZ, else the system zone. */
export function localLocation(): GoLocation {
  if (!local) {
    const tz = process.env.TZ;
    const sys =
      tz === undefined
        ? Intl.DateTimeFormat().resolvedOptions().timeZone
        : tz === ''
          ? 'UTC'
          : tz.replace(/^:/, '');
    const z = ianaZone(sys, 'Local');
    local = z ?? { name: 'Local', lookup: () => ({ offset: 0, abbrev: 'UTC' }) };
  }
  return local;
}

const processStart = process.hrtime.bigint();

/** A time.Time: unix seconds + nanoseconds, a location, and maybe a monotonic reading. */
export class GoTime implements GoOpaque {
  readonly goType = 'time.Time';
  readonly goKind = 'struct';
  constructor(
    readonly sec: bigint,
    readonly nsec: number,
    readonly loc: GoLocation,
    readonly mono?: bigint,
  ) {}
  static now(): GoTime {
    // A seeded render reads a pinned instant, in UTC and without a monotonic reading, so it prints
    // the same wherever and whenever it runs.
    const pinned = entropy().pinnedNowNanos;
    if (pinned !== undefined) return new GoTime(pinned / 1000000000n, Number(pinned % 1000000000n), UTC);
    const ns = BigInt(Date.now()) * 1000000n + (process.hrtime.bigint() % 1000000n);
    return new GoTime(
      ns / 1000000000n,
      Number(ns % 1000000000n),
      localLocation(),
      process.hrtime.bigint() - processStart + 1n,
    );
  }
  static unix(sec: bigint, loc: GoLocation = localLocation()): GoTime {
    return new GoTime(sec, 0, loc);
  }
  /** Nanoseconds since the Unix epoch. */
  unixNano(): bigint {
    return this.sec * 1000000000n + BigInt(this.nsec);
  }
  /** t.In: the same instant in loc (Go strips the monotonic reading). */
  in(loc: GoLocation): GoTime {
    return new GoTime(this.sec, this.nsec, loc);
  }
  add(d: bigint): GoTime {
    const ns = this.unixNano() + d;
    const sec = ns >= 0n ? ns / 1000000000n : -((-ns + 999999999n) / 1000000000n);
    return new GoTime(
      sec,
      Number(ns - sec * 1000000000n),
      this.loc,
      this.mono === undefined ? undefined : this.mono + d,
    );
  }
  isZero(): boolean {
    return this.sec === -62135596800n && this.nsec === 0;
  }
  isEmpty(): boolean {
    return false;
  }
  format(): string {
    let s = formatTime(this, '2006-01-02 15:04:05.999999999 -0700 MST');
    if (this.mono !== undefined) {
      const m = this.mono;
      const sign = m < 0n ? '-' : '+';
      const a = m < 0n ? -m : m;
      s += ` m=${sign}${a / 1000000000n}.${String(a % 1000000000n).padStart(9, '0')}`;
    }
    return s;
  }
  /** encoding/json and TextMarshaler form: RFC 3339 with nanoseconds. */
  marshalText(): string {
    return formatTime(this, '2006-01-02T15:04:05.999999999Z07:00');
  }
  String(): string {
    return this.format();
  }
  Unix(): bigint {
    return this.sec;
  }
  Format(layout: string): string {
    return formatTime(this, layout);
  }
  /** Methods reachable from templates (the executor's GoObject protocol). */
  getMethod(name: string): GoFunc | undefined {
    const c = (): ReturnType<typeof civil> => civil(this);
    const other = (o: GoValue | undefined): GoTime => {
      if (o instanceof GoTime) return o;
      throw new GoArgTypeError(`wrong type for value; expected time.Time; got ${typeNameOf(o)}`);
    };
    const methods: Record<string, GoFunc> = {
      String: () => this.format(),
      Format: (layout) => formatTime(this, argString(layout)),
      Year: () => BigInt(c().year),
      // time.Month and time.Weekday print as their names.
      Month: () => LONG_MONTHS[c().month - 1]!,
      Day: () => BigInt(c().day),
      Weekday: () => LONG_DAYS[c().wday]!,
      YearDay: () => BigInt(c().yday),
      Hour: () => BigInt(c().hour),
      Minute: () => BigInt(c().min),
      Second: () => BigInt(c().sec),
      Nanosecond: () => BigInt(this.nsec),
      Unix: () => goInt64(this.sec),
      UnixMilli: () => goInt64(this.unixNano() / 1000000n),
      UnixMicro: () => goInt64(this.unixNano() / 1000n),
      UnixNano: () => goInt64(this.unixNano()),
      UTC: () => this.in(UTC),
      Local: () => this.in(localLocation()),
      IsZero: () => this.isZero(),
      Add: (d) => this.add(argInt(d)),
      Before: (o) => this.unixNano() < other(o).unixNano(),
      After: (o) => this.unixNano() > other(o).unixNano(),
      Equal: (o) => this.unixNano() === other(o).unixNano(),
    };
    return methods[name];
  }
  deepEquals(o: unknown): boolean {
    return o instanceof GoTime && o.sec === this.sec && o.nsec === this.nsec && o.loc === this.loc;
  }
}

const LONG_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

type Std =
  | { k: 'lit'; s: string }
  | { k: 'tok'; s: string }
  | { k: 'frac'; digits: number; nine: boolean; sep: string };

const lowerStart = (s: string): boolean => /^[a-z]/.test(s);

/** Split a Go layout into literal and std chunks (time.nextStdChunk). */
export function layoutChunks(layout: string): Std[] {
  const out: Std[] = [];
  let lit = '';
  let i = 0;
  const push = (t: Std): void => {
    if (lit) out.push({ k: 'lit', s: lit });
    lit = '';
    out.push(t);
  };
  while (i < layout.length) {
    const rest = layout.slice(i);
    const c = rest[0]!;
    let tok: string | undefined;
    switch (c) {
      case 'J':
        if (rest.startsWith('January')) tok = 'January';
        else if (rest.startsWith('Jan') && !lowerStart(rest.slice(3))) tok = 'Jan';
        break;
      case 'M':
        if (rest.startsWith('Monday')) tok = 'Monday';
        else if (rest.startsWith('Mon') && !lowerStart(rest.slice(3))) tok = 'Mon';
        else if (rest.startsWith('MST')) tok = 'MST';
        break;
      case '0':
        if (/^0[1-6]/.test(rest)) tok = rest.slice(0, 2);
        else if (rest.startsWith('002')) tok = '002';
        break;
      case '1':
        tok = rest.startsWith('15') ? '15' : '1';
        break;
      case '2':
        tok = rest.startsWith('2006') ? '2006' : '2';
        break;
      case '_':
        if (rest.startsWith('_2')) {
          if (rest.startsWith('_2006')) {
            lit += '_';
            i++;
            continue;
          }
          tok = '_2';
        } else if (rest.startsWith('__2')) tok = '__2';
        break;
      case '3':
      case '4':
      case '5':
        tok = c;
        break;
      case 'P':
        if (rest.startsWith('PM')) tok = 'PM';
        break;
      case 'p':
        if (rest.startsWith('pm')) tok = 'pm';
        break;
      case '-':
      case 'Z':
        for (const t of ['070000', '07:00:00', '0700', '07:00', '07']) {
          if (rest.startsWith(c + t)) {
            tok = c + t;
            break;
          }
        }
        break;
      case '.':
      case ',': {
        const d = rest[1];
        if (d === '0' || d === '9') {
          let j = 1;
          while (rest[j] === d) j++;
          if (!/^[0-9]/.test(rest.slice(j))) {
            push({ k: 'frac', digits: j - 1, nine: d === '9', sep: c });
            i += j;
            continue;
          }
        }
        break;
      }
    }
    if (tok !== undefined) {
      push({ k: 'tok', s: tok });
      i += tok.length;
    } else {
      lit += c;
      i++;
    }
  }
  if (lit) out.push({ k: 'lit', s: lit });
  return out;
}

const pad = (n: number, w: number): string => {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? '-' + s : s;
};

interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  wday: number;
  yday: number;
  offset: number;
  abbrev: string;
}

function civil(t: GoTime): Civil {
  const { offset, abbrev } = t.loc.lookup(Number(t.sec));
  const d = new Date((Number(t.sec) + offset) * 1000);
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    min: d.getUTCMinutes(),
    sec: d.getUTCSeconds(),
    wday: d.getUTCDay(),
    yday: Math.floor((d.getTime() - start) / 86400000) + 1,
    offset,
    abbrev,
  };
}

function formatZone(tok: string, offset: number): string {
  if (tok.startsWith('Z') && offset === 0) return 'Z';
  const z = Math.trunc(offset / 60);
  const az = Math.abs(z);
  let s = (offset < 0 ? '-' : '+') + pad(Math.floor(az / 60), 2);
  const body = tok.slice(1);
  if (body === '07') return s;
  if (body.includes(':')) s += ':';
  s += pad(az % 60, 2);
  if (body === '070000' || body === '07:00:00') {
    if (body.includes(':')) s += ':';
    s += pad(Math.abs(offset) % 60, 2);
  }
  return s;
}

/** time.Time.Format. */
export function formatTime(t: GoTime, layout: string): string {
  const c = civil(t);
  let out = '';
  for (const ch of layoutChunks(layout)) {
    if (ch.k === 'lit') {
      out += ch.s;
      continue;
    }
    if (ch.k === 'frac') {
      const digits = String(t.nsec).padStart(9, '0').slice(0, ch.digits);
      if (ch.nine) {
        const trimmed = digits.replace(/0+$/, '');
        if (trimmed) out += ch.sep + trimmed;
      } else out += ch.sep + digits;
      continue;
    }
    switch (ch.s) {
      case '06':
        out += pad(((c.year % 100) + 100) % 100, 2);
        break;
      case '2006':
        out += pad(c.year, 4);
        break;
      case 'Jan':
        out += LONG_MONTHS[c.month - 1]!.slice(0, 3);
        break;
      case 'January':
        out += LONG_MONTHS[c.month - 1]!;
        break;
      case '1':
        out += c.month;
        break;
      case '01':
        out += pad(c.month, 2);
        break;
      case 'Mon':
        out += LONG_DAYS[c.wday]!.slice(0, 3);
        break;
      case 'Monday':
        out += LONG_DAYS[c.wday]!;
        break;
      case '2':
        out += c.day;
        break;
      case '_2':
        out += String(c.day).padStart(2, ' ');
        break;
      case '02':
        out += pad(c.day, 2);
        break;
      case '__2':
        out += String(c.yday).padStart(3, ' ');
        break;
      case '002':
        out += pad(c.yday, 3);
        break;
      case '15':
        out += pad(c.hour, 2);
        break;
      case '3':
        out += c.hour % 12 === 0 ? 12 : c.hour % 12;
        break;
      case '03':
        out += pad(c.hour % 12 === 0 ? 12 : c.hour % 12, 2);
        break;
      case '4':
        out += c.min;
        break;
      case '04':
        out += pad(c.min, 2);
        break;
      case '5':
        out += c.sec;
        break;
      case '05':
        out += pad(c.sec, 2);
        break;
      case 'PM':
        out += c.hour >= 12 ? 'PM' : 'AM';
        break;
      case 'pm':
        out += c.hour >= 12 ? 'pm' : 'am';
        break;
      case 'MST':
        if (c.abbrev !== '') out += c.abbrev;
        else {
          const z = Math.trunc(c.offset / 60);
          const az = Math.abs(z);
          out += (z < 0 ? '-' : '+') + pad(Math.floor(az / 60), 2) + pad(az % 60, 2);
        }
        break;
      default:
        out += formatZone(ch.s, c.offset);
    }
  }
  return out;
}

/** Go's internal quote() for time errors. */
function tquote(s: string): string {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}

class ParseError extends Error {
  constructor(layout: string, value: string, elem: string, valueElem: string, msg = '') {
    super(
      msg !== ''
        ? `parsing time ${tquote(value)}${msg}`
        : `parsing time ${tquote(value)} as ${tquote(layout)}: cannot parse ${tquote(valueElem)} as ${tquote(elem)}`,
    );
  }
}

/** time.ParseInLocation for the layout elements above. */
export function parseTime(layout: string, value: string, loc: GoLocation): GoTime {
  let v = value;
  let year = 1;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let pmSet = false;
  let amSet = false;
  let zoneOffset: number | undefined;
  let zoneName = '';
  const chunks = layoutChunks(layout);
  const getnum = (fixed: boolean, max = 2): number | null => {
    const m = (fixed ? new RegExp(`^\\d{${max}}`) : new RegExp(`^\\d{1,${max}}`)).exec(v);
    if (!m) return null;
    v = v.slice(m[0].length);
    return Number(m[0]);
  };
  for (let ci = 0; ci < chunks.length; ci++) {
    const ch = chunks[ci]!;
    const elem = ch.k === 'lit' || ch.k === 'tok' ? ch.s : ch.sep + (ch.nine ? '9' : '0').repeat(ch.digits);
    const before = v;
    const fail = (): never => {
      throw new ParseError(layout, value, elem, before);
    };
    if (ch.k === 'lit') {
      // Go skips spaces leniently only as the layout does; literal must match exactly.
      if (!v.startsWith(ch.s)) {
        throw new ParseError(layout, value, ch.s, v);
      }
      v = v.slice(ch.s.length);
      continue;
    }
    if (ch.k === 'frac') {
      if (ch.nine) {
        if (v.length < 2 || (v[0] !== '.' && v[0] !== ',') || !/[0-9]/.test(v[1]!)) continue;
        const m = /^[.,](\d+)/.exec(v)!;
        nsec = Number(m[1]!.padEnd(9, '0').slice(0, 9));
        v = v.slice(m[0].length);
        continue;
      }
      const m = new RegExp(`^[.,](\\d{${ch.digits}})`).exec(v);
      if (!m) fail();
      nsec = Number(m![1]!.padEnd(9, '0').slice(0, 9));
      v = v.slice(m![0].length);
      continue;
    }
    let n: number | null;
    switch (ch.s) {
      case '2006':
        if (!/^\d{4}/.test(v)) fail();
        year = Number(v.slice(0, 4));
        v = v.slice(4);
        break;
      case '06':
        n = getnum(true);
        if (n === null) fail();
        year = n! + (n! >= 69 ? 1900 : 2000);
        break;
      case 'Jan':
      case 'January': {
        const names = ch.s === 'Jan' ? LONG_MONTHS.map((x) => x.slice(0, 3)) : LONG_MONTHS;
        const idx = names.findIndex((x) => v.toLowerCase().startsWith(x.toLowerCase()));
        if (idx < 0) fail();
        month = idx + 1;
        v = v.slice(names[idx]!.length);
        break;
      }
      case 'Mon':
      case 'Monday': {
        const names = ch.s === 'Mon' ? LONG_DAYS.map((x) => x.slice(0, 3)) : LONG_DAYS;
        const idx = names.findIndex((x) => v.toLowerCase().startsWith(x.toLowerCase()));
        if (idx < 0) fail();
        v = v.slice(names[idx]!.length);
        break;
      }
      case '1':
      case '01':
        n = getnum(ch.s === '01');
        if (n === null || n <= 0 || n > 12)
          throw new ParseError(layout, value, elem, before, n === null ? '' : ': month out of range');
        month = n;
        break;
      case '2':
      case '_2':
      case '02':
        if (ch.s === '_2' && v.startsWith(' ')) v = v.slice(1);
        n = getnum(ch.s === '02');
        if (n === null) fail();
        day = n!;
        break;
      case '__2':
      case '002':
        if (ch.s === '__2') v = v.replace(/^ {1,2}/, '');
        n = getnum(ch.s === '002', 3);
        if (n === null) fail();
        yday = n!;
        break;
      case '15':
        n = getnum(false);
        if (n === null || n > 23)
          throw new ParseError(layout, value, elem, before, n === null ? '' : ': hour out of range');
        hour = n;
        break;
      case '3':
      case '03':
        n = getnum(ch.s === '03');
        if (n === null || n > 12)
          throw new ParseError(layout, value, elem, before, n === null ? '' : ': hour out of range');
        hour = n;
        break;
      case '4':
      case '04':
        n = getnum(ch.s === '04');
        if (n === null || n > 59)
          throw new ParseError(layout, value, elem, before, n === null ? '' : ': minute out of range');
        min = n;
        break;
      case '5':
      case '05': {
        n = getnum(ch.s === '05');
        if (n === null || n > 59)
          throw new ParseError(layout, value, elem, before, n === null ? '' : ': second out of range');
        sec = n;
        // A fractional second in the value without one in the layout is accepted.
        const next = chunks[ci + 1];
        if (/^[.,]\d/.test(v) && !(next && next.k === 'frac')) {
          const m = /^[.,](\d+)/.exec(v)!;
          nsec = Number(m[1]!.padEnd(9, '0').slice(0, 9));
          v = v.slice(m[0].length);
        }
        break;
      }
      case 'PM':
      case 'pm': {
        const p = v.slice(0, 2).toUpperCase();
        if (p === 'PM') pmSet = true;
        else if (p === 'AM') amSet = true;
        else fail();
        v = v.slice(2);
        break;
      }
      case 'MST': {
        if (v.startsWith('UTC')) {
          zoneName = 'UTC';
          v = v.slice(3);
          break;
        }
        const m = /^(GMT[+-]\d{1,2}|[A-Z]{3,5})/.exec(v);
        if (!m) fail();
        zoneName = m![1]!;
        v = v.slice(zoneName.length);
        break;
      }
      default: {
        // Numeric zones, Z-variants accept "Z".
        if (ch.s.startsWith('Z') && v.startsWith('Z')) {
          v = v.slice(1);
          zoneOffset = 0;
          zoneName = 'UTC';
          break;
        }
        const body = ch.s.slice(1);
        const pat: Record<string, RegExp> = {
          '070000': /^([+-])(\d\d)(\d\d)(\d\d)/,
          '07:00:00': /^([+-])(\d\d):(\d\d):(\d\d)/,
          '0700': /^([+-])(\d\d)(\d\d)/,
          '07:00': /^([+-])(\d\d):(\d\d)/,
          '07': /^([+-])(\d\d)/,
        };
        const m = pat[body]!.exec(v);
        if (!m) fail();
        const off = Number(m![2]) * 3600 + Number(m![3] ?? 0) * 60 + Number(m![4] ?? 0);
        zoneOffset = m![1] === '-' ? -off : off;
        v = v.slice(m![0].length);
      }
    }
  }
  if (v !== '') throw new ParseError(layout, value, '', '', `: extra text: ${tquote(v)}`);
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;
  if (yday >= 0) {
    const d = new Date(Date.UTC(year, 0, yday));
    month = d.getUTCMonth() + 1;
    day = d.getUTCDate();
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  const dim = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > dim) throw new ParseError(layout, value, '', '', ': day out of range');
  const wallSec = BigInt(Math.floor(Date.UTC(year, month - 1, day, hour, min, sec) / 1000));
  const fixYear = (ms: bigint): bigint => ms; // Date.UTC maps years 0-99 to 1900s; adjust below.
  let wall = fixYear(wallSec);
  if (year >= 0 && year < 100) {
    const d = new Date(0);
    d.setUTCFullYear(year, month - 1, day);
    d.setUTCHours(hour, min, sec, 0);
    wall = BigInt(Math.floor(d.getTime() / 1000));
  }
  if (zoneOffset !== undefined) {
    const t = new GoTime(wall - BigInt(zoneOffset), nsec, UTC);
    if (zoneOffset === 0 && zoneName === 'UTC') return t.in(UTC);
    if (loc.lookup(Number(t.sec)).offset === zoneOffset) return t.in(loc);
    return t.in(fixedZone('', zoneOffset));
  }
  if (zoneName !== '') {
    if (zoneName === 'UTC') return new GoTime(wall, nsec, UTC);
    // An abbreviation matching the location's at that time uses it; otherwise offset 0 with the name.
    const guess = loc.lookup(Number(wall));
    if (guess.abbrev === zoneName) return new GoTime(wall - BigInt(guess.offset), nsec, loc);
    const g = /^GMT([+-]\d+)$/.exec(zoneName);
    const off = g ? Number(g[1]) * 3600 : 0;
    return new GoTime(wall - BigInt(off), nsec, fixedZone(zoneName, off));
  }
  // Wall clock in loc: find the offset in effect.
  let off = loc.lookup(Number(wall)).offset;
  off = loc.lookup(Number(wall) - off).offset;
  return new GoTime(wall - BigInt(off), nsec, loc);
}

// ---- durations ----

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1000000n,
  s: 1000000000n,
  m: 60000000000n,
  h: 3600000000000n,
};

/** time.ParseDuration; throws Go's error. */
export function parseDuration(s: string): bigint {
  const orig = s;
  const bad = (): never => {
    throw new Error(`time: invalid duration ${tquote(orig)}`);
  };
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') bad();
  let totalNs = 0n;
  while (s !== '') {
    const m = /^(\d*)(\.(\d*))?/.exec(s)!;
    if (m[1] === '' && (m[3] ?? '') === '') bad();
    s = s.slice(m[0].length);
    const u = /^[^\d.]+/.exec(s);
    if (!u) throw new Error(`time: missing unit in duration ${tquote(orig)}`);
    const unit = UNITS[u[0]];
    if (unit === undefined) throw new Error(`time: unknown unit ${tquote(u[0])} in duration ${tquote(orig)}`);
    s = s.slice(u[0].length);
    let v = BigInt(m[1] || '0') * unit;
    const frac = m[3] ?? '';
    if (frac !== '') {
      // Go scales the fraction with float64 and truncates.
      v += BigInt(Math.trunc(Number('0.' + frac) * Number(unit)));
    }
    totalNs += v;
    if (totalNs > 9223372036854775807n + (neg ? 1n : 0n)) bad();
  }
  return neg ? -totalNs : totalNs;
}

/** time.Duration.String. */
export function durationString(d: bigint): string {
  if (d === 0n) return '0s';
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < 1000000000n) {
    let unit: string;
    let prec: number;
    if (u < 1000n) return (neg ? '-' : '') + `${u}ns`;
    if (u < 1000000n) {
      unit = 'µs';
      prec = 3;
    } else {
      unit = 'ms';
      prec = 6;
    }
    out = fmtFrac(u, prec) + unit;
  } else {
    const frac = fmtFrac(u % 60000000000n === 0n ? 0n : u % 60000000000n, 9);
    out = (frac === '0' ? '0' : frac) + 's';
    u /= 60000000000n;
    if (u > 0n) {
      out = `${u % 60n}m` + out;
      u /= 60n;
      if (u > 0n) out = `${u}h` + out;
    }
  }
  return (neg ? '-' : '') + out;
}

/** v / 10^prec printed with the fraction's trailing zeros dropped. */
function fmtFrac(v: bigint, prec: number): string {
  const p = 10n ** BigInt(prec);
  const whole = v / p;
  const frac = (v % p).toString().padStart(prec, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

const MAX_DURATION = 9223372036854775807n;
const MIN_DURATION = -9223372036854775808n;

/** time.Since: Now().Sub(t), saturating at the int64 Duration range. */
function since(t: GoTime): bigint {
  const d = GoTime.now().unixNano() - t.unixNano();
  return d > MAX_DURATION ? MAX_DURATION : d < MIN_DURATION ? MIN_DURATION : d;
}

/** time.Duration.Round(time.Second), saturating as Go does on overflow. */
function roundSecond(d: bigint): bigint {
  const m = 1000000000n;
  let r = d % m;
  if (d < 0n) {
    r = -r;
    if (r + r < m) return d + r;
    const d1 = d - m + r;
    return d1 < MIN_DURATION ? MIN_DURATION : d1;
  }
  if (r + r < m) return d - r;
  const d1 = d + m - r;
  return d1 > MAX_DURATION ? MAX_DURATION : d1;
}

/** dateInZone's argument: a time.Time, Unix seconds (Go int/int64/int32), anything else now. */
function toTime(v: GoValue | undefined): GoTime {
  if (v instanceof GoTime) return v;
  if (typeof v === 'bigint') return GoTime.unix(v);
  if (v instanceof GoSizedInt && (v.goType === 'int64' || v.goType === 'int32')) return GoTime.unix(v.value);
  return GoTime.now();
}

function argTime(v: GoValue | undefined): GoTime {
  if (v instanceof GoTime) return v;
  if (v === undefined || v === null) throw new GoArgTypeError('invalid value; expected time.Time');
  throw new GoArgTypeError(`wrong type for value; expected time.Time; got ${typeNameOf(v)}`);
}

function dateInZone(fmt: string, date: GoValue | undefined, zone: string): string {
  const t = toTime(date);
  const loc = loadLocation(zone) ?? UTC;
  return formatTime(t.in(loc), fmt);
}

function durationRound(v: GoValue | undefined): string {
  let d = 0n;
  if (typeof v === 'string') {
    try {
      d = parseDuration(v);
    } catch {
      d = 0n;
    }
  } else if (v instanceof GoTime) d = since(v);
  else if (v instanceof GoSizedInt && v.goType === 'int64') d = v.value;
  let u = BigInt.asUintN(64, d);
  if (d < 0n) u = BigInt.asUintN(64, -u);
  const hour = 3600000000000n;
  const table: [bigint, string][] = [
    [hour * 24n * 365n, 'y'],
    [hour * 24n * 30n, 'mo'],
    [hour * 24n, 'd'],
    [hour, 'h'],
    [60000000000n, 'm'],
    [1000000000n, 's'],
  ];
  for (const [unit, suffix] of table) if (u > unit) return `${u / unit}${suffix}`;
  return '0s';
}

export function dateFunctions(): Record<string, GoFunc> {
  const dateModify =
    (must: boolean): GoFunc =>
    (...a) => {
      arity(must ? 'mustDateModify' : 'dateModify', a, 2);
      const f = argString(a[0]);
      const t = argTime(a[1]);
      try {
        return t.add(parseDuration(f));
      } catch (e) {
        if (must) throw e;
        return t;
      }
    };
  const toDate =
    (must: boolean): GoFunc =>
    (...a) => {
      arity(must ? 'mustToDate' : 'toDate', a, 2);
      const layout = argString(a[0]);
      const s = argString(a[1]);
      try {
        return parseTime(layout, s, localLocation());
      } catch (e) {
        if (must) throw e;
        return new GoTime(-62135596800n, 0, UTC);
      }
    };
  return {
    now: () => GoTime.now(),
    date: (...a) => {
      arity('date', a, 2);
      return dateInZone(argString(a[0]), a[1], 'Local');
    },
    dateInZone: (...a) => {
      arity('dateInZone', a, 3);
      return dateInZone(argString(a[0]), a[1], argString(a[2]));
    },
    date_in_zone: (...a) => dateInZone(argString(a[0]), a[1], argString(a[2])),
    htmlDate: (...a) => dateInZone('2006-01-02', a[0], 'Local'),
    htmlDateInZone: (...a) => {
      arity('htmlDateInZone', a, 2);
      return dateInZone('2006-01-02', a[0], argString(a[1]));
    },
    dateModify: dateModify(false),
    date_modify: dateModify(false),
    mustDateModify: dateModify(true),
    must_date_modify: dateModify(true),
    toDate: toDate(false),
    mustToDate: toDate(true),
    unixEpoch: (...a) => String(argTime(a[0]).sec),
    ago: (...a) => {
      const v = a[0];
      const t =
        v instanceof GoTime
          ? v
          : typeof v === 'bigint' || (v instanceof GoSizedInt && v.goType === 'int64')
            ? GoTime.unix(integerValue(v)!)
            : GoTime.now();
      return durationString(roundSecond(since(t)));
    },
    duration: (...a) => {
      const v = a[0];
      let n = 0n;
      if (typeof v === 'string') {
        const m = /^[+-]?\d+$/.exec(v);
        n = m ? BigInt(v) : 0n;
        if (n > 9223372036854775807n || n < -9223372036854775808n) n = 0n;
      } else if (v instanceof GoSizedInt && v.goType === 'int64') {
        // Go's int64 case only: a template integer literal is an int and gives 0s.
        n = v.value;
      }
      return durationString(BigInt.asIntN(64, n * 1000000000n));
    },
    durationRound: (...a) => durationRound(a[0]),
  };
}
