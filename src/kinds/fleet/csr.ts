// certificates.k8s.io/v1 CertificateSigningRequest as kube-apiserver serves it
// (pkg/registry/certificates/certificates/strategy.go, pkg/apis/certificates/validation): the requester
// is recorded from the request's user, the spec never changes after create, and the printer is kubectl's.
// Agents joining the fleet ask for their client certificates with one (signer fleethub.io/agent-client).
import { CERTIFICATES_GROUP } from '../../fleet/names.js';
import type { KubeObject } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { humanDuration } from '../../apiserver/printers.js';
import { AGE, isObj, list, str } from '../builtin/kube-helpers.js';
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import { checkEnum, required, spec, status, CONDITION_STATUSES } from './common.js';

/** certificates.KeyUsage values kube-apiserver accepts. */
export const KEY_USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
] as const;

const MIN_EXPIRATION_SECONDS = 600;
const SIGNER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[^/]+$/;

/** Whether `der` is exactly one DER SEQUENCE (the outer shape of a PKCS#10 request). */
function isDerSequence(der: Buffer): boolean {
  if (der.length < 2 || der[0] !== 0x30) return false;
  const first = der[1]!;
  if (first < 0x80) return 2 + first === der.length;
  const bytes = first & 0x7f;
  if (bytes < 1 || bytes > 4 || der.length < 2 + bytes) return false;
  let length = 0;
  for (let i = 0; i < bytes; i++) length = length * 256 + der[2 + i]!;
  return 2 + bytes + length === der.length;
}

/**
 * certificates.ParseCSR's checks: one PEM block of type CERTIFICATE REQUEST holding a DER structure.
 * The signature is checked by the signer (security/pki.ts readCsr), which parses the request fully.
 */
function csrProblem(request: string): string | undefined {
  const pem = Buffer.from(request, 'base64').toString('utf8');
  const block = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (!block || block[1] !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const body = block[2]!.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || !isDerSequence(Buffer.from(body, 'base64')))
    return 'x509: malformed certificate request';
  return undefined;
}

/** kubectl's Condition cell: Approved/Denied/Pending, then Failed and Issued. */
export function csrCondition(obj: KubeObject): string {
  const types = new Set(list(status(obj).conditions).map((c) => str(c.type)));
  let out = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) out += ',Failed';
  if (str(status(obj).certificate)) out += ',Issued';
  return out;
}

function validateCsr(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const sp = spec(obj);
  const request = str(sp.request);
  if (!request) required(causes, 'spec.request');
  else {
    const problem = csrProblem(request);
    if (problem)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: []byte{...}: ${problem}`,
        field: 'spec.request',
      });
  }
  const signer = str(sp.signerName);
  if (!signer) required(causes, 'spec.signerName');
  else if (!SIGNER_NAME.test(signer))
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${signer}": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
      field: 'spec.signerName',
    });
  const expiration = sp.expirationSeconds;
  if (typeof expiration === 'number' && expiration < MIN_EXPIRATION_SECONDS)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${expiration}: may not specify a duration less than 600 seconds (10 minutes)`,
      field: 'spec.expirationSeconds',
    });
  const usages = Array.isArray(sp.usages) ? (sp.usages as unknown[]) : [];
  if (usages.length === 0) required(causes, 'spec.usages', 'usages must be provided');
  const seenUsages = new Set<unknown>();
  usages.forEach((usage, i) => {
    checkEnum(causes, usage, KEY_USAGES, `spec.usages[${i}]`);
    if (seenUsages.has(usage))
      causes.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${JSON.stringify(usage)}`,
        field: `spec.usages[${i}]`,
      });
    seenUsages.add(usage);
  });
  const conditions = list(status(obj).conditions);
  const types = new Set<string>();
  conditions.forEach((c, i) => {
    const field = `status.conditions[${i}]`;
    const type = str(c.type);
    if (!type) required(causes, `${field}.type`);
    checkEnum(causes, c.status || undefined, CONDITION_STATUSES, `${field}.status`);
    if ((type === 'Approved' || type === 'Denied') && types.has(type))
      causes.push({
        reason: 'FieldValueForbidden',
        message: `Forbidden: ${type} condition may only be set once`,
        field: `${field}.type`,
      });
    types.add(type);
  });
  if (types.has('Approved') && types.has('Denied'))
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "Approved": Approved and Denied conditions are mutually exclusive',
      field: 'status.conditions',
    });
  return causes;
}

export const CertificateSigningRequest: KindDefinition = {
  group: CERTIFICATES_GROUP,
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  namespaced: false,
  shortNames: ['csr'],
  subresources: { status: true },
  schema: protoSchema('certificates.v1.CertificateSigningRequest'),
  printerColumns: [
    AGE,
    {
      name: 'SignerName',
      type: 'string',
      jsonPath: '.spec.signerName',
      description: 'The signer the request is for.',
      value: (o) => str(spec(o).signerName) || '<none>',
    },
    {
      name: 'Requestor',
      type: 'string',
      jsonPath: '.spec.username',
      description: 'Who created the request.',
    },
    {
      name: 'RequestedDuration',
      type: 'string',
      jsonPath: '.spec.expirationSeconds',
      description: 'The certificate lifetime asked for.',
      value: (o) => {
        const seconds = spec(o).expirationSeconds;
        return typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
      },
    },
    {
      name: 'Condition',
      type: 'string',
      jsonPath: '.status.conditions',
      description: 'Approved, Denied or Pending; Issued once signed.',
      value: csrCondition,
    },
  ],
  admit(obj, { operation, user, old }) {
    if (operation === 'update') {
      // As kube-apiserver: an update of the main resource never changes the spec (approval goes
      // through status conditions, the certificate through status).
      if (old?.spec !== undefined) obj.spec = structuredClone(old.spec);
      return;
    }
    if (obj.spec === undefined || obj.spec === null) obj.spec = {};
    if (!isObj(obj.spec)) return;
    // Who asked is the authenticated user, never what the client wrote.
    const sp = obj.spec;
    sp.username = user.username;
    if (user.uid) sp.uid = user.uid;
    else delete sp.uid;
    if (user.groups.length > 0) sp.groups = [...user.groups];
    else delete sp.groups;
    if (user.extra && Object.keys(user.extra).length > 0)
      sp.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
    else delete sp.extra;
  },
  validate: validateCsr,
};
