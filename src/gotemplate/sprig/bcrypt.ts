// bcrypt ($2a$, as golang.org/x/crypto/bcrypt generates it) for sprig's bcrypt and htpasswd. Node
// has no bcrypt; Blowfish's initial tables are the hex digits of pi, computed here once on demand.

import { entropy } from './entropy.js';

const WORDS = 18 + 4 * 256;

let piWords: Uint32Array | undefined;

/** The first 1042 32-bit words of pi's fractional part in hex (Blowfish's P-array and S-boxes). */
function blowfishInit(): Uint32Array {
  if (piWords) return piWords;
  const bits = BigInt(WORDS * 32 + 64);
  const one = 1n << bits;
  const atanInv = (x: bigint): bigint => {
    // arctan(1/x) = Σ (-1)^k / ((2k+1) x^(2k+1)), in fixed point.
    const x2 = x * x;
    let term = one / x;
    let sum = term;
    for (let k = 1n; term !== 0n; k++) {
      term /= x2;
      const t = term / (2n * k + 1n);
      sum += k % 2n === 1n ? -t : t;
    }
    return sum;
  };
  const pi = 16n * atanInv(5n) - 4n * atanInv(239n);
  const frac = (pi - 3n * one) >> 64n;
  const hex = frac.toString(16).padStart(WORDS * 8, '0');
  const w = new Uint32Array(WORDS);
  for (let i = 0; i < WORDS; i++) w[i] = parseInt(hex.slice(i * 8, i * 8 + 8), 16);
  piWords = w;
  return w;
}

class Blowfish {
  readonly p: Uint32Array;
  readonly s: Uint32Array;
  constructor() {
    const init = blowfishInit();
    this.p = init.slice(0, 18);
    this.s = init.slice(18);
  }

  private f(x: number): number {
    const s = this.s;
    return (
      ((((s[x >>> 24]! + s[256 + ((x >>> 16) & 0xff)]!) | 0) ^ s[512 + ((x >>> 8) & 0xff)]!) +
        s[768 + (x & 0xff)]!) |
      0
    );
  }

  encrypt(l: number, r: number): [number, number] {
    const p = this.p;
    let xl = l ^ p[0]!;
    let xr = r;
    for (let i = 1; i < 17; i += 2) {
      xr ^= this.f(xl) ^ p[i]!;
      xl ^= this.f(xr) ^ p[i + 1]!;
    }
    xr ^= p[17]!;
    return [xr >>> 0, xl >>> 0];
  }

  /** ExpandKey (salt empty) or expandKeyWithSalt. */
  expand(key: Uint8Array, salt?: Uint8Array): void {
    const next = (b: Uint8Array, pos: { j: number }): number => {
      let w = 0;
      for (let i = 0; i < 4; i++) {
        w = (w << 8) | b[pos.j]!;
        pos.j = (pos.j + 1) % b.length;
      }
      return w;
    };
    const kp = { j: 0 };
    for (let i = 0; i < 18; i++) this.p[i] = this.p[i]! ^ next(key, kp);
    const sp = { j: 0 };
    let l = 0;
    let r = 0;
    const fill = (arr: Uint32Array, n: number): void => {
      for (let i = 0; i < n; i += 2) {
        if (salt) {
          l ^= next(salt, sp);
          r ^= next(salt, sp);
        }
        [l, r] = this.encrypt(l, r);
        arr[i] = l;
        arr[i + 1] = r;
      }
    };
    fill(this.p, 18);
    fill(this.s, 1024);
  }
}

const B64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function bcryptBase64(b: Uint8Array): string {
  return Buffer.from(b)
    .toString('base64')
    .replace(/=+$/, '')
    .replace(/[A-Za-z0-9+/]/g, (c) => B64[stdIndex(c)]!);
}

const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function stdIndex(c: string): number {
  return STD.indexOf(c);
}

function bcryptBase64Decode(s: string): Uint8Array {
  const std = s.replace(/./g, (c) => STD[B64.indexOf(c)]!);
  return Buffer.from(std, 'base64');
}

/** bcrypt.GenerateFromPassword with a given 22-character salt (random when omitted). */
export function bcryptHash(password: string, cost = 10, salt?: string): string {
  const pw = Buffer.from(password, 'utf8');
  if (pw.length > 72) throw new Error('bcrypt: password length exceeds 72 bytes');
  const saltText = salt ?? bcryptBase64(entropy().bytes(16));
  const csalt = bcryptBase64Decode(saltText);
  const ckey = Buffer.concat([pw, Buffer.from([0])]);
  const c = new Blowfish();
  c.expand(ckey, csalt);
  const rounds = 1 << cost;
  for (let i = 0; i < rounds; i++) {
    c.expand(ckey);
    c.expand(csalt);
  }
  const data = Buffer.from('OrpheanBeholderScryDoubt', 'latin1');
  for (let i = 0; i < 24; i += 8) {
    let l = data.readUInt32BE(i);
    let r = data.readUInt32BE(i + 4);
    for (let j = 0; j < 64; j++) [l, r] = c.encrypt(l, r);
    data.writeUInt32BE(l >>> 0, i);
    data.writeUInt32BE(r >>> 0, i + 4);
  }
  return `$2a$${String(cost).padStart(2, '0')}$${saltText}${bcryptBase64(data.subarray(0, 23))}`;
}
