// Tests for server-side apply as users meet it: create by apply, idempotent re-apply, removal of dropped
// fields, shared ownership, conflicts with exact messages, force, helm 4 upgrades, CSA-to-SSA migration.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../store/types.js';
import { ApiError } from '../../util/errors.js';
import { recordUpdate, resetFieldsFor } from './managedfields.js';
import { applyServerSide, LAST_APPLIED_ANNOTATION, type ApplyOptions } from './ssa.js';

const T0 = '2026-11-29T16:22:34Z';
const T1 = '2026-11-29T16:25:00Z';
const T2 = '2026-11-29T16:30:00Z';

function cm(data: Record<string, string>, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm1', namespace: 'default', ...(labels ? { labels } : {}) },
    data,
  };
}

function apply(
  live: KubeObject | undefined,
  applied: KubeObject,
  manager: string,
  extra: Partial<ApplyOptions> = {},
): KubeObject {
  return applyServerSide({
    live,
    applied,
    manager,
    force: false,
    apiVersion: applied.apiVersion as string,
    now: T0,
    ...extra,
  }).object;
}

/** A non-apply write (merge patch, update) by `manager` producing `updated`. */
function update(live: KubeObject, updated: KubeObject, manager: string, now = T1): KubeObject {
  const obj = structuredClone(updated);
  const apiVersion = live.apiVersion as string;
  const mf = recordUpdate({ live, updated: obj, manager, apiVersion, now });
  if (mf.length) obj.metadata.managedFields = mf;
  else delete obj.metadata.managedFields;
  return obj;
}

function applyError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

const owners = (obj: KubeObject) =>
  Object.fromEntries(
    (obj.metadata.managedFields ?? []).map((e) => [`${e.manager}/${e.operation}`, e.fieldsV1]),
  );

describe('apply creates and re-applies', () => {
  it('creates the object with one Apply entry for the applied fields', () => {
    const body = cm({ key: 'v1' }, { app: 'demo' });
    body.metadata.managedFields = [
      { manager: 'forged', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} },
    ];
    const r = applyServerSide({
      live: undefined,
      applied: body,
      manager: 'kubectl',
      force: false,
      apiVersion: 'v1',
      now: '2026-11-29T16:22:34.999Z',
    });
    assert.equal(r.changed, true);
    assert.deepEqual(r.object.data, { key: 'v1' });
    assert.deepEqual(r.object.metadata.labels, { app: 'demo' });
    assert.deepEqual(r.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2026-11-29T16:22:34Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      },
    ]);
    assert.deepEqual(r.object.metadata.managedFields, r.managedFields);
  });

  it('changes nothing when the same configuration is applied again, not even the time', () => {
    const created = apply(undefined, cm({ key: 'v1' }), 'kubectl');
    const again = applyServerSide({
      live: created,
      applied: cm({ key: 'v1' }),
      manager: 'kubectl',
      force: false,
      apiVersion: 'v1',
      now: T2,
    });
    assert.equal(again.changed, false);
    assert.deepEqual(again.object, created);
  });

  it('updates the time when the apply changes the object', () => {
    const created = apply(undefined, cm({ key: 'v1' }), 'kubectl');
    const next = apply(created, cm({ key: 'v2' }), 'kubectl', { now: T2 });
    assert.equal(next.metadata.managedFields?.[0]?.time, T2);
    assert.deepEqual(next.data, { key: 'v2' });
  });
});

describe('fields dropped from the configuration', () => {
  it('are removed from the object when nobody else owns them', () => {
    const created = apply(undefined, cm({ a: '1', b: '2' }, { app: 'x', tier: 'web' }), 'kubectl');
    const next = apply(created, cm({ a: '1' }, { app: 'x' }), 'kubectl');
    assert.deepEqual(next.data, { a: '1' });
    assert.deepEqual(next.metadata.labels, { app: 'x' });
    assert.deepEqual(owners(next)['kubectl/Apply'], {
      'f:data': { 'f:a': {} },
      'f:metadata': { 'f:labels': { 'f:app': {} } },
    });
  });

  it('remove maps left empty', () => {
    const created = apply(undefined, cm({ a: '1' }, { app: 'x' }), 'kubectl');
    const next = apply(created, cm({ a: '1' }), 'kubectl');
    assert.equal(next.metadata.labels, undefined);
  });

  it('stay when another applier also applies them; go when the last one drops them', () => {
    let obj = apply(undefined, cm({ shared: 's', mine: 'm' }), 'alice');
    obj = apply(obj, cm({ shared: 's' }), 'bob');
    assert.deepEqual(owners(obj)['bob/Apply'], { 'f:data': { 'f:shared': {} } });
    assert.deepEqual(owners(obj)['alice/Apply'], { 'f:data': { 'f:mine': {}, 'f:shared': {} } });

    obj = apply(obj, cm({ mine: 'm' }), 'alice');
    assert.deepEqual(obj.data, { shared: 's', mine: 'm' });
    const withoutData = cm({});
    delete withoutData.data;
    obj = apply(obj, withoutData, 'bob');
    assert.deepEqual(obj.data, { mine: 'm' });
    assert.equal(owners(obj)['bob/Apply'], undefined);
  });

  it('stay when an Update manager changed them since', () => {
    const created = apply(undefined, cm({ a: '1', b: '2' }), 'kubectl');
    const patched = update(created, { ...created, data: { a: '1', b: 'edited' } }, 'kubectl-edit');
    const next = apply(patched, cm({ a: '1' }), 'kubectl');
    assert.deepEqual(next.data, { a: '1', b: 'edited' });
  });

  it('never touch fields the applier never owned', () => {
    const created = apply(undefined, cm({ a: '1' }), 'kubectl');
    const annotated = update(
      created,
      { ...created, metadata: { ...created.metadata, annotations: { note: 'x' } } },
      'kubectl-annotate',
    );
    const next = apply(annotated, cm({ b: '2' }), 'kubectl');
    assert.deepEqual(next.metadata.annotations, { note: 'x' });
    assert.deepEqual(next.data, { b: '2' });
  });
});

describe('conflicts', () => {
  const created = apply(undefined, cm({ key: 'v1' }, { app: 'demo' }), 'kubectl');
  const patched = update(created, { ...created, data: { key: 'v2' } }, 'kubectl-patch');

  it('refuses to change a field an Update manager set, with the exact Kubernetes Status', () => {
    const err = applyError(() => apply(patched, cm({ key: 'v1' }, { app: 'demo' }), 'kubectl'));
    assert.deepEqual(
      JSON.parse(JSON.stringify(err.toStatus())),
      JSON.parse(
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Conflict","code":409,' +
          '"message":"Apply failed with 1 conflict: conflict with \\"kubectl-patch\\" using v1: .data.key",' +
          '"details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \\"kubectl-patch\\" using v1","field":".data.key"}]}}',
      ),
    );
  });

  it('shares a field without conflict when the applied value equals the live one', () => {
    const next = apply(patched, cm({ key: 'v2' }, { app: 'demo' }), 'kubectl');
    assert.deepEqual(owners(next)['kubectl/Apply'], {
      'f:data': { 'f:key': {} },
      'f:metadata': { 'f:labels': { 'f:app': {} } },
    });
    assert.deepEqual(owners(next)['kubectl-patch/Update'], { 'f:data': { 'f:key': {} } });
  });

  it('with force, applies and moves ownership to the applier', () => {
    const next = apply(patched, cm({ key: 'v3' }, { app: 'demo' }), 'kubectl', { force: true });
    assert.deepEqual(next.data, { key: 'v3' });
    assert.deepEqual(Object.keys(owners(next)), ['kubectl/Apply']);
  });

  it('lists several conflicts grouped by manager, Apply managers unqualified', () => {
    let obj = apply(undefined, cm({ a: '1', b: '1', c: '1' }), 'alice');
    obj = update(obj, { ...obj, data: { a: '2', b: '2', c: '1' } }, 'kubectl-patch');
    obj = apply(obj, cm({ c: '1' }), 'bob');
    const err = applyError(() => apply(obj, cm({ a: '3', b: '3', c: '3' }), 'carol'));
    assert.equal(
      err.message,
      'Apply failed with 4 conflicts: conflicts with "alice":\n- .data.c\nconflicts with "bob":\n- .data.c\n' +
        'conflicts with "kubectl-patch" using v1:\n- .data.a\n- .data.b',
    );
    assert.deepEqual(
      err.details?.causes?.map((c) => `${c.message} ${c.field}`),
      [
        'conflict with "alice" .data.c',
        'conflict with "bob" .data.c',
        'conflict with "kubectl-patch" using v1 .data.a',
        'conflict with "kubectl-patch" using v1 .data.b',
      ],
    );
  });

  it('names subresource managers and prints keyed list paths', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1' }] },
    };
    const created = apply(undefined, pod, 'mgr');
    const viaStatus = structuredClone(created);
    (viaStatus['spec'] as { containers: { image: string }[] }).containers[0]!.image = 'nginx:2';
    viaStatus.metadata.managedFields = recordUpdate({
      live: created,
      updated: viaStatus,
      manager: 'kubelet',
      apiVersion: 'v1',
      now: T1,
      subresource: 'status',
    });
    const err = applyError(() => apply(viaStatus, pod, 'mgr'));
    assert.equal(
      err.message,
      'Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .spec.containers[name="nginx"].image',
    );
  });

  it('treats fields set before any apply as owned by "before-first-apply"', () => {
    const legacy = cm({ key: 'old' });
    const err = applyError(() => apply(legacy, cm({ key: 'new' }), 'kubectl'));
    assert.equal(
      err.message,
      'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.key',
    );
  });
});

function deployment(opts: {
  replicas?: number;
  env?: { name: string; value: string }[];
  labels?: Record<string, string>;
}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'r-ch4',
      namespace: 'default',
      labels: { 'app.kubernetes.io/managed-by': 'Helm', ...opts.labels },
      annotations: { 'meta.helm.sh/release-name': 'r', 'meta.helm.sh/release-namespace': 'default' },
    },
    spec: {
      ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
      selector: { matchLabels: { app: 'ch4' } },
      template: {
        metadata: { labels: { app: 'ch4' } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'nginx:1.27',
              ports: [{ containerPort: 80 }],
              ...(opts.env ? { env: opts.env } : {}),
            },
          ],
        },
      },
    },
  };
}

type Dep = {
  spec: { replicas?: number; template: { spec: { containers: { name: string; env?: unknown[] }[] } } };
};

describe('helm 4 (server-side apply as its install/upgrade path)', () => {
  const resetFields = resetFieldsFor(true);
  const installed = apply(
    undefined,
    deployment({
      replicas: 1,
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
      labels: { tier: 'web' },
    }),
    'helm',
    { resetFields },
  );

  it('removes on upgrade what the chart no longer renders', () => {
    const upgraded = apply(installed, deployment({ replicas: 1, env: [{ name: 'A', value: '1' }] }), 'helm', {
      resetFields,
    });
    const spec = (upgraded as unknown as Dep).spec;
    assert.deepEqual(spec.template.spec.containers[0]?.env, [{ name: 'A', value: '1' }]);
    assert.equal(upgraded.metadata.labels?.['tier'], undefined);
    const noEnv = apply(upgraded, deployment({ replicas: 1 }), 'helm', { resetFields });
    assert.equal((noEnv as unknown as Dep).spec.template.spec.containers[0]?.env, undefined);
  });

  it('removes a container port the chart dropped, keeping the container', () => {
    const twoPorts = deployment({ replicas: 1 });
    const containers = (twoPorts as unknown as Dep).spec.template.spec.containers as { ports?: unknown[] }[];
    containers[0]!.ports = [{ containerPort: 80 }, { containerPort: 443 }];
    const installed2 = apply(undefined, twoPorts, 'helm', { resetFields });
    const upgraded = apply(installed2, deployment({ replicas: 1 }), 'helm', { resetFields });
    const c = (upgraded as unknown as Dep).spec.template.spec.containers[0] as {
      name: string;
      ports?: unknown[];
    };
    assert.deepEqual(c.ports, [{ containerPort: 80 }]);
    assert.equal(c.name, 'app');
  });

  it('keeps containers and status other writers added', () => {
    const withSidecar = structuredClone(installed) as unknown as Dep & KubeObject;
    withSidecar.spec.template.spec.containers.push({ name: 'sidecar' });
    withSidecar['status'] = { replicas: 1 };
    const injected = update(installed, withSidecar, 'injector');
    const upgraded = apply(injected, deployment({ replicas: 1, env: [{ name: 'A', value: '1' }] }), 'helm', {
      resetFields,
    });
    assert.deepEqual(
      (upgraded as unknown as Dep).spec.template.spec.containers.map((c) => c.name),
      ['app', 'sidecar'],
    );
    assert.deepEqual(upgraded['status'], { replicas: 1 });
  });

  it('fails the upgrade after kubectl patch changed replicas, as helm prints it; force-conflicts wins', () => {
    const scaled = update(
      installed,
      { ...installed, spec: { ...(installed['spec'] as object), replicas: 3 } },
      'kubectl-patch',
    );
    const err = applyError(() => apply(scaled, deployment({ replicas: 2 }), 'helm', { resetFields }));
    assert.equal(err.code, 409);
    assert.equal(
      err.message,
      'Apply failed with 1 conflict: conflict with "kubectl-patch" using apps/v1: .spec.replicas',
    );

    const forced = apply(scaled, deployment({ replicas: 2 }), 'helm', { resetFields, force: true });
    assert.equal((forced as unknown as Dep).spec.replicas, 2);
    assert.equal(owners(forced)['kubectl-patch/Update'], undefined);
  });

  it('records the Apply entry without status and keeps live status on apply', () => {
    const body = deployment({ replicas: 1 });
    body['status'] = { replicas: 99 };
    const live = { ...installed, status: { replicas: 1 } };
    const next = apply(live, body, 'helm', { resetFields });
    assert.deepEqual(next['status'], { replicas: 1 });
    assert.equal(JSON.stringify(owners(next)['helm/Apply']).includes('f:status'), false);
    const created = apply(undefined, body, 'helm', { resetFields });
    assert.equal(created['status'], undefined);
  });

  it('records the research-sample field set for containers and ports', () => {
    const fields = owners(installed)['helm/Apply'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(fields['f:spec']?.['f:template'], {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"app"}': {
            '.': {},
            'f:env': {
              'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} },
              'k:{"name":"B"}': { '.': {}, 'f:name': {}, 'f:value': {} },
            },
            'f:image': {},
            'f:name': {},
            'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
          },
        },
      },
    });
    assert.deepEqual(fields['f:spec']?.['f:selector'], {});
  });
});

describe('list semantics', () => {
  it('merges finalizers as a set per applier', () => {
    const withFin = (fins: string[]): KubeObject => ({
      ...cm({}),
      metadata: { ...cm({}).metadata, finalizers: fins },
    });
    let obj = apply(undefined, withFin(['a.example/x']), 'alice');
    obj = apply(obj, withFin(['b.example/y']), 'bob');
    assert.deepEqual(obj.metadata.finalizers, ['a.example/x', 'b.example/y']);
    obj = apply(obj, withFin([]), 'alice');
    assert.deepEqual(obj.metadata.finalizers, ['b.example/y']);
  });

  it('replaces atomic lists (RBAC rules) whole and conflicts on them as one field', () => {
    const role = (verbs: string[]): KubeObject => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r', namespace: 'default' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs }],
    });
    const created = apply(undefined, role(['get', 'list']), 'alice');
    assert.deepEqual(owners(created)['alice/Apply'], { 'f:rules': {} });
    const err = applyError(() => apply(created, role(['get']), 'bob'));
    assert.match(err.message, /conflict with "alice": \.rules$/);
  });
});

describe('client-side apply migration (kubectl only)', () => {
  const manifest = cm({ key: 'v1' });
  const lastApplied = `${JSON.stringify({ ...manifest, metadata: { ...manifest.metadata, annotations: {} } })}\n`;
  const csa = (() => {
    const body = structuredClone(manifest);
    body.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: lastApplied };
    const mf = recordUpdate({
      live: undefined,
      updated: body,
      manager: 'kubectl-client-side-apply',
      apiVersion: 'v1',
      now: T0,
    });
    body.metadata.managedFields = mf;
    return body;
  })();

  it('forgives conflicts on fields still as last applied and refreshes the annotation', () => {
    const next = apply(csa, cm({ key: 'v2' }), 'kubectl');
    assert.deepEqual(next.data, { key: 'v2' });
    const annotation = next.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
    assert.equal(
      annotation,
      '{"apiVersion":"v1","data":{"key":"v2"},"kind":"ConfigMap","metadata":{"name":"cm1","namespace":"default"}}\n',
    );
  });

  it('does not forgive other managers', () => {
    const err = applyError(() => apply(csa, cm({ key: 'v2' }), 'other'));
    assert.match(err.message, /conflict with "kubectl-client-side-apply" using v1: \.data\.key/);
  });
});

describe('bad requests', () => {
  it('rejects a body in another version than the URL', () => {
    const err = applyError(() =>
      applyServerSide({
        live: undefined,
        applied: cm({}),
        manager: 'm',
        force: false,
        apiVersion: 'v2',
        now: T0,
      }),
    );
    assert.equal(err.code, 400);
    assert.equal(
      err.message,
      'Incorrect version specified in apply patch. Specified patch version: v1, expected: v2',
    );
  });

  it('rejects a body of another kind when the kind is known', () => {
    const err = applyError(() =>
      applyServerSide({
        live: undefined,
        applied: cm({}),
        manager: 'm',
        force: false,
        apiVersion: 'v1',
        now: T0,
        kind: 'Secret',
      }),
    );
    assert.equal(err.message, 'invalid object type: /v1, Kind=ConfigMap');
  });

  it('rejects duplicate list keys like the real server', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns' },
      spec: { containers: [{ name: 'a' }, { name: 'a' }] },
    };
    const err = applyError(() => apply(undefined, pod, 'm'));
    assert.equal(err.code, 400);
    assert.equal(
      err.message,
      'failed to create typed patch object (ns/p; /v1, Kind=Pod): .spec.containers: duplicate entries for key [name="a"]',
    );
  });
});
