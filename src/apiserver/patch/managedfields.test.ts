// Tests for managedFields after non-apply writes: what creators own, how updates take fields from other
// managers, client-written managedFields, the default field manager and the validation messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, ManagedFieldsEntry } from '../../store/types.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  fieldManagerFor,
  printManager,
  recordUpdate,
  resetFieldsFor,
  sortManagedFields,
  updateManagerId,
  applyManagerId,
  validateFieldManagerParam,
  validateManagedFields,
} from './managedfields.js';

const T0 = '2026-11-29T16:22:34.567Z';
const T1 = '2026-11-29T16:30:00Z';
const T2 = '2026-11-29T17:00:00Z';

function configMap(data: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm1', namespace: 'default', ...extra },
    data,
  };
}

/** Stores `updated` as written by `manager` over `live`, the way the handlers will. */
function write(
  live: KubeObject | undefined,
  updated: KubeObject,
  manager: string,
  now: string,
  apiVersion = 'v1',
) {
  const obj = structuredClone(updated);
  const mf = recordUpdate({ live, updated: obj, manager, apiVersion, now });
  if (mf.length) obj.metadata.managedFields = mf;
  else delete obj.metadata.managedFields;
  return obj;
}

const summary = (mf: ManagedFieldsEntry[] | undefined) =>
  (mf ?? []).map(
    (e) => `${e.manager}/${e.operation}/${e.apiVersion}${e.subresource ? `/${e.subresource}` : ''}`,
  );

describe('recordUpdate on create', () => {
  it('makes the creator own every field it set, with "." on new maps, server fields stripped', () => {
    const created = configMap(
      { key: 'v1' },
      {
        labels: { app: 'demo' },
        uid: 'u-1',
        resourceVersion: '5',
        creationTimestamp: T0,
        generation: 1,
      },
    );
    const mf = recordUpdate({
      live: undefined,
      updated: created,
      manager: 'kubectl-create',
      apiVersion: 'v1',
      now: T0,
    });
    assert.deepEqual(mf, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-11-29T16:22:34Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:data': { '.': {}, 'f:key': {} },
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        },
      },
    ]);
  });

  it('compares a Deployment against its zero value: no "." on spec or template, "." on new structs', () => {
    const dep: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
        },
      },
    };
    const [entry] = recordUpdate({
      live: undefined,
      updated: dep,
      manager: 'kubectl-create',
      apiVersion: 'apps/v1',
      now: T0,
    });
    assert.deepEqual(entry?.fieldsV1, {
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:strategy': {
          'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} },
          'f:type': {},
        },
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
  });

  it('does not record status on the main resource of a kind with a status subresource', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
      status: { phase: 'Pending' },
    };
    const [entry] = recordUpdate({
      live: undefined,
      updated: pod,
      manager: 'kubectl-run',
      apiVersion: 'v1',
      now: T0,
      resetFields: resetFieldsFor(true),
    });
    assert.deepEqual(Object.keys(entry?.fieldsV1 ?? {}), ['f:spec']);
  });
});

describe('recordUpdate on update', () => {
  const created = write(
    undefined,
    configMap({ a: '1', b: '2' }, { labels: { app: 'x' } }),
    'kubectl-create',
    T0,
  );

  it('gives the writer the fields it changed or added and takes them from their owner', () => {
    const patched = write(created, { ...created, data: { a: '9', b: '2', c: '3' } }, 'kubectl-patch', T1);
    assert.deepEqual(summary(patched.metadata.managedFields), [
      'kubectl-create/Update/v1',
      'kubectl-patch/Update/v1',
    ]);
    const [creator, patcher] = patched.metadata.managedFields!;
    assert.deepEqual(creator?.fieldsV1, {
      'f:data': { '.': {}, 'f:b': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    });
    assert.deepEqual(patcher?.fieldsV1, { 'f:data': { 'f:a': {}, 'f:c': {} } });
    assert.equal(patcher?.time, T1);
  });

  it('drops a manager whose last field was taken or removed', () => {
    const base = write(undefined, configMap({ a: '1' }), 'creator', T0);
    const withB = write(base, { ...base, data: { a: '1', b: '2' } }, 'writer', T1);
    assert.deepEqual(summary(withB.metadata.managedFields), ['creator/Update/v1', 'writer/Update/v1']);
    const taken = write(withB, { ...withB, data: { a: '1', b: '3' } }, 'other', T2);
    assert.deepEqual(summary(taken.metadata.managedFields), ['creator/Update/v1', 'other/Update/v1']);
    const removed = write(withB, { ...withB, data: { a: '1' } }, 'other', T2);
    assert.deepEqual(summary(removed.metadata.managedFields), ['creator/Update/v1']);
  });

  it('keeps a creator owning a map it created after its keys were taken, as Kubernetes does', () => {
    const base = write(undefined, configMap({ a: '1' }), 'creator', T0);
    const after = write(base, { ...base, data: { a: '2' } }, 'other', T1);
    assert.deepEqual(after.metadata.managedFields?.[0]?.fieldsV1, { 'f:data': {} });
  });

  it('keeps one entry per manager, version and subresource, merging repeated writes', () => {
    let obj = write(created, { ...created, data: { a: '2', b: '2' } }, 'ctl', T1);
    obj = write(obj, { ...obj, data: { a: '2', b: '3' } }, 'ctl', T2);
    const ctl = obj.metadata.managedFields!.filter((e) => e.manager === 'ctl');
    assert.equal(ctl.length, 1);
    assert.deepEqual(ctl[0]?.fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
    assert.equal(ctl[0]?.time, T2);

    const status = { ...structuredClone(obj), data: { a: '2', b: '4' } };
    status.metadata.managedFields = recordUpdate({
      live: obj,
      updated: status,
      manager: 'ctl',
      apiVersion: 'v1',
      now: T2,
      subresource: 'status',
    });
    const v2 = write(status, { ...status, data: { a: '5', b: '4' } }, 'ctl', T2, 'v2');
    assert.deepEqual(v2.metadata.managedFields?.[1]?.fieldsV1, { 'f:data': { 'f:b': {} } });
    assert.deepEqual(summary(v2.metadata.managedFields), [
      'kubectl-create/Update/v1',
      'ctl/Update/v1/status',
      'ctl/Update/v2',
    ]);
  });

  it('leaves managedFields alone (time included) when nothing changed', () => {
    const same = write(created, structuredClone(created), 'someone', T2);
    assert.deepEqual(same.metadata.managedFields, created.metadata.managedFields);
  });

  it('does not start tracking an existing object that has no managedFields', () => {
    const untracked = configMap({ a: '1' });
    assert.deepEqual(
      recordUpdate({
        live: untracked,
        updated: configMap({ a: '2' }),
        manager: 'm',
        apiVersion: 'v1',
        now: T1,
      }),
      [],
    );
  });

  it('records only status for the status subresource, ignoring managedFields in the body', () => {
    const pod = write(
      undefined,
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 } },
      'creator',
      T0,
    );
    const mf = recordUpdate({
      live: pod,
      updated: {
        ...pod,
        metadata: { ...pod.metadata, managedFields: [] },
        spec: { x: 2 },
        status: { phase: 'Running' },
      },
      manager: 'kubelet',
      apiVersion: 'v1',
      now: T1,
      subresource: 'status',
      resetFields: resetFieldsFor(true, 'status'),
    });
    assert.deepEqual(summary(mf), ['creator/Update/v1', 'kubelet/Update/v1/status']);
    assert.deepEqual(mf[1]?.fieldsV1, { 'f:status': { '.': {}, 'f:phase': {} } });
  });
});

describe('client-written managedFields', () => {
  const created = write(undefined, configMap({ a: '1' }), 'kubectl-client-side-apply', T0);
  const migrated: ManagedFieldsEntry[] = [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} } },
    },
  ];

  it('replaces them as given (the kubectl client-side-apply migration)', () => {
    const mf = recordUpdate({
      live: created,
      updated: {
        ...created,
        metadata: { ...created.metadata, managedFields: migrated, resourceVersion: '9' },
      },
      manager: 'kubectl',
      apiVersion: 'v1',
      now: T2,
    });
    assert.deepEqual(mf, migrated);
  });

  it('resets them with an empty list, and keeps the live ones when the given ones cannot be decoded', () => {
    const reset = recordUpdate({
      live: created,
      updated: { ...created, metadata: { ...created.metadata, managedFields: [] } },
      manager: 'x',
      apiVersion: 'v1',
      now: T2,
    });
    assert.deepEqual(reset, []);
    const bad = recordUpdate({
      live: created,
      updated: {
        ...created,
        metadata: { ...created.metadata, managedFields: [{ manager: 'm', operation: 'Bogus' as 'Apply' }] },
      },
      manager: 'x',
      apiVersion: 'v1',
      now: T2,
    });
    assert.deepEqual(bad, created.metadata.managedFields);
  });

  it('validates their shape with Kubernetes messages', () => {
    const causes = validateManagedFields([
      { manager: 'ok', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} },
      { manager: 'a\u0007b', operation: '', fieldsType: 'FieldsV2' },
      { manager: 'x'.repeat(129), operation: 'Patch' },
      { operation: 'Update', fieldsV1: { bad: {} } },
    ]);
    assert.deepEqual(causes, [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: must not be empty',
        field: 'metadata.managedFields[1].operation',
      },
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "FieldsV2": must be `FieldsV1`',
        field: 'metadata.managedFields[1].fieldsType',
      },
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "a\\u0007b": invalid character U+0007 (at position 1)',
        field: 'metadata.managedFields[1].manager',
      },
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Patch": supported values: "Apply", "Update"',
        field: 'metadata.managedFields[2].operation',
      },
      {
        reason: 'FieldValueTooLong',
        message: 'Too long: may not be more than 128 bytes',
        field: 'metadata.managedFields[2].manager',
      },
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: missing colon: bad',
        field: 'metadata.managedFields[3].fieldsV1',
      },
    ]);
  });
});

describe('encoding', () => {
  it('sorts Apply first, then by time, manager, version, subresource', () => {
    const e = (
      manager: string,
      operation: 'Apply' | 'Update',
      time?: string,
      subresource?: string,
    ): ManagedFieldsEntry => ({
      manager,
      operation,
      apiVersion: 'v1',
      ...(time ? { time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: {},
      ...(subresource ? { subresource } : {}),
    });
    const sorted = sortManagedFields([
      e('b', 'Update', T1),
      e('a', 'Update', T2),
      e('z', 'Apply', T2),
      e('y', 'Apply', T1),
      e('b', 'Update', T1, 'status'),
      e('c', 'Update'),
    ]);
    assert.deepEqual(
      sorted.map((x) => `${x.operation}:${x.manager}${x.subresource ? '/' + x.subresource : ''}`),
      ['Apply:y', 'Apply:z', 'Update:c', 'Update:b', 'Update:b/status', 'Update:a'],
    );
  });

  it('writes keys in Kubernetes order and round-trips', () => {
    const entries: ManagedFieldsEntry[] = [
      {
        manager: 'k',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:a': {} },
        subresource: 'status',
      },
    ];
    const out = encodeManagedFields(decodeManagedFields(entries));
    assert.deepEqual(Object.keys(out[0]!), [
      'manager',
      'operation',
      'apiVersion',
      'time',
      'fieldsType',
      'fieldsV1',
      'subresource',
    ]);
    assert.deepEqual(out, entries);
  });

  it('rejects undecodable entries with Kubernetes wording', () => {
    assert.throws(
      () => decodeManagedFields([{ operation: 'Apply', apiVersion: 'v1' }]),
      /missing fieldsType in managed fields entry 0/,
    );
    assert.throws(
      () => decodeManagedFields([{ operation: 'Apply', fieldsType: 'FieldsV1' }]),
      /apiVersion must not be empty/,
    );
  });

  it('merges the oldest Update managers into ancient-changes beyond ten', () => {
    let obj = write(undefined, configMap({ k0: '0' }), 'm0', '2026-01-01T00:00:00Z');
    for (let i = 1; i <= 10; i++) {
      const data = { ...(obj['data'] as Record<string, string>), [`k${i}`]: String(i) };
      obj = write(obj, { ...obj, data }, `m${i}`, `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`);
    }
    const names = obj.metadata.managedFields!.map((e) => e.manager);
    assert.equal(names.length, 10);
    assert.ok(names.includes('ancient-changes'));
    assert.ok(!names.includes('m0') && !names.includes('m1'));
    const ancient = obj.metadata.managedFields!.find((e) => e.manager === 'ancient-changes');
    assert.deepEqual(ancient?.fieldsV1, { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } });
  });
});

describe('field managers', () => {
  it('defaults to the User-Agent before its first slash', () => {
    assert.equal(fieldManagerFor(undefined, 'kubectl/v1.35.2 (linux/amd64) kubernetes/abc'), 'kubectl');
    assert.equal(fieldManagerFor('', 'Helm/4.1.4'), 'Helm');
    assert.equal(fieldManagerFor('my-ctl', 'kubectl/v1'), 'my-ctl');
    assert.equal(fieldManagerFor(undefined, 'a\tb/1'), 'ab');
    assert.equal(fieldManagerFor(undefined, 'x'.repeat(200)).length, 128);
    assert.equal(fieldManagerFor(undefined, undefined), '');
  });

  it('requires fieldManager for apply only', () => {
    assert.deepEqual(validateFieldManagerParam(undefined, true), [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
    ]);
    assert.deepEqual(validateFieldManagerParam(undefined, false), []);
    assert.equal(validateFieldManagerParam('y'.repeat(129), false)[0]?.reason, 'FieldValueTooLong');
  });

  it('prints managers as conflict messages do', () => {
    assert.equal(printManager(applyManagerId('helm')), '"helm"');
    assert.equal(printManager(updateManagerId('kubectl-patch', 'apps/v1')), '"kubectl-patch" using apps/v1');
    assert.equal(
      printManager(updateManagerId('kubelet', 'v1', 'status')),
      '"kubelet" with subresource "status" using v1',
    );
    assert.equal(printManager(applyManagerId('ctl', 'status')), '"ctl" with subresource "status"');
    assert.equal(updateManagerId('', 'v1'), '{"manager":"unknown","operation":"Update","apiVersion":"v1"}');
  });
});
