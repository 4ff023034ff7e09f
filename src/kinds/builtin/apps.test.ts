import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../store/types.js';
import { ApiError } from '../../util/errors.js';
import { tableFromObject } from '../../apiserver/table.js';
import { validateObject } from '../validation.js';
import { DaemonSet, Deployment, StatefulSet } from './apps.js';

type Json = Record<string, unknown>;
const NOW = Date.parse('2024-01-01T00:10:00Z');

const deployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    },
  },
});

test('deployment defaults as the apiserver sets them', () => {
  const d = deployment();
  validateObject(Deployment, d, 'Strict');
  Deployment.defaults!(d);
  validateObject(Deployment, d, 'Strict');
  const spec = d.spec as Json;
  assert.equal(spec.replicas, 1);
  assert.deepEqual(spec.strategy, {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
  });
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal(spec.progressDeadlineSeconds, 600);
  const podSpec = (spec.template as Json).spec as Json;
  assert.equal(podSpec.restartPolicy, 'Always');
  assert.equal(podSpec.enableServiceLinks, undefined, 'pod-only defaults stay off templates');
  assert.equal((podSpec.containers as Json[])[0]!.imagePullPolicy, 'IfNotPresent');
  assert.deepEqual(d.status, {});
  const recreate = deployment();
  (recreate.spec as Json).strategy = { type: 'Recreate' };
  Deployment.defaults!(recreate);
  assert.deepEqual((recreate.spec as Json).strategy, { type: 'Recreate' });
});

test('deployment selector: required, must match the template, immutable', () => {
  const noSelector = deployment();
  delete (noSelector.spec as Json).selector;
  assert.throws(() => validateObject(Deployment, noSelector, 'Strict'), /spec\.selector: Required value/);
  const mismatch = deployment();
  (mismatch.spec as Json).selector = { matchLabels: { app: 'other' } };
  assert.throws(
    () => validateObject(Deployment, mismatch, 'Strict'),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === 422 &&
      e.message.includes(
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      ),
  );
  const changed = deployment();
  (changed.spec as Json).selector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] };
  assert.throws(() => validateObject(Deployment, changed, 'Strict', deployment()), /field is immutable/);
});

test('deployment table row, wide columns included', () => {
  const d = deployment();
  d.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
  (d.spec as Json).replicas = 3;
  d.status = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 };
  const table = tableFromObject(Deployment, d, { now: NOW });
  assert.deepEqual(
    table.columnDefinitions!.map((c) => `${c.name}${c.priority ? '*' : ''}`),
    ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers*', 'Images*', 'Selector*'],
  );
  assert.deepEqual(table.rows[0]!.cells, ['web', '2/3', 3, 2, '10m', 'nginx', 'nginx:1.27', 'app=web']);
});

test('statefulset and daemonset defaults', () => {
  const sts: KubeObject = {
    metadata: { name: 'db' },
    spec: {
      selector: { matchLabels: { app: 'db' } },
      serviceName: 'db',
      template: {
        metadata: { labels: { app: 'db' } },
        spec: { containers: [{ name: 'db', image: 'postgres' }] },
      },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }],
    },
  };
  StatefulSet.defaults!(sts);
  validateObject(StatefulSet, sts, 'Strict');
  const spec = sts.spec as Json;
  assert.equal(spec.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, {
    whenDeleted: 'Retain',
    whenScaled: 'Retain',
  });
  const claim = (spec.volumeClaimTemplates as Json[])[0]!;
  assert.deepEqual(claim.status, { phase: 'Pending' });
  assert.equal((claim.spec as Json).volumeMode, 'Filesystem');

  const ds: KubeObject = {
    metadata: { name: 'agent' },
    spec: {
      selector: { matchLabels: { app: 'a' } },
      template: {
        metadata: { labels: { app: 'a' } },
        spec: { containers: [{ name: 'a', image: 'a:latest' }] },
      },
    },
  };
  DaemonSet.defaults!(ds);
  assert.deepEqual((ds.spec as Json).updateStrategy, {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
  });
  assert.equal(tableFromObject(DaemonSet, ds, { now: NOW }).rows[0]!.cells[6], '<none>');
});
