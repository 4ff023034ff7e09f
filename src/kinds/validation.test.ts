import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../util/errors.js';
import { ConfigMap, Namespace } from './builtin/core.js';
import { Role } from './builtin/rbac.js';
import { Lease } from './builtin/coordination.js';
import { fieldPath, parseFieldValidation, validateObject } from './validation.js';

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  assert.fail('expected an ApiError');
}

test('JSON pointers become Kubernetes field paths', () => {
  assert.equal(fieldPath('/rules/0/verbs'), 'rules[0].verbs');
  assert.equal(fieldPath('/metadata/labels/a~1b'), 'metadata.labels.a/b');
});

test('unknown fields: Strict refuses with 400, Warn prunes and warns, Ignore prunes silently', () => {
  const lease = () => ({
    metadata: { name: 'l', namespace: 'n' },
    spec: { holderIdentity: 'a', foo: 1 },
    extra: true,
  });
  const strict = rejection(() => validateObject(Lease, lease(), 'Strict'));
  assert.equal(strict.code, 400);
  assert.match(
    strict.message,
    /strict decoding error: unknown field "extra", unknown field "spec.foo"|unknown field "spec.foo", unknown field "extra"/,
  );
  const warned = lease();
  assert.deepEqual(validateObject(Lease, warned, 'Warn').warnings.sort(), [
    'unknown field "extra"',
    'unknown field "spec.foo"',
  ]);
  assert.deepEqual(warned, { metadata: { name: 'l', namespace: 'n' }, spec: { holderIdentity: 'a' } });
  const ignored = lease();
  assert.deepEqual(validateObject(Lease, ignored, 'Ignore').warnings, []);
  assert.equal('extra' in ignored, false);
});

test('wrong types are a 422 naming each field', () => {
  const e = rejection(() =>
    validateObject(ConfigMap, { metadata: { name: 'c', namespace: 'n' }, data: { a: 1, b: 'ok' } }, 'Strict'),
  );
  assert.equal(e.code, 422);
  assert.deepEqual(
    e.details?.causes?.map((c) => c.field),
    ['data.a'],
  );
  const role = rejection(() =>
    validateObject(Role, { metadata: { name: 'r', namespace: 'n' }, rules: 'x' }, 'Strict'),
  );
  assert.deepEqual(
    role.details?.causes?.map((c) => c.field),
    ['rules'],
  );
});

test('names follow the kind rule: DNS label for namespaces, subdomain for most, path segment for RBAC', () => {
  const ns = rejection(() => validateObject(Namespace, { metadata: { name: 'a.b' } }, 'Strict'));
  assert.match(
    ns.message,
    /Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label/,
  );
  validateObject(ConfigMap, { metadata: { name: 'a.b', namespace: 'n' } }, 'Strict');
  validateObject(Role, { metadata: { name: 'fleethub:admin', namespace: 'n' } }, 'Strict');
  const missing = rejection(() => validateObject(ConfigMap, { metadata: { namespace: 'n' } }, 'Strict'));
  assert.deepEqual(
    missing.details?.causes?.map((c) => c.reason),
    ['FieldValueRequired'],
  );
});

test('label keys and values are checked', () => {
  const e = rejection(() =>
    validateObject(
      ConfigMap,
      { metadata: { name: 'c', namespace: 'n', labels: { 'bad key!': 'v', ok: 'not ok!' } } },
      'Strict',
    ),
  );
  assert.equal(e.details?.causes?.length, 2);
  assert.ok(e.details?.causes?.every((c) => c.field === 'metadata.labels'));
});

test('fieldValidation defaults to Warn and refuses unknown modes', () => {
  assert.equal(parseFieldValidation(null), 'Warn');
  assert.equal(parseFieldValidation('Strict'), 'Strict');
  assert.equal(rejection(() => parseFieldValidation('Sometimes')).code, 400);
});
