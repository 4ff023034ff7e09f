// FleetClusterJoin / FleetHostJoin: each join gets one one-time bootstrap token (its hash in the TokenStore,
// its plaintext only in the Secret `<join>-token`, owned by the join), a status with the command to run the
// agent, and expiry: past `creation + ttlSeconds` an unused join goes Expired and its token is retired.
// A finalizer retires the token and removes the Secret when the join is deleted.
import {
  FLEET_API_VERSION,
  GROUP_BOOTSTRAPPERS,
  LABEL_CAPI_CLUSTER_NAME,
  LABEL_SITE,
  LABEL_TENANT,
  RESOURCES,
  SYSTEM_NAMESPACE,
  clusterAgentUser,
  hostAgentUser,
  joinTokenSecretName,
} from '../../fleet/names.js';
import {
  AGENT_IDENTITY_EXTRA,
  bootstrapUser,
  joinExtraValue,
  JOIN_EXTRA,
  type JoinRef,
} from '../../security/bootstrap.js';
import {
  tokenId,
  type IssueTokenParams,
  type IssuedToken,
  type RetiredReason,
} from '../../security/tokens.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { conditionsOf, formatTime, setCondition } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import { ownedBy, setControllerReference } from '../runtime/owners.js';
import type {
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';

export const CLUSTER_JOIN_KIND = 'FleetClusterJoin';
export const HOST_JOIN_KIND = 'FleetHostJoin';
/** Held by every join until its token is retired and its Secret removed. */
export const JOIN_FINALIZER = 'fleethub.io/join-token';
export const JOIN_TOKEN_SECRET_TYPE = 'fleethub.io/join-token';
/** Names the join on its token Secret. */
export const LABEL_JOIN = 'fleethub.io/join';
/** On a Used join: uid of the CSR that used its token (lets an interrupted approval resume). */
export const ANNOTATION_JOINED_BY_CSR = 'fleethub.io/joined-by-csr';
export const DEFAULT_JOIN_TTL_SECONDS = 86_400;
const SECRETS = RESOURCES.secrets;

export type JoinPhase = 'Pending' | 'Ready' | 'Used' | 'Expired';

/** The part of the TokenStore joins use. */
export interface JoinTokenIssuer {
  issue(params: IssueTokenParams): Promise<IssuedToken>;
  retire(id: string, reason: RetiredReason, options?: { graceMs?: number }): Promise<boolean>;
}

/** The labels the hub stamps on a Cluster (the kind's admission does it for API writes). */
export function clusterLabels(namespace: string, name: string, site?: string): Record<string, string> {
  const labels: Record<string, string> = { [LABEL_TENANT]: namespace, [LABEL_CAPI_CLUSTER_NAME]: name };
  if (site) labels[LABEL_SITE] = site;
  return labels;
}

export interface JoinSpec {
  clusterName?: string;
  hostName?: string;
  site?: string;
  labels?: Record<string, string>;
  clusterNetwork?: unknown;
  ttlSeconds?: number;
}

export interface JoinStatus {
  phase?: JoinPhase;
  conditions?: unknown[];
  command?: string;
  tokenSecretName?: string;
  expirationTime?: string;
  usedTime?: string;
  clusterRef?: { namespace: string; name: string };
  hostRef?: { name: string };
}

export function joinSpec(join: KubeObject): JoinSpec {
  const spec = join['spec'];
  return typeof spec === 'object' && spec !== null ? (spec as JoinSpec) : {};
}

export function joinStatus(join: KubeObject): JoinStatus {
  const status = join['status'];
  return typeof status === 'object' && status !== null ? (status as JoinStatus) : {};
}

/** When a join's token stops working: creation + ttlSeconds (default one day). */
export function joinExpiry(join: KubeObject): Date {
  const created = Date.parse(join.metadata.creationTimestamp ?? '');
  const ttl = joinSpec(join).ttlSeconds;
  const seconds = typeof ttl === 'number' && ttl > 0 ? ttl : DEFAULT_JOIN_TTL_SECONDS;
  return new Date((Number.isFinite(created) ? created : 0) + seconds * 1000);
}

/** Where a join's token Secret lives: the join's namespace, `fleethub-system` for host joins. */
export function joinSecretNamespace(join: KubeObject): string {
  return join.metadata.namespace || SYSTEM_NAMESPACE;
}

/** The join a FleetClusterJoin/FleetHostJoin object is, as a bootstrap identity sees it. */
export function joinRefOf(join: KubeObject): JoinRef {
  const name = join.metadata.name ?? '';
  return join.metadata.namespace
    ? { role: 'cluster', namespace: join.metadata.namespace, name }
    : { role: 'host', name };
}

/** The shell line an operator runs: fetch the token from its Secret, then start the agent with it. */
export function joinCommand(hubUrl: string, join: KubeObject): string {
  const ref = joinRefOf(join);
  const secret = joinTokenSecretName(ref.name);
  const ns = joinSecretNamespace(join);
  const fetch = `kubectl -n ${ns} get secret ${secret} -o jsonpath='{.data.token}' | base64 -d > join-token`;
  const target = ref.role === 'cluster' ? '--kubeconfig ~/.kube/config' : '--host';
  return (
    `${fetch} && fleethub agent --hub ${hubUrl} --ca-file ca.crt --state-dir /var/lib/fleethub-agent ` +
    `--join-token-file ./join-token ${target}`
  );
}

/** Retires the token held in a join's Secret (if the Secret is the join's); returns whether one was found. */
export async function retireJoinToken(
  store: Store,
  tokens: Pick<JoinTokenIssuer, 'retire'>,
  join: KubeObject,
  reason: RetiredReason,
  graceMs?: number,
): Promise<boolean> {
  const secret = await store.get(
    SECRETS,
    joinSecretNamespace(join),
    joinTokenSecretName(join.metadata.name ?? ''),
  );
  if (!secret || !ownedBy(secret, join)) return false;
  const id = tokenIdOfSecret(secret);
  if (id === undefined) return false;
  await tokens.retire(id, reason, graceMs ? { graceMs } : {});
  return true;
}

function tokenIdOfSecret(secret: KubeObject): string | undefined {
  const data = secret['data'] as Record<string, string> | undefined;
  const encoded = data?.['token'];
  if (typeof encoded !== 'string') return undefined;
  return tokenId(Buffer.from(encoded, 'base64').toString('utf8'));
}

export interface JoinKind {
  resource: string;
  kind: typeof CLUSTER_JOIN_KIND | typeof HOST_JOIN_KIND;
}

export const CLUSTER_JOIN: JoinKind = { resource: RESOURCES.clusterJoins, kind: CLUSTER_JOIN_KIND };
export const HOST_JOIN: JoinKind = { resource: RESOURCES.hostJoins, kind: HOST_JOIN_KIND };

export interface JoinReconcilerOptions {
  store: Store;
  tokens: JoinTokenIssuer;
  /** The URL agents reach the hub at (shown in the join command). */
  hubUrl: string | (() => string);
  now?: () => Date;
}

export class JoinReconciler implements Reconciler {
  private readonly store: Store;
  private readonly tokens: JoinTokenIssuer;
  private readonly hubUrl: () => string;
  private readonly now: () => Date;

  constructor(
    private readonly kind: JoinKind,
    options: JoinReconcilerOptions,
  ) {
    this.store = options.store;
    this.tokens = options.tokens;
    const url = options.hubUrl;
    this.hubUrl = typeof url === 'string' ? () => url : url;
    this.now = options.now ?? (() => new Date());
  }

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    let join = await this.store.get(this.kind.resource, req.namespace ?? '', req.name);
    if (!join) return {};
    if (join.metadata.deletionTimestamp) {
      await this.finalize(join);
      return {};
    }
    if (!(join.metadata.finalizers ?? []).includes(JOIN_FINALIZER)) {
      join = await this.store.update(this.kind.resource, {
        ...join,
        metadata: { ...join.metadata, finalizers: [...(join.metadata.finalizers ?? []), JOIN_FINALIZER] },
      });
    }
    const status = joinStatus(join);
    if (status.phase === 'Used') return {};
    const now = this.now();
    const expiry = joinExpiry(join);
    if (status.phase === 'Expired' || now.getTime() >= expiry.getTime()) {
      await retireJoinToken(this.store, this.tokens, join, 'expired');
      await this.writeStatus(join, (s, conditions, generation) => {
        if (s.phase === 'Used') return false; // the CSR controller won the race
        let changed = s.phase !== 'Expired';
        s.phase = 'Expired';
        changed =
          setCondition(
            conditions,
            {
              type: 'Ready',
              status: 'False',
              reason: 'Expired',
              message: `the join token expired at ${formatTime(expiry)} unused; create a new join`,
              observedGeneration: generation,
            },
            now,
          ) || changed;
        return changed;
      });
      if (status.phase !== 'Expired') ctx.logger.info('join expired unused; token retired');
      return {};
    }

    await this.ensureToken(ctx, join, expiry);
    await this.writeStatus(join, (s, conditions, generation) => {
      if (s.phase === 'Used' || s.phase === 'Expired') return false;
      const want = {
        phase: 'Ready' as const,
        tokenSecretName: joinTokenSecretName(req.name),
        expirationTime: formatTime(expiry),
        command: joinCommand(this.hubUrl(), join),
      };
      let changed = false;
      for (const [k, v] of Object.entries(want)) {
        if ((s as Record<string, unknown>)[k] !== v) {
          (s as Record<string, unknown>)[k] = v;
          changed = true;
        }
      }
      return (
        setCondition(
          conditions,
          {
            type: 'Ready',
            status: 'True',
            reason: 'TokenIssued',
            message: `the join token is in Secret ${joinSecretNamespace(join)}/${want.tokenSecretName}; valid until ${want.expirationTime}`,
            observedGeneration: generation,
          },
          now,
        ) || changed
      );
    });
    // Look again right at the expiry, so the join turns Expired on time.
    return { requeueAfterMs: Math.max(1, expiry.getTime() - now.getTime() + 5) };
  }

  /** Issues the token and stores it in the Secret, unless the join's Secret already holds one. */
  private async ensureToken(ctx: ReconcileContext, join: KubeObject, expiry: Date): Promise<void> {
    const namespace = joinSecretNamespace(join);
    const name = joinTokenSecretName(join.metadata.name ?? '');
    const existing = await this.store.get(SECRETS, namespace, name);
    if (existing && ownedBy(existing, join) && tokenIdOfSecret(existing) !== undefined) return;
    if (existing) {
      // A Secret of an earlier join of the same name (or hand-made): its token must not stay usable.
      const id = tokenIdOfSecret(existing);
      if (id !== undefined) await this.tokens.retire(id, 'revoked');
      await this.deleteIgnoringMissing(namespace, name, existing.metadata.uid);
      ctx.logger.info({ secret: name }, 'replaced a token Secret that did not belong to this join');
    }
    const ref = joinRefOf(join);
    const issued = await this.tokens.issue({
      username: bootstrapUser(ref),
      groups: [GROUP_BOOTSTRAPPERS],
      expiresAt: expiry,
      extra: {
        [JOIN_EXTRA]: [joinExtraValue(ref)],
        [AGENT_IDENTITY_EXTRA]: [
          ref.role === 'cluster'
            ? clusterAgentUser(ref.namespace, joinSpec(join).clusterName ?? '')
            : hostAgentUser(joinSpec(join).hostName ?? ''),
        ],
      },
      purpose: 'join',
      description: `one-time join token of ${joinExtraValue(ref)}`,
    });
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels: { [LABEL_JOIN]: join.metadata.name ?? '' } },
      type: JOIN_TOKEN_SECRET_TYPE,
      data: { token: Buffer.from(issued.token, 'utf8').toString('base64') },
    };
    setControllerReference(
      { ...join, apiVersion: join.apiVersion ?? FLEET_API_VERSION, kind: this.kind.kind },
      secret,
    );
    try {
      await this.store.create(SECRETS, secret);
    } catch (e) {
      // Someone else stored a token first (a racing reconcile): ours must never work.
      await this.tokens.retire(issued.id, 'revoked');
      throw e;
    }
    ctx.logger.info({ secret: `${namespace}/${name}` }, 'join token issued');
  }

  private async finalize(join: KubeObject): Promise<void> {
    if (!(join.metadata.finalizers ?? []).includes(JOIN_FINALIZER)) return;
    await retireJoinToken(this.store, this.tokens, join, 'revoked');
    const namespace = joinSecretNamespace(join);
    const name = joinTokenSecretName(join.metadata.name ?? '');
    const secret = await this.store.get(SECRETS, namespace, name);
    if (secret && ownedBy(secret, join))
      await this.deleteIgnoringMissing(namespace, name, secret.metadata.uid);
    await retryOnConflict(async () => {
      const current = await this.store.get(
        this.kind.resource,
        join.metadata.namespace ?? '',
        join.metadata.name ?? '',
      );
      if (!current || current.metadata.uid !== join.metadata.uid) return;
      const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== JOIN_FINALIZER);
      await this.store.update(this.kind.resource, {
        ...current,
        metadata: { ...current.metadata, finalizers },
      });
    });
  }

  private async deleteIgnoringMissing(
    namespace: string,
    name: string,
    uid: string | undefined,
  ): Promise<void> {
    try {
      await this.store.delete(SECRETS, namespace, name, uid ? { preconditions: { uid } } : {});
    } catch (e) {
      if (!(isApiError(e) && (e.code === 404 || e.code === 409))) throw e;
    }
  }

  /** Read-modify-write of the join's status; `mutate` returns whether it changed anything. */
  private async writeStatus(
    join: KubeObject,
    mutate: (status: JoinStatus, conditions: ReturnType<typeof conditionsOf>, generation?: number) => boolean,
  ): Promise<void> {
    await retryOnConflict(async () => {
      const current = await this.store.get(
        this.kind.resource,
        join.metadata.namespace ?? '',
        join.metadata.name ?? '',
      );
      if (!current || current.metadata.uid !== join.metadata.uid) return;
      const next = structuredClone(current);
      const conditions = conditionsOf(next);
      if (mutate(next['status'] as JoinStatus, conditions, next.metadata.generation))
        await this.store.update(this.kind.resource, next, { subresource: 'status' });
    });
  }
}

export type JoinControllerOptions = JoinReconcilerOptions & Omit<ControllerOptions, 'name' | 'reconciler'>;

function joinController(kind: JoinKind, name: string, options: JoinControllerOptions): Controller {
  const reconciler = new JoinReconciler(kind, options);
  // Secrets are not watched: an informer would hold every Secret of the hub, decrypted, in memory. The
  // join is level-triggered on its own events and its expiry requeue.
  return new Controller({ ...options, name, reconciler }).for(kind.resource);
}

/** Reconciles FleetClusterJoins: token, Secret, command, expiry. */
export function clusterJoinController(options: JoinControllerOptions): Controller {
  return joinController(CLUSTER_JOIN, 'fleetclusterjoin', options);
}

/** Reconciles FleetHostJoins (Secrets in fleethub-system). */
export function hostJoinController(options: JoinControllerOptions): Controller {
  return joinController(HOST_JOIN, 'fleethostjoin', options);
}
