import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FLEET_API_VERSION, GROUP_BOOTSTRAPPERS, RESOURCES } from '../../fleet/names.js';
import { JOIN_TOKEN_REJECTED_MESSAGE, TokenStore } from '../../security/tokens.js';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { findCondition, type Condition } from '../runtime/conditions.js';
import { ControllerManager } from '../runtime/manager.js';
import { sleep, waitFor } from '../testing/wait.js';
import {
  clusterJoinController,
  hostJoinController,
  JOIN_FINALIZER,
  type JoinStatus,
} from './join.controller.js';

function clusterJoin(name: string, ttlSeconds?: number): KubeObject {
  return {
    apiVersion: FLEET_API_VERSION,
    kind: 'FleetClusterJoin',
    metadata: { name, namespace: 'team' },
    spec: { clusterName: 'edge-1', ...(ttlSeconds ? { ttlSeconds } : {}) },
  };
}

function status(obj: KubeObject | undefined): JoinStatus & { conditions?: Condition[] } {
  return (obj?.['status'] ?? {}) as JoinStatus & { conditions?: Condition[] };
}

function tokenOf(secret: KubeObject): string {
  return Buffer.from((secret['data'] as { token: string }).token, 'base64').toString('utf8');
}

async function rejection(tokens: TokenStore, token: string): Promise<string | undefined> {
  try {
    return (await tokens.authenticate(token)) ? undefined : 'Unauthorized';
  } catch (e) {
    return isApiError(e) && e.code === 401 ? e.message : String(e);
  }
}

describe('join controllers', () => {
  let store: Store;
  let tokens: TokenStore;
  let manager: ControllerManager | undefined;
  before(async () => {
    store = await openStore({ url: 'memory:' });
    tokens = new TokenStore(store, { cacheTtlMs: 0 });
    // An empty store lists at resourceVersion "0", and a watch from "0" is live-only: an object created
    // between the informer's list and its watch would be missed. One object first avoids that race.
    await store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'seed', namespace: 'default' },
    });
  });
  afterEach(async () => {
    await manager?.stop();
    manager = undefined;
  });
  after(async () => {
    await store.close();
  });

  function start(): void {
    manager = new ControllerManager({ store, leaderElection: false });
    manager.add(clusterJoinController({ store, tokens, hubUrl: 'https://hub.example:8443' }));
    manager.add(hostJoinController({ store, tokens, hubUrl: () => 'https://hub.example:8443' }));
    manager.start();
  }

  it('issues one token into an owned Secret and reports the command, never the token', async () => {
    start();
    await store.create(RESOURCES.clusterJoins, clusterJoin('j1'));
    const join = await waitFor(async () => {
      const j = await store.get(RESOURCES.clusterJoins, 'team', 'j1');
      return status(j).phase === 'Ready' ? j : undefined;
    }, 'join ready');
    const s = status(join);
    assert.equal(s.tokenSecretName, 'j1-token');
    assert.equal(findCondition(s.conditions, 'Ready')?.status, 'True');
    assert.match(s.command ?? '', /fleethub agent --hub https:\/\/hub\.example:8443 .*--kubeconfig/);
    assert.match(
      s.command ?? '',
      /kubectl -n team get secret j1-token -o jsonpath='\{\.data\.token\}' \| base64 -d/,
    );
    assert.ok(join.metadata.finalizers?.includes(JOIN_FINALIZER));
    const created = Date.parse(join.metadata.creationTimestamp!);
    assert.equal(Date.parse(s.expirationTime!), created + 86_400_000);

    const secret = (await store.get('secrets', 'team', 'j1-token'))!;
    assert.equal(secret['type'], 'fleethub.io/join-token');
    assert.equal(secret.metadata.ownerReferences?.[0]?.uid, join.metadata.uid);
    const token = tokenOf(secret);
    assert.ok(!JSON.stringify(join).includes(token), 'the token is not in the join');
    const user = await tokens.authenticate(token);
    assert.equal(user?.username, 'fleethub:bootstrap:cluster:team:j1');
    assert.deepEqual(user?.groups, [GROUP_BOOTSTRAPPERS]);
    assert.deepEqual(user?.extra, {
      'fleethub.io/join': ['FleetClusterJoin/team/j1'],
      'fleethub.io/agent-identity': ['fleethub:cluster:team:edge-1'],
    });

    // Level-triggered: another pass (a status poke) issues nothing new.
    await store.update(RESOURCES.clusterJoins, {
      ...join,
      metadata: { ...join.metadata, labels: { x: 'y' } },
    });
    await sleep(100);
    const again = (await store.get('secrets', 'team', 'j1-token'))!;
    assert.equal(tokenOf(again), token);
  });

  it('host joins keep their Secret in fleethub-system and say --host', async () => {
    start();
    await store.create(RESOURCES.hostJoins, {
      apiVersion: FLEET_API_VERSION,
      kind: 'FleetHostJoin',
      metadata: { name: 'hj' },
      spec: { hostName: 'h1' },
    });
    const join = await waitFor(async () => {
      const j = await store.get(RESOURCES.hostJoins, '', 'hj');
      return status(j).phase === 'Ready' ? j : undefined;
    }, 'host join ready');
    assert.match(status(join).command ?? '', /-n fleethub-system get secret hj-token.* --host$/);
    const secret = (await store.get('secrets', 'fleethub-system', 'hj-token'))!;
    const user = await tokens.authenticate(tokenOf(secret));
    assert.equal(user?.username, 'fleethub:bootstrap:host:hj');
  });

  it('expires an unused join on time and retires its token', async () => {
    start();
    await store.create(RESOURCES.clusterJoins, clusterJoin('short', 1));
    const secret = await waitFor(() => store.get('secrets', 'team', 'short-token'), 'secret');
    const token = tokenOf(secret);
    const join = await waitFor(
      async () => {
        const j = await store.get(RESOURCES.clusterJoins, 'team', 'short');
        return status(j).phase === 'Expired' ? j : undefined;
      },
      'join expired',
      4000,
    );
    const ready = findCondition(status(join).conditions, 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, 'Expired');
    assert.equal(await rejection(tokens, token), JOIN_TOKEN_REJECTED_MESSAGE);
  });

  it('on deletion retires the token and removes the Secret', async () => {
    start();
    await store.create(RESOURCES.clusterJoins, clusterJoin('gone'));
    const secret = await waitFor(() => store.get('secrets', 'team', 'gone-token'), 'secret');
    await waitFor(
      async () => (await store.get(RESOURCES.clusterJoins, 'team', 'gone'))?.metadata.finalizers?.length,
      'finalizer',
    );
    await store.delete(RESOURCES.clusterJoins, 'team', 'gone');
    await waitFor(async () => !(await store.get(RESOURCES.clusterJoins, 'team', 'gone')), 'join removed');
    assert.equal(await store.get('secrets', 'team', 'gone-token'), undefined);
    assert.equal(await rejection(tokens, tokenOf(secret)), JOIN_TOKEN_REJECTED_MESSAGE);
  });
});
