// The host agent end to end with real processes: a FleetHostJoin, `fleethub agent --host` joining, the Host's
// facts and health, its confinement (403s with its own certificate), and reused and expired host join tokens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { arch, cpus, hostname, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { type HubProcess, hubRequest, scratchDir, startHubProcess } from '../support/hub.js';
import { kubectl, kubectlOk } from '../support/tools.js';
import {
  type AgentProcess,
  conditionOf,
  eventually,
  joinTokenOf,
  spawnAgentProcess,
} from '../support/agents.js';
import { renderKubeconfig } from '../../src/security/kubeconfig.js';

const SYSTEM_NS = 'fleethub-system';
const LEASE_SECONDS = 2;
/** The smallest spec.ttlSeconds a join accepts (MIN_JOIN_TTL_SECONDS in src/kinds/fleet/common.ts). */
const MIN_TTL_SECONDS = 60;
const REJECTED = /join token is invalid, expired or already used/;

let hub: HubProcess;
const agents: AgentProcess[] = [];
/** When the short-lived join of the expiry test was created (it is created first, so its wait overlaps). */
let staleCreatedAt = 0;
let staleToken = '';

interface AgentOptions {
  /** How the join token reaches the agent; none for a restart on a stored certificate. */
  token?: { env: string } | { file: string } | { flag: string };
  k3s?: boolean;
}

function startHostAgent(stateDir: string, options: AgentOptions = {}): AgentProcess {
  const agent = spawnAgentProcess({
    hubUrl: hub.url,
    caFile: join(hub.dataDir, 'pki', 'ca.crt'),
    stateDir,
    leaseSeconds: LEASE_SECONDS,
    ...(options.token ? { token: options.token } : {}),
    ...(options.k3s ? { env: { FLEETHUB_AGENT_K3S_ENABLED: '1' } } : {}),
  });
  agents.push(agent);
  return agent;
}

/** Waits for an agent that should fail; kills it (and fails) if it is still running after `ms`. */
async function exitCodeOf(agent: AgentProcess, ms = 20_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)));
  const code = await Promise.race([agent.exited, timeout]);
  clearTimeout(timer);
  if (code === 'timeout') {
    await agent.stop();
    assert.fail(`the agent was still running after ${ms} ms:\n${agent.output().slice(-3000)}`);
  }
  return code;
}

function lastLine(output: string): string {
  return output.trimEnd().split('\n').pop() ?? '';
}

async function admin(args: string[], input?: string): Promise<string> {
  return kubectlOk('v35', hub.kubeconfig, args, input === undefined ? {} : { input });
}

async function getJson(args: string[], kubeconfig = hub.kubeconfig): Promise<Record<string, unknown>> {
  return JSON.parse(await kubectlOk('v35', kubeconfig, [...args, '-o', 'json'])) as Record<string, unknown>;
}

const condition = conditionOf;

async function createHostJoin(name: string, spec: Record<string, unknown>): Promise<void> {
  await admin(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'fleet.fleethub.io/v1alpha1',
      kind: 'FleetHostJoin',
      metadata: { name },
      spec,
    }),
  );
}

/** The join token from the Secret `<join>-token` in fleethub-system, as an operator reads it. */
async function hostJoinToken(name: string): Promise<string> {
  return joinTokenOf(hub.kubeconfig, SYSTEM_NS, name);
}

async function hostNames(): Promise<string[]> {
  const list = (await getJson(['get', 'hosts'])) as { items: { metadata: { name: string } }[] };
  return list.items.map((h) => h.metadata.name).sort();
}

type AuditEvent = {
  spec: {
    responseCode: number;
    verb: string;
    resource: string;
    user: { username: string };
    annotations?: Record<string, string>;
  };
};

async function auditEvents(): Promise<AuditEvent[]> {
  return ((await getJson(['get', 'auditevents'])) as { items: AuditEvent[] }).items;
}

/** A kubeconfig that authenticates to the hub with an agent's own certificate and the hub CA file. */
function agentKubeconfig(agent: AgentProcess, name: string): string {
  const path = join(scratchDir('host-agent-kubeconfig-'), `${name}.kubeconfig`);
  writeFileSync(
    path,
    renderKubeconfig({
      server: hub.url,
      caPem: readFileSync(join(hub.dataDir, 'pki', 'ca.crt'), 'utf8'),
      clientCertPem: readFileSync(join(agent.stateDir, 'client.crt'), 'utf8'),
      clientKeyPem: readFileSync(join(agent.stateDir, 'client.key'), 'utf8'),
      user: name,
      context: name,
    }),
  );
  return path;
}

/** Bytes of a resource.Quantity as the agent writes memory (`24684092Ki`, `16Gi`, plain bytes). */
function quantityBytes(q: string): number {
  const m = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(q);
  assert.ok(m, `memory "${q}" is not a binary quantity`);
  const shift = { Ki: 10, Mi: 20, Gi: 30, Ti: 40 }[m[2] as 'Ki'] ?? 0;
  return Number(m[1]) * 2 ** shift;
}

const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };

let main: AgentProcess;
let mainToken: string;

before(async () => {
  hub = await startHubProcess();
  // The smallest TTL the schema allows; created first so its minute runs while the other tests do.
  staleCreatedAt = Date.now();
  await createHostJoin('stale', { hostName: 'stale-host', site: 'oslo', ttlSeconds: MIN_TTL_SECONDS });
  staleToken = await hostJoinToken('stale');
  // While fresh, the token authenticates as the join's bootstrap user (so a later refusal is its expiry).
  const review = await hubRequest(
    hub,
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    {},
    staleToken,
  );
  assert.equal(review.status, 201, review.body);
  assert.match(review.body, /fleethub:bootstrap:host:stale/);
});

after(async () => {
  for (const a of agents) await a.stop();
  await hub?.kill();
});

describe('host agent', () => {
  test('FleetHostJoin → `fleethub agent --host` joins; the Host appears Available with its facts', async () => {
    await createHostJoin('rack-1', { hostName: 'node-a', site: 'lisbon', labels: { rack: 'r1' } });
    const joinObj = await eventually('the host join to be Ready', async () => {
      const j = await getJson(['get', 'fleethostjoin', 'rack-1']);
      return (j['status'] as { command?: string } | undefined)?.command ? j : undefined;
    });
    const command = (joinObj['status'] as { command: string }).command;
    assert.match(command, /kubectl -n fleethub-system get secret rack-1-token /);
    assert.match(command, /fleethub agent --hub https:\/\/\S+ .*--join-token-file \S+ --host$/);
    mainToken = await hostJoinToken('rack-1');
    assert.equal(command.includes(mainToken), false, 'the token is never in status');

    // As the status command does it: the token in a file, the agent told where it is.
    const tokenFile = join(scratchDir('host-token-'), 'join-token');
    writeFileSync(tokenFile, mainToken, { mode: 0o600 });
    main = startHostAgent(scratchDir('host-agent-a-'), { token: { file: tokenFile }, k3s: true });
    const host = await eventually('Host node-a Available', async () => {
      const h = await getJson(['get', 'host', 'node-a']);
      return condition(h, 'Available')?.status === 'True' ? h : undefined;
    }).catch((e: Error) => {
      throw new Error(`${e.message}\nagent output:\n${main.output().slice(-4000)}`);
    });
    assert.equal(condition(host, 'Joined')?.status, 'True');
    const status = host['status'] as {
      hostname: string;
      addresses: { type: string; address: string }[];
      os: string;
      architecture: string;
      cpu: string;
      memory: string;
      k3sEnabled: boolean;
      agentVersion: string;
    };
    // The agent runs on this machine: its facts are this machine's.
    assert.equal(status.hostname, hostname());
    assert.ok(
      status.addresses.some((a) => a.type === 'Hostname' && a.address === hostname()),
      JSON.stringify(status.addresses),
    );
    assert.equal(status.os, type().toLowerCase());
    assert.equal(status.architecture, GO_ARCH[arch()] ?? arch());
    assert.equal(status.cpu, String(cpus().length));
    assert.equal(quantityBytes(status.memory), totalmem());
    assert.equal(status.k3sEnabled, true, 'FLEETHUB_AGENT_K3S_ENABLED=1 opts the host in to k3s work');
    assert.match(status.agentVersion, /^\d+\.\d+\.\d+/);
    assert.equal((host['spec'] as { site: string }).site, 'lisbon');
    const labels = (host['metadata'] as { labels: Record<string, string> }).labels;
    assert.equal(labels['fleet.site'], 'lisbon');
    assert.equal(labels['rack'], 'r1');

    // The human table shows the printer columns.
    const table = await admin(['get', 'hosts']);
    assert.match(table, /^NAME\s+SITE\s+AVAILABLE\s+ARCH\s+CPU\s+MEMORY\s+K3S\s+AGE/);
    assert.match(
      table,
      new RegExp(`\\nnode-a\\s+lisbon\\s+True\\s+${status.architecture}\\s+${status.cpu}\\s`),
    );

    // The identity: client.crt and client.key, readable by the owner only, naming the host.
    for (const file of ['client.crt', 'client.key'])
      assert.equal(statSync(join(main.stateDir, file)).mode & 0o777, 0o600, file);
    const cert = new X509Certificate(readFileSync(join(main.stateDir, 'client.crt')));
    assert.match(cert.subject, /CN=fleethub:host:node-a/);
    assert.match(cert.subject, /O=fleethub:host-agents/);

    const used = await eventually('the join to be Used', async () => {
      const j = await getJson(['get', 'fleethostjoin', 'rack-1']);
      return (j['status'] as { phase?: string }).phase === 'Used' ? j : undefined;
    });
    assert.deepEqual((used['status'] as { hostRef?: unknown }).hostRef, { name: 'node-a' });
  });

  test('restarted without any token, the agent reuses its stored certificate', async () => {
    const certBefore = readFileSync(join(main.stateDir, 'client.crt'), 'utf8');
    const csrNames = async (): Promise<string[]> =>
      (
        (await getJson(['get', 'certificatesigningrequests'])) as { items: { metadata: { name: string } }[] }
      ).items
        .map((c) => c.metadata.name)
        .sort();
    const csrsBefore = await csrNames();
    assert.equal(await main.stop(), 0);
    const restartedAt = Date.now();
    main = startHostAgent(main.stateDir, { k3s: true });
    await eventually('the restarted agent running', async () =>
      /fleethub agent running as fleethub:host:node-a/.test(main.output()) ? true : undefined,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nagent output:\n${main.output().slice(-4000)}`);
    });
    assert.equal(main.child.exitCode, null, 'still running');
    assert.equal(readFileSync(join(main.stateDir, 'client.crt'), 'utf8'), certBefore);
    // It renews its Lease with that certificate (the old process stopped before restartedAt).
    await eventually('the Lease renewed after the restart', async () => {
      const lease = await getJson(['-n', SYSTEM_NS, 'get', 'lease', 'fleethub-host-node-a']);
      const renew = Date.parse((lease['spec'] as { renewTime: string }).renewTime);
      return renew >= restartedAt ? true : undefined;
    });
    // No new certificate request: the restart is not a join.
    assert.deepEqual(await csrNames(), csrsBefore);
    assert.equal(
      condition(await getJson(['get', 'host', 'node-a']), 'Available')?.status,
      'True',
      'the Host stays Available',
    );
  });

  test('with its own certificate the host agent may only read and report its Host (403 otherwise)', async () => {
    // Another machine's Host, made by the admin.
    await admin(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'fleet.fleethub.io/v1alpha1',
        kind: 'Host',
        metadata: { name: 'node-b' },
        spec: { site: 'lisbon' },
      }),
    );
    await admin(['create', 'namespace', 'team-x']);
    const asHost = agentKubeconfig(main, 'node-a');

    assert.equal(
      (await kubectlOk('v35', asHost, ['auth', 'whoami', '-o', 'json'])).includes('fleethub:host:node-a'),
      true,
    );
    // Allowed: its Host (by name or pinned by a field selector), its status, its Lease.
    const own = await getJson(['get', 'host', 'node-a'], asHost);
    assert.equal((own['metadata'] as { name: string }).name, 'node-a');
    const listed = (await getJson(['get', 'hosts', '--field-selector', 'metadata.name=node-a'], asHost)) as {
      items: { metadata: { name: string } }[];
    };
    assert.deepEqual(
      listed.items.map((h) => h.metadata.name),
      ['node-a'],
    );
    const patched = await kubectlOk('v35', asHost, [
      'patch',
      'host',
      'node-a',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"osImage":"patched by its own agent"}}',
      '-o',
      'jsonpath={.status.osImage}',
    ]);
    assert.equal(patched, 'patched by its own agent');
    await kubectlOk('v35', asHost, ['-n', SYSTEM_NS, 'get', 'lease', 'fleethub-host-node-a']);

    // Everything else is 403.
    const forbidden: string[][] = [
      ['get', 'host', 'node-b'],
      ['get', 'hosts'],
      ['get', 'hosts', '--field-selector', 'metadata.name=node-b'],
      ['patch', 'host', 'node-b', '--subresource=status', '--type=merge', '-p', '{"status":{"cpu":"1"}}'],
      ['patch', 'host', 'node-a', '--type=merge', '-p', '{"spec":{"unschedulable":true}}'],
      ['delete', 'host', 'node-a'],
      ['get', 'clusters', '-A'],
      ['-n', 'team-x', 'get', 'clusters'],
      ['get', 'manifestworks', '-A'],
      ['-n', 'team-x', 'get', 'manifestworks'],
      ['-n', SYSTEM_NS, 'get', 'secrets'],
      ['-n', SYSTEM_NS, 'get', 'secret', 'rack-1-token'],
      ['-n', 'team-x', 'get', 'secrets'],
      ['-n', SYSTEM_NS, 'get', 'lease', 'fleethub-host-node-b'],
      ['get', 'fleethostjoins'],
    ];
    for (const args of forbidden) {
      const r = await kubectl('v35', asHost, args);
      assert.notEqual(r.code, 0, `${args.join(' ')} should fail: ${r.stdout}`);
      assert.match(r.stderr, /\(Forbidden\)/, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /User "fleethub:host:node-a"/, `${args.join(' ')}: ${r.stderr}`);
    }
    // The agent authorizer says why.
    const other = await kubectl('v35', asHost, ['get', 'host', 'node-b']);
    assert.match(other.stderr, /a host agent may only read its Host "node-a" and write its status/);
    // Nothing changed: node-b untouched, node-a not deleted, its spec as before.
    const b = await getJson(['get', 'host', 'node-b']);
    assert.equal((b['status'] as { cpu?: string } | undefined)?.cpu, undefined);
    const a = await getJson(['get', 'host', 'node-a']);
    assert.equal((a['spec'] as { unschedulable?: boolean }).unschedulable, undefined);
    // Denials are audited with the agent's name.
    await eventually('the denied Secret read in the audit log', async () =>
      (await auditEvents()).some(
        (e) =>
          e.spec.responseCode === 403 &&
          e.spec.user.username === 'fleethub:host:node-a' &&
          e.spec.resource === 'secrets',
      )
        ? true
        : undefined,
    );
  });

  test('a reused host token: clear error, nonzero exit, no second Host, audited', async (t) => {
    const before = await hostNames();
    const reused = startHostAgent(scratchDir('host-agent-reused-'), { token: { env: mainToken } });
    const code = await exitCodeOf(reused);
    t.diagnostic(`exit ${code}: ${lastLine(reused.output())}`);
    assert.notEqual(code, 0);
    assert.match(reused.output(), REJECTED, reused.output());
    assert.match(reused.output(), /create a new FleetClusterJoin\/FleetHostJoin/);
    assert.doesNotMatch(reused.output(), /agent running/);
    assert.deepEqual(await hostNames(), before);
    assert.equal(statSync(reused.stateDir).isDirectory(), true);
    assert.throws(() => statSync(join(reused.stateDir, 'client.crt')), /ENOENT/);
    // Still inside the used token's read grace, the hub knows whose it was: a denial of its bootstrap user.
    await eventually('the reused token in the audit log', async () =>
      (await auditEvents()).some(
        (e) =>
          e.spec.responseCode === 403 &&
          e.spec.user.username === 'fleethub:bootstrap:host:rack-1' &&
          REJECTED.test(e.spec.annotations?.['authorization.fleethub.io/denied'] ?? ''),
      )
        ? true
        : undefined,
    );
  });

  test('a stopped host agent: its Host goes Available=Unknown within 5 × the lease duration', async (t) => {
    assert.equal(await main.stop(), 0);
    const stopped = Date.now();
    const grace = 5 * LEASE_SECONDS * 1000;
    const available = await eventually(
      'Host node-a Available=Unknown',
      async () => {
        const c = condition(await getJson(['get', 'host', 'node-a']), 'Available');
        return c?.status === 'Unknown' ? c : undefined;
      },
      grace + 10_000,
    );
    const took = Date.now() - stopped;
    t.diagnostic(`Available=Unknown ${took} ms after the stop (grace ${grace} ms)`);
    assert.ok(took <= grace + 5_000, `Unknown after ${took} ms`);
    // Not before the grace either (the last renewal was at most a quarter lease before the stop).
    assert.ok(took >= grace - LEASE_SECONDS * 1000, `Unknown already after ${took} ms`);
    assert.equal(available.reason, 'LeaseExpired');
    assert.match(await admin(['get', 'host', 'node-a']), /\nnode-a\s+lisbon\s+Unknown\s/);
  });

  test('an expired host join token: the agent exits with a clear error, no Host, audited', async (t) => {
    // The join turns Expired on its own once ttlSeconds have passed since its creation.
    const expired = await eventually(
      'the join to turn Expired',
      async () => {
        const j = await getJson(['get', 'fleethostjoin', 'stale']);
        return (j['status'] as { phase?: string }).phase === 'Expired' ? j : undefined;
      },
      Math.max(0, staleCreatedAt + MIN_TTL_SECONDS * 1000 - Date.now()) + 15_000,
    );
    const ready = condition(expired, 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, 'Expired');
    assert.match(ready?.message ?? '', /the join token expired at .* unused; create a new join/);
    assert.match(await admin(['get', 'fleethostjoin', 'stale']), /\nstale\s+stale-host\s+Expired\s/);

    const agent = startHostAgent(scratchDir('host-agent-expired-'), { token: { flag: staleToken } });
    const code = await exitCodeOf(agent);
    t.diagnostic(`exit ${code}: ${lastLine(agent.output())}`);
    assert.notEqual(code, 0);
    // What the operator reads: the hub's 401 message, which names expiry among the causes and says what to do.
    assert.match(agent.output(), REJECTED, agent.output());
    assert.match(agent.output(), /create a new FleetClusterJoin\/FleetHostJoin and use its token/);
    assert.doesNotMatch(agent.output(), /agent running/);
    assert.equal(
      condition(await getJson(['get', 'fleethostjoin', 'stale']), 'Ready')?.reason,
      'Expired',
      'still Expired, not Used',
    );
    assert.deepEqual(
      (await hostNames()).filter((n) => n === 'stale-host'),
      [],
    );
    assert.throws(() => statSync(join(agent.stateDir, 'client.crt')), /ENOENT/);
    // The attempt is audited as a failed authentication naming the token's id (never its secret part).
    const id = /^fh_([0-9a-f]{16})_/.exec(staleToken)?.[1];
    assert.ok(id, 'a fleethub token');
    const event = await eventually('the expired token in the audit log', async () =>
      (await auditEvents()).find(
        (e) =>
          e.spec.responseCode === 401 && e.spec.annotations?.['authentication.fleethub.io/token-id'] === id,
      ),
    );
    assert.match(event.spec.annotations?.['authentication.fleethub.io/failure'] ?? '', REJECTED);
    assert.equal(JSON.stringify(event).includes(staleToken), false, 'the token is not in the audit log');
  });
});
