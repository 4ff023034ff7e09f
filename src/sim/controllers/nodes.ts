// Fake kubelet node side: keeps each Node Ready (or NotReady on request), gives it a pod CIDR and
// addresses when missing, and heartbeats — Lease renewals often, Node status rarely, for the whole cluster at once.
import { formatCidr, parseCidr, subnet } from '../../util/ipv4.js';
import type { KubeObject } from '../../store/types.js';
import { createObject, isCode, nowMs, nowText, writeStatus, type SimContext } from './context.js';
import { arr, cidrHost, fnv32a, nameOf, spec, status, str, upsertCondition, type Json } from './util.js';
import { formatMicroTime } from '../../util/json-text.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const LEASES = 'leases.coordination.k8s.io';
/** Set to "false" on a Node to have the fake kubelet report it NotReady. */
export const NODE_READY_ANNOTATION = 'sim.fleethub.io/ready';

function nodeReady(node: KubeObject): boolean {
  return node.metadata.annotations?.[NODE_READY_ANNOTATION] !== 'false';
}

/** The kubelet's four standard conditions, as it would post them now. */
function desiredConditions(
  node: KubeObject,
): { type: string; status: string; reason: string; message: string }[] {
  const ready = nodeReady(node);
  return [
    {
      type: 'MemoryPressure',
      status: 'False',
      reason: 'KubeletHasSufficientMemory',
      message: 'kubelet has sufficient memory available',
    },
    {
      type: 'DiskPressure',
      status: 'False',
      reason: 'KubeletHasNoDiskPressure',
      message: 'kubelet has no disk pressure',
    },
    {
      type: 'PIDPressure',
      status: 'False',
      reason: 'KubeletHasSufficientPID',
      message: 'kubelet has sufficient PID available',
    },
    ready
      ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
      : {
          type: 'Ready',
          status: 'False',
          reason: 'KubeletNotReady',
          message: 'container runtime network not ready: NetworkReady=false (simulated)',
        },
  ];
}

/** The next free /24 of the cluster CIDR among the nodes' pod CIDRs (the node IPAM controller). */
function allocatePodCidr(clusterCidr: string, nodes: KubeObject[]): string | undefined {
  const used = new Set(nodes.map((n) => str(spec(n)['podCIDR'])).filter((c) => c !== undefined));
  let range;
  try {
    range = parseCidr(clusterCidr);
  } catch {
    return undefined;
  }
  if (range.prefix > 24) return undefined;
  for (let i = 0; i < 2 ** (24 - range.prefix); i++) {
    const cidr = formatCidr(subnet(range, 24, i));
    if (!used.has(cidr)) return cidr;
  }
  return undefined;
}

/** Makes one Node look like a live kubelet's: conditions, addresses, capacity, pod CIDR, Lease. */
export async function syncNode(ctx: SimContext, name: string): Promise<void> {
  let node = await ctx.store.get('nodes', '', name);
  if (!node || node.metadata.deletionTimestamp) return;
  if (!str(spec(node)['podCIDR'])) {
    const nodes = (await ctx.store.list('nodes')).items;
    const cidr = allocatePodCidr(ctx.options.clusterCidr, nodes);
    if (cidr)
      node = await ctx.store.update('nodes', {
        ...node,
        spec: { ...spec(node), podCIDR: cidr, podCIDRs: [cidr] },
      });
  }
  const now = nowText(ctx);
  const st = structuredClone(status(node));
  for (const c of desiredConditions(node)) {
    if (upsertCondition(st, c, now)) {
      const written = arr(st['conditions']).find((x) => x['type'] === c.type)!;
      written['lastHeartbeatTime'] = now;
    }
  }
  if (arr(st['addresses']).length === 0) {
    st['addresses'] = [
      { type: 'InternalIP', address: `172.18.${(fnv32a(name) >>> 8) % 250}.${2 + (fnv32a(name) % 250)}` },
      { type: 'Hostname', address: name },
    ];
  }
  if (!st['capacity'])
    st['capacity'] = { cpu: '4', 'ephemeral-storage': '100Gi', memory: '8Gi', pods: '110' };
  if (!st['allocatable']) st['allocatable'] = { ...(st['capacity'] as Json) };
  if (!st['daemonEndpoints']) st['daemonEndpoints'] = { kubeletEndpoint: { Port: 10250 } };
  if (!st['nodeInfo']) {
    st['nodeInfo'] = {
      architecture: 'amd64',
      containerRuntimeVersion: 'containerd://2.0.5',
      kernelVersion: '6.8.0-fleethub-sim',
      kubeletVersion: 'v1.34.2',
      kubeProxyVersion: 'v1.34.2',
      operatingSystem: 'linux',
      osImage: 'fleethub simulated node',
      machineID: '',
      systemUUID: '',
      bootID: '',
    };
  }
  node = await writeStatus(ctx, 'nodes', node, st);
  await ensureLease(ctx, node, false);
}

/** Creates the node's Lease, or renews it when `renew` is set. */
async function ensureLease(ctx: SimContext, node: KubeObject, renew: boolean): Promise<void> {
  const name = nameOf(node);
  const renewTime = formatMicroTime(nowMs(ctx));
  const lease = await ctx.store.get(LEASES, NODE_LEASE_NAMESPACE, name);
  if (!lease) {
    try {
      await createObject(ctx, LEASES, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name,
          namespace: NODE_LEASE_NAMESPACE,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid ?? '' }],
        },
        spec: {
          holderIdentity: name,
          leaseDurationSeconds: ctx.options.leaseDurationSeconds,
          renewTime,
        },
      });
    } catch (e) {
      if (!isCode(e, 409)) throw e;
    }
    return;
  }
  if (!renew) return;
  await ctx.store.update(LEASES, { ...lease, spec: { ...spec(lease), holderIdentity: name, renewTime } });
}

/**
 * One heartbeat for every node of the cluster: renew Leases, and post node status when its (longer)
 * period has passed. Re-arms itself; the whole cluster has one pending heartbeat at a time.
 */
export async function heartbeat(ctx: SimContext): Promise<void> {
  const now = nowMs(ctx);
  const postStatus = now - ctx.nodeStatusAt >= ctx.options.nodeStatusIntervalMs;
  try {
    const nodes = (await ctx.store.list('nodes')).items;
    for (const node of nodes) {
      if (node.metadata.deletionTimestamp) continue;
      await ensureLease(ctx, node, true);
      if (postStatus) {
        const st = structuredClone(status(node));
        const text = nowText(ctx);
        for (const c of arr(st['conditions'])) c['lastHeartbeatTime'] = text;
        try {
          await writeStatus(ctx, 'nodes', node, st);
        } catch (e) {
          if (!isCode(e, 404, 409)) throw e;
        }
      }
    }
    if (postStatus) ctx.nodeStatusAt = now;
  } finally {
    ctx.enqueue('heartbeat', ctx.options.leaseRenewIntervalMs);
  }
}

/** What about a node matters to placement: changes here re-run the scheduler and DaemonSets. */
export function nodeSignature(node: KubeObject): string {
  const ready = arr(status(node)['conditions']).find((c) => c['type'] === 'Ready')?.['status'];
  const s = spec(node);
  return JSON.stringify([
    ready,
    s['unschedulable'] === true,
    node.metadata.deletionTimestamp !== undefined,
    s['taints'] ?? null,
    node.metadata.labels ?? null,
    str(s['podCIDR']) ?? '',
  ]);
}

/** The node's InternalIP (the pods' hostIP). */
export function nodeInternalIp(node: KubeObject): string | undefined {
  const addr = arr(status(node)['addresses']).find((a) => a['type'] === 'InternalIP');
  return str(addr?.['address']);
}

/** The pod IP the `index`-th pod on a node gets: .1 is the bridge, pods start at .2. */
export function podIpOnNode(node: KubeObject, used: Set<string>): string | undefined {
  const cidr = str(spec(node)['podCIDR']);
  if (!cidr) return undefined;
  for (let i = 2; i < 65534; i++) {
    const ip = cidrHost(cidr, i);
    if (ip === undefined) return undefined;
    if (!used.has(ip)) return ip;
  }
  return undefined;
}

/** Used by tests and the lead: whether the node counts as Ready. */
export function isNodeReady(node: KubeObject): boolean {
  return arr(status(node)['conditions']).some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}
