// Discovery from the kind registry: `/version`, aggregated `/api` and `/apis` (v2, v2beta1) and the legacy
// APIVersions/APIGroupList/APIGroup/APIResourceList forms, built once per registry and served as prepared bytes.
import { createHash } from 'node:crypto';
import type { TObject } from '@sinclair/typebox';
import {
  ALL_VERBS,
  apiVersionOf,
  type ExtraSubresource,
  type KindDefinition,
  type Verb,
} from '../kinds/types.js';
import { acceptsMediaType, parseAccept } from './accept.js';

/**
 * A subresource whose request/response kind may differ from its parent's: `serviceaccounts/token`
 * (authentication.k8s.io/v1 TokenRequest, create), `deployments/scale` (autoscaling/v1 Scale), `pods/eviction`.
 * `status` is not listed here; `subresources.status` on the kind covers it. Adds to KindDefinition's
 * ExtraSubresource an optional schema, so the subresource kind gets an OpenAPI component.
 */
export interface SubresourceDefinition extends ExtraSubresource {
  /** The subresource kind's schema, published as an OpenAPI component; without it only the path is published. */
  schema?: TObject;
  description?: string;
}

/** `<kind>/scale` for a kind that says where its replicas are (`scale`), unless it lists one itself. */
export function extraSubresourcesOf(kind: ServedKind): SubresourceDefinition[] {
  const extra = kind.extraSubresources ?? [];
  if (!kind.scale || extra.some((s) => s.name === 'scale')) return extra;
  return [
    ...extra,
    { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
  ];
}

/** A kind as discovery and OpenAPI see it: a KindDefinition whose extra subresources may carry schemas. */
export type ServedKind = Omit<KindDefinition, 'extraSubresources'> & {
  extraSubresources?: SubresourceDefinition[];
};

/** A ready HTTP answer: the router writes status, headers and body as they are. */
export interface PreparedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

// ---------------------------------------------------------------------------------------------------
// /version

export interface VersionOptions {
  /** Semver with a leading v; helm checks charts' kubeVersion against it. Default v1.35.0. */
  gitVersion?: string;
  gitCommit?: string;
  buildDate?: string;
  goVersion?: string;
  platform?: string;
  /** 1.33+ servers report emulation/min-compatibility versions; set false to leave them out. */
  emulationFields?: boolean;
}

export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export const DEFAULT_GIT_VERSION = 'v1.35.0';

export function versionInfo(options: VersionOptions = {}): VersionInfo {
  const gitVersion = options.gitVersion ?? DEFAULT_GIT_VERSION;
  const match = /^v(\d+)\.(\d+)\.(\d+)([-+].*)?$/.exec(gitVersion);
  if (!match)
    throw new Error(`gitVersion ${JSON.stringify(gitVersion)} is not a Kubernetes semver like v1.35.0`);
  const major = match[1]!;
  const minor = match[2]!;
  const info: VersionInfo = { major, minor } as VersionInfo;
  // The emulation fields came with 1.33; older servers never send them and clients treat them as optional.
  if (options.emulationFields !== false && (Number(major) > 1 || Number(minor) >= 33)) {
    info.emulationMajor = major;
    info.emulationMinor = minor;
    info.minCompatibilityMajor = major;
    info.minCompatibilityMinor = String(Number(minor) - 1);
  }
  info.gitVersion = gitVersion;
  info.gitCommit = options.gitCommit ?? createHash('sha1').update(`fleethub ${gitVersion}`).digest('hex');
  info.gitTreeState = 'clean';
  info.buildDate = options.buildDate ?? '2026-01-01T00:00:00Z';
  info.goVersion = options.goVersion ?? 'go1.25.5';
  info.compiler = 'gc';
  info.platform = options.platform ?? 'linux/amd64';
  return info;
}

// ---------------------------------------------------------------------------------------------------
// Ordering and grouping

export interface GroupVersionKinds {
  group: string;
  version: string;
  /** `v1` or `apps/v1`. */
  groupVersion: string;
  /** Sorted by plural. */
  kinds: ServedKind[];
}

export interface GroupKinds {
  /** '' for the core group. */
  group: string;
  /** Preferred version first. */
  versions: GroupVersionKinds[];
}

export interface RegistryLayout {
  core: GroupKinds | undefined;
  /** Kubernetes groups in the apiserver's order, then all others alphabetically. */
  groups: GroupKinds[];
}

/** The order kube-apiserver lists its groups in (its APIService group priorities). */
const KUBERNETES_GROUP_ORDER = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'resource.k8s.io',
  'storagemigration.k8s.io',
];

/** Groups served by kube-apiserver itself (core included); everything else is "ours" or a CRD group. */
export function isKubernetesGroup(group: string): boolean {
  return group === '' || KUBERNETES_GROUP_ORDER.includes(group) || group === 'extensions';
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Kubernetes version priority: GA before beta before alpha, higher numbers first, then versions that do
 * not look like Kubernetes versions alphabetically. Negative when `a` is preferred.
 */
export function compareKubeVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stability = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  return (
    stability(mb) - stability(ma) || Number(mb[1]) - Number(ma[1]) || Number(mb[3] ?? 0) - Number(ma[3] ?? 0)
  );
}

function compareGroups(a: string, b: string): number {
  const ia = KUBERNETES_GROUP_ORDER.indexOf(a);
  const ib = KUBERNETES_GROUP_ORDER.indexOf(b);
  if (ia >= 0 || ib >= 0) return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Groups and versions in serving order. Throws when two kinds claim the same group/version/plural. */
export function layoutRegistry(kinds: readonly ServedKind[]): RegistryLayout {
  const byGroup = new Map<string, Map<string, ServedKind[]>>();
  for (const kind of kinds) {
    let versions = byGroup.get(kind.group);
    if (!versions) byGroup.set(kind.group, (versions = new Map()));
    let list = versions.get(kind.version);
    if (!list) versions.set(kind.version, (list = []));
    if (list.some((k) => k.plural === kind.plural)) {
      throw new Error(`two kinds serve ${kind.plural} in ${apiVersionOf(kind)}`);
    }
    list.push(kind);
  }
  const groups: GroupKinds[] = [];
  for (const [group, versions] of byGroup) {
    const ordered = [...versions.keys()].sort(compareKubeVersions).map((version) => ({
      group,
      version,
      groupVersion: group ? `${group}/${version}` : version,
      kinds: [...versions.get(version)!].sort((x, y) =>
        x.plural < y.plural ? -1 : x.plural > y.plural ? 1 : 0,
      ),
    }));
    groups.push({ group, versions: ordered });
  }
  groups.sort((a, b) => compareGroups(a.group, b.group));
  const core = groups.find((g) => g.group === '');
  return { core, groups: groups.filter((g) => g.group !== '') };
}

function sortedVerbs(verbs: readonly Verb[] | undefined): string[] {
  return [...(verbs ?? ALL_VERBS)].sort();
}

const STATUS_VERBS = ['get', 'patch', 'update'];

// ---------------------------------------------------------------------------------------------------
// Legacy discovery

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
}

/** What storage-version migrators compare; the apiserver derives it from group/version/kind the same way. */
function storageVersionHash(kind: ServedKind): string {
  return createHash('sha256')
    .update(`${kind.group}/${kind.version}/${kind.kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

/** The resource and its subresources (`pods`, `pods/eviction`, `pods/status`), sorted by name. */
export function apiResourcesOf(kind: ServedKind): APIResource[] {
  const verbs = sortedVerbs(kind.verbs);
  const main: APIResource = {
    name: kind.plural,
    singularName: kind.singular,
    namespaced: kind.namespaced,
    kind: kind.kind,
    verbs,
  };
  if (kind.shortNames?.length) main.shortNames = [...kind.shortNames];
  if (kind.categories?.length) main.categories = [...kind.categories];
  // Only kinds with storage have a storage version; create-only reviews have none.
  if (verbs.includes('get')) main.storageVersionHash = storageVersionHash(kind);
  const out = [main];
  if (kind.subresources?.status) {
    out.push({
      name: `${kind.plural}/status`,
      singularName: '',
      namespaced: kind.namespaced,
      kind: kind.kind,
      verbs: [...STATUS_VERBS],
    });
  }
  for (const sub of extraSubresourcesOf(kind)) {
    out.push({
      name: `${kind.plural}/${sub.name}`,
      singularName: '',
      namespaced: kind.namespaced,
      group: sub.group,
      version: sub.version,
      kind: sub.kind,
      verbs: sortedVerbs(sub.verbs),
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function apiResourceListOf(gv: GroupVersionKinds): APIResourceList {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: gv.groupVersion,
    resources: gv.kinds.flatMap(apiResourcesOf),
  };
}

function apiGroupOf(group: GroupKinds): APIGroup {
  const versions = group.versions.map((v) => ({ groupVersion: v.groupVersion, version: v.version }));
  return { name: group.group, versions, preferredVersion: versions[0]! };
}

/** `GET /api`. */
export function apiVersions(layout: RegistryLayout, serverAddress = '127.0.0.1:6443'): APIVersions {
  return {
    kind: 'APIVersions',
    versions: layout.core?.versions.map((v) => v.version) ?? [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** `GET /apis`. */
export function apiGroupList(layout: RegistryLayout): APIGroupList {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: layout.groups.map(apiGroupOf) };
}

/** `GET /apis/{group}`; undefined for a group nobody serves. */
export function apiGroup(layout: RegistryLayout, group: string): APIGroup | undefined {
  const found = layout.groups.find((g) => g.group === group);
  return found ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupOf(found) } : undefined;
}

/** `GET /api/v1` (groupVersion `v1`) or `GET /apis/{g}/{v}` (`g/v`); undefined when not served. */
export function apiResourceList(layout: RegistryLayout, groupVersion: string): APIResourceList | undefined {
  const slash = groupVersion.indexOf('/');
  const group = slash < 0 ? '' : groupVersion.slice(0, slash);
  const g = group === '' ? layout.core : layout.groups.find((x) => x.group === group);
  const gv = g?.versions.find((v) => v.groupVersion === groupVersion);
  return gv ? apiResourceListOf(gv) : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Aggregated discovery

export type AggregatedFormat = 'v2' | 'v2beta1';
export type DiscoveryFormat = AggregatedFormat | 'legacy';

/** client-go picks aggregated vs legacy parsing by these exact response Content-Types, not by the body. */
export const DISCOVERY_CONTENT_TYPES: Readonly<Record<DiscoveryFormat, string>> = {
  v2: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  v2beta1: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  legacy: 'application/json',
};

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  freshness: 'Current' | 'Stale';
  resources: APIResourceDiscovery[];
}

export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${AggregatedFormat}`;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

function resourceDiscoveryOf(kind: ServedKind): APIResourceDiscovery {
  const entry: APIResourceDiscovery = {
    resource: kind.plural,
    responseKind: { group: kind.group, version: kind.version, kind: kind.kind },
    scope: kind.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: kind.singular,
    verbs: sortedVerbs(kind.verbs),
  };
  if (kind.shortNames?.length) entry.shortNames = [...kind.shortNames];
  if (kind.categories?.length) entry.categories = [...kind.categories];
  const subs: APISubresourceDiscovery[] = [];
  if (kind.subresources?.status) {
    subs.push({ subresource: 'status', responseKind: { ...entry.responseKind }, verbs: [...STATUS_VERBS] });
  }
  for (const sub of extraSubresourcesOf(kind)) {
    subs.push({
      subresource: sub.name,
      responseKind: { group: sub.group, version: sub.version, kind: sub.kind },
      verbs: sortedVerbs(sub.verbs),
    });
  }
  if (subs.length) entry.subresources = subs.sort((a, b) => (a.subresource < b.subresource ? -1 : 1));
  // Key order as kube-apiserver writes it; clients do not care, humans comparing dumps do.
  const { verbs, subresources, ...head } = entry;
  return subresources ? { ...head, verbs, subresources } : { ...head, verbs };
}

function groupDiscoveryOf(group: GroupKinds): APIGroupDiscovery {
  return {
    metadata: group.group ? { name: group.group, creationTimestamp: null } : { creationTimestamp: null },
    versions: group.versions.map((v) => ({
      version: v.version,
      freshness: 'Current',
      resources: v.kinds.map(resourceDiscoveryOf),
    })),
  };
}

/** The aggregated document for `/api` (core only) or `/apis` (every other group). */
export function aggregatedDiscovery(
  layout: RegistryLayout,
  endpoint: 'api' | 'apis',
  format: AggregatedFormat = 'v2',
): APIGroupDiscoveryList {
  const groups = endpoint === 'api' ? (layout.core ? [layout.core] : []) : layout.groups;
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${format}`,
    metadata: {},
    items: groups.map(groupDiscoveryOf),
  };
}

/**
 * Which form to answer `/api` and `/apis` with, as kube-apiserver negotiates it: the first acceptable
 * clause wins; a JSON clause asking `as=APIGroupDiscoveryList` in apidiscovery.k8s.io v2/v2beta1 means
 * aggregated, a plain JSON (or wildcard) clause means legacy, clauses we cannot produce are skipped.
 */
export function negotiateDiscovery(accept: string | undefined): DiscoveryFormat {
  for (const clause of parseAccept(accept)) {
    if (!acceptsMediaType(clause, 'application', 'json')) continue;
    const { as, g, v } = clause.params;
    if (as === undefined && g === undefined && v === undefined) return 'legacy';
    if (as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1'))
      return v;
  }
  return 'legacy';
}

// ---------------------------------------------------------------------------------------------------
// Prepared answers

export interface DiscoveryOptions {
  version?: VersionOptions;
  /** Reported in `/api` serverAddressByClientCIDRs. */
  serverAddress?: string;
}

export interface Discovery {
  readonly layout: RegistryLayout;
  readonly version: VersionInfo;
  /**
   * Answers `GET /version`, `/api`, `/apis`, `/api/v1`, `/apis/{g}`, `/apis/{g}/{v}` (path without the
   * cluster prefix or query); undefined for any other path, which the router answers with 404.
   */
  respond(path: string, accept?: string, ifNoneMatch?: string): PreparedResponse | undefined;
}

interface Prepared {
  body: string;
  etag: string;
}

function prepare(value: unknown): Prepared {
  const body = JSON.stringify(value);
  return { body, etag: createHash('sha256').update(body).digest('hex').toUpperCase() };
}

function json(body: string, contentType = 'application/json'): PreparedResponse {
  return { status: 200, headers: { 'Content-Type': contentType }, body };
}

/** Builds every discovery body once; rebuild when the registry changes. */
export function buildDiscovery(kinds: readonly ServedKind[], options: DiscoveryOptions = {}): Discovery {
  const layout = layoutRegistry(kinds);
  const version = versionInfo(options.version);
  const versionBody = JSON.stringify(version);
  const aggregated = {
    api: {
      v2: prepare(aggregatedDiscovery(layout, 'api', 'v2')),
      v2beta1: prepare(aggregatedDiscovery(layout, 'api', 'v2beta1')),
    },
    apis: {
      v2: prepare(aggregatedDiscovery(layout, 'apis', 'v2')),
      v2beta1: prepare(aggregatedDiscovery(layout, 'apis', 'v2beta1')),
    },
  };
  const legacyApi = JSON.stringify(apiVersions(layout, options.serverAddress));
  const legacyApis = JSON.stringify(apiGroupList(layout));
  const groupBodies = new Map<string, string>();
  const resourceLists = new Map<string, string>();
  for (const group of [...(layout.core ? [layout.core] : []), ...layout.groups]) {
    if (group.group) groupBodies.set(group.group, JSON.stringify(apiGroup(layout, group.group)));
    for (const gv of group.versions)
      resourceLists.set(gv.groupVersion, JSON.stringify(apiResourceListOf(gv)));
  }

  function aggregatedResponse(
    doc: Prepared,
    format: AggregatedFormat,
    ifNoneMatch?: string,
  ): PreparedResponse {
    const etag = `"${doc.etag}"`;
    const headers = {
      'Content-Type': DISCOVERY_CONTENT_TYPES[format],
      ETag: etag,
      Vary: 'Accept',
      'Cache-Control': 'public',
    };
    if (ifNoneMatch === etag) return { status: 304, headers, body: '' };
    return { status: 200, headers, body: doc.body };
  }

  return {
    layout,
    version,
    respond(rawPath, accept, ifNoneMatch) {
      const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
      if (path === '/version') return json(versionBody);
      if (path === '/api' || path === '/apis') {
        const format = negotiateDiscovery(accept);
        const key = path === '/api' ? 'api' : 'apis';
        if (format !== 'legacy') return aggregatedResponse(aggregated[key][format], format, ifNoneMatch);
        return json(key === 'api' ? legacyApi : legacyApis);
      }
      const parts = path.split('/');
      // ['', 'api', 'v1'] | ['', 'apis', g] | ['', 'apis', g, v]
      if (parts[1] === 'api' && parts.length === 3) {
        const body = resourceLists.get(parts[2]!);
        return body === undefined ? undefined : json(body);
      }
      if (parts[1] === 'apis' && parts.length === 3) {
        const body = groupBodies.get(parts[2]!);
        return body === undefined ? undefined : json(body);
      }
      if (parts[1] === 'apis' && parts.length === 4) {
        const body = resourceLists.get(`${parts[2]}/${parts[3]}`);
        return body === undefined ? undefined : json(body);
      }
      return undefined;
    },
  };
}
