// Private keys for genPrivateKey and the certificate functions: OpenSSL's generator under the system
// entropy source, and keys derived from the seeded stream (same seed, same key) under a seeded one.

import {
  checkPrimeSync,
  createECDH,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { entropy } from './entropy.js';

const b64url = (n: bigint): string => {
  let hex = n.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  return Buffer.from(hex, 'hex').toString('base64url');
};

const toBigInt = (b: Buffer): bigint => BigInt('0x' + (b.length ? b.toString('hex') : '0'));

function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1] = [a % m, m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

const E = 65537n;

/** Odd primes below 2^14: trial division by them rejects about 93% of candidates without a bignum op. */
const SMALL_PRIMES: readonly number[] = (() => {
  const limit = 1 << 14;
  const composite = new Uint8Array(limit);
  const out: number[] = [];
  for (let i = 3; i < limit; i += 2) {
    if (composite[i]) continue;
    out.push(i);
    for (let j = i * i; j < limit; j += 2 * i) composite[j] = 1;
  }
  return out;
})();

const WINDOW = 4096;

/**
 * A `bits`-bit prime p with gcd(p-1, e) = 1: the two top bits set so p·q has exactly twice the bits.
 * Candidates p, p+2, … are sieved by the small primes over a window, and only survivors go to
 * OpenSSL's primality test (the expensive part).
 */
function derivePrime(bits: number): bigint {
  for (;;) {
    let base = toBigInt(entropy().bytes(bits / 8));
    base &= (1n << BigInt(bits)) - 1n;
    base |= (3n << BigInt(bits - 2)) | 1n;
    const residues = SMALL_PRIMES.map((q) => Number(base % BigInt(q)));
    for (let k = 0; k < WINDOW; k++) {
      const step = 2 * k;
      let sieved = false;
      for (let i = 0; i < SMALL_PRIMES.length; i++) {
        if ((residues[i]! + step) % SMALL_PRIMES[i]! === 0) {
          sieved = true;
          break;
        }
      }
      if (sieved) continue;
      const p = base + BigInt(step);
      if (p >> BigInt(bits) !== 0n) break;
      if (gcd(p - 1n, E) === 1n && checkPrimeSync(p, { checks: 1 }) && checkPrimeSync(p)) return p;
    }
  }
}

function derivedRsa(bits: number): KeyObject {
  for (;;) {
    const p = derivePrime(bits / 2);
    const q = derivePrime(bits / 2);
    if (p === q) continue;
    const n = p * q;
    const phi = (p - 1n) * (q - 1n);
    const d = modInverse(E, phi);
    return createPrivateKey({
      format: 'jwk',
      key: {
        kty: 'RSA',
        n: b64url(n),
        e: b64url(E),
        d: b64url(d),
        p: b64url(p),
        q: b64url(q),
        dp: b64url(d % (p - 1n)),
        dq: b64url(d % (q - 1n)),
        qi: b64url(modInverse(q, p)),
      },
    });
  }
}

/** The order of P-256's base point. */
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

function derivedP256(): KeyObject {
  // 64 extra bits before the reduction make the bias negligible (FIPS 186-4 B.4.1).
  const d = (toBigInt(entropy().bytes(40)) % (P256_N - 1n)) + 1n;
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(Buffer.from(d.toString(16).padStart(64, '0'), 'hex'));
  const pub = ecdh.getPublicKey();
  return createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: pub.subarray(1, 33).toString('base64url'),
      y: pub.subarray(33, 65).toString('base64url'),
      d: b64url(d),
    },
  });
}

/** PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410): the key is just 32 random bytes. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function derivedEd25519(): KeyObject {
  const der = Buffer.concat([ED25519_PKCS8_PREFIX, entropy().bytes(32)]);
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
}

export function rsaPrivateKey(bits: number): KeyObject {
  if (entropy().seeded) return derivedRsa(bits);
  return generateKeyPairSync('rsa', { modulusLength: bits }).privateKey;
}

export function p256PrivateKey(): KeyObject {
  if (entropy().seeded) return derivedP256();
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
}

export function ed25519PrivateKey(): KeyObject {
  if (entropy().seeded) return derivedEd25519();
  return generateKeyPairSync('ed25519').privateKey;
}
