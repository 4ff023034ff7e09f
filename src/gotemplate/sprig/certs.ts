// sprig's certificate functions (genCA, genSelfSignedCert, genSignedCert, their WithKey forms and
// buildCustomCert): X.509 v3 certificates shaped like Go's x509.CreateCertificate, DER built here.

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { GoFunc, GoOpaque, GoValue } from '../value.js';
import { currentDate, entropy } from './entropy.js';
import { rsaPrivateKey } from './keygen.js';
import { argInt, argString, arity, formatGo, GoArgTypeError, typeNameOf } from './cast.js';

/** sprig's `certificate` struct: templates read .Cert and .Key. */
export class SprigCertificate implements GoOpaque {
  readonly goType = 'sprig.certificate';
  readonly goKind = 'struct';
  constructor(
    readonly Cert: string,
    readonly Key: string,
  ) {}
  format(): string {
    return `{${this.Cert} ${this.Key}}`;
  }
  /** Fields reachable from templates (the executor's GoObject protocol). */
  getField(name: string): GoValue | undefined {
    if (name === 'Cert') return this.Cert;
    if (name === 'Key') return this.Key;
    return undefined;
  }
}

// ---- DER ----

function tlv(tag: number, content: Uint8Array): Buffer {
  const n = content.length;
  let len: number[];
  if (n < 0x80) len = [n];
  else {
    const bytes: number[] = [];
    for (let x = n; x > 0; x = Math.floor(x / 256)) bytes.unshift(x & 0xff);
    len = [0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from([tag, ...len]), content]);
}
const seq = (...xs: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(xs));
const set = (...xs: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(xs));
const octets = (b: Uint8Array): Buffer => tlv(0x04, b);
const bitString = (b: Uint8Array, unused = 0): Buffer => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));

function integer(n: bigint): Buffer {
  let hex = n.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  let b = Buffer.from(hex, 'hex');
  if (b[0]! & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

function oid(s: string): Buffer {
  const parts = s.split('.').map(Number);
  const out = [parts[0]! * 40 + parts[1]!];
  for (const p of parts.slice(2)) {
    const bytes = [p & 0x7f];
    for (let x = Math.floor(p / 128); x > 0; x = Math.floor(x / 128)) bytes.unshift(0x80 | (x & 0x7f));
    out.push(...bytes);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(d: Date): Buffer {
  const y = d.getUTCFullYear();
  const p2 = (n: number): string => String(n).padStart(2, '0');
  const rest = `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())}Z`;
  if (y >= 1950 && y < 2050) return tlv(0x17, Buffer.from(p2(y % 100) + rest));
  return tlv(0x18, Buffer.from(String(y).padStart(4, '0') + rest));
}

function name(cn: string): Buffer {
  if (cn === '') return seq();
  const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(cn);
  return seq(set(seq(oid('2.5.4.3'), tlv(printable ? 0x13 : 0x0c, Buffer.from(cn, 'utf8')))));
}

function extension(id: string, critical: boolean, value: Uint8Array): Buffer {
  return critical ? seq(oid(id), tlv(0x01, Buffer.from([0xff])), octets(value)) : seq(oid(id), octets(value));
}

/** Read one TLV at offset: [tag, content start, end]. */
function readTlv(b: Uint8Array, off: number): [number, number, number] {
  const tag = b[off]!;
  let len = b[off + 1]!;
  let start = off + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[off + 2 + i]!;
    start += n;
  }
  return [tag, start, start + len];
}

/** The subject Name DER and subjectKeyIdentifier of a certificate. */
function certParts(der: Buffer): { subject: Buffer; ski?: Buffer } {
  const [, tbsStart] = readTlv(der, 0);
  const [, tbsContent, tbsEnd] = readTlv(der, tbsStart);
  const fields: [number, number, number][] = [];
  for (let off = tbsContent; off < tbsEnd;) {
    const t = readTlv(der, off);
    fields.push([t[0], off, t[2]]);
    off = t[2];
  }
  const skip = fields[0]![0] === 0xa0 ? 1 : 0;
  const subj = fields[4 + skip]!;
  const subject = der.subarray(subj[1], subj[2]);
  const skiOid = oid('2.5.29.14');
  const at = der.indexOf(skiOid, tbsContent);
  let ski: Buffer | undefined;
  if (at >= 0) {
    const [, os, oe] = readTlv(der, at + skiOid.length);
    const [, is, ie] = readTlv(der, os);
    if (oe > os) ski = der.subarray(is, ie);
  }
  return { subject, ski };
}

function sigAlg(key: KeyObject): { alg: Buffer; hash: string | null } {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return { alg: seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00])), hash: 'sha256' };
    case 'ec':
      return { alg: seq(oid('1.2.840.10045.4.3.2')), hash: 'sha256' };
    case 'ed25519':
      return { alg: seq(oid('1.3.101.112')), hash: null };
  }
  throw new Error(`error creating certificate: x509: only RSA, ECDSA and Ed25519 keys supported`);
}

/** pemBlockForKey: PKCS#1 for RSA, SEC1 for EC, PKCS#8 otherwise. */
function keyPem(key: KeyObject): string {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return key.export({ type: 'pkcs1', format: 'pem' }).toString();
    case 'ec':
      return key.export({ type: 'sec1', format: 'pem' }).toString();
  }
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function pem(type: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${type}-----\n${b64}\n-----END ${type}-----\n`;
}

interface Template {
  cn: string;
  ips: Buffer[];
  dns: string[];
  days: bigint;
  isCA: boolean;
}

function createCert(t: Template, signee: KeyObject, parentDer: Buffer | null, signer: KeyObject): string {
  const spki = spkiDer(signee);
  const subject = name(t.cn);
  const parent = parentDer ? certParts(parentDer) : null;
  const issuer = parent ? parent.subject : subject;
  const now = currentDate();
  const notAfter = new Date(now.getTime() + Number(t.days) * 86400000);
  const serial = BigInt('0x' + entropy().bytes(16).toString('hex'));
  const { alg, hash } = sigAlg(signer);
  const exts: Buffer[] = [];
  exts.push(
    extension(
      '2.5.29.15',
      true,
      t.isCA ? bitString(Buffer.from([0xa4]), 2) : bitString(Buffer.from([0xa0]), 5),
    ),
  );
  exts.push(extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'), oid('1.3.6.1.5.5.7.3.2'))));
  exts.push(extension('2.5.29.19', true, t.isCA ? seq(tlv(0x01, Buffer.from([0xff]))) : seq()));
  let ski: Buffer | undefined;
  if (t.isCA) {
    // Go derives a CA's subject key id from the SHA-1 of its public key bits.
    const [, spkiStart] = readTlv(spki, 0);
    const [, , algEnd] = readTlv(spki, spkiStart);
    const [, bitsStart, bitsEnd] = readTlv(spki, algEnd);
    ski = createHash('sha1')
      .update(spki.subarray(bitsStart + 1, bitsEnd))
      .digest();
    exts.push(extension('2.5.29.14', false, octets(ski)));
  }
  if (parent?.ski && !parent.subject.equals(subject)) {
    exts.push(extension('2.5.29.35', false, seq(tlv(0x80, parent.ski))));
  }
  if (t.dns.length > 0 || t.ips.length > 0) {
    const names = [
      ...t.dns.map((d) => tlv(0x82, Buffer.from(d, 'ascii'))),
      ...t.ips.map((ip) => tlv(0x87, ip)),
    ];
    exts.push(extension('2.5.29.17', false, seq(...names)));
  }
  const tbs = seq(
    tlv(0xa0, integer(2n)),
    integer(serial),
    alg,
    issuer,
    seq(time(now), time(notAfter)),
    subject,
    spki,
    tlv(0xa3, seq(...exts)),
  );
  const signature = sign(hash, tbs, signer);
  return pem('CERTIFICATE', seq(tbs, alg, bitString(signature)));
}

/** The SubjectPublicKeyInfo DER of a private key's public half. */
function spkiDer(k: KeyObject): Buffer {
  return createPublicKey(k).export({ type: 'spki', format: 'der' });
}

function parseKeyPem(p: string): KeyObject {
  if (!p.includes('-----BEGIN')) throw new Error('no PEM data in input');
  const m = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(p);
  const type = m?.[1] ?? '';
  if (type !== 'PRIVATE KEY' && !type.endsWith(' PRIVATE KEY')) {
    throw new Error(`no private key data in PEM block of type ${type}`);
  }
  if (type === 'DSA PRIVATE KEY') throw new Error('DSA keys are not supported');
  try {
    return createPrivateKey(p);
  } catch (e) {
    throw new Error(`parsing private key from PEM: ${(e as Error).message}`);
  }
}

function listArg(v: GoValue | undefined, what: 'ip' | 'dns'): GoValue[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw new GoArgTypeError(`wrong type for value; expected []interface {}; got ${typeNameOf(v)}`);
  for (const x of v) {
    if (typeof x !== 'string') {
      throw new Error(
        what === 'ip'
          ? `error parsing ip: ${formatGo(x)} is not a string`
          : `error processing alternate dns name: ${formatGo(x)} is not a string`,
      );
    }
  }
  return v;
}

function ipBytes(s: string): Buffer {
  if (isIPv4(s)) return Buffer.from(s.split('.').map(Number));
  if (isIPv6(s)) {
    const m = /^(.*?)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
    let head = s;
    let tail: number[] = [];
    if (m) {
      head = m[1]! + '0:0';
      tail = m[2]!.split('.').map(Number);
    }
    const [a, b] = head.split('::') as [string, string | undefined];
    const left = a ? a.split(':') : [];
    const right = b !== undefined && b !== '' ? b.split(':') : [];
    const groups =
      b !== undefined ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
    const out = Buffer.alloc(16);
    groups.forEach((g: string, i: number) => out.writeUInt16BE(parseInt(g, 16), i * 2));
    if (tail.length) tail.forEach((x, i) => (out[12 + i] = x));
    // IPv4-mapped addresses are IPv4 to Go.
    if (out.subarray(0, 12).equals(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])))
      return out.subarray(12);
    return out;
  }
  throw new Error(`error parsing ip: ${s}`);
}

function template(
  cn: GoValue | undefined,
  ips: GoValue | undefined,
  dns: GoValue | undefined,
  days: GoValue | undefined,
): Template {
  return {
    cn: argString(cn),
    ips: listArg(ips, 'ip').map((x) => ipBytes(x as string)),
    dns: listArg(dns, 'dns') as string[],
    days: argInt(days),
    isCA: false,
  };
}

function rsaKey(): KeyObject {
  return rsaPrivateKey(2048);
}

function argCert(v: GoValue | undefined): SprigCertificate {
  if (v instanceof SprigCertificate) return v;
  if (v === undefined || v === null) throw new GoArgTypeError('invalid value; expected sprig.certificate');
  throw new GoArgTypeError(`wrong type for value; expected sprig.certificate; got ${typeNameOf(v)}`);
}

function signed(t: Template, ca: SprigCertificate, key: KeyObject): SprigCertificate {
  let caDer: Buffer;
  try {
    caDer = Buffer.from(new X509Certificate(ca.Cert).raw);
  } catch {
    throw new Error('unable to decode certificate');
  }
  let signer: KeyObject;
  try {
    signer = parseKeyPem(ca.Key);
  } catch (e) {
    throw new Error(`error parsing private key: ${(e as Error).message}`);
  }
  return new SprigCertificate(createCert(t, key, caDer, signer), keyPem(key));
}

function withKey(p: GoValue | undefined): KeyObject {
  try {
    return parseKeyPem(argString(p));
  } catch (e) {
    throw new Error(`parsing private key: ${(e as Error).message}`);
  }
}

export function certFunctions(): Record<string, GoFunc> {
  const ca = (cn: GoValue | undefined, days: GoValue | undefined, key: KeyObject): SprigCertificate => {
    const t = { ...template(cn, null, null, days), isCA: true };
    return new SprigCertificate(createCert(t, key, null, key), keyPem(key));
  };
  return {
    genCA: (...a) => {
      arity('genCA', a, 2);
      return ca(a[0], a[1], rsaKey());
    },
    genCAWithKey: (...a) => {
      arity('genCAWithKey', a, 3);
      return ca(a[0], a[1], withKey(a[2]));
    },
    genSelfSignedCert: (...a) => {
      arity('genSelfSignedCert', a, 4);
      const t = template(a[0], a[1], a[2], a[3]);
      const key = rsaKey();
      return new SprigCertificate(createCert(t, key, null, key), keyPem(key));
    },
    genSelfSignedCertWithKey: (...a) => {
      arity('genSelfSignedCertWithKey', a, 5);
      const t = template(a[0], a[1], a[2], a[3]);
      const key = withKey(a[4]);
      return new SprigCertificate(createCert(t, key, null, key), keyPem(key));
    },
    genSignedCert: (...a) => {
      arity('genSignedCert', a, 5);
      const t = template(a[0], a[1], a[2], a[3]);
      return signed(t, argCert(a[4]), rsaKey());
    },
    genSignedCertWithKey: (...a) => {
      arity('genSignedCertWithKey', a, 6);
      const t = template(a[0], a[1], a[2], a[3]);
      const c = argCert(a[4]);
      return signed(t, c, withKey(a[5]));
    },
    buildCustomCert: (...a) => {
      arity('buildCustomCert', a, 2);
      const b64 = (v: GoValue | undefined, what: string): string => {
        const s = argString(v);
        if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s))
          throw new Error(`unable to decode base64 ${what}`);
        return Buffer.from(s, 'base64').toString('latin1');
      };
      const cert = b64(a[0], 'certificate');
      const key = b64(a[1], 'private key');
      // pem.Decode finds no block: sprig's own message, before x509 sees anything.
      const pemBlock = /-----BEGIN [^\n-]*-----[\s\S]*?-----END [^\n-]*-----/;
      if (!pemBlock.test(cert)) throw new Error('unable to decode certificate');
      try {
        new X509Certificate(cert);
      } catch (e) {
        throw new Error(`error parsing certificate: decodedCert.Bytes: ${(e as Error).message}`);
      }
      if (!pemBlock.test(key)) throw new Error('unable to decode key');
      try {
        parseKeyPem(key);
      } catch (e) {
        throw new Error(`error parsing private key: ${(e as Error).message}`);
      }
      return new SprigCertificate(cert, key);
    },
  };
}
