// Fake kubelet pod side (KWOK "fast" stages): a bound pod starts Running and Ready after a short delay,
// run-once pods (Jobs, hook and test pods) exit after their run time, and deleted pods are removed after their grace.
import { recordEvent } from './events.js';
import type { KubeObject } from '../../store/types.js';
import { deleteObject, isCode, nowMs, writeStatus, type SimContext } from './context.js';
import { isNodeReady, nodeInternalIp, podIpOnNode } from './nodes.js';
import {
  arr,
  fnv32a,
  formatTime,
  field,
  isTerminal,
  nameOf,
  nsOf,
  parseTime,
  podCondition,
  podPhase,
  sha256Hex,
  spec,
  status,
  str,
  upsertCondition,
  type Json,
} from './util.js';

/** Pod annotation: seconds a run-once pod runs (negative: forever). */
export const RUN_SECONDS_ANNOTATION = 'sim.fleethub.io/run-seconds';
/** Pod annotation: exit code of a run-once pod (non-zero: the pod fails). */
export const EXIT_CODE_ANNOTATION = 'sim.fleethub.io/exit-code';

export function podKey(pod: KubeObject): string {
  return `pod|${nsOf(pod)}|${nameOf(pod)}`;
}

function isRunOnce(pod: KubeObject): boolean {
  const policy = str(spec(pod)['restartPolicy']) ?? 'Always';
  return policy === 'Never' || policy === 'OnFailure';
}

/** How long the pod's containers run, in ms; undefined = until deleted. */
function runDurationMs(ctx: SimContext, pod: KubeObject): number | undefined {
  if (!isRunOnce(pod)) return undefined;
  const text = pod.metadata.annotations?.[RUN_SECONDS_ANNOTATION];
  if (text !== undefined && text !== '' && Number.isFinite(Number(text))) {
    const s = Number(text);
    return s < 0 ? undefined : s * 1000;
  }
  return ctx.options.runOnceDurationMs;
}

/** docker.io/library/nginx:latest for `nginx`, as container runtimes report image names. */
export function normalizeImage(image: string): string {
  let name = image;
  const firstSlash = name.indexOf('/');
  const first = firstSlash < 0 ? '' : name.slice(0, firstSlash);
  if (firstSlash < 0) name = `docker.io/library/${name}`;
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') name = `docker.io/${name}`;
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  if (!lastSegment.includes(':') && !name.includes('@')) name += ':latest';
  return name;
}

function imageId(image: string): string {
  const normalized = normalizeImage(image);
  const repo = normalized.replace(/[:@][^/]*$/, '');
  return `${repo}@sha256:${sha256Hex(normalized)}`;
}

function qosClass(pod: KubeObject): string {
  const containers = arr(spec(pod)['containers']);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const req = (c['resources'] as Json | undefined)?.['requests'] as Json | undefined;
    const lim = (c['resources'] as Json | undefined)?.['limits'] as Json | undefined;
    if ((req && Object.keys(req).length) || (lim && Object.keys(lim).length)) any = true;
    for (const r of ['cpu', 'memory']) {
      const l = lim?.[r];
      if (l === undefined || (req?.[r] !== undefined && req[r] !== l)) guaranteed = false;
    }
  }
  return guaranteed ? 'Guaranteed' : any ? 'Burstable' : 'BestEffort';
}

function containerId(pod: KubeObject, name: string): string {
  return `containerd://${sha256Hex(`${pod.metadata.uid ?? ''}/${name}`)}`;
}

/** A per-pod start delay in [base, base+jitter): stable for the pod so re-syncs agree. */
function startDelayMs(ctx: SimContext, pod: KubeObject): number {
  const jitter = ctx.options.podStartJitterMs;
  const r = jitter > 0 ? (fnv32a(pod.metadata.uid ?? nameOf(pod)) % 1000) / 1000 : 0;
  return ctx.options.podStartDelayMs + Math.floor(r * jitter);
}

/** Running and Ready: what kubectl, helm --wait and kstatus look for. */
function runningStatus(pod: KubeObject, node: KubeObject, ip: string, startedAt: string): Json {
  const st = structuredClone(status(pod));
  const hostIP = nodeInternalIp(node) ?? ip;
  st['phase'] = 'Running';
  st['hostIP'] = hostIP;
  st['hostIPs'] = [{ ip: hostIP }];
  st['podIP'] = ip;
  st['podIPs'] = [{ ip }];
  st['startTime'] ??= startedAt;
  st['qosClass'] ??= qosClass(pod);
  const inits = arr(spec(pod)['initContainers']);
  if (inits.length) {
    st['initContainerStatuses'] = inits.map((c) => ({
      name: c['name'],
      state: {
        terminated: {
          exitCode: 0,
          reason: 'Completed',
          startedAt,
          finishedAt: startedAt,
          containerID: containerId(pod, str(c['name']) ?? ''),
        },
      },
      lastState: {},
      ready: true,
      restartCount: 0,
      image: normalizeImage(str(c['image']) ?? ''),
      imageID: imageId(str(c['image']) ?? ''),
      containerID: containerId(pod, str(c['name']) ?? ''),
      started: false,
    }));
  }
  st['containerStatuses'] = arr(spec(pod)['containers']).map((c) => ({
    name: c['name'],
    state: { running: { startedAt } },
    lastState: {},
    ready: true,
    restartCount: 0,
    image: normalizeImage(str(c['image']) ?? ''),
    imageID: imageId(str(c['image']) ?? ''),
    containerID: containerId(pod, str(c['name']) ?? ''),
    started: true,
  }));
  for (const type of ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'])
    upsertCondition(st, { type, status: 'True' }, startedAt, { probeTime: true });
  return st;
}

/** Every container exited with `exitCode`: Succeeded on 0, Failed otherwise. */
function exitedStatus(pod: KubeObject, exitCode: number, finishedAt: string): Json {
  const st = structuredClone(status(pod));
  const startedAt = str(st['startTime']) ?? finishedAt;
  st['phase'] = exitCode === 0 ? 'Succeeded' : 'Failed';
  const reason = exitCode === 0 ? 'Completed' : 'Error';
  st['containerStatuses'] = arr(spec(pod)['containers']).map((c) => {
    const name = str(c['name']) ?? '';
    const previous = arr(st['containerStatuses']).find((s) => s['name'] === name);
    const started = str(field(previous, 'state', 'running', 'startedAt'));
    return {
      name,
      state: {
        terminated: {
          exitCode,
          reason,
          startedAt: started ?? startedAt,
          finishedAt,
          containerID: containerId(pod, name),
        },
      },
      lastState: {},
      ready: false,
      restartCount: 0,
      image: normalizeImage(str(c['image']) ?? ''),
      imageID: imageId(str(c['image']) ?? ''),
      containerID: containerId(pod, name),
      started: false,
    };
  });
  for (const type of ['Ready', 'ContainersReady'])
    upsertCondition(st, { type, status: 'False', reason: 'PodCompleted' }, finishedAt, { probeTime: true });
  upsertCondition(st, { type: 'PodReadyToStartContainers', status: 'False' }, finishedAt, {
    probeTime: true,
  });
  return st;
}

/** Drives one pod through its stages; re-queues itself for the next timed step. */
export async function syncPod(ctx: SimContext, ns: string, name: string): Promise<void> {
  const pod = await ctx.store.get('pods', ns, name);
  if (!pod) return;
  const key = podKey(pod);
  const now = nowMs(ctx);
  if (pod.metadata.deletionTimestamp !== undefined) {
    await finishDeletion(ctx, pod, now);
    return;
  }
  const nodeName = str(spec(pod)['nodeName']);
  if (!nodeName || isTerminal(pod)) return;
  const node = await ctx.store.get('nodes', '', nodeName);
  if (!node) return;
  try {
    if (podPhase(pod) === 'Pending') {
      // A NotReady node's kubelet starts nothing; the node's next change re-queues its pods.
      if (!isNodeReady(node)) return;
      const boundAt =
        parseTime(podCondition(pod, 'PodScheduled')?.['lastTransitionTime']) ??
        parseTime(pod.metadata.creationTimestamp) ??
        now;
      const due = boundAt + startDelayMs(ctx, pod);
      if (now < due) {
        ctx.enqueue(key, due - now);
        return;
      }
      const ip = spec(pod)['hostNetwork'] === true ? nodeInternalIp(node) : await allocateIp(ctx, node, pod);
      if (!ip) return;
      const written = await writeStatus(ctx, 'pods', pod, runningStatus(pod, node, ip, formatTime(now)));
      const host = nameOf(node);
      for (const c of (spec(pod)['containers'] as { name?: string; image?: string }[] | undefined) ?? []) {
        await recordEvent(
          ctx,
          written,
          'Pulled',
          `Container image "${c.image ?? ''}" already present on machine`,
          'kubelet',
          host,
        );
        await recordEvent(ctx, written, 'Created', `Created container: ${c.name ?? ''}`, 'kubelet', host);
        await recordEvent(ctx, written, 'Started', `Started container ${c.name ?? ''}`, 'kubelet', host);
      }
      const run = runDurationMs(ctx, written);
      if (run !== undefined) ctx.enqueue(key, run);
      return;
    }
    if (podPhase(pod) === 'Running') {
      const run = runDurationMs(ctx, pod);
      if (run === undefined) return;
      const started = parseTime(status(pod)['startTime']) ?? now;
      if (now < started + run) {
        ctx.enqueue(key, started + run - now);
        return;
      }
      const code = Number(pod.metadata.annotations?.[EXIT_CODE_ANNOTATION] ?? '0');
      await writeStatus(
        ctx,
        'pods',
        pod,
        exitedStatus(pod, Number.isInteger(code) ? code : 1, formatTime(now)),
      );
    }
  } catch (e) {
    // 409: the pod changed under us; its event re-queues it.
    if (!isCode(e, 404, 409)) throw e;
  }
}

/** The lowest free address of the node's pod CIDR. */
async function allocateIp(ctx: SimContext, node: KubeObject, pod: KubeObject): Promise<string | undefined> {
  const nodeName = nameOf(node);
  const pods = await ctx.store.list('pods', {
    predicate: (p) =>
      spec(p)['nodeName'] === nodeName && !isTerminal(p) && p.metadata.uid !== pod.metadata.uid,
  });
  const used = new Set<string>();
  for (const p of pods.items) {
    const ip = str(status(p)['podIP']);
    if (ip) used.add(ip);
  }
  return podIpOnNode(node, used);
}

/** Graceful deletion: after min(grace period, cap) the containers are stopped and the pod removed. */
async function finishDeletion(ctx: SimContext, pod: KubeObject, now: number): Promise<void> {
  // deletionTimestamp (marked + grace) has whole seconds only, so the cap counts from when the kubelet
  // first saw the deletion; the grace period's own end still bounds it.
  const uid = pod.metadata.uid ?? '';
  let seen = ctx.terminatingSince.get(uid);
  if (seen === undefined) {
    seen = now;
    ctx.terminatingSince.set(uid, now);
  }
  const grace = (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  const end = parseTime(pod.metadata.deletionTimestamp) ?? now;
  const due = Math.min(seen + Math.min(grace, ctx.options.maxGracePeriodMs), end);
  if (now < due) {
    ctx.enqueue(podKey(pod), due - now);
    return;
  }
  ctx.terminatingSince.delete(uid);
  if ((pod.metadata.finalizers ?? []).length > 0) {
    // Finalizers keep the pod: it ends in a terminal phase and waits for their owners.
    if (!isTerminal(pod) && str(spec(pod)['nodeName'])) {
      try {
        await writeStatus(ctx, 'pods', pod, exitedStatus(pod, 137, formatTime(now)));
      } catch (e) {
        if (!isCode(e, 404, 409)) throw e;
      }
    }
    return;
  }
  await deleteObject(ctx, 'pods', pod);
}

/** The pod GC's job for a deleted node: its pods go at once (force deletion). */
export async function deletePodsOfNode(ctx: SimContext, nodeName: string): Promise<void> {
  if (await ctx.store.get('nodes', '', nodeName)) return;
  const pods = await ctx.store.list('pods', { predicate: (p) => spec(p)['nodeName'] === nodeName });
  for (const pod of pods.items) await deleteObject(ctx, 'pods', pod);
}
