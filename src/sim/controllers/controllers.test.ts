// End-to-end behaviour of the fake controllers on a memory store: nodes, scheduling, kubelet stages,
// Deployments/ReplicaSets (scale, rollout), DaemonSets, StatefulSets, Jobs, GC, PDBs and eviction, Endpoints.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sleep, waitFor } from '../../controllers/testing/wait.js';
import type { KubeObject } from '../../store/types.js';
import { FaultyStore } from '../../controllers/testing/store.js';
import { MemoryBackend } from '../../store/memory-backend.js';
import { ObjectStore } from '../../store/object-store.js';
import { ManualClock } from './clock.js';
import { evictionDecision } from './disruption.js';
import { SimControllers } from './sim-controllers.js';
import { FAST, seedCluster, SIM_STORE_OPTIONS, startTestCluster, type TestCluster } from './testing.js';
import { templateHash } from './util.js';

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const st = (o: KubeObject | undefined): J => (o?.['status'] ?? {}) as J;
const cond = (o: KubeObject | undefined, type: string): J | undefined =>
  (st(o)['conditions'] as J[] | undefined)?.find((c) => c['type'] === type);

function deployment(name: string, replicas: number, image = 'nginx:1.27'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image, ports: [{ name: 'http', containerPort: 80 }] }] },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
  };
}

async function pods(
  c: TestCluster,
  predicate: (p: KubeObject) => boolean = () => true,
): Promise<KubeObject[]> {
  return (await c.store.list('pods', { predicate })).items;
}

/** kstatus' Deployment rules (§11.5) plus kubectl rollout status. */
function deploymentCurrent(d: KubeObject | undefined): boolean {
  if (!d) return false;
  const s = st(d);
  const want = (d['spec'] as J)['replicas'] ?? 1;
  return (
    s['observedGeneration'] === d.metadata.generation &&
    (s['replicas'] ?? 0) === want &&
    (s['updatedReplicas'] ?? 0) === want &&
    (s['availableReplicas'] ?? 0) === want &&
    (s['readyReplicas'] ?? 0) === want &&
    cond(d, 'Available')?.['status'] === 'True' &&
    cond(d, 'Progressing')?.['reason'] === 'NewReplicaSetAvailable'
  );
}

describe('sim controllers', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c.close();
  });

  test('nodes are Ready with heartbeats and a Lease each', async () => {
    const lease = await waitFor(
      () => c.store.get('leases.coordination.k8s.io', 'kube-node-lease', 'node-1'),
      'node lease',
    );
    assert.equal((lease['spec'] as J)['holderIdentity'], 'node-1');
    assert.match((lease['spec'] as J)['renewTime'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const node = await c.store.get('nodes', '', 'node-1');
    assert.equal(lease.metadata.ownerReferences?.[0]?.uid, node?.metadata.uid);
    const ready = cond(node, 'Ready');
    assert.equal(ready?.['status'], 'True');
    assert.equal(ready?.['reason'], 'KubeletReady');
    assert.ok(ready?.['lastHeartbeatTime']);
    assert.equal(cond(node, 'MemoryPressure')?.['status'], 'False');
  });

  test('deployment → replicaset → running pods → Available, with the fields kstatus and helm read', async () => {
    await c.store.create('deployments.apps', deployment('web', 3));
    const d = await waitFor(async () => {
      const d = await c.store.get('deployments.apps', 'default', 'web');
      return deploymentCurrent(d) ? d : undefined;
    }, 'deployment web available');
    const s = st(d);
    assert.equal(s['unavailableReplicas'], undefined);
    assert.equal(cond(d, 'Available')?.['reason'], 'MinimumReplicasAvailable');
    const hash = templateHash((d['spec'] as J)['template']);
    const rs = await c.store.get('replicasets.apps', 'default', `web-${hash}`);
    assert.ok(rs, `replicaset web-${hash}`);
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    assert.equal(rs.metadata.labels?.['pod-template-hash'], hash);
    assert.equal(((rs['spec'] as J)['selector'] as J)['matchLabels']['pod-template-hash'], hash);
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.deepEqual(rs.metadata.ownerReferences?.[0], {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: d.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });
    assert.equal(st(rs)['observedGeneration'], rs.metadata.generation);
    assert.equal(st(rs)['readyReplicas'], 3);
    assert.equal(st(rs)['fullyLabeledReplicas'], 3);
    const list = await pods(c, (p) => p.metadata.labels?.['app'] === 'web');
    assert.equal(list.length, 3);
    for (const p of list) {
      assert.match(p.metadata.name ?? '', new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      const ps = st(p);
      assert.equal(ps['phase'], 'Running');
      const node = (p['spec'] as J)['nodeName'] as string;
      const i = Number(node.slice('node-'.length)) - 1;
      assert.match(ps['podIP'], new RegExp(`^10\\.42\\.${i}\\.\\d+$`));
      assert.equal(ps['hostIP'], `172.18.0.${i + 2}`);
      assert.ok(ps['startTime']);
      const cs = ps['containerStatuses'][0];
      assert.equal(cs.ready, true);
      assert.equal(cs.started, true);
      assert.equal(cs.restartCount, 0);
      assert.equal(cs.image, 'docker.io/library/nginx:1.27');
      assert.match(cs.imageID, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
      assert.match(cs.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
      assert.ok(cs.state.running.startedAt);
      for (const t of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'])
        assert.equal(cond(p, t)?.['status'], 'True', t);
    }
    // Least-loaded placement spreads three pods over three nodes.
    assert.equal(new Set(list.map((p) => (p['spec'] as J)['nodeName'])).size, 3);
  });

  test('scale up and down', async () => {
    const d = (await c.store.get('deployments.apps', 'default', 'web'))!;
    await c.store.update('deployments.apps', { ...d, spec: { ...(d['spec'] as J), replicas: 5 } });
    await waitFor(
      async () => deploymentCurrent(await c.store.get('deployments.apps', 'default', 'web')),
      'scaled to 5',
    );
    assert.equal((await pods(c, (p) => p.metadata.labels?.['app'] === 'web')).length, 5);
    const d2 = (await c.store.get('deployments.apps', 'default', 'web'))!;
    await c.store.update('deployments.apps', { ...d2, spec: { ...(d2['spec'] as J), replicas: 2 } });
    await waitFor(
      async () => deploymentCurrent(await c.store.get('deployments.apps', 'default', 'web')),
      'scaled to 2',
    );
    await waitFor(
      async () => (await pods(c, (p) => p.metadata.labels?.['app'] === 'web')).length === 2,
      '2 pods left',
    );
  });

  test('rolling update to a new template', async () => {
    const d = (await c.store.get('deployments.apps', 'default', 'web'))!;
    const oldHash = templateHash((d['spec'] as J)['template']);
    const spec = structuredClone(d['spec'] as J);
    spec['replicas'] = 4;
    spec['template']['spec']['containers'][0]['image'] = 'nginx:1.28';
    // Scale to 4 first so the rollout itself runs with maxSurge 1 and maxUnavailable 1.
    await c.store.update('deployments.apps', { ...d, spec: { ...(d['spec'] as J), replicas: 4 } });
    await waitFor(
      async () => deploymentCurrent(await c.store.get('deployments.apps', 'default', 'web')),
      'scaled to 4',
    );
    const live = new Map<string, KubeObject>();
    for (const p of await pods(c, (p) => p.metadata.labels?.['app'] === 'web')) live.set(p.metadata.name!, p);
    let maxActive = 0;
    let minReady = Infinity;
    const watch = c.store.watch(
      { resource: 'pods', namespace: 'default' },
      {
        onEvent: (e) => {
          if (e.object.metadata.labels?.['app'] !== 'web') return;
          if (e.type === 'DELETED') live.delete(e.object.metadata.name!);
          else live.set(e.object.metadata.name!, e.object);
          const active = [...live.values()].filter((p) => !p.metadata.deletionTimestamp);
          maxActive = Math.max(maxActive, active.length);
          minReady = Math.min(minReady, active.filter((p) => cond(p, 'Ready')?.['status'] === 'True').length);
        },
        onError: () => undefined,
      },
    );
    const scaled = (await c.store.get('deployments.apps', 'default', 'web'))!;
    await c.store.update('deployments.apps', { ...scaled, spec });
    const newHash = templateHash(spec['template']);
    assert.notEqual(newHash, oldHash);
    const done = await waitFor(async () => {
      const d = await c.store.get('deployments.apps', 'default', 'web');
      return deploymentCurrent(d) ? d : undefined;
    }, 'rollout complete');
    assert.equal(st(done)['updatedReplicas'], 4);
    const oldRs = await c.store.get('replicasets.apps', 'default', `web-${oldHash}`);
    const newRs = await c.store.get('replicasets.apps', 'default', `web-${newHash}`);
    assert.equal((oldRs?.['spec'] as J)['replicas'], 0);
    assert.equal((newRs?.['spec'] as J)['replicas'], 4);
    assert.equal(newRs?.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
    await waitFor(async () => {
      const list = await pods(c, (p) => p.metadata.labels?.['app'] === 'web');
      return list.length === 4 && list.every((p) => p.metadata.labels?.['pod-template-hash'] === newHash);
    }, 'only new pods left');
    watch.stop();
    assert.ok(maxActive <= 5, `at most replicas + maxSurge pods, saw ${maxActive}`);
    assert.ok(minReady >= 3, `at least replicas - maxUnavailable ready, saw ${minReady}`);
    // Rolling back to the old template reuses the old ReplicaSet with the next revision.
    const cur = (await c.store.get('deployments.apps', 'default', 'web'))!;
    await c.store.update('deployments.apps', {
      ...cur,
      spec: { ...(cur['spec'] as J), template: (d['spec'] as J)['template'] },
    });
    await waitFor(
      async () => deploymentCurrent(await c.store.get('deployments.apps', 'default', 'web')),
      'rollback complete',
    );
    const back = await c.store.get('replicasets.apps', 'default', `web-${oldHash}`);
    assert.equal(back?.metadata.annotations?.['deployment.kubernetes.io/revision'], '3');
  });

  test('paused deployments are not rolled out', async () => {
    await c.store.create('deployments.apps', {
      ...deployment('paused', 1),
      spec: { ...(deployment('paused', 1)['spec'] as J), paused: true },
    });
    const d = await waitFor(async () => {
      const d = await c.store.get('deployments.apps', 'default', 'paused');
      return st(d)['observedGeneration'] ? d : undefined;
    }, 'paused observed');
    assert.equal(cond(d, 'Progressing')?.['reason'], 'DeploymentPaused');
    assert.equal(
      (
        await c.store.list('replicasets.apps', {
          predicate: (r) => r.metadata.name?.startsWith('paused-') ?? false,
        })
      ).items.length,
      0,
    );
  });

  test('daemonset: one pod per node; cordon keeps it and blocks other pods', async () => {
    await c.store.create('daemonsets.apps', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { containers: [{ name: 'a', image: 'busybox' }] },
        },
      },
    });
    const ds = await waitFor(async () => {
      const ds = await c.store.get('daemonsets.apps', 'kube-system', 'agent');
      const s = st(ds);
      return s['desiredNumberScheduled'] === 3 && s['numberReady'] === 3 && s['numberAvailable'] === 3
        ? ds
        : undefined;
    }, 'daemonset ready');
    assert.equal(st(ds)['updatedNumberScheduled'], 3);
    assert.equal(st(ds)['currentNumberScheduled'], 3);
    assert.equal(st(ds)['observedGeneration'], ds.metadata.generation);
    const agentPods = await pods(c, (p) => p.metadata.labels?.['app'] === 'agent');
    assert.deepEqual(agentPods.map((p) => (p['spec'] as J)['nodeName']).sort(), [
      'node-1',
      'node-2',
      'node-3',
    ]);

    const node = (await c.store.get('nodes', '', 'node-3'))!;
    await c.store.update('nodes', { ...node, spec: { ...(node['spec'] as J), unschedulable: true } });
    await c.store.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bare', namespace: 'default', labels: { bare: 'yes' } },
      spec: {
        nodeSelector: { 'kubernetes.io/hostname': 'node-3' },
        containers: [{ name: 'c', image: 'busybox' }],
      },
      status: { phase: 'Pending' },
    });
    const bare = await waitFor(async () => {
      const p = await c.store.get('pods', 'default', 'bare');
      return cond(p, 'PodScheduled')?.['status'] === 'False' ? p : undefined;
    }, 'bare pod unschedulable');
    assert.equal(cond(bare, 'PodScheduled')?.['reason'], 'Unschedulable');
    assert.match(cond(bare, 'PodScheduled')?.['message'], /^0\/3 nodes are available: /);
    assert.equal((await pods(c, (p) => p.metadata.labels?.['app'] === 'agent')).length, 3);
    // Uncordon: the pod is scheduled there.
    const n2 = (await c.store.get('nodes', '', 'node-3'))!;
    const { unschedulable: _u, ...rest } = n2['spec'] as J;
    await c.store.update('nodes', { ...n2, spec: rest });
    await waitFor(
      async () => st(await c.store.get('pods', 'default', 'bare'))['phase'] === 'Running',
      'bare running',
    );
    await c.store.delete('pods', 'default', 'bare');
  });

  test('job runs to completion', async () => {
    await c.store.create('jobs.batch', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once', namespace: 'default' },
      spec: {
        completions: 3,
        parallelism: 2,
        backoffLimit: 6,
        template: {
          metadata: { labels: { job: 'once' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    });
    const job = await waitFor(async () => {
      const j = await c.store.get('jobs.batch', 'default', 'once');
      return cond(j, 'Complete')?.['status'] === 'True' ? j : undefined;
    }, 'job complete');
    const s = st(job);
    assert.equal(s['succeeded'], 3);
    assert.equal(s['active'], undefined);
    assert.ok(s['startTime']);
    assert.ok(s['completionTime']);
    assert.equal(cond(job, 'SuccessCriteriaMet')?.['status'], 'True');
    assert.equal(cond(job, 'Complete')?.['reason'], 'CompletionsReached');
    const jobPods = await pods(c, (p) => p.metadata.labels?.['job-name'] === 'once');
    assert.equal(jobPods.length, 3);
    for (const p of jobPods) {
      assert.equal(st(p)['phase'], 'Succeeded');
      assert.equal(st(p)['containerStatuses'][0].state.terminated.reason, 'Completed');
    }
  });

  test('a job whose pods fail hits its backoff limit', async () => {
    await c.store.create('jobs.batch', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'doomed', namespace: 'default' },
      spec: {
        backoffLimit: 1,
        template: {
          metadata: { annotations: { 'sim.fleethub.io/exit-code': '1' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    });
    const job = await waitFor(async () => {
      const j = await c.store.get('jobs.batch', 'default', 'doomed');
      return cond(j, 'Failed')?.['status'] === 'True' ? j : undefined;
    }, 'job failed');
    assert.equal(cond(job, 'Failed')?.['reason'], 'BackoffLimitExceeded');
    assert.equal(st(job)['failed'], 2);
  });

  test('statefulset: ordered pods and revisions', async () => {
    await c.store.create('statefulsets.apps', {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'default' },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'postgres:17' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    });
    const set = await waitFor(async () => {
      const s = await c.store.get('statefulsets.apps', 'default', 'db');
      return st(s)['readyReplicas'] === 3 && st(s)['currentRevision'] === st(s)['updateRevision']
        ? s
        : undefined;
    }, 'statefulset ready');
    assert.equal(st(set)['replicas'], 3);
    assert.equal(st(set)['currentReplicas'], 3);
    assert.equal(st(set)['updatedReplicas'], 3);
    const names = (await pods(c, (p) => p.metadata.labels?.['app'] === 'db'))
      .map((p) => p.metadata.name)
      .sort();
    assert.deepEqual(names, ['db-0', 'db-1', 'db-2']);
    assert.equal(st(await c.store.get('persistentvolumeclaims', 'default', 'data-db-1'))['phase'], 'Bound');
    // Template change: rolled one by one to the new revision.
    const cur = (await c.store.get('statefulsets.apps', 'default', 'db'))!;
    const spec = structuredClone(cur['spec'] as J);
    spec['template']['spec']['containers'][0]['image'] = 'postgres:18';
    await c.store.update('statefulsets.apps', { ...cur, spec });
    const rolled = await waitFor(async () => {
      const s = await c.store.get('statefulsets.apps', 'default', 'db');
      return st(s)['updateRevision'] !== st(set)['updateRevision'] &&
        st(s)['currentRevision'] === st(s)['updateRevision'] &&
        st(s)['readyReplicas'] === 3
        ? s
        : undefined;
    }, 'statefulset rolled');
    assert.equal(st(rolled)['updatedReplicas'], 3);
    const revisions = (await c.store.list('controllerrevisions.apps', { namespace: 'default' })).items
      .filter((r) => r.metadata.ownerReferences?.[0]?.uid === rolled.metadata.uid)
      .map((r) => [r.metadata.name, r['revision']])
      .sort((a, b) => Number(a[1]) - Number(b[1]));
    assert.deepEqual(revisions, [
      [st(set)['updateRevision'], 1],
      [st(rolled)['updateRevision'], 2],
    ]);
  });

  test('services get Endpoints and an EndpointSlice of ready pods', async () => {
    await c.store.create('services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: { app: 'web' },
        ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
        clusterIP: '10.43.0.10',
      },
    });
    const ep = await waitFor(async () => {
      const ep = await c.store.get('endpoints', 'default', 'web');
      const subsets = ep?.['subsets'] as J[] | undefined;
      return subsets?.[0]?.['addresses']?.length === 4 ? ep : undefined;
    }, 'endpoints');
    assert.deepEqual((ep['subsets'] as J[])[0]!['ports'], [{ name: 'http', port: 80, protocol: 'TCP' }]);
    const slices = await c.store.list('endpointslices.discovery.k8s.io', { namespace: 'default' });
    const slice = slices.items.find((s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'web');
    assert.equal((slice?.['endpoints'] as J[]).length, 4);
  });

  test('garbage collection: background, foreground and orphan', async () => {
    const mkRs = async (name: string): Promise<KubeObject> => {
      await c.store.create('replicasets.apps', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name, namespace: 'default' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { rs: name } },
          template: {
            metadata: { labels: { rs: name } },
            spec: { containers: [{ name: 'c', image: 'busybox' }] },
          },
        },
      });
      return waitFor(async () => {
        const rs = await c.store.get('replicasets.apps', 'default', name);
        return st(rs)['readyReplicas'] === 2 ? rs : undefined;
      }, `${name} ready`);
    };
    const podsOf = (name: string) => pods(c, (p) => p.metadata.labels?.['rs'] === name);

    await mkRs('bg');
    await c.store.delete('replicasets.apps', 'default', 'bg');
    await waitFor(async () => (await podsOf('bg')).length === 0, 'background: pods deleted');

    const fg = await mkRs('fg');
    await c.store.update('replicasets.apps', {
      ...fg,
      metadata: { ...fg.metadata, finalizers: ['foregroundDeletion'] },
    });
    const marked = await c.store.delete('replicasets.apps', 'default', 'fg');
    assert.equal(marked.deleted, false);
    await waitFor(
      async () => !(await c.store.get('replicasets.apps', 'default', 'fg')),
      'foreground: owner gone',
    );
    assert.equal((await podsOf('fg')).length, 0);

    const or = await mkRs('or');
    await c.store.update('replicasets.apps', { ...or, metadata: { ...or.metadata, finalizers: ['orphan'] } });
    await c.store.delete('replicasets.apps', 'default', 'or');
    await waitFor(
      async () => !(await c.store.get('replicasets.apps', 'default', 'or')),
      'orphan: owner gone',
    );
    const orphans = await podsOf('or');
    assert.equal(orphans.length, 2);
    for (const p of orphans) assert.equal(p.metadata.ownerReferences, undefined);
  });

  test('PDB status and eviction decisions', async () => {
    const d = await waitFor(async () => {
      const d = await c.store.get('deployments.apps', 'default', 'web');
      return deploymentCurrent(d) ? d : undefined;
    }, 'web steady');
    const replicas = (d['spec'] as J)['replicas'] as number;
    await c.store.create('poddisruptionbudgets.policy', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: replicas - 1, selector: { matchLabels: { app: 'web' } } },
    });
    const pdb = await waitFor(async () => {
      const p = await c.store.get('poddisruptionbudgets.policy', 'default', 'web');
      return st(p)['observedGeneration'] === p?.metadata.generation && st(p)['currentHealthy'] === replicas
        ? p
        : undefined;
    }, 'pdb status');
    assert.equal(st(pdb)['expectedPods'], replicas);
    assert.equal(st(pdb)['desiredHealthy'], replicas - 1);
    assert.equal(st(pdb)['disruptionsAllowed'], 1);
    assert.equal(cond(pdb, 'DisruptionAllowed')?.['status'], 'True');
    assert.equal(cond(pdb, 'DisruptionAllowed')?.['reason'], 'SufficientPods');

    const [first, second] = await pods(
      c,
      (p) => p.metadata.labels?.['app'] === 'web' && st(p)['phase'] === 'Running',
    );
    assert.deepEqual(await evictionDecision(c.store, first!), { allowed: true });
    const after1 = await c.store.get('poddisruptionbudgets.policy', 'default', 'web');
    assert.equal(st(after1)['disruptionsAllowed'], 0);
    assert.ok(st(after1)['disruptedPods'][first!.metadata.name!]);
    const denied = await evictionDecision(c.store, second!);
    assert.equal(denied.allowed, false);
    assert.ok(!denied.allowed);
    assert.equal(denied.code, 429);
    assert.equal(denied.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.match(
      denied.causes?.[0]?.message ?? '',
      /^The disruption budget web needs \d+ healthy pods and has \d+ currently$/,
    );

    // Finished and pending pods bypass budgets.
    assert.deepEqual(await evictionDecision(c.store, { ...second!, status: { phase: 'Succeeded' } }), {
      allowed: true,
    });
    assert.deepEqual(await evictionDecision(c.store, { ...second!, status: { phase: 'Pending' } }), {
      allowed: true,
    });

    // A spec change not yet observed → 429 "still being processed".
    const cur = (await c.store.get('poddisruptionbudgets.policy', 'default', 'web'))!;
    c.controllers.stop();
    const bumped = await c.store.update('poddisruptionbudgets.policy', {
      ...cur,
      spec: { ...(cur['spec'] as J), minAvailable: 1 },
    });
    assert.ok((bumped.metadata.generation ?? 0) > (st(bumped)['observedGeneration'] as number));
    const pending = await evictionDecision(c.store, second!);
    assert.ok(!pending.allowed);
    assert.equal(pending.code, 429);
    assert.equal(
      pending.causes?.[0]?.message,
      'The disruption budget web is still being processed by the server.',
    );

    // Two budgets over one pod → 500.
    await c.store.create('poddisruptionbudgets.policy', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web2', namespace: 'default' },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    const multi = await evictionDecision(c.store, second!);
    assert.ok(!multi.allowed);
    assert.equal(multi.code, 500);
    assert.equal(
      multi.message,
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
    await c.controllers.start();
    // A pod in no budget may always go.
    assert.deepEqual(
      await evictionDecision(c.store, {
        ...second!,
        metadata: { ...second!.metadata, labels: { other: 'x' } },
      }),
      {
        allowed: true,
      },
    );
  });

  test('graceful deletion and node deletion remove pods', async () => {
    const web = await pods(c, (p) => p.metadata.labels?.['app'] === 'web' && st(p)['phase'] === 'Running');
    const victim = web[0]!;
    const marked = await c.store.delete('pods', 'default', victim.metadata.name!, { markOnly: true });
    assert.equal(marked.deleted, false);
    await waitFor(
      async () => !(await c.store.get('pods', 'default', victim.metadata.name!)),
      'terminating pod removed',
    );
    await c.store.delete('nodes', '', 'node-2');
    await waitFor(
      async () => (await pods(c, (p) => (p['spec'] as J)['nodeName'] === 'node-2')).length === 0,
      'pods of node-2 gone',
    );
    await waitFor(
      async () => deploymentCurrent(await c.store.get('deployments.apps', 'default', 'web')),
      'web recovers on two nodes',
    );
  });
});

describe('node heartbeats on a manual clock', () => {
  test('lease renewals at the lease interval, node status at its own', async () => {
    const clock = new ManualClock();
    const c = await startTestCluster({
      clock,
      controllers: { leaseRenewIntervalMs: 40_000, nodeStatusIntervalMs: 120_000 },
    });
    try {
      const lease0 = await waitFor(
        () => c.store.get('leases.coordination.k8s.io', 'kube-node-lease', 'node-1'),
        'lease',
      );
      const node0 = (await c.store.get('nodes', '', 'node-1'))!;
      await c.controllers.idle();
      clock.advance(40_000);
      await c.controllers.idle();
      const lease1 = (await c.store.get('leases.coordination.k8s.io', 'kube-node-lease', 'node-1'))!;
      assert.notEqual((lease1['spec'] as J)['renewTime'], (lease0['spec'] as J)['renewTime']);
      assert.equal(
        (await c.store.get('nodes', '', 'node-1'))!.metadata.resourceVersion,
        node0.metadata.resourceVersion,
      );
      for (let i = 0; i < 3; i++) {
        clock.advance(40_000);
        await c.controllers.idle();
      }
      const node1 = (await c.store.get('nodes', '', 'node-1'))!;
      assert.notEqual(
        cond(node1, 'Ready')?.['lastHeartbeatTime'],
        cond(node0, 'Ready')?.['lastHeartbeatTime'],
      );
      assert.equal(
        cond(node1, 'Ready')?.['lastTransitionTime'],
        cond(node0, 'Ready')?.['lastTransitionTime'],
      );
      assert.equal(c.controllers.stats().delayed, 1, 'only the next heartbeat is pending');
    } finally {
      await c.close();
    }
  });
});

describe('recovery and strategies', () => {
  test('graceful deletion waits min(grace, cap) and honours finalizers', async () => {
    const c = await startTestCluster({ nodes: 1, controllers: { maxGracePeriodMs: 300 } });
    try {
      for (const name of ['a', 'b'])
        await c.store.create('pods', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name,
            namespace: 'default',
            ...(name === 'b' ? { finalizers: ['example.com/hold'] } : {}),
          },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
          status: { phase: 'Pending' },
        });
      for (const name of ['a', 'b'])
        await waitFor(
          async () => st(await c.store.get('pods', 'default', name))['phase'] === 'Running',
          `${name} running`,
        );
      const t0 = Date.now();
      for (const name of ['a', 'b'])
        await c.store.delete('pods', 'default', name, { markOnly: true, gracePeriodSeconds: 30 });
      await sleep(100);
      assert.ok(await c.store.get('pods', 'default', 'a'), 'still terminating');
      await waitFor(async () => !(await c.store.get('pods', 'default', 'a')), 'a removed');
      assert.ok(Date.now() - t0 >= 250, 'removed after the capped grace period');
      const b = await waitFor(async () => {
        const p = await c.store.get('pods', 'default', 'b');
        return st(p)['phase'] === 'Failed' ? p : undefined;
      }, 'b terminated but kept by its finalizer');
      assert.equal(st(b)['containerStatuses'][0].state.terminated.exitCode, 137);
    } finally {
      await c.close();
    }
  });

  test('pods wait on a NotReady node and start once it is Ready', async () => {
    const c = await startTestCluster({ nodes: 1 });
    try {
      const node = await waitFor(async () => {
        const n = await c.store.get('nodes', '', 'node-1');
        return cond(n, 'Ready')?.['status'] === 'True' ? n : undefined;
      }, 'node ready');
      await c.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'default' },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] },
        status: { phase: 'Pending' },
      });
      await waitFor(
        async () => st(await c.store.get('pods', 'default', 'p'))['phase'] === 'Running',
        'p running',
      );
      await c.store.update('nodes', {
        ...node,
        metadata: { ...node.metadata, annotations: { 'sim.fleethub.io/ready': 'false' } },
      });
      await waitFor(
        async () => cond(await c.store.get('nodes', '', 'node-1'), 'Ready')?.['status'] === 'False',
        'node NotReady',
      );
      await c.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'q', namespace: 'default' },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] },
        status: { phase: 'Pending' },
      });
      await c.controllers.idle();
      assert.equal(st(await c.store.get('pods', 'default', 'q'))['phase'], 'Pending');
      const notReady = (await c.store.get('nodes', '', 'node-1'))!;
      await c.store.update('nodes', { ...notReady, metadata: { ...notReady.metadata, annotations: {} } });
      await waitFor(
        async () => st(await c.store.get('pods', 'default', 'q'))['phase'] === 'Running',
        'q running',
      );
    } finally {
      await c.close();
    }
  });

  test('a broken watch is reopened and the cluster resynced', async () => {
    const store = new FaultyStore(await ObjectStore.open(new MemoryBackend(), SIM_STORE_OPTIONS));
    await seedCluster(store, 2);
    const controllers = new SimControllers({ store, options: FAST });
    await controllers.start();
    try {
      await waitFor(() => store.get('leases.coordination.k8s.io', 'kube-node-lease', 'node-2'), 'leases');
      store.breakWatches();
      await store.create('deployments.apps', deployment('after-break', 2));
      await waitFor(
        async () => deploymentCurrent(await store.get('deployments.apps', 'default', 'after-break')),
        'deployment reconciled after the watch broke',
      );
      assert.equal(store.openWatches(), 1);
    } finally {
      controllers.stop();
      await store.close();
    }
  });

  test('Recreate scales the old ReplicaSet to zero before the new one starts', async () => {
    const c = await startTestCluster();
    try {
      const d = deployment('rec', 2);
      (d['spec'] as J)['strategy'] = { type: 'Recreate' };
      await c.store.create('deployments.apps', d);
      await waitFor(
        async () => deploymentCurrent(await c.store.get('deployments.apps', 'default', 'rec')),
        'rec v1',
      );
      let overlap = false;
      const seen = new Map<string, KubeObject>();
      for (const p of await pods(c)) seen.set(p.metadata.name!, p);
      const watch = c.store.watch(
        { resource: 'pods' },
        {
          onEvent: (e) => {
            if (e.type === 'DELETED') seen.delete(e.object.metadata.name!);
            else seen.set(e.object.metadata.name!, e.object);
            const hashes = new Set(
              [...seen.values()]
                .filter((p) => p.metadata.labels?.['app'] === 'rec')
                .map((p) => p.metadata.labels?.['pod-template-hash']),
            );
            if (hashes.size > 1) overlap = true;
          },
          onError: () => undefined,
        },
      );
      const cur = (await c.store.get('deployments.apps', 'default', 'rec'))!;
      const spec = structuredClone(cur['spec'] as J);
      spec['template']['spec']['containers'][0]['image'] = 'nginx:2';
      await c.store.update('deployments.apps', { ...cur, spec });
      await waitFor(async () => {
        const d = await c.store.get('deployments.apps', 'default', 'rec');
        return deploymentCurrent(d) && d?.metadata.generation === 2;
      }, 'rec v2');
      watch.stop();
      assert.equal(overlap, false, 'old and new pods never coexist');
    } finally {
      await c.close();
    }
  });

  test('Indexed jobs complete every index', async () => {
    const c = await startTestCluster();
    try {
      await c.store.create('jobs.batch', {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'idx', namespace: 'default' },
        spec: {
          completions: 3,
          parallelism: 3,
          completionMode: 'Indexed',
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
        },
      });
      const job = await waitFor(async () => {
        const j = await c.store.get('jobs.batch', 'default', 'idx');
        return cond(j, 'Complete')?.['status'] === 'True' ? j : undefined;
      }, 'indexed job complete');
      assert.equal(st(job)['completedIndexes'], '0-2');
      assert.equal(st(job)['succeeded'], 3);
    } finally {
      await c.close();
    }
  });
});
