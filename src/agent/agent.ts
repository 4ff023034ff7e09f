// The agent process: establishes its identity (join or stored certificate), then runs its loops
// against the hub — lease renewals, status reports, certificate renewal and, for a cluster, its works.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { parseAgentUser, clusterLeaseName, hostLeaseName, type AgentIdentity } from '../fleet/names.js';
import type { KubeClientApi, KubeConnection } from '../kube/types.js';
import { Backoff, sleep } from './backoff.js';
import type { AgentConfig } from './config.js';
import { ClusterFactsCollector, hostFacts, type ClusterFacts, type HostFacts } from './facts.js';
import { join, renew, renewalTime, type ConnectFn } from './join.js';
import { LeaseRenewer, renewIntervalMs } from './lease.js';
import { leaseNamespace, reportStatus } from './report.js';
import { AgentState, type AgentCredentials } from './state.js';

export interface AgentDeps {
  connect: ConnectFn;
  /** Cluster role: the client for the managed cluster. */
  target?: KubeClientApi;
  logger: Logger;
  /** Started once the identity is known (the cluster agent's ManifestWork loop). */
  workLoop?: (ctx: WorkLoopContext) => { stop(): Promise<void> };
}

export interface WorkLoopContext {
  identity: Extract<AgentIdentity, { role: 'cluster' }>;
  /** The current hub client (it changes when the certificate is renewed). */
  hub: () => KubeClientApi;
  target: KubeClientApi;
  state: AgentState;
  logger: Logger;
}

export interface AgentHandle {
  identity: AgentIdentity;
  username: string;
  /** Stops every loop and closes connections; the Lease then ages and the hub marks the agent Unknown. */
  stop(): Promise<void>;
}

/** How often an unchanged report is written anyway, to move lastContactTime. */
const HEARTBEAT_MS = 5 * 60_000;

/** The identity must still be usable for a minute; an expired certificate cannot renew itself. */
const MIN_REMAINING_MS = 60_000;

export async function startAgent(config: AgentConfig, deps: AgentDeps): Promise<AgentHandle> {
  const { logger } = deps;
  let caPem: string;
  try {
    caPem = readFileSync(config.caFile, 'utf8');
  } catch (e) {
    throw new Error(`--ca-file ${config.caFile}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  if (!caPem.includes('BEGIN CERTIFICATE'))
    throw new Error(`--ca-file ${config.caFile} holds no PEM certificate`);
  const base: Omit<KubeConnection, 'token' | 'certPem' | 'keyPem'> = { server: config.hubUrl, caPem };
  const state = new AgentState(config.stateDir);
  let creds = state.loadCredentials();
  if (creds && creds.notAfter.getTime() - Date.now() < MIN_REMAINING_MS) {
    logger.warn({ notAfter: creds.notAfter }, 'stored certificate has expired; joining again');
    creds = undefined;
  }
  if (!creds) {
    if (!config.joinToken)
      throw new Error(
        `no usable certificate in ${config.stateDir} and no join token: give --join-token-file FILE, ` +
          'FLEETHUB_JOIN_TOKEN or --join-token (create one with a FleetClusterJoin or FleetHostJoin on the hub)',
      );
    creds = await join(deps.connect, base, config.joinToken, state);
    logger.info({ user: creds.username, notAfter: creds.notAfter }, 'joined the hub');
  }
  const identity = parseAgentUser(creds.username);
  if (!identity) throw new Error(`the stored certificate names "${creds.username}", not an agent`);
  if (identity.role !== config.role)
    throw new Error(
      `the state dir holds a ${identity.role} agent identity (${creds.username}) but the agent was started as a ${config.role} agent`,
    );
  if (identity.role === 'cluster' && !deps.target)
    throw new Error('a cluster agent needs its cluster (--kubeconfig)');

  const abort = new AbortController();
  const { signal } = abort;
  let current: AgentCredentials = creds;
  let hub = deps.connect({ ...base, certPem: current.certPem, keyPem: current.keyPem });
  const hubNow = (): KubeClientApi => hub;

  const loops: Promise<void>[] = [];
  const every = (name: string, intervalMs: () => number, step: () => Promise<void>): void => {
    loops.push(
      (async () => {
        const backoff = new Backoff({ initialMs: Math.min(1000, intervalMs()), maxMs: 30_000 });
        while (!signal.aborted) {
          try {
            await step();
            backoff.reset();
            await sleep(intervalMs(), signal);
          } catch (err) {
            if (signal.aborted) break;
            logger.warn({ err: errorText(err), loop: name }, 'agent step failed; retrying');
            await sleep(backoff.next(), signal);
          }
        }
      })(),
    );
  };

  const leaseTarget = {
    namespace: leaseNamespace(identity),
    name: identity.role === 'cluster' ? clusterLeaseName(identity.name) : hostLeaseName(identity.name),
    holderIdentity: current.username,
    durationSeconds: config.leaseDurationSeconds,
  };
  const lease = new LeaseRenewer(hubNow, leaseTarget);
  every(
    'lease',
    () => renewIntervalMs(config.leaseDurationSeconds),
    () => lease.renew(),
  );

  // Facts are read every report interval but written only when the status would change (or every few
  // minutes, to move lastContactTime): liveness is the Lease's job, and a fleet's status writes add up.
  const reportEveryMs = Math.min(60_000, Math.max(1000, config.leaseDurationSeconds * 1000));
  const collector = identity.role === 'cluster' ? new ClusterFactsCollector(deps.target!) : undefined;
  every(
    'report',
    () => reportEveryMs,
    async () => {
      let facts: ClusterFacts | HostFacts | Record<string, never>;
      let problem: string | undefined;
      if (collector) {
        try {
          facts = await collector.collect();
        } catch (err) {
          facts = {};
          problem = `cannot read the cluster: ${errorText(err)}`;
        }
      } else {
        facts = hostFacts(config.k3sEnabled);
      }
      const found = await reportStatus(hub, identity, facts as ClusterFacts | HostFacts, problem, {
        heartbeatMs: HEARTBEAT_MS,
      });
      if (!found)
        logger.warn({ user: current.username }, 'own object not found on the hub; will report again');
    },
  );

  // Certificate renewal: sleep until two thirds of its life, then renew and switch connections.
  loops.push(
    (async () => {
      const backoff = new Backoff({ initialMs: 1000, maxMs: 60_000 });
      while (!signal.aborted) {
        const wait = renewalTime(current).getTime() - Date.now();
        if (wait > 0) {
          // setTimeout holds at most ~24.8 days; wake up and look again.
          await sleep(Math.min(wait, 2 ** 31 - 1), signal);
          continue;
        }
        try {
          const next = await renew(deps.connect, base, current, state, { signal });
          const old = hub;
          current = next;
          hub = deps.connect({ ...base, certPem: current.certPem, keyPem: current.keyPem });
          old.close();
          backoff.reset();
          logger.info({ notAfter: current.notAfter }, 'certificate renewed');
        } catch (err) {
          if (signal.aborted) break;
          logger.warn({ err: errorText(err) }, 'certificate renewal failed; retrying');
          await sleep(backoff.next(), signal);
        }
      }
    })(),
  );

  const works =
    identity.role === 'cluster' && deps.workLoop
      ? deps.workLoop({ identity, hub: hubNow, target: deps.target!, state, logger })
      : undefined;

  logger.info({ user: current.username, role: identity.role }, 'agent running');
  let stopping: Promise<void> | undefined;
  return {
    identity,
    username: current.username,
    stop: () =>
      (stopping ??= (async () => {
        abort.abort();
        await works?.stop();
        await Promise.all(loops);
        hub.close();
        deps.target?.close();
      })()),
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
