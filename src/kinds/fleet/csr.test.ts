// CertificateSigningRequest as kube-apiserver serves it: the requester comes from the request, the spec
// never changes after create, kube's validation messages, and kubectl's columns.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCsr, generateKeyPair } from '../../security/pki.js';
import { builtinKinds } from '../builtin/index.js';
import {
  APPLY,
  causesOf,
  MERGE_PATCH,
  startApi,
  TABLE,
  tableRow,
  type Json,
  type TestApi,
} from './test-support.js';

let api: TestApi;
let request: string;
before(async () => {
  api = await startApi(builtinKinds);
  const pem = await createCsr(await generateKeyPair(), { commonName: 'fleethub:cluster:team-a:edge-1' });
  request = Buffer.from(pem).toString('base64');
});
after(async () => {
  await api?.close();
});

const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const csr = (name: string, spec: Json = {}): Json => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: {
    request,
    signerName: 'fleethub.io/agent-client',
    expirationSeconds: 86400,
    usages: ['digital signature', 'client auth'],
    ...spec,
  },
});

test('the requester is recorded from the request, whatever the client wrote', async () => {
  const created = await api.call(
    'POST',
    csrs,
    csr('agent-1', {
      username: 'system:admin',
      groups: ['system:masters'],
      uid: 'forged',
      extra: { scopes: ['all'] },
    }),
    {
      user: 'system:bootstrap:abc123',
      groups: ['system:bootstrappers', 'system:authenticated'],
      uid: 'u-1',
      extra: { 'authentication.kubernetes.io/credential-id': ['JTI=1'] },
    },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const spec = created.body.spec as Json;
  assert.equal(spec.username, 'system:bootstrap:abc123');
  assert.deepEqual(spec.groups, ['system:bootstrappers', 'system:authenticated']);
  assert.equal(spec.uid, 'u-1');
  assert.deepEqual(spec.extra, { 'authentication.kubernetes.io/credential-id': ['JTI=1'] });

  const plain = await api.call('POST', csrs, csr('agent-2', { uid: 'forged', extra: { x: ['y'] } }), {
    user: 'alice',
    groups: ['devs'],
  });
  assert.equal(plain.status, 201, JSON.stringify(plain.body));
  assert.equal(plain.body.spec.username, 'alice');
  assert.equal(plain.body.spec.uid, undefined, 'no uid when the user has none');
  assert.equal(plain.body.spec.extra, undefined);

  const applied = await api.call(
    'PATCH',
    `${csrs}/agent-3?fieldManager=agent`,
    csr('agent-3', { username: 'root' }),
    {
      user: 'bob',
      contentType: APPLY,
    },
  );
  assert.equal(applied.status, 201, JSON.stringify(applied.body));
  assert.equal(applied.body.spec.username, 'bob');
});

test('updates never change the spec (as kube-apiserver), metadata still changes', async () => {
  const patched = await api.call(
    'PATCH',
    `${csrs}/agent-1`,
    {
      metadata: { labels: { purpose: 'join' } },
      spec: { username: 'mallory', signerName: 'kubernetes.io/kube-apiserver-client' },
    },
    { user: 'mallory', contentType: MERGE_PATCH },
  );
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.metadata.labels.purpose, 'join');
  assert.equal(patched.body.spec.username, 'system:bootstrap:abc123');
  assert.equal(patched.body.spec.signerName, 'fleethub.io/agent-client');
});

test('invalid requests are 422s with kube-apiserver causes', async () => {
  const notPem = Buffer.from('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n').toString(
    'base64',
  );
  const garbage = Buffer.from(
    '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n',
  ).toString('base64');
  const cases: [Json, string[], RegExp?][] = [
    [{ request: undefined }, ['spec.request: FieldValueRequired']],
    [{ request: notPem }, ['spec.request: FieldValueInvalid'], /PEM block type must be CERTIFICATE REQUEST/],
    [{ request: garbage }, ['spec.request: FieldValueInvalid'], /malformed certificate request/],
    [{ request: 'not base64!' }, ['spec.request: FieldValueInvalid']],
    [{ signerName: undefined }, ['spec.signerName: FieldValueRequired']],
    [{ signerName: 'agent-client' }, ['spec.signerName: FieldValueInvalid'], /example\.com\/signer-name/],
    [{ expirationSeconds: 599 }, ['spec.expirationSeconds: FieldValueInvalid'], /less than 600 seconds/],
    [{ usages: [] }, ['spec.usages: FieldValueRequired']],
    [
      { usages: ['client auth', 'client auth', 'root'] },
      ['spec.usages[1]: FieldValueDuplicate', 'spec.usages[2]: FieldValueNotSupported'],
    ],
  ];
  for (const [spec, expected, message] of cases) {
    const body = csr('bad', spec);
    for (const [k, v] of Object.entries(spec))
      if (v === undefined) Reflect.deleteProperty(body.spec as Json, k);
    const reply = await api.call('POST', csrs, body);
    assert.equal(reply.status, 422, JSON.stringify(spec));
    assert.deepEqual(causesOf(reply), expected, JSON.stringify(spec));
    if (message) assert.match(String(reply.body.message), message);
  }
});

test('kubectl get csr: Age, SignerName, Requestor, RequestedDuration, Condition', async () => {
  const pending = tableRow(await api.call('GET', `${csrs}/agent-1`, undefined, { accept: TABLE }));
  assert.deepEqual(Object.keys(pending), [
    'Name',
    'Age',
    'SignerName',
    'Requestor',
    'RequestedDuration',
    'Condition',
  ]);
  assert.deepEqual(
    [pending.Name, pending.SignerName, pending.Requestor, pending.RequestedDuration, pending.Condition],
    ['agent-1', 'fleethub.io/agent-client', 'system:bootstrap:abc123', '24h', 'Pending'],
  );
  const approved = await api.call(
    'PATCH',
    `${csrs}/agent-1/status`,
    {
      status: {
        conditions: [
          {
            type: 'Approved',
            status: 'True',
            reason: 'AutoApproved',
            message: 'join token',
            lastUpdateTime: '2024-01-01T00:00:00Z',
          },
        ],
        certificate: Buffer.from('-----BEGIN CERTIFICATE-----\n...\n').toString('base64'),
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  const issued = tableRow(await api.call('GET', `${csrs}/agent-1`, undefined, { accept: TABLE }));
  assert.equal(issued.Condition, 'Approved,Issued');

  const both = await api.call(
    'PATCH',
    `${csrs}/agent-2/status`,
    {
      status: {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Denied', status: 'True' },
        ],
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.equal(both.status, 422);
  assert.deepEqual(causesOf(both), ['status.conditions: FieldValueInvalid']);
  const denied = await api.call(
    'PATCH',
    `${csrs}/agent-2/status`,
    {
      status: {
        conditions: [
          { type: 'Denied', status: 'True', reason: 'NotAllowed' },
          { type: 'Failed', status: 'True' },
        ],
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.equal(denied.status, 200, JSON.stringify(denied.body));
  const list = await api.call('GET', csrs, undefined, { accept: TABLE });
  const conditions = (list.body.rows as { cells: unknown[] }[]).map(
    (r) => `${String(r.cells[0])}=${String(r.cells[5])}`,
  );
  assert.deepEqual(conditions, ['agent-1=Approved,Issued', 'agent-2=Denied,Failed', 'agent-3=Pending']);
});
