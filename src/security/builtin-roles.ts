// The built-in ClusterRoles (fleethub:admin, :operator, :viewer, plus Kubernetes' basic-user and discovery
// roles for every authenticated user) and their bindings, and their reconciliation into the store at start.
import type { KubeObject, Store } from '../store/types.js';
import { isApiError } from '../util/errors.js';
import { RBAC_GROUP, RBAC_RESOURCES, type PolicyRule } from './rbac.js';
import { GROUP_AUTHENTICATED } from './user.js';
import { CERTIFICATES_GROUP, GROUP_BOOTSTRAPPERS } from '../fleet/names.js';

export const ADMIN_ROLE = 'fleethub:admin';
export const OPERATOR_ROLE = 'fleethub:operator';
export const VIEWER_ROLE = 'fleethub:viewer';
/**
 * What a join's bootstrap token may do: create CSRs and read them. The agent authorizer, in front of RBAC,
 * narrows this further for bootstrap users (only CSRs named for their join; see security/bootstrap.ts), so
 * this role documents the grant (and answers for clusters without the agent authorizer).
 */
export const BOOTSTRAPPER_ROLE = 'fleethub:bootstrapper';
export const ADMINS_GROUP = 'fleethub:admins';
export const BOOTSTRAP_LABEL = 'fleethub.io/bootstrapping';
/** Set to "false" on a built-in object to keep the hub from restoring it at start (Kubernetes' annotation). */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * What viewers and operators may read, per API group. Secrets are absent on purpose (RBAC cannot
 * subtract, so everything readable is listed), as are subresources other than status (a future
 * `clusters/kubeconfig` stays admin-only) and audit events (readable by admins only).
 */
const READABLE: Record<string, string[]> = {
  '': ['namespaces', 'configmaps', 'serviceaccounts', 'events'],
  'coordination.k8s.io': ['leases'],
  [RBAC_GROUP]: ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'],
  'fleet.fleethub.io': [
    'clusters',
    'fleetclusterjoins',
    'hosts',
    'fleethostjoins',
    'k3sclusters',
    'fleetsites',
    'fleetcharts',
    'fleetapps',
    'fleetapproutes',
  ],
  'work.open-cluster-management.io': ['manifestworks'],
  'config.projectsveltos.io': ['clusterprofiles', 'profiles', 'clustersummaries'],
  'lib.projectsveltos.io': ['eventsources', 'eventtriggers', 'eventreports'],
};

/** Add-on and app objects operators manage; clusters, hosts, joins, RBAC and Secrets are not among them. */
const OPERATOR_WRITABLE: Record<string, string[]> = {
  'config.projectsveltos.io': ['profiles', 'clusterprofiles'],
  'work.open-cluster-management.io': ['manifestworks'],
  'fleet.fleethub.io': ['fleetcharts', 'fleetapps', 'fleetapproutes'],
  'lib.projectsveltos.io': ['eventsources', 'eventtriggers'],
};

/** Non-resource paths every authenticated user may GET (discovery, OpenAPI, version, health). */
export const DISCOVERY_URLS: readonly string[] = [
  '/api',
  '/api/*',
  '/apis',
  '/apis/*',
  '/version',
  '/version/',
  '/openapi',
  '/openapi/*',
  '/healthz',
  '/readyz',
  '/livez',
];

function readRules(): PolicyRule[] {
  return Object.entries(READABLE).map(([group, resources]) => ({
    apiGroups: [group],
    resources: resources.flatMap((r) => [r, `${r}/status`]),
    verbs: [...READ],
  }));
}

function meta(name: string): KubeObject['metadata'] {
  return {
    name,
    labels: { [BOOTSTRAP_LABEL]: 'rbac-defaults' },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function clusterRole(name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: meta(name), rules };
}

function clusterRoleBinding(name: string, role: string, group: string): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: RBAC_GROUP, kind: 'Group', name: group }],
  };
}

/** The built-in ClusterRoles, fresh objects on every call. */
export function builtinClusterRoles(): KubeObject[] {
  return [
    clusterRole(ADMIN_ROLE, [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole(OPERATOR_ROLE, [
      ...readRules(),
      ...Object.entries(OPERATOR_WRITABLE).map(([group, resources]) => ({
        apiGroups: [group],
        resources: [...resources],
        verbs: [...WRITE],
      })),
    ]),
    clusterRole(VIEWER_ROLE, readRules()),
    clusterRole('system:basic-user', [
      {
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ]),
    clusterRole('system:discovery', [{ nonResourceURLs: [...DISCOVERY_URLS], verbs: ['get'] }]),
    clusterRole(BOOTSTRAPPER_ROLE, [
      {
        apiGroups: [CERTIFICATES_GROUP],
        resources: ['certificatesigningrequests'],
        verbs: ['create', ...READ],
      },
    ]),
  ];
}

/** The built-in ClusterRoleBindings: admins group → fleethub:admin; every authenticated user → basics. */
export function builtinClusterRoleBindings(): KubeObject[] {
  return [
    clusterRoleBinding(ADMINS_GROUP, ADMIN_ROLE, ADMINS_GROUP),
    clusterRoleBinding('system:basic-user', 'system:basic-user', GROUP_AUTHENTICATED),
    clusterRoleBinding('system:discovery', 'system:discovery', GROUP_AUTHENTICATED),
    clusterRoleBinding(BOOTSTRAPPER_ROLE, BOOTSTRAPPER_ROLE, GROUP_BOOTSTRAPPERS),
  ];
}

/**
 * Creates missing built-in objects and restores changed ones (unless annotated autoupdate "false"), so
 * a deleted admin binding comes back at the next start. Returns the names it created or changed.
 */
export async function ensureBuiltinRbac(store: Store): Promise<string[]> {
  const touched: string[] = [];
  const wanted: [string, KubeObject, string[]][] = [
    ...builtinClusterRoles().map((o): [string, KubeObject, string[]] => [
      RBAC_RESOURCES.clusterRoles,
      o,
      ['rules'],
    ]),
    ...builtinClusterRoleBindings().map((o): [string, KubeObject, string[]] => [
      RBAC_RESOURCES.clusterRoleBindings,
      o,
      ['roleRef', 'subjects'],
    ]),
  ];
  for (const [resource, desired, fields] of wanted) {
    const name = desired.metadata.name ?? '';
    const current = await store.get(resource, '', name);
    if (!current) {
      await createIgnoringRace(store, resource, desired);
      touched.push(name);
      continue;
    }
    if (current.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') continue;
    const labelsOk = current.metadata.labels?.[BOOTSTRAP_LABEL] === 'rbac-defaults';
    const same = fields.every((f) => JSON.stringify(current[f]) === JSON.stringify(desired[f]));
    if (same && labelsOk) continue;
    if (
      JSON.stringify(current['roleRef']) !== JSON.stringify(desired['roleRef']) &&
      resource === RBAC_RESOURCES.clusterRoleBindings
    ) {
      // roleRef is immutable: replace the binding.
      await store.delete(resource, '', name);
      await createIgnoringRace(store, resource, desired);
    } else {
      const next: KubeObject = { ...current, metadata: { ...current.metadata } };
      next.metadata.labels = { ...(current.metadata.labels ?? {}), [BOOTSTRAP_LABEL]: 'rbac-defaults' };
      for (const f of fields) next[f] = desired[f];
      try {
        await store.update(resource, next);
      } catch (e) {
        // Another replica reconciled it first (resourceVersion precondition).
        if (!(isApiError(e) && e.code === 409)) throw e;
      }
    }
    touched.push(name);
  }
  return touched;
}

async function createIgnoringRace(store: Store, resource: string, obj: KubeObject): Promise<void> {
  try {
    await store.create(resource, obj);
  } catch (e) {
    // Another replica starting at the same moment created it.
    if (!(isApiError(e) && e.code === 409)) throw e;
  }
}
