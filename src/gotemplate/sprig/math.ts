// sprig's arithmetic (functions.go, numeric.go): int64 math through cast.ToInt64, float math through
// shopspring/decimal (exact decimal add/sub/mul, 16-digit division), sequences and conversions.

import { goInt64, type GoFunc, type GoValue } from '../value.js';
import {
  argFloat,
  argInt,
  argIntNum,
  argString,
  arity,
  formatGo,
  int64,
  parseGoInt,
  tagSlice,
  toFloat64,
  toInt64,
} from './cast.js';
import { randomBelow } from './entropy.js';

/** A decimal number coef × 10^exp, as shopspring/decimal keeps it. */
interface Dec {
  coef: bigint;
  exp: number;
}

/** decimal.NewFromFloat: the shortest decimal that round-trips to f. */
function decFromFloat(f: number): Dec {
  if (Number.isNaN(f)) throw new Error('Cannot create a Decimal from NaN');
  if (!Number.isFinite(f)) throw new Error(`Cannot create a Decimal from ${f > 0 ? '+Inf' : '-Inf'}`);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(f.toExponential())!;
  const frac = m[3] ?? '';
  const coef = BigInt(m[1]! + m[2]! + frac);
  return { coef, exp: Number(m[4]) - frac.length };
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  const e = Math.min(a.exp, b.exp);
  return [a.coef * 10n ** BigInt(a.exp - e), b.coef * 10n ** BigInt(b.exp - e), e];
}

function decAdd(a: Dec, b: Dec): Dec {
  const [x, y, e] = align(a, b);
  return { coef: x + y, exp: e };
}
function decSub(a: Dec, b: Dec): Dec {
  const [x, y, e] = align(a, b);
  return { coef: x - y, exp: e };
}
function decMul(a: Dec, b: Dec): Dec {
  return { coef: a.coef * b.coef, exp: a.exp + b.exp };
}

/** decimal.Div: DivRound to 16 decimal places, half away from zero. */
function decDiv(a: Dec, b: Dec): Dec {
  if (b.coef === 0n) throw new Error('decimal division by 0');
  const places = 16;
  // a/b scaled by 10^(places+1), then rounded to `places`.
  const shift = places + 1 + (a.exp - b.exp);
  let num = a.coef;
  let den = b.coef;
  if (shift >= 0) num *= 10n ** BigInt(shift);
  else den *= 10n ** BigInt(-shift);
  let q = num / den;
  const neg = num < 0n !== den < 0n;
  let r = q % 10n;
  if (r < 0n) r = -r;
  q = q / 10n;
  if (r >= 5n) q += neg ? -1n : 1n;
  // Exactness past the 17th digit does not matter for half-away rounding except at exact .5.
  return { coef: q, exp: -places };
}

function decToFloat(d: Dec): number {
  return Number(`${d.coef}e${d.exp}`);
}

function decimalOp(
  a: GoValue | undefined,
  rest: (GoValue | undefined)[],
  f: (x: Dec, y: Dec) => Dec,
): number {
  let acc = decFromFloat(toFloat64(a));
  for (const x of rest) acc = f(acc, decFromFloat(toFloat64(x)));
  return decToFloat(acc);
}

/** untilStep with Go's int loop. */
function untilStep(start: bigint, stop: bigint, step: bigint): bigint[] {
  const v: bigint[] = [];
  if (stop < start) {
    if (step >= 0n) return v;
    for (let i = start; i > stop; i += step) v.push(i);
    return v;
  }
  if (step <= 0n) return v;
  for (let i = start; i < stop; i += step) v.push(i);
  return v;
}

function seq(params: bigint[]): string {
  let inc = 1n;
  let r: bigint[];
  switch (params.length) {
    case 1: {
      const end = params[0]!;
      if (end < 1n) inc = -1n;
      r = untilStep(1n, end + inc, inc);
      break;
    }
    case 2: {
      const [start, end] = params as [bigint, bigint];
      const step = end < start ? -1n : 1n;
      r = untilStep(start, end + step, step);
      break;
    }
    case 3: {
      const [start, step, end] = params as [bigint, bigint, bigint];
      if (end < start) {
        inc = -1n;
        if (step > 0n) return '';
      }
      r = untilStep(start, end + inc, step);
      break;
    }
    default:
      return '';
  }
  return r.join(' ');
}

/** Go's math.Max / math.Min (NaN wins, signed zeros ordered). */
function goMax(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return Math.max(a, b);
}
function goMin(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return Math.min(a, b);
}

function round(a: GoValue | undefined, p: bigint, rOpt: number[]): number {
  const roundOn = rOpt[0] ?? 0.5;
  const val = toFloat64(a);
  const pow = Math.pow(10, Number(p));
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

const maxInt = (...a: GoValue[]): GoValue => {
  arity('max', a, 1, true);
  let acc = toInt64(a[0]);
  for (const b of a.slice(1)) {
    const x = toInt64(b);
    if (x > acc) acc = x;
  }
  return goInt64(acc);
};

export function mathFunctions(): Record<string, GoFunc> {
  return {
    atoi: (...a) => {
      const s = argString(a[0]);
      if (!/^[+-]?\d+$/.test(s)) return 0n;
      return parseGoInt(s, 10) ?? 0n;
    },
    int64: (...a) => goInt64(toInt64(a[0])),
    int: (...a) => toInt64(a[0]),
    float64: (...a) => toFloat64(a[0]),
    toDecimal: (...a) => {
      const s = formatGo(a[0]);
      if (!/^[+-]?[0-7]+$/.test(s)) return goInt64(0n);
      return goInt64(parseGoInt(s, 8) ?? 0n);
    },
    seq: (...a) => seq(a.map(argInt)),
    until: (...a) => {
      arity('until', a, 1);
      const n = argInt(a[0]);
      return tagSlice(untilStep(0n, n, n < 0n ? -1n : 1n), '[]int');
    },
    untilStep: (...a) => {
      arity('untilStep', a, 3);
      return tagSlice(untilStep(argInt(a[0]), argInt(a[1]), argInt(a[2])), '[]int');
    },
    add1: (...a) => goInt64(toInt64(a[0]) + 1n),
    add: (...a) => goInt64(a.reduce<bigint>((acc, b) => acc + toInt64(b), 0n)),
    sub: (...a) => {
      arity('sub', a, 2);
      return goInt64(toInt64(a[0]) - toInt64(a[1]));
    },
    div: (...a) => {
      arity('div', a, 2);
      const d = toInt64(a[1]);
      if (d === 0n) throw new Error('runtime error: integer divide by zero');
      return goInt64(toInt64(a[0]) / d);
    },
    mod: (...a) => {
      arity('mod', a, 2);
      const d = toInt64(a[1]);
      if (d === 0n) throw new Error('runtime error: integer divide by zero');
      return goInt64(toInt64(a[0]) % d);
    },
    mul: (...a) => {
      arity('mul', a, 1, true);
      return goInt64(a.slice(1).reduce<bigint>((acc, b) => int64(acc * toInt64(b)), toInt64(a[0])));
    },
    randInt: (...a) => {
      arity('randInt', a, 2);
      const min = argIntNum(a[0]);
      const max = argIntNum(a[1]);
      if (max - min <= 0) throw new Error('invalid argument to Intn');
      return BigInt(randomBelow(max - min) + min);
    },
    add1f: (...a) => decimalOp(a[0], [1n], decAdd),
    addf: (...a) => decimalOp(0, a, decAdd),
    subf: (...a) => {
      arity('subf', a, 1, true);
      return decimalOp(a[0], a.slice(1), decSub);
    },
    divf: (...a) => {
      arity('divf', a, 1, true);
      return decimalOp(a[0], a.slice(1), decDiv);
    },
    mulf: (...a) => {
      arity('mulf', a, 1, true);
      return decimalOp(a[0], a.slice(1), decMul);
    },
    biggest: maxInt,
    max: maxInt,
    min: (...a) => {
      arity('min', a, 1, true);
      let acc = toInt64(a[0]);
      for (const b of a.slice(1)) {
        const x = toInt64(b);
        if (x < acc) acc = x;
      }
      return goInt64(acc);
    },
    maxf: (...a) => {
      arity('maxf', a, 1, true);
      return a.slice(1).reduce<number>((acc, b) => goMax(acc, toFloat64(b)), toFloat64(a[0]));
    },
    minf: (...a) => {
      arity('minf', a, 1, true);
      return a.slice(1).reduce<number>((acc, b) => goMin(acc, toFloat64(b)), toFloat64(a[0]));
    },
    ceil: (...a) => Math.ceil(toFloat64(a[0])),
    floor: (...a) => Math.floor(toFloat64(a[0])),
    round: (...a) => {
      arity('round', a, 2, true);
      // An integer literal is a valid float64 constant argument in Go templates.
      const opts = a.slice(2).map((x) => (typeof x === 'bigint' ? Number(x) : argFloat(x)));
      return round(a[0], argInt(a[1]), opts);
    },
  };
}
