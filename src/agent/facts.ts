// What an agent reports about the thing it runs for: a cluster's version, nodes, capacity, served APIs,
// storage and ingress classes and networks (read through its kubeconfig), or a host's OS and hardware.
import { readFileSync } from 'node:fs';
import { arch, cpus, hostname, networkInterfaces, release, totalmem, type } from 'node:os';
import type { KubeObject } from '../store/types.js';
import { KubeApiError, type KubeClientApi, type ResourceRef } from '../kube/types.js';
import { formatBytesMilli, formatCpuMilli, parseMilli } from '../util/quantity.js';

export interface ClusterFacts {
  kubernetesVersion: string;
  nodeCount: number;
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  capabilities: { apiVersions: string[]; storageClasses: string[]; ingressClasses: string[] };
  clusterNetwork: { pods?: { cidrBlocks: string[] }; services?: { cidrBlocks: string[] } };
}

export interface HostFacts {
  hostname: string;
  addresses: { type: 'InternalIP' | 'Hostname'; address: string }[];
  os: string;
  osImage: string;
  kernelVersion: string;
  architecture: string;
  cpu: string;
  memory: string;
  k3sEnabled: boolean;
}

/** Every list the facts need, read fully (nodes and classes are few; no paging needed past 500). */
async function listAll(client: KubeClientApi, ref: ResourceRef): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let cont: string | undefined;
  do {
    const page = await client.list(ref, { limit: 500, ...(cont ? { continue: cont } : {}) });
    items.push(...page.items);
    cont = page.continue;
  } while (cont);
  return items;
}

/** The resource for a kind, or undefined when the cluster does not serve it (older clusters). */
async function optionalRef(
  client: KubeClientApi,
  apiVersion: string,
  kind: string,
): Promise<ResourceRef | undefined> {
  try {
    return await client.resourceFor(apiVersion, kind);
  } catch (e) {
    if (e instanceof KubeApiError && e.code === 404) return undefined;
    throw e;
  }
}

const NODE_GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };

function sumResources(nodes: KubeObject[], field: 'capacity' | 'allocatable'): Record<string, string> {
  const totals = new Map<string, bigint>();
  for (const node of nodes) {
    const res = ((node['status'] as Record<string, unknown> | undefined)?.[field] ?? {}) as Record<
      string,
      unknown
    >;
    for (const [name, value] of Object.entries(res)) {
      const milli = typeof value === 'string' ? parseMilli(value) : undefined;
      if (milli !== undefined) totals.set(name, (totals.get(name) ?? 0n) + milli);
    }
  }
  const out: Record<string, string> = {};
  for (const [name, milli] of [...totals].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (name === 'cpu') out[name] = formatCpuMilli(milli);
    else if (name === 'memory' || name.startsWith('hugepages-') || name.endsWith('storage'))
      out[name] = formatBytesMilli(milli);
    else out[name] = milli % 1000n === 0n ? String(milli / 1000n) : `${milli}m`;
  }
  return out;
}

function podCidrs(nodes: KubeObject[]): string[] {
  const cidrs = new Set<string>();
  for (const node of nodes) {
    const spec = (node['spec'] ?? {}) as { podCIDR?: unknown; podCIDRs?: unknown };
    const list = Array.isArray(spec.podCIDRs) ? spec.podCIDRs : spec.podCIDR ? [spec.podCIDR] : [];
    for (const c of list) if (typeof c === 'string') cidrs.add(c);
  }
  return [...cidrs].sort();
}

/** The service range from the `kubernetes` ServiceCIDR (networking.k8s.io/v1, Kubernetes ≥ 1.33), if served. */
async function serviceCidrs(client: KubeClientApi): Promise<string[] | undefined> {
  const ref = await optionalRef(client, 'networking.k8s.io/v1', 'ServiceCIDR');
  if (!ref) return undefined;
  const obj = await client.get(ref, undefined, 'kubernetes');
  const cidrs = (obj?.['spec'] as { cidrs?: unknown } | undefined)?.cidrs;
  return Array.isArray(cidrs) ? cidrs.filter((c): c is string => typeof c === 'string') : undefined;
}

async function classNames(client: KubeClientApi, apiVersion: string, kind: string): Promise<string[]> {
  const ref = await optionalRef(client, apiVersion, kind);
  if (!ref) return [];
  return (await listAll(client, ref)).map((o) => o.metadata.name ?? '').sort();
}

/**
 * Reads a cluster's facts. The served API list costs a request per group version, so it is read again
 * only every `apiVersionsTtlMs` (default 5 minutes); nodes, classes and networks are read each time.
 */
export class ClusterFactsCollector {
  private apiVersions: { list: string[]; at: number } | undefined;

  constructor(
    private readonly client: KubeClientApi,
    private readonly apiVersionsTtlMs = 5 * 60_000,
  ) {}

  async collect(): Promise<ClusterFacts> {
    const now = Date.now();
    if (!this.apiVersions || now - this.apiVersions.at > this.apiVersionsTtlMs)
      this.apiVersions = { list: await this.client.apiVersions(), at: now };
    return clusterFacts(this.client, this.apiVersions.list);
  }
}

export async function clusterFacts(
  client: KubeClientApi,
  knownApiVersions?: string[],
): Promise<ClusterFacts> {
  const nodesRef = await client.resourceFor('v1', 'Node');
  const [kubernetesVersion, nodes, apiVersions, storageClasses, ingressClasses, services] = await Promise.all(
    [
      client.serverVersion(),
      listAll(client, nodesRef),
      knownApiVersions ?? client.apiVersions(),
      classNames(client, 'storage.k8s.io/v1', 'StorageClass'),
      classNames(client, 'networking.k8s.io/v1', 'IngressClass'),
      serviceCidrs(client),
    ],
  );
  const pods = podCidrs(nodes);
  const clusterNetwork: ClusterFacts['clusterNetwork'] = {};
  if (pods.length > 0) clusterNetwork.pods = { cidrBlocks: pods };
  if (services && services.length > 0) clusterNetwork.services = { cidrBlocks: services };
  return {
    kubernetesVersion,
    nodeCount: nodes.length,
    capacity: sumResources(nodes, 'capacity'),
    allocatable: sumResources(nodes, 'allocatable'),
    capabilities: { apiVersions, storageClasses, ingressClasses },
    clusterNetwork,
  };
}

/** `PRETTY_NAME` of /etc/os-release, as `kubectl get nodes -o wide` shows OS-IMAGE. */
function osImage(): string {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    const m = /^PRETTY_NAME=(.*)$/m.exec(text);
    if (m) return m[1]!.replace(/^"(.*)"$/, '$1');
  } catch {
    // Not every OS has it; the kernel name then stands in.
  }
  return type();
}

export function hostFacts(k3sEnabled: boolean): HostFacts {
  const name = hostname();
  const addresses: HostFacts['addresses'] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const nic of list ?? []) {
      if (!nic.internal && nic.family === 'IPv4')
        addresses.push({ type: 'InternalIP', address: nic.address });
    }
  }
  addresses.push({ type: 'Hostname', address: name });
  return {
    hostname: name,
    addresses,
    os: type().toLowerCase(),
    osImage: osImage(),
    kernelVersion: release(),
    architecture: NODE_GO_ARCH[arch()] ?? arch(),
    cpu: String(cpus().length),
    memory: formatBytesMilli(BigInt(totalmem()) * 1000n),
    k3sEnabled,
  };
}
