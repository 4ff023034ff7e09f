import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import {
  AGENT_SIGNER,
  FLEET_API_VERSION,
  GROUP_BOOTSTRAPPERS,
  GROUP_CLUSTER_AGENTS,
  RESOURCES,
  clusterAgentUser,
} from '../../fleet/names.js';
import type { AuditInput } from '../../security/audit.js';
import { bootstrapUser, csrNameFor } from '../../security/bootstrap.js';
import { createCsr, ephemeralPki, generateKeyPair, type Pki } from '../../security/pki.js';
import { JOIN_TOKEN_REJECTED_MESSAGE, JOIN_TOKEN_USED_EXTRA, TokenStore } from '../../security/tokens.js';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { findCondition, type Condition } from '../runtime/conditions.js';
import { ControllerManager } from '../runtime/manager.js';
import { waitFor } from '../testing/wait.js';
import { clusterJoinController, type JoinStatus } from '../join/join.controller.js';
import { csrController, JOIN_TOKEN_READ_GRACE_MS } from './csr.controller.js';

interface CsrStatus {
  conditions?: { type: string; status: string; reason: string; message: string }[];
  certificate?: string;
}

function csrStatus(obj: KubeObject | undefined): CsrStatus {
  return (obj?.['status'] ?? {}) as CsrStatus;
}

async function csrObject(
  name: string,
  requester: { username: string; groups: string[] },
  subject: { commonName: string; organizations: string[] },
  expirationSeconds?: number,
): Promise<KubeObject> {
  const keys = await generateKeyPair();
  const pem = await createCsr(keys, subject);
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(pem).toString('base64'),
      signerName: AGENT_SIGNER,
      usages: ['client auth', 'digital signature'],
      username: requester.username,
      groups: requester.groups,
      ...(expirationSeconds ? { expirationSeconds } : {}),
    },
  };
}

describe('CSR controller', () => {
  let store: Store;
  let tokens: TokenStore;
  let pki: Pki;
  let manager: ControllerManager | undefined;
  const audited: AuditInput[] = [];
  before(async () => {
    store = await openStore({ url: 'memory:' });
    await store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'seed', namespace: 'default' },
    });
    tokens = new TokenStore(store, { cacheTtlMs: 0 });
    pki = await ephemeralPki();
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
    manager.add(clusterJoinController({ store, tokens, hubUrl: 'https://hub' }));
    manager.add(csrController({ store, tokens, ca: pki.ca, audit: { record: (e) => audited.push(e) } }));
    manager.start();
  }

  async function readyJoin(name: string, clusterName: string): Promise<string> {
    await store.create(RESOURCES.clusterJoins, {
      apiVersion: FLEET_API_VERSION,
      kind: 'FleetClusterJoin',
      metadata: { name, namespace: 'team' },
      spec: {
        clusterName,
        site: 'berlin',
        labels: { env: 'prod' },
        clusterNetwork: { pods: { cidrBlocks: ['10.0.0.0/16'] } },
      },
    });
    const secret = await waitFor(() => store.get('secrets', 'team', `${name}-token`), 'token secret');
    return Buffer.from((secret['data'] as { token: string }).token, 'base64').toString();
  }

  async function decided(name: string): Promise<KubeObject> {
    return waitFor(async () => {
      const csr = await store.get(RESOURCES.csrs, '', name);
      return csrStatus(csr).conditions?.length ? csr : undefined;
    }, `decision on ${name}`);
  }

  it('approves a join: signs the identity, uses up the token, creates the Cluster and its Lease', async () => {
    start();
    const token = await readyJoin('j1', 'edge-1');
    const requester = await tokens.authenticate(token);
    assert.ok(requester);
    const name = csrNameFor(requester.username);
    const subject = { commonName: clusterAgentUser('team', 'edge-1'), organizations: [GROUP_CLUSTER_AGENTS] };
    await store.create(RESOURCES.csrs, await csrObject(name, requester, subject, 3600));
    const csr = await decided(name);
    const st = csrStatus(csr);
    assert.equal(st.conditions?.[0]?.type, 'Approved', st.conditions?.[0]?.message);
    const cert = new X509Certificate(Buffer.from(st.certificate!, 'base64').toString());
    assert.match(cert.subject, /CN=fleethub:cluster:team:edge-1/);
    assert.match(cert.subject, /O=fleethub:cluster-agents/);
    assert.ok(cert.checkIssued(new X509Certificate(pki.ca.certPem)));
    const lifetime = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
    assert.ok(lifetime <= 3600_000 + 5 * 60_000 + 1000, `validity follows expirationSeconds (${lifetime})`);

    const join = (await store.get(RESOURCES.clusterJoins, 'team', 'j1'))!;
    const js = join['status'] as JoinStatus;
    assert.equal(js.phase, 'Used');
    assert.deepEqual(js.clusterRef, { namespace: 'team', name: 'edge-1' });
    assert.ok(js.usedTime);

    const cluster = (await store.get(RESOURCES.clusters, 'team', 'edge-1'))!;
    assert.equal(cluster.metadata.labels?.['env'], 'prod');
    assert.equal(cluster.metadata.labels?.['fleethub.io/tenant'], 'team');
    assert.equal(cluster.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'edge-1');
    assert.equal(cluster.metadata.labels?.['fleet.site'], 'berlin');
    assert.deepEqual((cluster['spec'] as { clusterNetwork: unknown }).clusterNetwork, {
      pods: { cidrBlocks: ['10.0.0.0/16'] },
    });
    const joined = findCondition((cluster['status'] as { conditions: Condition[] }).conditions, 'Joined');
    assert.equal(joined?.status, 'True');
    assert.ok(await store.get(RESOURCES.leases, 'team', 'fleethub-agent-edge-1'));

    // One-time: for a short grace the token may only read its CSR (the agent fetches its certificate)…
    const used = await tokens.authenticate(token);
    assert.deepEqual(used?.extra?.[JOIN_TOKEN_USED_EXTRA], ['true']);
    // …then it no longer authenticates, with a message that says why.
    const later = new TokenStore(store, {
      cacheTtlMs: 0,
      now: () => Date.now() + JOIN_TOKEN_READ_GRACE_MS + 1000,
    });
    await assert.rejects(
      () => later.authenticate(token),
      (e) => isApiError(e) && e.code === 401 && e.message === JOIN_TOKEN_REJECTED_MESSAGE,
    );
    const entry = audited.find((a) => a.name === name);
    assert.equal(entry?.verb, 'approve');
    assert.equal(entry?.user.username, requester.username);

    // A second CSR on the same join (a replica that still had the token cached) is denied.
    const again = csrNameFor(requester.username, 'again');
    await store.create(RESOURCES.csrs, await csrObject(again, requester, subject));
    const second = csrStatus(await decided(again)).conditions?.[0];
    assert.equal(second?.type, 'Denied');
    assert.equal(second?.reason, 'TokenUsed');

    // Renewal by the agent itself.
    const agent = { username: clusterAgentUser('team', 'edge-1'), groups: [GROUP_CLUSTER_AGENTS] };
    const renewal = csrNameFor(agent.username, 'renew1');
    await store.create(RESOURCES.csrs, await csrObject(renewal, agent, subject));
    assert.equal(csrStatus(await decided(renewal)).conditions?.[0]?.type, 'Approved');
    // …but never for another identity.
    const steal = csrNameFor(agent.username, 'steal');
    await store.create(
      RESOURCES.csrs,
      await csrObject(steal, agent, {
        commonName: clusterAgentUser('team', 'other'),
        organizations: [GROUP_CLUSTER_AGENTS],
      }),
    );
    assert.equal(csrStatus(await decided(steal)).conditions?.[0]?.reason, 'IdentityMismatch');
  });

  it('denies a join CSR for another identity or with extra groups, and creates nothing', async () => {
    start();
    const token = await readyJoin('j2', 'edge-2');
    const requester = (await tokens.authenticate(token))!;
    const other = csrNameFor(requester.username, 'other');
    await store.create(
      RESOURCES.csrs,
      await csrObject(other, requester, {
        commonName: clusterAgentUser('team', 'edge-1'),
        organizations: [GROUP_CLUSTER_AGENTS],
      }),
    );
    const denied = csrStatus(await decided(other));
    assert.equal(denied.conditions?.[0]?.type, 'Denied');
    assert.equal(denied.conditions?.[0]?.reason, 'IdentityMismatch');
    assert.equal(denied.certificate, undefined);
    const admins = csrNameFor(requester.username, 'admins');
    await store.create(
      RESOURCES.csrs,
      await csrObject(admins, requester, {
        commonName: clusterAgentUser('team', 'edge-2'),
        organizations: [GROUP_CLUSTER_AGENTS, 'fleethub:admins'],
      }),
    );
    assert.equal(csrStatus(await decided(admins)).conditions?.[0]?.reason, 'IdentityMismatch');
    assert.equal(await store.get(RESOURCES.clusters, 'team', 'edge-2'), undefined);
    assert.equal(
      ((await store.get(RESOURCES.clusterJoins, 'team', 'j2'))!['status'] as JoinStatus).phase,
      'Ready',
    );
    assert.ok(await tokens.authenticate(token), 'a denied request does not use the token up');
    assert.equal(
      audited.find((a) => a.name === other)?.annotations?.['certificates.fleethub.io/reason'],
      'IdentityMismatch',
    );
  });

  it('denies unknown requesters, missing joins, bad names and garbage requests', async () => {
    start();
    const subject = { commonName: clusterAgentUser('team', 'x'), organizations: [GROUP_CLUSTER_AGENTS] };
    const cases: [string, KubeObject, string][] = [
      [
        'by-alice',
        await csrObject('by-alice', { username: 'alice', groups: ['fleethub:admins'] }, subject),
        'RequesterNotAllowed',
      ],
    ];
    const ghost = {
      username: bootstrapUser({ role: 'cluster', namespace: 'team', name: 'ghost' }),
      groups: [GROUP_BOOTSTRAPPERS],
    };
    const ghostName = csrNameFor(ghost.username, 'g');
    cases.push([ghostName, await csrObject(ghostName, ghost, subject), 'JoinNotFound']);
    const token = await readyJoin('j3', 'x');
    const requester = (await tokens.authenticate(token))!;
    cases.push([
      'fleethub-join-badname',
      await csrObject('fleethub-join-badname', requester, subject),
      'InvalidRequest',
    ]);
    const garbage = await csrObject(csrNameFor(requester.username, 'junk'), requester, subject);
    (garbage['spec'] as { request: string }).request = Buffer.from('not a csr').toString('base64');
    cases.push([garbage.metadata.name!, garbage, 'InvalidRequest']);
    for (const [, obj] of cases) await store.create(RESOURCES.csrs, obj);
    for (const [name, , reason] of cases) {
      const c = csrStatus(await decided(name)).conditions?.[0];
      assert.equal(c?.type, 'Denied', name);
      assert.equal(c?.reason, reason, `${name}: ${c?.message}`);
    }
    assert.equal(await store.get(RESOURCES.clusters, 'team', 'x'), undefined);
  });
});
