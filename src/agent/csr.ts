// The agent's key pair and PKCS#10 certificate request, built with node:crypto and a few lines of DER:
// the agent never loads an X.509 library (it would be most of an idle agent's memory).
import { generateKeyPairSync, createPrivateKey, createPublicKey, sign } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const SEQUENCE = 0x30;
const SET = 0x31;
const OID_COMMON_NAME = Buffer.from([0x06, 0x03, 0x55, 0x04, 0x03]);
const OID_ORGANIZATION = Buffer.from([0x06, 0x03, 0x55, 0x04, 0x0a]);
/** ecdsa-with-SHA256 (1.2.840.10045.4.3.2), no parameters. */
const ECDSA_SHA256 = tlv(SEQUENCE, Buffer.from([0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]));

/** One RDN holding one attribute as a UTF8String. */
function rdn(oid: Buffer, value: string): Buffer {
  return tlv(SET, tlv(SEQUENCE, oid, tlv(0x0c, Buffer.from(value, 'utf8'))));
}

/** A fresh ECDSA P-256 key pair as PEM (PKCS#8 private, SPKI public). */
export function generateAgentKeys(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A PEM PKCS#10 request for CN=commonName, O=each organization, signed with the P-256 key. */
export function createAgentCsr(
  privateKeyPem: string,
  subject: { commonName: string; organizations: string[] },
): string {
  const key = createPrivateKey(privateKeyPem);
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const name = tlv(
    SEQUENCE,
    ...subject.organizations.map((o) => rdn(OID_ORGANIZATION, o)),
    rdn(OID_COMMON_NAME, subject.commonName),
  );
  const info = tlv(SEQUENCE, Buffer.from([0x02, 0x01, 0x00]), name, spki, Buffer.from([0xa0, 0x00]));
  const signature = sign('sha256', info, key);
  const der = tlv(SEQUENCE, info, ECDSA_SHA256, tlv(0x03, Buffer.from([0]), signature));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64.trimEnd()}\n-----END CERTIFICATE REQUEST-----\n`;
}
