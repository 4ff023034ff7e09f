// One simulated Kubernetes cluster: the hub's API server over an in-memory store, the built-in kinds of a
// real cluster, seeded nodes and system objects, RBAC, fault injection and the fake controllers.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiServer, type SubresourceHandler } from '../apiserver/server.js';
import type { UserInfo } from '../apiserver/types.js';
import { bearerToken } from '../security/authn.js';
import { RbacAuthorizer } from '../security/rbac-authorizer.js';
import { RbacIndex, RBAC_RESOURCES } from '../security/rbac.js';
import { KindRegistry } from '../kinds/registry.js';
import { CrdKinds } from '../kinds/crd/index.js';
import { MemoryBackend } from '../store/memory-backend.js';
import { ObjectStore } from '../store/object-store.js';
import type { KubeObject, Store, Watcher } from '../store/types.js';
import { errors, isApiError } from '../util/errors.js';
import { writeError } from '../apiserver/respond.js';
import { formatCidr, hostAddress, parseCidr, subnet } from '../util/ipv4.js';
import { FaultInjector } from './faults.js';
import { podLogHandler } from './pod-log.js';
import { simulatorKinds } from './kinds.js';
import { evictionHandler } from './eviction.js';
import { SimNamespaces } from './namespaces.js';
import { SIM_STORE_OPTIONS } from './store-options.js';
import { evictionDecision, SimControllers, type SimControllerOptions } from './controllers/index.js';
import { resourceName } from '../kinds/types.js';

export interface SimClusterOptions {
  name: string;
  /** What `/version` reports and nodes run; default v1.34.2+k3s1. */
  version?: string;
  /** Number of nodes (the first is the control plane); default 3. */
  nodes?: number;
  /** Pods a node takes (its allocatable `pods`); default 110, kubelet's. */
  maxPods?: number;
  /** Default 10.42.0.0/16; each node gets a /24 of it. */
  podCidr?: string;
  /** Default 10.43.0.0/16; `kubernetes` gets its first address. */
  serviceCidr?: string;
  /** The cluster's bearer token; generated when absent. */
  token?: string;
  /** Require the token (TLS listeners); false serves every caller as an administrator (plain HTTP). */
  requireToken?: boolean;
  /**
   * Behave like an older or stripped-down API server, to see how clients cope (kube-api-sim.md §10):
   * `legacyDiscovery` answers /api and /apis in the pre-1.26 form only, `noOpenApi` serves no /openapi,
   * `rejectProtobuf` answers protobuf request bodies with 415 (what helm and kubectl ≥1.32 cannot survive).
   */
  compat?: { legacyDiscovery?: boolean; noOpenApi?: boolean; rejectProtobuf?: boolean };
  /** Timings of the fake kubelet and controllers (tests make pods start at once). */
  controllers?: Omit<SimControllerOptions, 'prepare' | 'resolveKind' | 'clusterCidr'>;
}

export const DEFAULT_SIM_VERSION = 'v1.34.2+k3s1';

/** The identity behind a simulated cluster's own token: cluster-admin through RBAC, like k3s's admin. */
export const SIM_ADMIN: UserInfo = {
  username: 'system:admin',
  groups: ['system:masters', 'system:authenticated'],
};

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function seedRbac(): [string, KubeObject][] {
  const rbac = 'rbac.authorization.k8s.io/v1';
  const clusterRole = (name: string, rules: object[]): [string, KubeObject] => [
    RBAC_RESOURCES.clusterRoles,
    {
      apiVersion: rbac,
      kind: 'ClusterRole',
      metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
      rules,
    },
  ];
  const binding = (name: string, role: string, group: string): [string, KubeObject] => [
    RBAC_RESOURCES.clusterRoleBindings,
    {
      apiVersion: rbac,
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
    },
  ];
  return [
    clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole('system:discovery', [
      {
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/readyz',
          '/version',
          '/version/',
          '/openapi',
          '/openapi/*',
        ],
        verbs: ['get'],
      },
    ]),
    clusterRole('system:basic-user', [
      {
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ]),
    binding('cluster-admin', 'cluster-admin', 'system:masters'),
    binding('system:discovery', 'system:discovery', 'system:authenticated'),
    binding('system:basic-user', 'system:basic-user', 'system:authenticated'),
  ];
}

function nodeObject(
  cluster: string,
  i: number,
  version: string,
  podCidr: string,
  maxPods: number,
): KubeObject {
  const name = `${cluster}-node-${i + 1}`;
  const controlPlane = i === 0;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': 'k3s',
  };
  if (controlPlane) {
    labels['node-role.kubernetes.io/control-plane'] = 'true';
    labels['node-role.kubernetes.io/master'] = 'true';
  }
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels, annotations: { 'node.alpha.kubernetes.io/ttl': '0' } },
    spec: { podCIDR: podCidr, podCIDRs: [podCidr], providerID: `k3s://${name}` },
    status: {
      addresses: [
        { type: 'InternalIP', address: `172.18.0.${i + 2}` },
        { type: 'Hostname', address: name },
      ],
      allocatable: { cpu: '4', 'ephemeral-storage': '95Gi', memory: '8Gi', pods: String(maxPods) },
      capacity: { cpu: '4', 'ephemeral-storage': '100Gi', memory: '8Gi', pods: String(maxPods) },
      conditions: [
        {
          type: 'MemoryPressure',
          status: 'False',
          reason: 'KubeletHasSufficientMemory',
          message: 'kubelet has sufficient memory available',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
        {
          type: 'DiskPressure',
          status: 'False',
          reason: 'KubeletHasNoDiskPressure',
          message: 'kubelet has no disk pressure',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
        {
          type: 'PIDPressure',
          status: 'False',
          reason: 'KubeletHasSufficientPID',
          message: 'kubelet has sufficient PID available',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: '',
        containerRuntimeVersion: 'containerd://2.0.5-k3s1',
        kernelVersion: '6.8.0-fleethub-sim',
        kubeProxyVersion: version,
        kubeletVersion: version,
        machineID: '',
        operatingSystem: 'linux',
        osImage: 'fleethub simulated node',
        systemUUID: '',
      },
    },
  };
}

/** A cluster in memory: serve it with `handle` (mounted at any path prefix), stop it with `close`. */
export class SimCluster {
  readonly faults = new FaultInjector();
  private readonly watchers: Watcher[] = [];
  private closed = false;
  private crds: CrdKinds | undefined;
  controllers: SimControllers | undefined;
  private namespaces: SimNamespaces | undefined;
  private compat: NonNullable<SimClusterOptions['compat']> = {};

  private constructor(
    readonly name: string,
    readonly version: string,
    readonly token: string,
    readonly store: Store,
    readonly registry: KindRegistry,
    readonly api: ApiServer,
    readonly rbac: RbacIndex,
  ) {}

  static async start(options: SimClusterOptions): Promise<SimCluster> {
    const version = options.version ?? DEFAULT_SIM_VERSION;
    const token = options.token ?? `sim_${randomBytes(24).toString('base64url')}`;
    // An idle cluster must stay small: a short event history (watchers older than it relist) and slow timers.
    const store = await ObjectStore.open(new MemoryBackend(), SIM_STORE_OPTIONS);
    const serviceCidr = options.serviceCidr ?? '10.43.0.0/16';
    const registry = new KindRegistry(simulatorKinds(serviceCidr, hostAddress(parseCidr(serviceCidr), 1)));
    const rbac = new RbacIndex();
    const expected = Buffer.from(token);
    const requireToken = options.requireToken ?? true;
    const subresourceHandlers = new Map<string, SubresourceHandler>([
      ['pods/log', podLogHandler(store)],
      ['pods/eviction', evictionHandler(store, (pod, dryRun) => evictionDecision(store, pod, { dryRun }))],
    ]);
    const api = new ApiServer({
      registry,
      store,
      authenticator: {
        authenticate(req: IncomingMessage): Promise<UserInfo> {
          if (!requireToken) return Promise.resolve(SIM_ADMIN);
          const presented = bearerToken(req.headers.authorization);
          const given = Buffer.from(presented ?? '');
          if (presented !== undefined && given.length === expected.length && timingSafeEqual(given, expected))
            return Promise.resolve(SIM_ADMIN);
          return Promise.reject(errors.unauthorized());
        },
      },
      authorizer: new RbacAuthorizer(rbac),
      version: { gitVersion: version, platform: 'linux/amd64' },
      subresourceHandlers,
    });
    const cluster = new SimCluster(options.name, version, token, store, registry, api, rbac);
    cluster.compat = options.compat ?? {};
    await cluster.seed(options);
    // CRDs become served kinds of this cluster alone (each cluster has its own registry).
    cluster.crds = new CrdKinds(store, registry);
    await cluster.crds.start();
    cluster.controllers = new SimControllers({
      store,
      options: {
        ...options.controllers,
        clusterCidr: options.podCidr ?? '10.42.0.0/16',
        // Objects the controllers create get the API server's create-time defaults, as in a real cluster.
        prepare: (_resource, obj) => {
          const def = registry.byApiVersionKind(obj.apiVersion ?? '', obj.kind ?? '');
          def?.defaults?.(obj);
          return obj;
        },
        resolveKind: (apiVersion, kind) => {
          const def = registry.byApiVersionKind(apiVersion, kind);
          return def ? { resource: resourceName(def), namespaced: def.namespaced } : undefined;
        },
      },
    });
    await cluster.controllers.start();
    cluster.namespaces = new SimNamespaces(store, () => registry.namespacedResources());
    await cluster.namespaces.start();
    return cluster;
  }

  private async seed(options: SimClusterOptions): Promise<void> {
    const store = this.store;
    const create = async (resource: string, obj: KubeObject): Promise<KubeObject | undefined> => {
      try {
        return await store.create(resource, obj);
      } catch (e) {
        if (isApiError(e) && e.code === 409) return undefined;
        throw e;
      }
    };
    for (const name of SYSTEM_NAMESPACES)
      await create('namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      });
    for (const [resource, obj] of seedRbac()) {
      const created = await create(resource, obj);
      if (created) this.rbac.upsert(resource, created);
    }
    // RBAC objects users create later reach the evaluator through one watch.
    const rbacResources = new Set<string>(Object.values(RBAC_RESOURCES));
    for (const resource of rbacResources) {
      this.watchers.push(
        store.watch(
          { resource, resourceVersion: await store.currentResourceVersion() },
          {
            onEvent: (event) => {
              const { namespace = '', name = '' } = event.object.metadata;
              if (event.type === 'DELETED') this.rbac.remove(event.resource, namespace, name);
              else this.rbac.upsert(event.resource, event.object);
            },
            onError: () => undefined,
          },
        ),
      );
    }
    const podCidr = parseCidr(options.podCidr ?? '10.42.0.0/16');
    const serviceCidr = parseCidr(options.serviceCidr ?? '10.43.0.0/16');
    const nodes = options.nodes ?? 3;
    for (let i = 0; i < nodes; i++)
      await create(
        'nodes',
        nodeObject(this.name, i, this.version, formatCidr(subnet(podCidr, 24, i)), options.maxPods ?? 110),
      );
    await create('services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        labels: { component: 'apiserver', provider: 'kubernetes' },
      },
      spec: {
        type: 'ClusterIP',
        clusterIP: hostAddress(serviceCidr, 1),
        clusterIPs: [hostAddress(serviceCidr, 1)],
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
        sessionAffinity: 'None',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        internalTrafficPolicy: 'Cluster',
      },
      status: { loadBalancer: {} },
    });
    await create('servicecidrs.networking.k8s.io', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'ServiceCIDR',
      metadata: { name: 'kubernetes' },
      spec: { cidrs: [formatCidr(serviceCidr)] },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: '',
            message: 'Kubernetes Service CIDR is ready',
            lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          },
        ],
      },
    });
  }

  /** Serves one request; `path` is the request path below the cluster's prefix. */
  handle = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (this.closed) {
      req.socket.destroy();
      return;
    }
    await this.faults.handle(req, res, path, () => {
      const { legacyDiscovery, noOpenApi, rejectProtobuf } = this.compat;
      if (legacyDiscovery && (path === '/api' || path === '/apis' || path === '/api/' || path === '/apis/'))
        req.headers.accept = 'application/json';
      if (noOpenApi && (path === '/openapi' || path.startsWith('/openapi/'))) {
        writeError(res, errors.pathNotFound());
        return Promise.resolve();
      }
      if (
        rejectProtobuf &&
        /application\/vnd\.kubernetes\.protobuf/i.test(req.headers['content-type'] ?? '')
      ) {
        writeError(
          res,
          errors.unsupportedMediaType(req.headers['content-type'] ?? '', [
            'application/json',
            'application/yaml',
          ]),
        );
        return Promise.resolve();
      }
      return this.api.handle(req, res, path);
    });
  };

  async close(): Promise<void> {
    this.closed = true;
    this.crds?.stop();
    this.controllers?.stop();
    this.namespaces?.stop();
    for (const w of this.watchers) w.stop();
    this.api.closeWatches();
    await this.store.close();
  }
}
