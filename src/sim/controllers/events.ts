// Events the fake controllers record, as the real ones do (Scheduled, Pulled/Created/Started,
// SuccessfulCreate, ScalingReplicaSet), so `kubectl describe` and `get events` show a cluster at work.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../store/types.js';
import { nowText, type SimContext } from './context.js';

/** Events kept per cluster before the oldest go (kube keeps them an hour; an idle cluster must stay small). */
export const MAX_EVENTS = 64;

const recent = new WeakMap<SimContext, { namespace: string; name: string }[]>();

/**
 * Records one Normal event about `obj` from `component` (and `host`, for the kubelet). Failures are
 * ignored: an event is never worth failing a sync for.
 */
export async function recordEvent(
  ctx: SimContext,
  obj: KubeObject,
  reason: string,
  message: string,
  component: string,
  host?: string,
): Promise<void> {
  const now = nowText(ctx);
  const namespace = obj.metadata.namespace || 'default';
  const name = `${obj.metadata.name ?? 'object'}.${randomBytes(8).toString('hex')}`;
  const involved: Record<string, unknown> = {
    kind: obj.kind,
    name: obj.metadata.name,
    uid: obj.metadata.uid,
  };
  if (obj.apiVersion) involved['apiVersion'] = obj.apiVersion;
  if (obj.metadata.namespace) involved['namespace'] = obj.metadata.namespace;
  if (obj.metadata.resourceVersion) involved['resourceVersion'] = obj.metadata.resourceVersion;
  try {
    await ctx.store.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: involved,
      reason,
      message,
      source: host ? { component, host } : { component },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: 'Normal',
      eventTime: null,
      reportingComponent: component,
      reportingInstance: host ?? '',
    });
  } catch {
    return;
  }
  let list = recent.get(ctx);
  if (!list) recent.set(ctx, (list = []));
  list.push({ namespace, name });
  while (list.length > MAX_EVENTS) {
    const old = list.shift()!;
    await ctx.store.delete('events', old.namespace, old.name).catch(() => undefined);
  }
}
