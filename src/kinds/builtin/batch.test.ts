import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../store/types.js';
import { tableFromObject } from '../../apiserver/table.js';
import { validateObject } from '../validation.js';
import { CronJob, Job } from './batch.js';

type Json = Record<string, unknown>;
const NOW = Date.parse('2024-01-01T00:10:00Z');

test('job defaults, with the generated controller-uid selector and labels', () => {
  const job: KubeObject = {
    metadata: { name: 'pi' },
    spec: { template: { spec: { containers: [{ name: 'pi', image: 'perl' }], restartPolicy: 'Never' } } },
  };
  validateObject(Job, job, 'Strict');
  Job.defaults!(job);
  validateObject(Job, job, 'Strict');
  const spec = job.spec as Json;
  assert.equal(spec.completions, 1);
  assert.equal(spec.parallelism, 1);
  assert.equal(spec.backoffLimit, 6);
  assert.equal(spec.completionMode, 'NonIndexed');
  assert.equal(spec.suspend, false);
  assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
  const uid = job.metadata.uid!;
  assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
  assert.deepEqual(((spec.template as Json).metadata as Json).labels, {
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': 'pi',
    'controller-uid': uid,
    'job-name': 'pi',
  });
  assert.equal(((spec.template as Json).spec as Json).restartPolicy, 'Never');
});

test('job table: status, completions, duration', () => {
  const job: KubeObject = {
    metadata: { name: 'pi', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { completions: 1, template: { spec: { containers: [{ name: 'pi', image: 'perl' }] } } },
    status: {
      succeeded: 1,
      startTime: '2024-01-01T00:00:00Z',
      completionTime: '2024-01-01T00:00:30Z',
      conditions: [{ type: 'Complete', status: 'True' }],
    },
  };
  const table = tableFromObject(Job, job, { now: NOW });
  assert.deepEqual(
    table.columnDefinitions!.map((c) => c.name),
    ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector'],
  );
  assert.deepEqual(table.rows[0]!.cells.slice(0, 5), ['pi', 'Complete', '1/1', '30s', '10m']);
  assert.equal(Job.selectableFields!['status.successful']!(job), '1');
});

test('cronjob defaults and table', () => {
  const cj: KubeObject = {
    metadata: { name: 'hello', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: {
      schedule: '*/1 * * * *',
      jobTemplate: {
        spec: {
          template: { spec: { containers: [{ name: 'h', image: 'busybox' }], restartPolicy: 'OnFailure' } },
        },
      },
    },
  };
  CronJob.defaults!(cj);
  validateObject(CronJob, cj, 'Strict');
  const spec = cj.spec as Json;
  assert.equal(spec.concurrencyPolicy, 'Allow');
  assert.equal(spec.successfulJobsHistoryLimit, 3);
  assert.equal(spec.failedJobsHistoryLimit, 1);
  assert.deepEqual(tableFromObject(CronJob, cj, { now: NOW }).rows[0]!.cells.slice(0, 7), [
    'hello',
    '*/1 * * * *',
    '<none>',
    'False',
    0,
    '<none>',
    '10m',
  ]);
});
