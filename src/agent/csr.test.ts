import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentCsr, generateAgentKeys } from './csr.js';
import { readCsr } from '../security/pki.js';

describe('the agent certificate request', () => {
  test('is a valid PKCS#10 the hub reads: subject, key and signature', async () => {
    const keys = generateAgentKeys();
    const pem = createAgentCsr(keys.privateKeyPem, {
      commonName: 'fleethub:cluster:team-a:edge-1',
      organizations: ['fleethub:cluster-agents'],
    });
    const csr = await readCsr(pem);
    assert.equal(csr.commonName, 'fleethub:cluster:team-a:edge-1');
    assert.deepEqual(csr.organizations, ['fleethub:cluster-agents']);
    assert.equal(csr.publicKeyPem.replace(/\s/g, ''), keys.publicKeyPem.replace(/\s/g, ''));
  });

  test('a tampered request fails the signature check', async () => {
    const keys = generateAgentKeys();
    const pem = createAgentCsr(keys.privateKeyPem, { commonName: 'fleethub:host:h1', organizations: ['x'] });
    const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const i = der.indexOf(Buffer.from('fleethub:host:h1'));
    der[i + 15] = 0x32; // h1 → h2
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await assert.rejects(readCsr(tampered), /invalid signature/);
  });
});
