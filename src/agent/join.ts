// How an agent gets and keeps its identity: on first start it trades the one-time join token for a
// client certificate (a CSR the hub approves), and before the certificate expires it renews it the same way.
import { AGENT_IDENTITY_EXTRA, csrNameFor } from '../security/bootstrap.js';
import type { KubeObject } from '../store/types.js';
import {
  AGENT_SIGNER,
  GROUP_CLUSTER_AGENTS,
  GROUP_HOST_AGENTS,
  parseAgentUser,
  type AgentIdentity,
} from '../fleet/names.js';
import type { KubeClientApi, KubeConnection, ResourceRef } from '../kube/types.js';
import { Backoff, sleep } from './backoff.js';
import { createAgentCsr, generateAgentKeys } from './csr.js';
import type { AgentCredentials, AgentState } from './state.js';

export type ConnectFn = (connection: KubeConnection) => KubeClientApi;

export const CSR_REF: ResourceRef = {
  group: 'certificates.k8s.io',
  version: 'v1',
  resource: 'certificatesigningrequests',
  kind: 'CertificateSigningRequest',
  namespaced: false,
};

const SELF_SUBJECT_REVIEW_REF: ResourceRef = {
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'selfsubjectreviews',
  kind: 'SelfSubjectReview',
  namespaced: false,
};

/** A join or renewal the hub refused: the CSR's Denied/Failed condition, or a bad token. */
export class JoinError extends Error {
  override name = 'JoinError';
}

export interface CertificateRequestOptions {
  /** How long to wait for the hub's decision; default 5 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

function groupFor(identity: AgentIdentity): string {
  return identity.role === 'cluster' ? GROUP_CLUSTER_AGENTS : GROUP_HOST_AGENTS;
}

/** Asks the hub who the join token belongs to; the token names the identity it may request. */
export async function identityOfJoinToken(
  hub: KubeClientApi,
): Promise<{ bootstrapUser: string; username: string; identity: AgentIdentity }> {
  const review = await hub.create(SELF_SUBJECT_REVIEW_REF, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: {},
  });
  const info = ((review['status'] as { userInfo?: unknown } | undefined)?.userInfo ?? {}) as {
    username?: string;
    extra?: Record<string, string[]>;
  };
  const named = info.extra?.[AGENT_IDENTITY_EXTRA]?.[0];
  const identity = named ? parseAgentUser(named) : undefined;
  if (!named || !identity)
    throw new JoinError(
      `the join token is not a fleethub join token (it authenticates as "${info.username ?? '?'}" and names no agent identity)`,
    );
  return { bootstrapUser: info.username ?? '', username: named, identity };
}

/**
 * Creates a CSR for `username` with a fresh key, waits for the hub to approve and sign it, and returns the
 * certificate and key. The CSR is named for its requester (`csrNameFor`): the hub lets each read only its own.
 */
export async function requestCertificate(
  hub: KubeClientApi,
  username: string,
  csrName: string,
  options: CertificateRequestOptions = {},
): Promise<{ certPem: string; keyPem: string }> {
  const identity = parseAgentUser(username);
  if (!identity) throw new JoinError(`"${username}" is not an agent identity`);
  const keys = generateAgentKeys();
  const request = createAgentCsr(keys.privateKeyPem, {
    commonName: username,
    organizations: [groupFor(identity)],
  });
  await hub.create(CSR_REF, {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: csrName },
    spec: {
      request: Buffer.from(request, 'utf8').toString('base64'),
      signerName: AGENT_SIGNER,
      usages: ['digital signature', 'client auth'],
    },
  });
  const certPem = await waitForCertificate(hub, csrName, options);
  return { certPem, keyPem: keys.privateKeyPem };
}

async function waitForCertificate(
  hub: KubeClientApi,
  name: string,
  options: CertificateRequestOptions,
): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 5 * 60_000);
  const backoff = new Backoff({ initialMs: 100, maxMs: 2000 });
  for (;;) {
    const csr = await hub.get(CSR_REF, undefined, name);
    if (csr) {
      const refused = refusal(csr);
      if (refused) throw new JoinError(`the hub refused certificate request ${name}: ${refused}`);
      const cert = (csr['status'] as { certificate?: unknown } | undefined)?.certificate;
      if (typeof cert === 'string' && cert !== '') return Buffer.from(cert, 'base64').toString('utf8');
    }
    if (Date.now() > deadline || options.signal?.aborted)
      throw new JoinError(`no certificate for request ${name} yet: is the hub's CSR controller running?`);
    await sleep(backoff.next(), options.signal);
  }
}

function refusal(csr: KubeObject): string | undefined {
  const conditions = ((csr['status'] as { conditions?: unknown } | undefined)?.conditions ?? []) as {
    type?: string;
    status?: string;
    reason?: string;
    message?: string;
  }[];
  const bad = conditions.find((c) => (c.type === 'Denied' || c.type === 'Failed') && c.status !== 'False');
  return bad ? `${bad.type} (${bad.reason ?? 'no reason'}): ${bad.message ?? ''}`.trim() : undefined;
}

export type HubEndpoint = Omit<KubeConnection, 'token' | 'certPem' | 'keyPem'>;

/** Requests a certificate over a connection made for just this, and stores what the hub signs. */
async function obtain(
  connect: ConnectFn,
  connection: KubeConnection,
  state: AgentState,
  names: (hub: KubeClientApi) => Promise<{ username: string; csrName: string }>,
  options: CertificateRequestOptions,
): Promise<AgentCredentials> {
  const hub = connect(connection);
  try {
    const { username, csrName } = await names(hub);
    const { certPem, keyPem } = await requestCertificate(hub, username, csrName, options);
    return state.saveCredentials(certPem, keyPem);
  } finally {
    hub.close();
  }
}

/**
 * First start: the join. Reads the identity the token grants, requests a certificate for it and stores it.
 * The token is spent by this (the hub revokes it on approval).
 */
export function join(
  connect: ConnectFn,
  base: HubEndpoint,
  token: string,
  state: AgentState,
  options: CertificateRequestOptions = {},
): Promise<AgentCredentials> {
  return obtain(
    connect,
    { ...base, token },
    state,
    async (hub) => {
      const { bootstrapUser, username } = await identityOfJoinToken(hub);
      return { username, csrName: csrNameFor(bootstrapUser) };
    },
    options,
  );
}

/** Renewal: a CSR authenticated by the current certificate, for the same identity. */
export function renew(
  connect: ConnectFn,
  base: HubEndpoint,
  current: AgentCredentials,
  state: AgentState,
  options: CertificateRequestOptions = {},
): Promise<AgentCredentials> {
  return obtain(
    connect,
    { ...base, certPem: current.certPem, keyPem: current.keyPem },
    state,
    () => Promise.resolve({ username: current.username, csrName: csrNameFor(current.username) }),
    options,
  );
}

/** When to renew: two thirds into the certificate's life (kubelet renews between 70 and 90 %). */
export function renewalTime(creds: AgentCredentials): Date {
  const life = creds.notAfter.getTime() - creds.notBefore.getTime();
  return new Date(creds.notBefore.getTime() + (life * 2) / 3);
}
