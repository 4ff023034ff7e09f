// Schema tables: every table parses, every message reference resolves, every kind exists, and a sample of
// field numbers/pointer marks matches the facts of generated.proto and the Go types.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMessage, SchemaRegistry, SPECIAL_TYPES, type FieldDesc } from './descriptors.js';
import { ALL_TABLES } from './schema/index.js';

const registry = new SchemaRegistry(ALL_TABLES);

function field(message: string, json: string): FieldDesc {
  const desc = registry.message(message);
  assert.ok(desc, `${message} is in the tables`);
  const f = [...desc.fields.values()].find((x) => x.json === json);
  assert.ok(f, `${message}.${json} is in the tables`);
  return f;
}

void test('every message parses and every reference resolves to a message or a special type', () => {
  const unresolved: string[] = [];
  for (const name of registry.messageNames()) {
    const desc = registry.message(name)!;
    for (const f of desc.fields.values()) {
      if (f.value.kind === 'message' && !registry.message(f.value.name))
        unresolved.push(`${name} → ${f.value.name}`);
    }
  }
  assert.deepEqual(unresolved, []);
});

void test('every declared kind is a message of its own package, and no table shadows a special type', () => {
  for (const t of ALL_TABLES) {
    for (const k of t.kinds) assert.ok(t.messages[k], `${t.pkg}.${k}`);
    for (const name of Object.keys(t.messages)) assert.equal(SPECIAL_TYPES[`${t.pkg}.${name}`], undefined);
  }
});

void test('field numbers match generated.proto for the messages helm and kubectl send', () => {
  const facts: [string, string, number][] = [
    ['meta.v1.ObjectMeta', 'name', 1],
    ['meta.v1.ObjectMeta', 'namespace', 3],
    ['meta.v1.ObjectMeta', 'creationTimestamp', 8],
    ['meta.v1.ObjectMeta', 'labels', 11],
    ['meta.v1.ObjectMeta', 'managedFields', 17],
    ['meta.v1.DeleteOptions', 'gracePeriodSeconds', 1],
    ['meta.v1.DeleteOptions', 'preconditions', 2],
    ['meta.v1.DeleteOptions', 'propagationPolicy', 4],
    ['meta.v1.DeleteOptions', 'dryRun', 5],
    ['core.v1.Secret', 'data', 2],
    ['core.v1.Secret', 'type', 3],
    ['core.v1.Secret', 'stringData', 4],
    ['core.v1.Secret', 'immutable', 5],
    ['core.v1.ConfigMap', 'binaryData', 3],
    ['core.v1.NamespaceSpec', 'finalizers', 1],
    ['authentication.v1.TokenRequestSpec', 'expirationSeconds', 4],
    ['rbac.v1.RoleBinding', 'roleRef', 3],
  ];
  for (const [message, json, no] of facts)
    assert.equal(field(message, json).fieldNo, no, `${message}.${json}`);
});

void test('Go pointer fields are marked so their zero values survive; plain fields are not', () => {
  const pointers: [string, string][] = [
    ['core.v1.Secret', 'immutable'],
    ['core.v1.ServiceAccount', 'automountServiceAccountToken'],
    ['apps.v1.DeploymentSpec', 'replicas'],
    ['batch.v1.JobSpec', 'backoffLimit'],
    ['authentication.v1.TokenRequestSpec', 'expirationSeconds'],
    ['meta.v1.DeleteOptions', 'gracePeriodSeconds'],
    ['meta.v1.DeleteOptions', 'orphanDependents'],
    ['core.v1.PodSpec', 'terminationGracePeriodSeconds'],
    ['coordination.v1.LeaseSpec', 'holderIdentity'],
  ];
  for (const [m, f] of pointers) assert.equal(field(m, f).pointer, true, `${m}.${f}`);
  const plain: [string, string][] = [
    ['core.v1.Secret', 'type'],
    ['meta.v1.ObjectMeta', 'generation'],
    ['apps.v1.DeploymentSpec', 'paused'],
    ['core.v1.ServicePort', 'nodePort'],
  ];
  for (const [m, f] of plain) assert.equal(field(m, f).pointer, false, `${m}.${f}`);
});

void test('inline embeddings (json ",inline") are marked', () => {
  assert.equal(registry.message('core.v1.Probe')!.fields.get(1)!.inline, true);
  assert.equal(registry.message('core.v1.Volume')!.fields.get(2)!.inline, true);
  assert.equal(registry.message('core.v1.SecretKeySelector')!.fields.get(1)!.inline, true);
});

void test('the notation parser rejects malformed tables', () => {
  assert.throws(() => parseMessage('x.v1', 'M', 'a=1:string a2=1:bool'), /duplicate field 1/);
  assert.throws(() => parseMessage('x.v1', 'M', 'a=0:string'), /bad field/);
  assert.throws(() => parseMessage('x.v1', 'M', '...=1:string'), /inline/);
  assert.deepEqual(parseMessage('x.v1', 'M', 'm=2:map<string,bytes>').fields.get(2)!.value, {
    kind: 'scalar',
    scalar: 'bytes',
  });
});
