// sprig's encoding, hashing, random and key functions (strings.go, crypto.go) on node:crypto,
// with Go's base64/base32 decoding errors and goutils' crypto-random string alphabets.

import { createCipheriv, createDecipheriv, createHash, createHmac, scryptSync } from 'node:crypto';
import { GoSizedInt, type GoFunc } from '../value.js';
import { bcryptHash } from './bcrypt.js';
import { entropy, randomBelow, randomUuid } from './entropy.js';
import { ed25519PrivateKey, p256PrivateKey, rsaPrivateKey } from './keygen.js';
import { argIntNum, argString, arity, GoArgTypeError, typeNameOf } from './cast.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A Go string from bytes (invalid UTF-8 becomes U+FFFD: JS strings cannot carry raw bytes). */
function bytesToString(b: Uint8Array): string {
  return Buffer.from(b).toString('utf8');
}

/**
 * base64.StdEncoding.DecodeString / base32.StdEncoding.DecodeString: the bytes, or Go's
 * CorruptInputError text.
 */
function decodeStd(src: Uint8Array, alphabet: string, quantum: number, kind: string): Uint8Array | string {
  const bitsPer = quantum === 4 ? 6 : 5;
  const out: number[] = [];
  let si = 0;
  const err = (at: number): string => `illegal ${kind} data at input byte ${at}`;
  // Valid data lengths in a padded final quantum.
  const validTail = quantum === 4 ? new Set([2, 3]) : new Set([2, 4, 5, 7]);
  while (si <= src.length) {
    const vals: number[] = [];
    let j = 0;
    while (j < quantum) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        return err(si - j);
      }
      const c = src[si]!;
      si++;
      if (c === 0x0a || c === 0x0d) continue;
      if (c === 0x3d) {
        // Padding: the rest of the quantum must be '=' (newlines skipped), then nothing else.
        if (!validTail.has(j)) return err(si - 1);
        let need = quantum - j - 1;
        while (need > 0) {
          while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
          if (si === src.length) return err(src.length);
          if (src[si] !== 0x3d) return err(si - 1);
          si++;
          need--;
        }
        while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
        if (si < src.length) return err(si);
        pushBits(out, vals, bitsPer);
        return Uint8Array.from(out);
      }
      const v = alphabet.indexOf(String.fromCharCode(c));
      if (v < 0) return err(si - 1);
      vals.push(v);
      j++;
    }
    pushBits(out, vals, bitsPer);
  }
  return Uint8Array.from(out);
}

function pushBits(out: number[], vals: number[], bitsPer: number): void {
  let acc = 0;
  let bits = 0;
  for (const v of vals) {
    acc = ((acc << bitsPer) | v) & 0xffff;
    bits += bitsPer;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
}

function base32Encode(b: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const x of b) {
    acc = ((acc << 8) | x) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += B32[(acc >> bits) & 31];
    }
  }
  if (bits > 0) out += B32[(acc << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/** hash/adler32. */
function adler32(b: Uint8Array): number {
  let a = 1;
  let s = 0;
  for (const x of b) {
    a = (a + x) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}

function randomFrom(alphabet: string, count: number): string {
  if (count <= 0) return '';
  let s = '';
  for (let i = 0; i < count; i++) s += alphabet[randomBelow(alphabet.length)];
  return s;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');

/** sprig's genPrivateKey (PEM as Go's x509 marshals: PKCS#1 RSA, SEC1 EC, PKCS#8 ed25519). */
function genPrivateKey(typ: string): string {
  switch (typ) {
    case '':
    case 'rsa':
      return rsaPrivateKey(4096).export({ type: 'pkcs1', format: 'pem' }).toString();
    case 'ecdsa':
      return p256PrivateKey().export({ type: 'sec1', format: 'pem' }).toString();
    case 'ed25519':
      return ed25519PrivateKey().export({ type: 'pkcs8', format: 'pem' }).toString();
    case 'dsa':
      throw new Error('genPrivateKey "dsa" is not supported');
    default:
      return 'Unknown type ' + typ;
  }
}

function aesKey(password: string): Buffer {
  const key = Buffer.alloc(32);
  Buffer.from(password, 'utf8').copy(key, 0, 0, 32);
  return key;
}

// derivePassword: the Master Password algorithm (scrypt key, HMAC-SHA256 seed, template characters).
const MASTER_SEED = 'com.lyndir.masterpassword';
const PASSWORD_TEMPLATES: Record<string, string[]> = {
  maximum: ['anoxxxxxxxxxxxxxxxxx', 'axxxxxxxxxxxxxxxxxno'],
  long: [
    'CvcvnoCvcvCvcv',
    'CvcvCvcvnoCvcv',
    'CvcvCvcvCvcvno',
    'CvccnoCvcvCvcv',
    'CvccCvcvnoCvcv',
    'CvccCvcvCvcvno',
    'CvcvnoCvccCvcv',
    'CvcvCvccnoCvcv',
    'CvcvCvccCvcvno',
    'CvcvnoCvcvCvcc',
    'CvcvCvcvnoCvcc',
    'CvcvCvcvCvccno',
    'CvccnoCvccCvcv',
    'CvccCvccnoCvcv',
    'CvccCvccCvcvno',
    'CvcvnoCvccCvcc',
    'CvcvCvccnoCvcc',
    'CvcvCvccCvccno',
    'CvccnoCvcvCvcc',
    'CvccCvcvnoCvcc',
    'CvccCvcvCvccno',
  ],
  medium: ['CvcnoCvc', 'CvcCvcno'],
  short: ['Cvcn'],
  basic: ['aaanaaan', 'aannaaan', 'aaannaaa'],
  pin: ['nnnn'],
};
const TEMPLATE_CHARS: Record<string, string> = {
  V: 'AEIOU',
  C: 'BCDFGHJKLMNPQRSTVWXYZ',
  v: 'aeiou',
  c: 'bcdfghjklmnpqrstvwxyz',
  A: 'AEIOUBCDFGHJKLMNPQRSTVWXYZ',
  a: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz',
  n: '0123456789',
  o: "@&%?,=[]_:-+*$#!'^~;()/.",
  x: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()',
};

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function derivePassword(counter: number, type: string, password: string, user: string, site: string): string {
  const templates = PASSWORD_TEMPLATES[type];
  if (!templates) return `cannot find password template ${type}`;
  const userB = Buffer.from(user, 'utf8');
  const salt = Buffer.concat([Buffer.from(MASTER_SEED), u32(userB.length), userB]);
  const key = scryptSync(Buffer.from(password, 'utf8'), salt, 64, {
    N: 32768,
    r: 8,
    p: 2,
    maxmem: 256 * 1024 * 1024,
  });
  const siteB = Buffer.from(site, 'utf8');
  const seed = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(MASTER_SEED), u32(siteB.length), siteB, u32(counter)]))
    .digest();
  const temp = templates[seed[0]! % templates.length]!;
  let out = '';
  for (let i = 0; i < temp.length; i++) {
    const chars = TEMPLATE_CHARS[temp[i]!]!;
    out += chars[seed[i + 1]! % chars.length];
  }
  return out;
}

/** sprig's bcrypt: errors become the returned text. */
function bcrypt(input: string): string {
  try {
    return bcryptHash(input, 10);
  } catch (e) {
    return `failed to encrypt string with bcrypt: ${(e as Error).message}`;
  }
}

export function cryptoFunctions(): Record<string, GoFunc> {
  const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
  return {
    b64enc: (...a) => Buffer.from(argString(a[0]), 'utf8').toString('base64'),
    b64dec: (...a) => {
      const r = decodeStd(enc(argString(a[0])), B64, 4, 'base64');
      return typeof r === 'string' ? r : bytesToString(r);
    },
    b32enc: (...a) => base32Encode(enc(argString(a[0]))),
    b32dec: (...a) => {
      const r = decodeStd(enc(argString(a[0])), B32, 8, 'base32');
      return typeof r === 'string' ? r : bytesToString(r);
    },
    sha1sum: (...a) => createHash('sha1').update(argString(a[0]), 'utf8').digest('hex'),
    sha256sum: (...a) => createHash('sha256').update(argString(a[0]), 'utf8').digest('hex'),
    sha512sum: (...a) => createHash('sha512').update(argString(a[0]), 'utf8').digest('hex'),
    adler32sum: (...a) => String(adler32(enc(argString(a[0])))),
    uuidv4: () => randomUuid(),
    // helm 4.1.4's `helm template` renders getHostByName empty (no DNS lookups while templating).
    getHostByName: (...a) => {
      arity('getHostByName', a, 1);
      argString(a[0]);
      return '';
    },
    bcrypt: (...a) => bcrypt(argString(a[0])),
    htpasswd: (...a) => {
      arity('htpasswd', a, 2);
      const user = argString(a[0]);
      const password = argString(a[1]);
      if (user.includes(':')) return `invalid username: ${user}`;
      return `${user}:${bcrypt(password)}`;
    },
    randBytes: (...a) => {
      const n = argIntNum(a[0]);
      if (n < 0) throw new Error('runtime error: makeslice: len out of range');
      return entropy().bytes(n).toString('base64');
    },
    randAlphaNum: (...a) => randomFrom(LETTERS + DIGITS, argIntNum(a[0])),
    randAlpha: (...a) => randomFrom(LETTERS, argIntNum(a[0])),
    randNumeric: (...a) => randomFrom(DIGITS, argIntNum(a[0])),
    randAscii: (...a) => randomFrom(ASCII, argIntNum(a[0])),
    genPrivateKey: (...a) => genPrivateKey(argString(a[0])),
    derivePassword: (...a) => {
      arity('derivePassword', a, 5);
      // counter is a uint32 parameter: the executor converts a constant (wrapping, as reflect's SetUint).
      const c = a[0];
      if (!(c instanceof GoSizedInt) || c.goType !== 'uint32')
        throw new GoArgTypeError(`wrong type for value; expected uint32; got ${typeNameOf(c)}`);
      const counter = c.value;
      return derivePassword(
        Number(counter),
        argString(a[1]),
        argString(a[2]),
        argString(a[3]),
        argString(a[4]),
      );
    },
    encryptAES: (...a) => {
      arity('encryptAES', a, 2);
      const password = argString(a[0]);
      const plaintext = argString(a[1]);
      if (plaintext === '') return '';
      const content = Buffer.from(plaintext, 'utf8');
      const pad = 16 - (content.length % 16);
      const padded = Buffer.concat([content, Buffer.alloc(pad, pad)]);
      const iv = entropy().bytes(16);
      const c = createCipheriv('aes-256-cbc', aesKey(password), iv);
      c.setAutoPadding(false);
      return Buffer.concat([iv, c.update(padded), c.final()]).toString('base64');
    },
    decryptAES: (...a) => {
      arity('decryptAES', a, 2);
      const password = argString(a[0]);
      const crypt64 = argString(a[1]);
      if (crypt64 === '') return '';
      const r = decodeStd(enc(crypt64), B64, 4, 'base64');
      if (typeof r === 'string') throw new Error(r);
      if (r.length < 16)
        throw new Error(`runtime error: slice bounds out of range [:16] with capacity ${r.length}`);
      const body = r.subarray(16);
      if (body.length % 16 !== 0) throw new Error('crypto/cipher: input not full blocks');
      if (body.length === 0) throw new Error('runtime error: index out of range [-1]');
      const d = createDecipheriv('aes-256-cbc', aesKey(password), r.subarray(0, 16));
      d.setAutoPadding(false);
      const dec = Buffer.concat([d.update(body), d.final()]);
      const cut = dec.length - dec[dec.length - 1]!;
      if (cut < 0) throw new Error(`runtime error: slice bounds out of range [:${cut}]`);
      return bytesToString(dec.subarray(0, cut));
    },
  };
}
