// Endpoints and EndpointSlice controllers for Services with a selector: addresses of the selected pods
// that have an IP (ready ones as addresses, the rest as notReadyAddresses), ports resolved from targetPort.
import type { KubeObject } from '../../store/types.js';
import { jsonEqual } from '../../store/json.js';
import { createObject, deleteObject, isCode, type SimContext } from './context.js';
import {
  arr,
  controllerRefTo,
  isPodReady,
  isTerminal,
  nameOf,
  num,
  randomSuffix,
  spec,
  status,
  str,
  type Json,
} from './util.js';

export const ENDPOINTSLICES = 'endpointslices.discovery.k8s.io';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const SLICE_MANAGER = 'endpointslice-controller.k8s.io';

/** A service port's target on one pod: a number, or a named container port. */
function targetPort(svcPort: Json, pod: KubeObject): number | undefined {
  const target = svcPort['targetPort'] ?? svcPort['port'];
  if (typeof target === 'number') return target;
  if (typeof target === 'string') {
    if (/^\d+$/.test(target)) return Number(target);
    for (const c of arr(spec(pod)['containers']))
      for (const p of arr(c['ports'])) if (p['name'] === target) return num(p['containerPort']);
  }
  return undefined;
}

export async function syncService(ctx: SimContext, ns: string, name: string): Promise<void> {
  const svc = await ctx.store.get('services', ns, name);
  const selector = svc ? (spec(svc)['selector'] as Record<string, string> | undefined) : undefined;
  if (!svc || svc.metadata.deletionTimestamp || !selector || Object.keys(selector).length === 0) {
    // Endpoints of a Service that is gone (or no longer selects) go too; slices follow by owner.
    if (!svc) {
      const ep = await ctx.store.get('endpoints', ns, name);
      if (ep) await deleteObject(ctx, 'endpoints', ep);
    }
    return;
  }
  const publishNotReady = spec(svc)['publishNotReadyAddresses'] === true;
  const pods = (
    await ctx.store.list('pods', {
      namespace: ns,
      predicate: (p) =>
        !isTerminal(p) &&
        !!str(status(p)['podIP']) &&
        Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v),
    })
  ).items.sort((a, b) => (str(status(a)['podIP']) ?? '').localeCompare(str(status(b)['podIP']) ?? ''));
  const svcPorts = arr(spec(svc)['ports']);
  const sample = pods[0];
  const ports = sample
    ? svcPorts
        .map((p) => {
          const port: Json = { port: targetPort(p, sample), protocol: str(p['protocol']) ?? 'TCP' };
          if (str(p['name'])) port['name'] = p['name'];
          if (str(p['appProtocol'])) port['appProtocol'] = p['appProtocol'];
          return port;
        })
        .filter((p) => p['port'] !== undefined)
    : [];
  const address = (p: KubeObject): Json => {
    const a: Json = { ip: status(p)['podIP'] };
    if (str(spec(p)['nodeName'])) a['nodeName'] = spec(p)['nodeName'];
    a['targetRef'] = { kind: 'Pod', namespace: ns, name: nameOf(p), uid: p.metadata.uid };
    return a;
  };
  const serving = (p: KubeObject) =>
    p.metadata.deletionTimestamp === undefined && (isPodReady(p) || publishNotReady);
  const ready = pods.filter(serving);
  const notReady = pods.filter((p) => !serving(p) && p.metadata.deletionTimestamp === undefined);
  const subset: Json = {};
  if (ready.length) subset['addresses'] = ready.map(address);
  if (notReady.length) subset['notReadyAddresses'] = notReady.map(address);
  if (ports.length) subset['ports'] = ports;
  const subsets = ready.length || notReady.length ? [subset] : undefined;
  const labels = { ...svc.metadata.labels, 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' };

  const ep = await ctx.store.get('endpoints', ns, name);
  try {
    if (!ep) {
      const obj: KubeObject = {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name, namespace: ns, labels },
      };
      if (subsets) obj['subsets'] = subsets;
      await createObject(ctx, 'endpoints', obj);
    } else if (!jsonEqual(ep['subsets'], subsets) || !jsonEqual(ep.metadata.labels, labels)) {
      const next: KubeObject = { ...ep, metadata: { ...ep.metadata, labels } };
      if (subsets) next['subsets'] = subsets;
      else delete next['subsets'];
      await ctx.store.update('endpoints', next);
    }
  } catch (e) {
    if (!isCode(e, 409, 404)) throw e;
  }
  if (!ctx.options.endpointSlices) return;

  const endpoints = pods.map((p) => {
    const e: Json = {
      addresses: [status(p)['podIP']],
      conditions: {
        ready: serving(p) && p.metadata.deletionTimestamp === undefined,
        serving: isPodReady(p) || publishNotReady,
        terminating: p.metadata.deletionTimestamp !== undefined,
      },
      targetRef: { kind: 'Pod', namespace: ns, name: nameOf(p), uid: p.metadata.uid },
    };
    if (str(spec(p)['nodeName'])) e['nodeName'] = spec(p)['nodeName'];
    return e;
  });
  const slicePorts = ports.map((p) => ({ ...p }));
  const sliceLabels = {
    ...svc.metadata.labels,
    [SERVICE_NAME_LABEL]: name,
    [MANAGED_BY_LABEL]: SLICE_MANAGER,
  };
  const slices = (
    await ctx.store.list(ENDPOINTSLICES, {
      namespace: ns,
      predicate: (s) =>
        s.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
        s.metadata.labels[MANAGED_BY_LABEL] === SLICE_MANAGER,
    })
  ).items;
  const [slice, ...extra] = slices;
  try {
    for (const s of extra) await deleteObject(ctx, ENDPOINTSLICES, s);
    if (!slice) {
      await createObject(ctx, ENDPOINTSLICES, {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${name}-${randomSuffix()}`,
          generateName: `${name}-`,
          namespace: ns,
          labels: sliceLabels,
          ownerReferences: [controllerRefTo(svc)],
        },
        addressType: 'IPv4',
        endpoints,
        ports: slicePorts,
      });
    } else if (
      !jsonEqual(slice['endpoints'], endpoints) ||
      !jsonEqual(slice['ports'], slicePorts) ||
      !jsonEqual(slice.metadata.labels, sliceLabels)
    ) {
      await ctx.store.update(ENDPOINTSLICES, {
        ...slice,
        metadata: { ...slice.metadata, labels: sliceLabels },
        endpoints,
        ports: slicePorts,
      });
    }
  } catch (e) {
    if (!isCode(e, 409, 404)) throw e;
  }
}
