// Confinement of agents and join bootstrap users, like Kubernetes' Node authorizer: placed in front of RBAC,
// it alone decides for anyone who is (or claims to be, by name or group) a cluster agent, a host agent or a
// bootstrap user: what is listed below is allowed, everything else is denied; RBAC never sees them.
//
// Cluster agent `fleethub:cluster:<ns>:<c>` (group fleethub:cluster-agents):
//   manifestworks in <ns>: get/update/patch (and status) of a work labelled fleethub.io/cluster=<c>;
//     list/watch only with a label selector requiring fleethub.io/cluster=<c>
//   leases: get/update/patch of `fleethub-agent-<c>` in <ns> (the hub creates it; see below)
//   clusters: get its own Cluster (also list/watch with fieldSelector metadata.name=<c>), update/patch its status
// Host agent `fleethub:host:<h>` (group fleethub:host-agents):
//   hosts: get (list/watch with fieldSelector metadata.name=<h>) its Host, update/patch its status
//   leases: get/update/patch of `fleethub-host-<h>` in fleethub-system
// Agents and bootstrap users: create CSRs; get CSRs named for them (security/bootstrap.ts), list/watch with
//   fieldSelector metadata.name=<such a name>; discovery paths; whoami and can-i reviews.
//
// Lease `create` is not granted: the authorizer cannot see the name of an object being created, and
// a create right would let one agent pre-create another cluster's lease and fake its health. The hub
// creates each agent's Lease (at join, and the agent-health controller when missing).
import type { AuthorizationAttributes, Authorizer, Decision, UserInfo } from '../apiserver/types.js';
import { parseFieldSelector, parseLabelRequirements } from '../apiserver/selectors.js';
import { noopLogger, type Logger } from '../controllers/runtime/logger.js';
import {
  CERTIFICATES_GROUP,
  FLEET_GROUP,
  LABEL_CLUSTER,
  RESOURCES,
  SYSTEM_NAMESPACE,
  WORK_GROUP,
  clusterLeaseName,
  hostLeaseName,
  parseAgentUser,
  type AgentIdentity,
} from '../fleet/names.js';
import type { KubeObject, Store, Watcher } from '../store/types.js';
import { isApiError } from '../util/errors.js';
import {
  agentGroup,
  csrNameOwnedBy,
  isAgentSubject,
  isBootstrapSubject,
  parseBootstrapUser,
} from './bootstrap.js';
import { DISCOVERY_URLS } from './builtin-roles.js';
import { JOIN_TOKEN_REJECTED_MESSAGE, JOIN_TOKEN_USED_EXTRA } from './tokens.js';

/** Which cluster a ManifestWork is labelled for; undefined when unknown (not yet seen, or unlabelled). */
export interface WorkClusterLookup {
  clusterOf(namespace: string, name: string): string | undefined;
}

const allow = (reason: string): Decision => ({ allowed: true, reason });
const deny = (reason: string): Decision => ({ allowed: false, reason });

const READS = new Set(['get', 'list', 'watch']);
const WRITES_OF_OWN = new Set(['get', 'update', 'patch']);

function discoveryAllowed(attrs: AuthorizationAttributes): boolean {
  if (attrs.verb !== 'get' && attrs.verb !== 'head') return false;
  return DISCOVERY_URLS.some((p) =>
    p.endsWith('*') ? attrs.path.startsWith(p.slice(0, -1)) : attrs.path === p,
  );
}

/** The review APIs answering about oneself (`kubectl auth whoami`, `auth can-i`). */
function selfReview(attrs: AuthorizationAttributes): boolean {
  if (attrs.verb !== 'create') return false;
  if (attrs.apiGroup === 'authentication.k8s.io') return attrs.resource === 'selfsubjectreviews';
  if (attrs.apiGroup === 'authorization.k8s.io')
    return attrs.resource === 'selfsubjectaccessreviews' || attrs.resource === 'selfsubjectrulesreviews';
  return false;
}

/** The single `metadata.name=<x>` a field selector pins, if it pins exactly one name. */
function pinnedName(fieldSelector: string | undefined): string | undefined {
  if (!fieldSelector) return undefined;
  try {
    const reqs = parseFieldSelector(fieldSelector).filter(
      (r) => r.field === 'metadata.name' && r.operator !== '!=',
    );
    const names = new Set(reqs.map((r) => r.value));
    return names.size === 1 ? [...names][0] : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a label selector requires `key` to equal exactly `value` (`k=v`, `k==v` or `k in (v)`). */
function requiresLabel(labelSelector: string | undefined, key: string, value: string): boolean {
  if (!labelSelector) return false;
  try {
    return parseLabelRequirements(labelSelector).some(
      (r) =>
        r.key === key &&
        (r.operator === '=' || r.operator === '==' || r.operator === 'in') &&
        r.values.length === 1 &&
        r.values[0] === value,
    );
  } catch {
    return false;
  }
}

function isCsr(attrs: AuthorizationAttributes): boolean {
  return attrs.apiGroup === CERTIFICATES_GROUP && attrs.resource === 'certificatesigningrequests';
}

/** CSR rights shared by bootstrap users and agents: create any, read only those named for the requester. */
function csrDecision(attrs: AuthorizationAttributes, username: string): Decision {
  const sub = attrs.subresource;
  if (attrs.verb === 'create' && !attrs.name && !sub) return allow('agents may request certificates');
  if (attrs.verb === 'get' && (sub === '' || sub === 'status')) {
    return csrNameOwnedBy(attrs.name, username)
      ? allow('own certificate signing request')
      : deny(
          'an agent may only read certificate signing requests named for it (see the agent CSR naming rule)',
        );
  }
  if ((attrs.verb === 'list' || attrs.verb === 'watch') && !sub) {
    const name = pinnedName(attrs.fieldSelector);
    return name !== undefined && csrNameOwnedBy(name, username)
      ? allow('own certificate signing request')
      : deny(
          'an agent may list or watch only its own certificate signing request (fieldSelector metadata.name=<its CSR>)',
        );
  }
  return deny('an agent may only create certificate signing requests and read its own');
}

/** get of one named object, or list/watch pinned to that name by a field selector. */
function readsOnly(attrs: AuthorizationAttributes, name: string): boolean {
  if (attrs.verb === 'get') return attrs.name === name;
  if (attrs.verb === 'list' || attrs.verb === 'watch')
    return !attrs.subresource && pinnedName(attrs.fieldSelector) === name;
  return false;
}

export class AgentAuthorizer implements Authorizer {
  constructor(
    private readonly next: Authorizer,
    private readonly works: WorkClusterLookup,
  ) {}

  authorize(attrs: AuthorizationAttributes): Decision {
    const user = attrs.user;
    const bootstrap = isBootstrapSubject(user);
    const agent = isAgentSubject(user);
    if (!bootstrap && !agent) return this.next.authorize(attrs);
    if (bootstrap && agent) return deny('an identity cannot be both a bootstrap user and an agent');
    if (bootstrap && user.extra?.[JOIN_TOKEN_USED_EXTRA]?.includes('true')) {
      // A used token may only fetch the certificate it was given, for a short grace.
      if (attrs.isResourceRequest && isCsr(attrs) && attrs.verb !== 'create')
        return csrDecision(attrs, user.username);
      return deny(`${JOIN_TOKEN_REJECTED_MESSAGE} (it may only read the certificate it was issued)`);
    }
    if (!attrs.isResourceRequest) {
      return discoveryAllowed(attrs)
        ? allow('discovery is open to agents')
        : deny('agents may only read discovery paths');
    }
    if (selfReview(attrs)) return allow('self reviews are open to agents');
    return bootstrap ? this.bootstrapDecision(attrs, user) : this.agentDecision(attrs, user);
  }

  rulesFor(
    user: UserInfo,
    namespace: string,
  ): { resourceRules: unknown[]; nonResourceRules: unknown[]; incomplete: boolean } {
    if (!isBootstrapSubject(user) && !isAgentSubject(user)) {
      return (
        this.next.rulesFor?.(user, namespace) ?? { resourceRules: [], nonResourceRules: [], incomplete: true }
      );
    }
    // The agent authorizer's rules depend on names and labels RBAC rules cannot express.
    return {
      resourceRules: [],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: [...DISCOVERY_URLS] }],
      incomplete: true,
    };
  }

  private bootstrapDecision(attrs: AuthorizationAttributes, user: UserInfo): Decision {
    if (!parseBootstrapUser(user.username))
      return deny(`"${user.username}" is not a valid bootstrap identity`);
    if (isCsr(attrs)) return csrDecision(attrs, user.username);
    return deny('a join token may only request the agent certificate (certificatesigningrequests)');
  }

  private agentDecision(attrs: AuthorizationAttributes, user: UserInfo): Decision {
    const identity = parseAgentUser(user.username);
    if (!identity) return deny(`"${user.username}" is not a valid agent identity`);
    const group = agentGroup(identity);
    const agentGroups = user.groups.filter((g) => g.startsWith('fleethub:') && g.endsWith('-agents'));
    if (!user.groups.includes(group) || agentGroups.length !== 1)
      return deny(`agent "${user.username}" must be in exactly the group ${group}`);
    if (isCsr(attrs)) return csrDecision(attrs, user.username);
    return identity.role === 'cluster'
      ? this.clusterAgentDecision(attrs, identity)
      : this.hostAgentDecision(attrs, identity);
  }

  private clusterAgentDecision(
    attrs: AuthorizationAttributes,
    id: Extract<AgentIdentity, { role: 'cluster' }>,
  ): Decision {
    const { verb, apiGroup, resource, subresource, namespace, name } = attrs;
    if (apiGroup === WORK_GROUP && resource === 'manifestworks') {
      if (namespace !== id.namespace)
        return deny(`a cluster agent may only read ManifestWorks in its namespace "${id.namespace}"`);
      if (verb === 'list' || verb === 'watch') {
        if (subresource) return deny('no list of subresources');
        return requiresLabel(attrs.labelSelector, LABEL_CLUSTER, id.name)
          ? allow('works of its own cluster')
          : deny(
              `a cluster agent may list or watch ManifestWorks only with labelSelector ${LABEL_CLUSTER}=${id.name}`,
            );
      }
      if (WRITES_OF_OWN.has(verb) && name && (subresource === '' || subresource === 'status')) {
        return this.works.clusterOf(namespace, name) === id.name
          ? allow('a work of its own cluster')
          : deny(`ManifestWork "${name}" is not labelled ${LABEL_CLUSTER}=${id.name}`);
      }
      return deny('a cluster agent may only get, list, watch, update and patch the works of its cluster');
    }
    if (apiGroup === 'coordination.k8s.io' && resource === 'leases') {
      const lease = clusterLeaseName(id.name);
      if (namespace === id.namespace && name === lease && !subresource && WRITES_OF_OWN.has(verb))
        return allow('its own lease');
      return deny(`a cluster agent may only get, update and patch its Lease "${lease}" in "${id.namespace}"`);
    }
    if (apiGroup === FLEET_GROUP && resource === 'clusters' && namespace === id.namespace) {
      if (READS.has(verb) && (subresource === '' || subresource === 'status') && readsOnly(attrs, id.name))
        return allow('its own Cluster');
      if ((verb === 'update' || verb === 'patch') && subresource === 'status' && name === id.name)
        return allow('the status of its own Cluster');
    }
    if (apiGroup === FLEET_GROUP && resource === 'clusters')
      return deny(
        `a cluster agent may only read its Cluster "${id.namespace}/${id.name}" and write its status`,
      );
    return deny('not allowed for cluster agents');
  }

  private hostAgentDecision(
    attrs: AuthorizationAttributes,
    id: Extract<AgentIdentity, { role: 'host' }>,
  ): Decision {
    const { verb, apiGroup, resource, subresource, namespace, name } = attrs;
    if (apiGroup === 'coordination.k8s.io' && resource === 'leases') {
      const lease = hostLeaseName(id.name);
      if (namespace === SYSTEM_NAMESPACE && name === lease && !subresource && WRITES_OF_OWN.has(verb))
        return allow('its own lease');
      return deny(
        `a host agent may only get, update and patch its Lease "${lease}" in "${SYSTEM_NAMESPACE}"`,
      );
    }
    if (apiGroup === FLEET_GROUP && resource === 'hosts') {
      if (READS.has(verb) && (subresource === '' || subresource === 'status') && readsOnly(attrs, id.name))
        return allow('its own Host');
      if ((verb === 'update' || verb === 'patch') && subresource === 'status' && name === id.name)
        return allow('the status of its own Host');
      return deny(`a host agent may only read its Host "${id.name}" and write its status`);
    }
    return deny('not allowed for host agents');
  }
}

export interface WorkClusterIndexOptions {
  store: Store;
  /** Default: ManifestWorks. */
  resource?: string;
  logger?: Logger;
  /** First retry delay after a failed list or watch; doubles per failure up to 30 s. Default 200 ms. */
  backoffBaseMs?: number;
  /** Objects per list page. Default 500. */
  pageSize?: number;
}

/**
 * namespace/name → value of the `fleethub.io/cluster` label of every ManifestWork, fed by list-then-watch.
 * Unlike an Informer it keeps only the label, not the works (which carry whole manifests), so every replica
 * can afford it: authorization runs on every replica.
 */
export class WorkClusterIndex implements WorkClusterLookup {
  private readonly store: Store;
  private readonly resource: string;
  private readonly logger: Logger;
  private readonly backoffBaseMs: number;
  private readonly pageSize: number;
  private clusters = new Map<string, string>();
  private watcher: Watcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private epoch = 0;
  private failures = 0;
  private lastRV = '';
  private synced = false;
  private stopped = false;
  private waiters: (() => void)[] = [];

  constructor(options: WorkClusterIndexOptions) {
    this.store = options.store;
    this.resource = options.resource ?? RESOURCES.manifestWorks;
    this.logger = (options.logger ?? noopLogger).child({ index: this.resource });
    this.backoffBaseMs = options.backoffBaseMs ?? 200;
    this.pageSize = options.pageSize ?? 500;
  }

  clusterOf(namespace: string, name: string): string | undefined {
    return this.clusters.get(`${namespace}/${name}`);
  }

  /** Works indexed (for tests and metrics). */
  get size(): number {
    return this.clusters.size;
  }

  start(): void {
    if (this.stopped) return;
    void this.relist();
  }

  stop(): void {
    this.stopped = true;
    this.epoch++;
    this.watcher?.stop();
    clearTimeout(this.timer);
    for (const w of this.waiters.splice(0)) w();
  }

  waitForSync(): Promise<boolean> {
    if (this.synced || this.stopped) return Promise.resolve(this.synced);
    return new Promise((resolve) => this.waiters.push(() => resolve(this.synced)));
  }

  private set(obj: KubeObject): void {
    const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
    const cluster = obj.metadata.labels?.[LABEL_CLUSTER];
    if (cluster) this.clusters.set(key, cluster);
    else this.clusters.delete(key);
  }

  private async relist(): Promise<void> {
    const epoch = ++this.epoch;
    this.watcher?.stop();
    this.watcher = undefined;
    const fresh = new Map<string, string>();
    let rv = '';
    try {
      let cont: string | undefined;
      do {
        const page = await this.store.list(this.resource, {
          limit: this.pageSize,
          ...(cont ? { continue: cont } : {}),
        });
        if (!rv) rv = page.resourceVersion;
        for (const obj of page.items) {
          const cluster = obj.metadata.labels?.[LABEL_CLUSTER];
          if (cluster) fresh.set(`${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`, cluster);
        }
        cont = page.continue;
      } while (cont);
    } catch (e) {
      if (epoch !== this.epoch) return;
      this.logger.warn({ err: e }, 'list failed');
      this.retry(() => void this.relist());
      return;
    }
    if (epoch !== this.epoch) return;
    this.clusters = fresh;
    this.lastRV = rv;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.waiters.splice(0)) w();
    }
    this.watch(epoch);
  }

  private watch(epoch: number): void {
    const started = Date.now();
    const failed = (error: unknown): void => {
      if (epoch !== this.epoch || this.stopped) return;
      this.watcher = undefined;
      if (Date.now() - started > 5000) this.failures = 0;
      if (isApiError(error) && error.code === 410) this.retry(() => void this.relist(), this.failures === 0);
      else this.retry(() => epoch === this.epoch && this.watch(epoch));
    };
    try {
      this.watcher = this.store.watch(
        { resource: this.resource, resourceVersion: this.lastRV },
        {
          onEvent: (event) => {
            if (epoch !== this.epoch) return;
            this.lastRV = String(event.resourceVersion);
            if (event.type === 'DELETED') {
              this.clusters.delete(
                `${event.object.metadata.namespace ?? ''}/${event.object.metadata.name ?? ''}`,
              );
            } else this.set(event.object);
          },
          onError: failed,
          onProgress: (rv) => {
            if (epoch === this.epoch) this.lastRV = rv;
          },
        },
      );
    } catch (e) {
      failed(e);
    }
  }

  private retry(fn: () => void, immediate = false): void {
    if (this.stopped) return;
    const delay = immediate ? 0 : Math.min(30_000, this.backoffBaseMs * 2 ** this.failures);
    this.failures++;
    clearTimeout(this.timer);
    this.timer = setTimeout(fn, delay);
    this.timer.unref();
  }
}
