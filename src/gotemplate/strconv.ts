// Go's strconv.FormatFloat for float64 ('e', 'E', 'f', 'F', 'g', 'G'), digit for digit.
// Shortest digits come from JS (the same round-trip digits); fixed precision rounds the exact binary value half-to-even as Go does.

/** Decimal digits of a finite non-negative float: value = 0.d1d2d3… × 10^dp, no trailing zeros. */
interface Digits {
  d: string;
  dp: number;
}

/** Shortest digits that round-trip (JS and Go both pick the closest shortest representation). */
function shortestDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const s = x.toExponential(); // "d.ddde±x", shortest round-trip digits
  const ei = s.indexOf('e');
  const mant = s.slice(0, ei).replace('.', '');
  const exp = Number(s.slice(ei + 1));
  return { d: mant.replace(/0+$/, ''), dp: exp + 1 };
}

/** The exact decimal expansion of a finite non-negative double. */
function exactDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e2: number;
  if (bexp === 0) {
    e2 = -1074;
  } else {
    mant |= 1n << 52n;
    e2 = bexp - 1075;
  }
  let digits: string;
  let dp: number;
  if (e2 >= 0) {
    digits = (mant << BigInt(e2)).toString();
    dp = digits.length;
  } else {
    // mant / 2^k = mant·5^k / 10^k
    const k = -e2;
    digits = (mant * 5n ** BigInt(k)).toString();
    dp = digits.length - k;
  }
  const trimmed = digits.replace(/0+$/, '');
  const lead = trimmed.length - trimmed.replace(/^0+/, '').length;
  return { d: trimmed.slice(lead), dp: dp - lead };
}

/** Round to nd significant digits, half-to-even on exact ties (Go's decimal.Round). */
function roundDigits(x: Digits, nd: number): Digits {
  if (nd < 0 || nd >= x.d.length) return x;
  const next = x.d.charCodeAt(nd) - 48;
  let up: boolean;
  if (next === 5 && nd + 1 === x.d.length) {
    up = nd > 0 && (x.d.charCodeAt(nd - 1) - 48) % 2 === 1;
  } else {
    up = next >= 5;
  }
  if (!up) {
    const d = x.d.slice(0, nd).replace(/0+$/, '');
    return { d, dp: d === '' ? 0 : x.dp };
  }
  const arr = x.d.slice(0, nd).split('');
  let i = nd - 1;
  while (i >= 0 && arr[i] === '9') i--;
  if (i < 0) return { d: '1', dp: x.dp + 1 };
  arr[i] = String.fromCharCode(arr[i]!.charCodeAt(0) + 1);
  return { d: arr.slice(0, i + 1).join(''), dp: x.dp };
}

function digitAt(x: Digits, i: number): string {
  return i >= 0 && i < x.d.length ? x.d[i]! : '0';
}

function fmtE(neg: boolean, x: Digits, prec: number, fmt: string): string {
  let s = neg ? '-' : '';
  s += x.d === '' ? '0' : x.d[0]!;
  if (prec > 0) {
    s += '.';
    for (let i = 1; i <= prec; i++) s += digitAt(x, i);
  }
  s += fmt;
  let exp = x.d === '' ? 0 : x.dp - 1;
  if (exp < 0) {
    s += '-';
    exp = -exp;
  } else {
    s += '+';
  }
  return s + (exp < 10 ? '0' + String(exp) : String(exp));
}

function fmtF(neg: boolean, x: Digits, prec: number): string {
  let s = neg ? '-' : '';
  if (x.dp > 0) {
    for (let i = 0; i < x.dp; i++) s += digitAt(x, i);
  } else {
    s += '0';
  }
  if (prec > 0) {
    s += '.';
    for (let i = 0; i < prec; i++) s += digitAt(x, x.dp + i);
  }
  return s;
}

/** strconv.FormatFloat(f, fmt, prec, 64) for fmt in e, E, f, F, g, G; prec -1 means shortest. */
export function formatFloat(f: number, fmt: string, prec: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  const neg = f < 0 || Object.is(f, -0);
  const a = Math.abs(f);
  if (fmt === 'x' || fmt === 'X' || fmt === 'b') return formatBinary(neg, a, fmt, prec);
  const shortest = prec < 0;
  let x: Digits;
  if (shortest) {
    x = shortestDigits(a);
    switch (fmt) {
      case 'e':
      case 'E':
        prec = Math.max(x.d.length - 1, 0);
        break;
      case 'f':
      case 'F':
        prec = Math.max(x.d.length - x.dp, 0);
        break;
      case 'g':
      case 'G':
        prec = x.d.length;
        break;
    }
  } else {
    const exact = exactDigits(a);
    switch (fmt) {
      case 'e':
      case 'E':
        x = roundDigits(exact, prec + 1);
        break;
      case 'f':
      case 'F':
        x = roundDigits(exact, exact.dp + prec);
        if (exact.dp + prec < 0) x = { d: '', dp: 0 };
        break;
      case 'g':
      case 'G':
        if (prec === 0) prec = 1;
        x = roundDigits(exact, prec);
        break;
      default:
        x = exact;
    }
  }
  switch (fmt) {
    case 'e':
    case 'E':
      return fmtE(neg, x, prec, fmt);
    case 'f':
    case 'F':
      return fmtF(neg, x, prec);
    case 'g':
    case 'G': {
      let eprec = prec;
      if (eprec > x.d.length && x.d.length >= x.dp) eprec = x.d.length;
      // %e is used if the exponent is < -4 or >= the precision; shortest decides with precision 6.
      if (shortest) eprec = 6;
      const exp = x.dp - 1;
      if (x.d !== '' && (exp < -4 || exp >= eprec)) {
        if (prec > x.d.length) prec = x.d.length;
        return fmtE(neg, x, prec - 1, fmt === 'g' ? 'e' : 'E');
      }
      if (prec > x.dp) prec = x.d.length;
      return fmtF(neg, x, Math.max(prec - x.dp, 0));
    }
  }
  return '%' + fmt;
}

/** The 'b' (mantissa p exponent) and 'x'/'X' (hex mantissa and binary exponent) formats. */
function formatBinary(neg: boolean, a: number, fmt: string, prec: number): string {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, a);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  let exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (exp === 0) exp++;
  else mant |= 1n << 52n;
  exp -= 1023;
  const sign = neg ? '-' : '';
  if (fmt === 'b') {
    const e = exp - 52;
    return sign + mant.toString() + 'p' + (e >= 0 ? '+' : '-') + String(Math.abs(e));
  }
  if (mant === 0n) exp = 0;
  // Put the leading 1 (if any) at bit 60.
  mant <<= 8n;
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant <<= 1n;
    exp--;
  }
  const mask60 = (1n << 60n) - 1n;
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & mask60;
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const hex = fmt === 'X' ? '0123456789ABCDEF' : '0123456789abcdef';
  let s = sign + '0' + fmt + String(Number((mant >> 60n) & 1n));
  mant = (mant << 4n) & ((1n << 64n) - 1n);
  if (prec < 0 && mant !== 0n) {
    s += '.';
    while (mant !== 0n) {
      s += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  } else if (prec > 0) {
    s += '.';
    for (let i = 0; i < prec; i++) {
      s += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  }
  s += fmt === 'X' ? 'P' : 'p';
  s += exp < 0 ? '-' : '+';
  const e = Math.abs(exp);
  return s + (e < 10 ? '0' : '') + String(e);
}

/** How encoding/json writes a float64 (ES6-like: exponent below 1e-6 and from 1e21, "e-7" not "e-07"). */
export function formatFloatJSON(f: number): string {
  const a = Math.abs(f);
  let fmt = 'f';
  if (a !== 0 && (a < 1e-6 || a >= 1e21)) fmt = 'e';
  let s = formatFloat(f, fmt, -1);
  if (fmt === 'e') {
    const n = s.length;
    if (n >= 4 && s[n - 4] === 'e' && s[n - 3] === '-' && s[n - 2] === '0') {
      s = s.slice(0, n - 2) + s.slice(n - 1);
    }
  }
  return s;
}
