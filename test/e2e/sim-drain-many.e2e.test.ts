// kube-api-sim.md §10 check 10's large case: draining a node with more than 500 pods, which kubectl
// lists in pages of 500 (limit/continue), with both kubectl generations against their own cluster.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseSimArgs, startSim, type RunningSim } from '../../src/cli/sim.js';
import { scratchDir } from '../support/hub.js';
import { GENERATIONS, kubectl } from '../support/tools.js';

const dir = scratchDir('fleethub-sim-drain-many-');
const running: RunningSim[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.close()));
});

const PODS = 510;

// Both generations at once: each drain is paced by kubectl's client-side rate limit (~100 s for 510 pods).
describe(`draining a node with ${PODS} pods`, { concurrency: true }, () => {
  for (const gen of GENERATIONS) {
    test(`kubectl ${gen} drains a node holding ${PODS} pods (paged pod list)`, async () => {
      const kc = join(dir, `${gen}.kubeconfig`);
      const name = `many-${gen}`;
      running.push(
        await startSim(
          parseSimArgs([
            'cluster',
            '--listen',
            '127.0.0.1:0',
            '--kubeconfig-out',
            kc,
            '--name',
            name,
            '--max-pods',
            '600',
          ]),
        ),
      );
      const node = `${name}-node-3`;
      const deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'many', namespace: 'default' },
        spec: {
          replicas: PODS,
          selector: { matchLabels: { app: 'many' } },
          template: {
            metadata: { labels: { app: 'many' } },
            // Host network: the node's /24 pod range could not address this many pods.
            spec: {
              hostNetwork: true,
              nodeSelector: { 'kubernetes.io/hostname': node },
              containers: [{ name: 'c', image: 'nginx:1.27' }],
            },
          },
        },
      };
      const applied = await kubectl(gen, kc, ['apply', '-f', '-'], { input: JSON.stringify(deployment) });
      assert.equal(applied.code, 0, applied.stderr);
      const rolled = await kubectl(gen, kc, ['rollout', 'status', 'deployment/many', '--timeout=120s']);
      assert.equal(rolled.code, 0, rolled.stderr);
      const drain = await kubectl(gen, kc, ['drain', node, '--ignore-daemonsets', '--timeout=240s', '-v=6'], {
        timeoutMs: 300_000,
      });
      assert.equal(drain.code, 0, drain.stderr);
      assert.match(drain.stdout, new RegExp(`node/${node} drained`));
      // The pod list came in pages: a second request carried the first page's continue token.
      assert.match(drain.stderr, /pods\?[^\s"]*continue=/);
      const left = await kubectl(gen, kc, [
        'get',
        'pods',
        '--field-selector',
        `spec.nodeName=${node}`,
        '-o',
        'name',
      ]);
      assert.equal(left.stdout.trim(), '');
    });
  }
});
