// `pods/eviction` of a simulated cluster: kubectl drain's Eviction, checked against PodDisruptionBudgets
// (429 when one forbids it, as kube-apiserver answers) and then a graceful deletion of the pod.
import type { RequestContext } from '../apiserver/context.js';
import { isDryRun } from '../apiserver/context.js';
import { decodeObjectBody, readBody } from '../apiserver/body.js';
import { writeJson } from '../apiserver/respond.js';
import type { KubeObject, Store } from '../store/types.js';
import { ApiError, errors } from '../util/errors.js';

export type EvictionDecision =
  { allowed: true } | { allowed: false; code: 429 | 500; message: string; cause?: string };

/** Decides whether a pod may be evicted now (and takes the disruption from its budget when it may). */
export type EvictionPolicy = (pod: KubeObject, dryRun: boolean) => Promise<EvictionDecision>;

const REFUSED = "Cannot evict pod as it would violate the pod's disruption budget.";

export function evictionHandler(store: Store, decide: EvictionPolicy) {
  return async (ctx: RequestContext): Promise<void> => {
    const { namespace, name } = ctx.info;
    const body = decodeObjectBody(ctx.req.headers['content-type'], await readBody(ctx.req)) as
      | { metadata?: { name?: string }; deleteOptions?: { gracePeriodSeconds?: number; dryRun?: string[] } }
      | undefined;
    const bodyName = body?.metadata?.name;
    if (bodyName !== undefined && bodyName !== '' && bodyName !== name)
      throw errors.badRequest(`name in URL does not match name in Eviction object`);
    const pod = await store.get('pods', namespace, name);
    if (!pod) throw errors.notFound('pods', '', name);
    const dryRun = isDryRun(ctx.query) || (body?.deleteOptions?.dryRun ?? []).includes('All');
    // A pod already being deleted is as good as evicted.
    if (!pod.metadata.deletionTimestamp) {
      const decision = await decide(pod, dryRun);
      if (!decision.allowed) {
        // kube answers a bare 500 Status here, without "Internal error occurred:".
        if (decision.code === 500) throw new ApiError(500, 'InternalError', decision.message);
        throw new ApiError(429, 'TooManyRequests', decision.message || REFUSED, {
          causes: [{ reason: 'DisruptionBudget', message: decision.cause ?? decision.message }],
        });
      }
      if (!dryRun) {
        const spec = (pod['spec'] ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
        const requested = body?.deleteOptions?.gracePeriodSeconds;
        const grace = !spec.nodeName
          ? 0
          : typeof requested === 'number'
            ? requested
            : (spec.terminationGracePeriodSeconds ?? 30);
        await store.delete(
          'pods',
          namespace,
          name,
          grace > 0 ? { markOnly: true, gracePeriodSeconds: grace } : {},
        );
      }
    }
    ctx.code = 201;
    writeJson(ctx.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  };
}
