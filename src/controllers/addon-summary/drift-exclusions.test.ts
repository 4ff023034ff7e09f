// driftExclusions become the work's manifestConfigs: OnSpokeChange ignoreFields per targeted object.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../apiserver/patch/json.js';
import { dottedPath, manifestConfigsFor } from './drift-exclusions.js';

const deployment = (name: string): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'apps' },
});
const configMap: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'apps' },
};
const plural = (o: JsonObject) => `${String(o['kind']).toLowerCase()}s`;

describe('driftExclusions', () => {
  it('JSON pointers become the agent’s dotted paths', () => {
    assert.equal(dottedPath('/spec/replicas'), '.spec.replicas');
    assert.equal(dottedPath('/metadata/annotations/a~1b'), '.metadata.annotations.a/b');
    assert.equal(dottedPath('spec.replicas'), '.spec.replicas');
  });

  it('each targeted object gets its paths; untargeted objects none; no target means every object', () => {
    const configs = manifestConfigsFor(
      [
        { paths: ['/spec/replicas'], target: { kind: 'Deployment', name: 'web.*' } },
        { paths: ['/metadata/labels'] },
      ],
      [deployment('web-1'), deployment('db'), configMap],
      plural,
    );
    assert.deepEqual(
      configs.map((c) => [
        c.resourceIdentifier.resource,
        c.resourceIdentifier.name,
        c.updateStrategy.serverSideApply.ignoreFields[0]!.jsonPaths,
      ]),
      [
        ['deployments', 'web-1', ['.spec.replicas', '.metadata.labels']],
        ['deployments', 'db', ['.metadata.labels']],
        ['configmaps', 'c', ['.metadata.labels']],
      ],
    );
    assert.equal(configs[0]!.updateStrategy.serverSideApply.ignoreFields[0]!.condition, 'OnSpokeChange');
    assert.deepEqual(manifestConfigsFor([], [configMap], plural), []);
  });
});
