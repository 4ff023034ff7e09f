// Approval and signing of agent CertificateSigningRequests (signer fleethub.io/agent-client).
//
// (a) A join's bootstrap user (one-time token): the join must exist, be unexpired and unused; the CSR must be
//     named for the requester (security/bootstrap.ts) and ask for exactly the join's agent identity (CN) and
//     group (O). Then, in an order that resumes after a crash: the token is retired, the join marked Used
//     (annotated with this CSR's uid), the Cluster/Host created (or marked Joined) with its agent Lease, and
//     the certificate signed into the CSR's status with Approved=True.
// (b) An agent renewing: CN must be its own user name, O exactly its group, its Cluster/Host must exist.
// (c) Anything else is Denied with a reason. Every decision is written to the audit log.
//
// Validity: spec.expirationSeconds when given (at least 10 minutes, at most 1 year), else 30 days; never
// beyond the CA's own expiry (signClientCertificate caps it).
import type { AuditInput } from '../../security/audit.js';
import {
  AGENT_SIGNER,
  FLEET_API_VERSION,
  GROUP_BOOTSTRAPPERS,
  LABEL_SITE,
  RESOURCES,
  SYSTEM_NAMESPACE,
  clusterAgentUser,
  clusterLeaseName,
  hostAgentUser,
  hostLeaseName,
  parseAgentUser,
  type AgentIdentity,
} from '../../fleet/names.js';
import { agentGroup, csrNameOwnedBy, parseBootstrapUser, type JoinRef } from '../../security/bootstrap.js';
import { readCsr, signClientCertificate, type CertificateAuthority } from '../../security/pki.js';
import type { RetiredReason } from '../../security/tokens.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { conditionsOf, formatTime, setCondition } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import type {
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';
import {
  ANNOTATION_JOINED_BY_CSR,
  CLUSTER_JOIN,
  HOST_JOIN,
  clusterLabels,
  joinExpiry,
  joinSpec,
  joinStatus,
  retireJoinToken,
} from '../join/join.controller.js';

export const DEFAULT_CERT_VALIDITY_SECONDS = 30 * 24 * 60 * 60;
export const MIN_CERT_VALIDITY_SECONDS = 600;
export const MAX_CERT_VALIDITY_SECONDS = 365 * 24 * 60 * 60;
/** Lease duration written into the Lease the hub creates for an agent (the agent sets its own). */
export const DEFAULT_AGENT_LEASE_SECONDS = 60;
/**
 * After approval the join token still authenticates this long, only to read its own CSR (the agent fetches
 * its certificate); then every use gets the 401 "join token is invalid, expired or already used".
 */
export const JOIN_TOKEN_READ_GRACE_MS = 10 * 60 * 1000;
const ALLOWED_USAGES = new Set(['client auth', 'digital signature', 'key encipherment']);
const CSRS = RESOURCES.csrs;

export type CsrDenyReason =
  | 'IdentityMismatch'
  | 'TokenExpired'
  | 'TokenUsed'
  | 'JoinNotFound'
  | 'InvalidRequest'
  | 'RequesterNotAllowed'
  | 'AgentNotFound';

export interface CsrSpec {
  request?: string;
  signerName?: string;
  expirationSeconds?: number;
  usages?: string[];
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CsrAuditSink {
  record(input: AuditInput): void;
}

export interface CsrReconcilerOptions {
  store: Store;
  tokens: { retire(id: string, reason: RetiredReason, options?: { graceMs?: number }): Promise<boolean> };
  /** How long a used join token may still read its CSR. Default JOIN_TOKEN_READ_GRACE_MS. */
  tokenReadGraceMs?: number;
  /** The hub CA (cert and key); a function so a replaced CA is picked up. */
  ca: CertificateAuthority | (() => CertificateAuthority);
  audit?: CsrAuditSink;
  now?: () => Date;
}

class Denial {
  constructor(
    readonly reason: CsrDenyReason,
    readonly message: string,
  ) {}
}

function csrSpec(csr: KubeObject): CsrSpec {
  const spec = csr['spec'];
  return typeof spec === 'object' && spec !== null ? (spec as CsrSpec) : {};
}

function csrConditions(csr: KubeObject): CsrCondition[] {
  const status = csr['status'] as { conditions?: CsrCondition[] } | undefined;
  return Array.isArray(status?.conditions) ? status.conditions : [];
}

/** Whether the CSR is ours and still undecided. */
export function isPendingAgentCsr(csr: KubeObject): boolean {
  if (csrSpec(csr).signerName !== AGENT_SIGNER) return false;
  return !csrConditions(csr).some((c) => ['Approved', 'Denied', 'Failed'].includes(c.type));
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

export class CsrReconciler implements Reconciler {
  private readonly store: Store;
  private readonly tokens: CsrReconcilerOptions['tokens'];
  private readonly ca: () => CertificateAuthority;
  private readonly audit: CsrAuditSink | undefined;
  private readonly now: () => Date;
  private readonly graceMs: number;

  constructor(options: CsrReconcilerOptions) {
    this.store = options.store;
    this.graceMs = options.tokenReadGraceMs ?? JOIN_TOKEN_READ_GRACE_MS;
    this.tokens = options.tokens;
    const ca = options.ca;
    this.ca = typeof ca === 'function' ? ca : () => ca;
    this.audit = options.audit;
    this.now = options.now ?? (() => new Date());
  }

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const csr = await this.store.get(CSRS, '', req.name);
    if (!csr || csr.metadata.deletionTimestamp || !isPendingAgentCsr(csr)) return {};
    const spec = csrSpec(csr);
    const requester = spec.username ?? '';

    let subject: { commonName: string; organizations: string[] };
    try {
      const pem = Buffer.from(spec.request ?? '', 'base64').toString('utf8');
      subject = await readCsr(pem);
    } catch (e) {
      return this.deny(
        ctx,
        csr,
        new Denial('InvalidRequest', `spec.request is not a valid PKCS#10 request: ${errText(e)}`),
      );
    }
    const usages = spec.usages ?? [];
    if (!usages.includes('client auth') || usages.some((u) => !ALLOWED_USAGES.has(u))) {
      return this.deny(
        ctx,
        csr,
        new Denial(
          'InvalidRequest',
          `usages must include "client auth" and only ${[...ALLOWED_USAGES].map((u) => `"${u}"`).join(', ')}`,
        ),
      );
    }

    const join = parseBootstrapUser(requester);
    if (join) {
      if (!(spec.groups ?? []).includes(GROUP_BOOTSTRAPPERS))
        return this.deny(
          ctx,
          csr,
          new Denial('RequesterNotAllowed', `${requester} is not in group ${GROUP_BOOTSTRAPPERS}`),
        );
      return this.joinRequest(ctx, csr, join, subject);
    }
    const agent = parseAgentUser(requester);
    if (agent) return this.renewal(ctx, csr, agent, subject);
    return this.deny(
      ctx,
      csr,
      new Denial(
        'RequesterNotAllowed',
        `only a join's bootstrap token or an agent may request ${AGENT_SIGNER} certificates; "${requester}" is neither`,
      ),
    );
  }

  /** (a) the first certificate of a joining agent. */
  private async joinRequest(
    ctx: ReconcileContext,
    csr: KubeObject,
    ref: JoinRef,
    subject: { commonName: string; organizations: string[] },
  ): Promise<ReconcileResult> {
    const requester = csrSpec(csr).username ?? '';
    const csrName = csr.metadata.name ?? '';
    const kind = ref.role === 'cluster' ? CLUSTER_JOIN : HOST_JOIN;
    const joinNs = ref.role === 'cluster' ? ref.namespace : '';
    const join = await this.store.get(kind.resource, joinNs, ref.name);
    const joinDesc =
      ref.role === 'cluster' ? `FleetClusterJoin ${ref.namespace}/${ref.name}` : `FleetHostJoin ${ref.name}`;
    if (!join || join.metadata.deletionTimestamp)
      return this.deny(ctx, csr, new Denial('JoinNotFound', `${joinDesc} does not exist (any more)`));
    if (!csrNameOwnedBy(csrName, requester))
      return this.deny(
        ctx,
        csr,
        new Denial(
          'InvalidRequest',
          `a join's CSR must be named ${ref.role === 'cluster' ? `fleethub-join.${ref.namespace}.${ref.name}.<suffix>` : `fleethub-hostjoin.${ref.name}.<suffix>`}`,
        ),
      );
    const spec = joinSpec(join);
    const identity: AgentIdentity =
      ref.role === 'cluster'
        ? { role: 'cluster', namespace: ref.namespace, name: spec.clusterName ?? '' }
        : { role: 'host', name: spec.hostName ?? '' };
    if (!identity.name)
      return this.deny(ctx, csr, new Denial('InvalidRequest', `${joinDesc} names no cluster or host`));
    const status = joinStatus(join);
    const usedByUs = join.metadata.annotations?.[ANNOTATION_JOINED_BY_CSR] === csr.metadata.uid;
    if (status.phase === 'Used' && !usedByUs)
      return this.deny(
        ctx,
        csr,
        new Denial('TokenUsed', `the token of ${joinDesc} was already used; create a new join`),
      );
    if (!usedByUs && (status.phase === 'Expired' || this.now().getTime() >= joinExpiry(join).getTime()))
      return this.deny(
        ctx,
        csr,
        new Denial('TokenExpired', `the token of ${joinDesc} expired at ${formatTime(joinExpiry(join))}`),
      );
    const mismatch = this.identityMismatch(identity, subject);
    if (mismatch) return this.deny(ctx, csr, mismatch);

    // One-time: the token stops working before anything is handed out.
    await retireJoinToken(this.store, this.tokens, join, 'used', this.graceMs);
    const marked = await this.markJoinUsed(join, csr, identity);
    if (!marked)
      return this.deny(
        ctx,
        csr,
        new Denial('TokenUsed', `the token of ${joinDesc} was already used; create a new join`),
      );
    await this.ensureTarget(join, identity, csrName);
    ctx.logger.info({ csr: csrName, agent: agentUser(identity) }, 'join approved');
    return this.approve(ctx, csr, identity, `agent ${agentUser(identity)} joined with ${joinDesc}`);
  }

  /** (b) an agent renewing its own certificate. */
  private async renewal(
    ctx: ReconcileContext,
    csr: KubeObject,
    identity: AgentIdentity,
    subject: { commonName: string; organizations: string[] },
  ): Promise<ReconcileResult> {
    const spec = csrSpec(csr);
    const requester = spec.username ?? '';
    if (!(spec.groups ?? []).includes(agentGroup(identity)))
      return this.deny(
        ctx,
        csr,
        new Denial('RequesterNotAllowed', `${requester} is not in group ${agentGroup(identity)}`),
      );
    if (!csrNameOwnedBy(csr.metadata.name ?? '', requester))
      return this.deny(
        ctx,
        csr,
        new Denial('InvalidRequest', `an agent's CSR must be named ${csrNamePattern(identity)}`),
      );
    const mismatch = this.identityMismatch(identity, subject);
    if (mismatch) return this.deny(ctx, csr, mismatch);
    const target =
      identity.role === 'cluster'
        ? await this.store.get(RESOURCES.clusters, identity.namespace, identity.name)
        : await this.store.get(RESOURCES.hosts, '', identity.name);
    if (!target || target.metadata.deletionTimestamp)
      return this.deny(
        ctx,
        csr,
        new Denial('AgentNotFound', `${describe(identity)} does not exist; the agent must join again`),
      );
    return this.approve(ctx, csr, identity, `certificate renewed for ${agentUser(identity)}`);
  }

  private identityMismatch(
    identity: AgentIdentity,
    subject: { commonName: string; organizations: string[] },
  ): Denial | undefined {
    const want = agentUser(identity);
    if (subject.commonName !== want)
      return new Denial(
        'IdentityMismatch',
        `the request is for "${subject.commonName}", but this requester may only get a certificate for "${want}"`,
      );
    if (!sameSet(subject.organizations, [agentGroup(identity)]))
      return new Denial(
        'IdentityMismatch',
        `the request's organizations must be exactly ["${agentGroup(identity)}"], not ${JSON.stringify(subject.organizations)}`,
      );
    return undefined;
  }

  /** Sets phase Used (annotated with this CSR) unless another CSR used it first; false then. */
  private async markJoinUsed(join: KubeObject, csr: KubeObject, identity: AgentIdentity): Promise<boolean> {
    const resource = identity.role === 'cluster' ? CLUSTER_JOIN.resource : HOST_JOIN.resource;
    const ns = join.metadata.namespace ?? '';
    const name = join.metadata.name ?? '';
    const uid = csr.metadata.uid ?? '';
    return retryOnConflict(async () => {
      let current = await this.store.get(resource, ns, name);
      if (!current || current.metadata.uid !== join.metadata.uid) return false;
      const by = current.metadata.annotations?.[ANNOTATION_JOINED_BY_CSR];
      if (by !== undefined && by !== uid) return false;
      if (by === undefined) {
        if (joinStatus(current).phase === 'Used' || joinStatus(current).phase === 'Expired') return false;
        current = await this.store.update(resource, {
          ...current,
          metadata: {
            ...current.metadata,
            annotations: { ...(current.metadata.annotations ?? {}), [ANNOTATION_JOINED_BY_CSR]: uid },
          },
        });
      }
      if (joinStatus(current).phase === 'Used') return true;
      const next = structuredClone(current);
      const conditions = conditionsOf(next);
      const status = next['status'] as Record<string, unknown>;
      const now = this.now();
      status['phase'] = 'Used';
      status['usedTime'] = formatTime(now);
      if (identity.role === 'cluster')
        status['clusterRef'] = { namespace: identity.namespace, name: identity.name };
      else status['hostRef'] = { name: identity.name };
      setCondition(
        conditions,
        {
          type: 'Ready',
          status: 'False',
          reason: 'TokenUsed',
          message: `the token was used by CertificateSigningRequest ${csr.metadata.name ?? ''}; ${describe(identity)} joined`,
          observedGeneration: next.metadata.generation,
        },
        now,
      );
      await this.store.update(resource, next, { subresource: 'status' });
      return true;
    });
  }

  /** Creates the Cluster/Host (Joined=True) unless present (then only marks it Joined), and its agent Lease. */
  private async ensureTarget(join: KubeObject, identity: AgentIdentity, csrName: string): Promise<void> {
    const spec = joinSpec(join);
    const now = this.now();
    const joined = {
      type: 'Joined',
      status: 'True' as const,
      reason: 'AgentJoined',
      message: `the agent joined through CertificateSigningRequest ${csrName}`,
    };
    const resource = identity.role === 'cluster' ? RESOURCES.clusters : RESOURCES.hosts;
    const ns = identity.role === 'cluster' ? identity.namespace : '';
    const existing = await this.store.get(resource, ns, identity.name);
    if (!existing) {
      const labels: Record<string, string> = { ...(spec.labels ?? {}) };
      const objSpec: Record<string, unknown> = {};
      if (spec.site) objSpec['site'] = spec.site;
      let obj: KubeObject;
      if (identity.role === 'cluster') {
        Object.assign(labels, clusterLabels(identity.namespace, identity.name, spec.site));
        if (spec.clusterNetwork !== undefined) objSpec['clusterNetwork'] = spec.clusterNetwork;
        obj = {
          apiVersion: FLEET_API_VERSION,
          kind: 'Cluster',
          metadata: { name: identity.name, namespace: identity.namespace, labels },
          spec: objSpec,
        };
      } else {
        if (spec.site) labels[LABEL_SITE] = spec.site;
        obj = {
          apiVersion: FLEET_API_VERSION,
          kind: 'Host',
          metadata: { name: identity.name, labels },
          spec: objSpec,
        };
      }
      const conditions = conditionsOf(obj);
      setCondition(conditions, joined, now);
      try {
        await this.store.create(resource, obj);
      } catch (e) {
        if (!(isApiError(e) && e.code === 409)) throw e;
      }
    }
    await retryOnConflict(async () => {
      const current = await this.store.get(resource, ns, identity.name);
      if (!current) return;
      const next = structuredClone(current);
      if (setCondition(conditionsOf(next), joined, now))
        await this.store.update(resource, next, { subresource: 'status' });
    });
    await ensureAgentLease(this.store, identity);
  }

  private async approve(
    ctx: ReconcileContext,
    csr: KubeObject,
    identity: AgentIdentity,
    message: string,
  ): Promise<ReconcileResult> {
    const spec = csrSpec(csr);
    const now = this.now();
    const asked = spec.expirationSeconds;
    const seconds =
      typeof asked === 'number' && asked > 0
        ? Math.min(MAX_CERT_VALIDITY_SECONDS, Math.max(MIN_CERT_VALIDITY_SECONDS, Math.floor(asked)))
        : DEFAULT_CERT_VALIDITY_SECONDS;
    const certPem = await signClientCertificate(this.ca(), {
      commonName: agentUser(identity),
      organizations: [agentGroup(identity)],
      csrPem: Buffer.from(spec.request ?? '', 'base64').toString('utf8'),
      days: seconds / 86_400,
      now,
    });
    await this.writeDecision(csr, { type: 'Approved', reason: 'AgentIdentityVerified', message }, certPem);
    this.record(csr, 'approve', 'AgentIdentityVerified', message);
    ctx.logger.info({ csr: csr.metadata.name, validitySeconds: seconds }, 'certificate signed');
    return {};
  }

  private async deny(ctx: ReconcileContext, csr: KubeObject, denial: Denial): Promise<ReconcileResult> {
    await this.writeDecision(csr, { type: 'Denied', reason: denial.reason, message: denial.message });
    this.record(csr, 'deny', denial.reason, denial.message);
    ctx.logger.warn(
      { csr: csr.metadata.name, requester: csrSpec(csr).username, reason: denial.reason },
      denial.message,
    );
    return {};
  }

  private async writeDecision(
    csr: KubeObject,
    decision: { type: 'Approved' | 'Denied'; reason: string; message: string },
    certPem?: string,
  ): Promise<void> {
    const time = formatTime(this.now());
    await retryOnConflict(async () => {
      const current = await this.store.get(CSRS, '', csr.metadata.name ?? '');
      if (!current || current.metadata.uid !== csr.metadata.uid || !isPendingAgentCsr(current)) return;
      const next = structuredClone(current);
      const status = (
        typeof next['status'] === 'object' && next['status'] !== null ? next['status'] : (next['status'] = {})
      ) as Record<string, unknown>;
      const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as CsrCondition[]) : [];
      conditions.push({ ...decision, status: 'True', lastUpdateTime: time, lastTransitionTime: time });
      status['conditions'] = conditions;
      if (certPem) status['certificate'] = Buffer.from(certPem, 'utf8').toString('base64');
      await this.store.update(CSRS, next, { subresource: 'status' });
    });
  }

  private record(csr: KubeObject, decision: 'approve' | 'deny', reason: string, message: string): void {
    const spec = csrSpec(csr);
    const name = csr.metadata.name ?? '';
    this.audit?.record({
      time: this.now(),
      user: {
        username: spec.username ?? '',
        groups: [...(spec.groups ?? [])],
        ...(spec.uid ? { uid: spec.uid } : {}),
      },
      verb: decision,
      apiGroup: 'certificates.k8s.io',
      resource: 'certificatesigningrequests',
      subresource: 'approval',
      name,
      responseCode: decision === 'approve' ? 200 : 403,
      requestURI: `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}/approval`,
      userAgent: 'fleethub-csr-controller',
      annotations: {
        'authorization.k8s.io/decision': decision === 'approve' ? 'allow' : 'forbid',
        'certificates.fleethub.io/reason': reason,
        'certificates.fleethub.io/message': message.slice(0, 512),
      },
    });
  }
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function agentUser(identity: AgentIdentity): string {
  return identity.role === 'cluster'
    ? clusterAgentUser(identity.namespace, identity.name)
    : hostAgentUser(identity.name);
}

function describe(identity: AgentIdentity): string {
  return identity.role === 'cluster'
    ? `Cluster ${identity.namespace}/${identity.name}`
    : `Host ${identity.name}`;
}

function csrNamePattern(identity: AgentIdentity): string {
  return identity.role === 'cluster'
    ? `fleethub-cluster.${identity.namespace}.${identity.name}.<suffix>`
    : `fleethub-host.${identity.name}.<suffix>`;
}

/** Where an agent's Lease lives. */
export function agentLeaseKey(identity: AgentIdentity): { namespace: string; name: string } {
  return identity.role === 'cluster'
    ? { namespace: identity.namespace, name: clusterLeaseName(identity.name) }
    : { namespace: SYSTEM_NAMESPACE, name: hostLeaseName(identity.name) };
}

/** Creates the agent's Lease (no renewTime: never renewed yet) unless it exists; agents may not create it. */
export async function ensureAgentLease(store: Store, identity: AgentIdentity): Promise<void> {
  const { namespace, name } = agentLeaseKey(identity);
  if (await store.get(RESOURCES.leases, namespace, name)) return;
  try {
    await store.create(RESOURCES.leases, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace },
      spec: { holderIdentity: agentUser(identity), leaseDurationSeconds: DEFAULT_AGENT_LEASE_SECONDS },
    });
  } catch (e) {
    if (!(isApiError(e) && e.code === 409)) throw e;
  }
}

export type CsrControllerOptions = CsrReconcilerOptions & Omit<ControllerOptions, 'name' | 'reconciler'>;

/** Approves/denies and signs pending CSRs for the agent signer. */
export function csrController(options: CsrControllerOptions): Controller {
  const reconciler = new CsrReconciler(options);
  return new Controller({ ...options, name: 'csr-approver', reconciler }).for(CSRS, {
    predicate: (obj) => isPendingAgentCsr(obj),
  });
}
