// The hub's certificate authority: creates (once) or loads the CA and the HTTPS serving certificate under
// <data-dir>/pki, signs client certificates for agents and users, and reads identities off peer certificates.
import './reflect-shim.js';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { PeerCertificate, TlsOptions } from 'node:tls';
import { errors } from '../util/errors.js';
import { ensurePrivateDir, writeFileAtomic } from './files.js';

// Node's WebCrypto is the standard Crypto object; its TypeScript type differs from the DOM one x509 names.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
const CA_DAYS = 3650;
const SERVING_DAYS = 365;
const RENEW_BEFORE_DAYS = 30;
/** Backdating absorbs clock skew between the hub and the machines that check its certificates. */
const BACKDATE_MS = 5 * 60 * 1000;
const ALWAYS_HOSTNAMES = ['localhost'];
const ALWAYS_IPS = ['127.0.0.1', '::1'];

type WebCryptoKey = Awaited<ReturnType<typeof webcrypto.subtle.importKey>>;

export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
}

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export interface Pki {
  ca: CertificateAuthority;
  /** The hub's HTTPS certificate (leaf only) and key. */
  serving: KeyPairPem;
  paths: { dir: string; caCert: string; caKey: string; servingCert: string; servingKey: string };
}

export interface PkiOptions {
  /** DNS names the serving certificate must carry besides `localhost`. */
  hostnames?: string[];
  /** IP addresses the serving certificate must carry besides 127.0.0.1 and ::1. */
  ips?: string[];
  /** For tests: the current time. */
  now?: Date;
}

/**
 * Loads the CA and serving certificate from `<dataDir>/pki`, creating what is missing. The CA is created
 * once and never replaced (replicas receive copies of ca.crt/ca.key); the serving certificate is reissued
 * when a requested SAN is missing, it expires within 30 days, its key does not match, or another CA signed it.
 */
export async function ensurePki(dataDir: string, options: PkiOptions = {}): Promise<Pki> {
  const now = options.now ?? new Date();
  const dir = join(dataDir, 'pki');
  const paths = {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'hub.crt'),
    servingKey: join(dir, 'hub.key'),
  };
  ensurePrivateDir(dir);

  const ca = await loadOrCreateCa(paths.caCert, paths.caKey, now);
  const hostnames = unique([...ALWAYS_HOSTNAMES, ...(options.hostnames ?? [])].map((h) => h.toLowerCase()));
  const ips = unique([...ALWAYS_IPS, ...(options.ips ?? [])].map(canonicalIp));

  let serving = readPair(paths.servingCert, paths.servingKey);
  if (!serving || !(await servingCertUsable(serving, ca, hostnames, ips, now))) {
    serving = await issueServingCert(ca, hostnames, ips, now);
    writeFileAtomic(paths.servingKey, serving.keyPem, 0o600);
    writeFileAtomic(paths.servingCert, serving.certPem, 0o644);
  }
  return { ca, serving, paths };
}

/**
 * A CA and serving certificate held in memory only: for processes whose certificates need not survive
 * them (the cluster simulator issues a fresh CA at every start and writes it into its kubeconfigs).
 */
export async function ephemeralPki(options: PkiOptions & { commonName?: string } = {}): Promise<Pki> {
  const now = options.now ?? new Date();
  const ca = await createCa(now, options.commonName);
  const hostnames = unique([...ALWAYS_HOSTNAMES, ...(options.hostnames ?? [])].map((h) => h.toLowerCase()));
  const ips = unique([...ALWAYS_IPS, ...(options.ips ?? [])].map(canonicalIp));
  const serving = await issueServingCert(ca, hostnames, ips, now);
  return { ca, serving, paths: { dir: '', caCert: '', caKey: '', servingCert: '', servingKey: '' } };
}

/**
 * Options for `https.createServer`: our serving certificate, and client certificates requested and
 * verified against our CA but not required (bearer tokens are the alternative); `socket.authorized`
 * then tells whether a presented certificate is one we signed (with the client-auth usage).
 */
export function tlsServerOptions(pki: Pki): TlsOptions {
  return {
    cert: pki.serving.certPem,
    key: pki.serving.keyPem,
    ca: pki.ca.certPem,
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2',
  };
}

export interface ClientCertificateRequest {
  /** Becomes the user name. */
  commonName: string;
  /** Become the groups. */
  organizations?: string[];
  /** The subject's public key, PEM (SPKI). Give this or `csrPem`. */
  publicKeyPem?: string;
  /** A PKCS#10 request; only its (verified) key is used, the subject comes from the fields above. */
  csrPem?: string;
  /** Validity in days, default 365; never beyond the CA's own expiry. */
  days?: number;
  now?: Date;
}

/** Signs a client-authentication certificate (agents, users) with the hub CA; returns its PEM. */
export async function signClientCertificate(
  ca: CertificateAuthority,
  req: ClientCertificateRequest,
): Promise<string> {
  if (!req.commonName) throw errors.badRequest('a client certificate needs a common name (the user name)');
  const now = req.now ?? new Date();
  let publicKey: x509.PublicKey;
  if (req.csrPem) {
    const csr = parseCsrPem(req.csrPem);
    if (!(await csr.verify()))
      throw errors.badRequest('the certificate signing request has an invalid signature');
    publicKey = csr.publicKey;
  } else if (req.publicKeyPem) {
    publicKey = new x509.PublicKey(pemToDer(req.publicKeyPem, 'public key'));
  } else {
    throw errors.badRequest('a client certificate needs publicKeyPem or csrPem');
  }
  const cert = await issueLeaf(ca, {
    subject: subjectName(req.commonName, req.organizations ?? []),
    publicKey,
    days: req.days ?? 365,
    usage: x509.ExtendedKeyUsage.clientAuth,
    now,
  });
  return cert.toString('pem') + '\n';
}

/** A fresh ECDSA P-256 key pair as PEM (PKCS#8 private, SPKI public): for agents and admin client certs. */
export async function generateKeyPair(): Promise<{ privateKeyPem: string; publicKeyPem: string }> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  return {
    privateKeyPem: derToPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'),
    publicKeyPem: derToPem(await webcrypto.subtle.exportKey('spki', keys.publicKey), 'PUBLIC KEY'),
  };
}

/** A PKCS#10 request for `commonName`/`organizations` signed with the given key (what an agent sends). */
export async function createCsr(
  keys: { privateKeyPem: string; publicKeyPem: string },
  subject: { commonName: string; organizations?: string[] },
): Promise<string> {
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subjectName(subject.commonName, subject.organizations ?? []),
    keys: {
      privateKey: await importSigningKey(keys.privateKeyPem),
      publicKey: await new x509.PublicKey(pemToDer(keys.publicKeyPem, 'public key')).export(ALG, ['verify']),
    },
    signingAlgorithm: ALG,
  });
  return csr.toString('pem') + '\n';
}

/** The subject and key of a PKCS#10 request after checking its signature (400 when it is bad). */
export async function readCsr(
  csrPem: string,
): Promise<{ commonName: string; organizations: string[]; publicKeyPem: string }> {
  const csr = parseCsrPem(csrPem);
  if (!(await csr.verify()))
    throw errors.badRequest('the certificate signing request has an invalid signature');
  return {
    commonName: csr.subjectName.getField('CN')[0] ?? '',
    organizations: csr.subjectName.getField('O'),
    publicKeyPem: csr.publicKey.toString('pem') + '\n',
  };
}

/**
 * The user a verified client certificate names, as Kubernetes reads it: CN is the user name, each O a
 * group. Parsed from the DER so escaped commas or `+` in names survive. No CN → undefined (no user).
 */
export function identityFromPeerCertificate(
  cert: PeerCertificate,
): { username: string; groups: string[] } | undefined {
  let cn: string | undefined;
  let orgs: string[];
  if (cert.raw && cert.raw.length > 0) {
    const parsed = new x509.X509Certificate(cert.raw);
    cn = parsed.subjectName.getField('CN')[0];
    orgs = parsed.subjectName.getField('O');
  } else {
    // Node types these as strings; with several values of one attribute they are arrays at runtime.
    const subject = (cert.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
    const asList = (v: string | string[] | undefined): string[] =>
      v === undefined ? [] : Array.isArray(v) ? v : [v];
    cn = asList(subject['CN'])[0];
    orgs = asList(subject['O']);
  }
  if (!cn) return undefined;
  return { username: cn, groups: orgs };
}

// ---- internals ----

async function loadOrCreateCa(certPath: string, keyPath: string, now: Date): Promise<CertificateAuthority> {
  const haveCert = existsSync(certPath);
  const haveKey = existsSync(keyPath);
  if (haveCert && haveKey) {
    const ca = { certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
    if (!keyMatchesCert(ca.keyPem, ca.certPem)) {
      throw new Error(`${keyPath} does not belong to the certificate in ${certPath}`);
    }
    return ca;
  }
  if (haveCert || haveKey) {
    // Never replace half of a CA: certificates already handed out would silently stop working.
    throw new Error(
      `found ${haveCert ? certPath : keyPath} but not ${haveCert ? keyPath : certPath}; ` +
        'restore the missing file (replicas need both ca.crt and ca.key) or remove both to create a new CA',
    );
  }
  const ca = await createCa(now);
  writeFileAtomic(keyPath, ca.keyPem, 0o600);
  writeFileAtomic(certPath, ca.certPem, 0o644);
  return ca;
}

async function createCa(now: Date, commonName = 'fleethub-ca'): Promise<CertificateAuthority> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [`${commonName}@${Math.floor(now.getTime() / 1000)}`] }],
    keys,
    signingAlgorithm: ALG,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_DAYS * DAY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certPem: cert.toString('pem') + '\n',
    keyPem: derToPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'),
  };
}

interface LeafRequest {
  subject: x509.JsonName;
  publicKey: x509.PublicKey | WebCryptoKey;
  days: number;
  usage: x509.ExtendedKeyUsageType;
  now: Date;
  extra?: x509.Extension[];
}

/** A leaf certificate signed by the CA for one purpose; it never outlives the CA. */
async function issueLeaf(ca: CertificateAuthority, req: LeafRequest): Promise<x509.X509Certificate> {
  const caCert = new x509.X509Certificate(ca.certPem);
  return x509.X509CertificateGenerator.create({
    subject: req.subject,
    issuer: caCert.subjectName,
    publicKey: req.publicKey,
    signingKey: await importSigningKey(ca.keyPem),
    signingAlgorithm: ALG,
    notBefore: new Date(req.now.getTime() - BACKDATE_MS),
    notAfter: new Date(Math.min(req.now.getTime() + req.days * DAY_MS, caCert.notAfter.getTime())),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([req.usage]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
      ...(req.extra ?? []),
    ],
  });
}

async function issueServingCert(
  ca: CertificateAuthority,
  hostnames: string[],
  ips: string[],
  now: Date,
): Promise<KeyPairPem> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const cert = await issueLeaf(ca, {
    subject: [{ CN: ['fleethub'] }],
    publicKey: keys.publicKey,
    days: SERVING_DAYS,
    usage: x509.ExtendedKeyUsage.serverAuth,
    now,
    extra: [
      new x509.SubjectAlternativeNameExtension([
        ...hostnames.map((value) => ({ type: 'dns' as const, value })),
        ...ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certPem: cert.toString('pem') + '\n',
    keyPem: derToPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'),
  };
}

async function servingCertUsable(
  pair: KeyPairPem,
  ca: CertificateAuthority,
  hostnames: string[],
  ips: string[],
  now: Date,
): Promise<boolean> {
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(pair.certPem);
  } catch {
    return false;
  }
  if (cert.notAfter.getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
  if (cert.notBefore.getTime() > now.getTime()) return false;
  if (!keyMatchesCert(pair.keyPem, pair.certPem)) return false;
  const caCert = new x509.X509Certificate(ca.certPem);
  if (!(await cert.verify({ publicKey: caCert.publicKey, signatureOnly: true }))) return false;
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  const names = san?.names.items ?? [];
  const haveDns = new Set(names.filter((n) => n.type === 'dns').map((n) => n.value.toLowerCase()));
  const haveIps = new Set(names.filter((n) => n.type === 'ip').map((n) => canonicalIp(n.value)));
  return hostnames.every((h) => haveDns.has(h)) && ips.every((ip) => haveIps.has(ip));
}

function readPair(certPath: string, keyPath: string): KeyPairPem | undefined {
  if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
  return { certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
}

function keyMatchesCert(keyPem: string, certPem: string): boolean {
  try {
    const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    const fromCert = new NodeX509(certPem).publicKey.export({ type: 'spki', format: 'der' });
    return fromKey.equals(fromCert);
  } catch {
    return false;
  }
}

async function importSigningKey(keyPem: string): Promise<WebCryptoKey> {
  const der = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
  return webcrypto.subtle.importKey('pkcs8', der, ALG, false, ['sign']);
}

function parseCsrPem(csrPem: string): x509.Pkcs10CertificateRequest {
  try {
    return new x509.Pkcs10CertificateRequest(csrPem);
  } catch {
    throw errors.badRequest('the certificate signing request is not a valid PEM-encoded PKCS#10 request');
  }
}

function subjectName(commonName: string, organizations: string[]): x509.JsonName {
  const name: x509.JsonName = [{ CN: [commonName] }];
  for (const o of organizations) name.push({ O: [o] });
  return name;
}

function pemToDer(pem: string, what: string): ArrayBuffer {
  try {
    return x509.PemConverter.decodeFirst(pem);
  } catch {
    throw errors.badRequest(`the ${what} is not valid PEM`);
  }
}

function derToPem(der: ArrayBuffer, tag: string): string {
  return x509.PemConverter.encode(der, tag) + '\n';
}

/** One spelling per address so SAN comparisons do not depend on how an IPv6 address was written. */
function canonicalIp(ip: string): string {
  const version = isIP(ip);
  if (version === 6) return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  if (version === 4) return ip;
  throw new Error(`not an IP address: ${ip}`);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
