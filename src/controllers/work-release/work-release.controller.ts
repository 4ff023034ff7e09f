// Releases deleted ManifestWorks that no agent will clean up. The hub puts the cleanup finalizer on every
// work when it is created; a deleting work whose Cluster is gone, being deleted or never joined loses it here.
//
// While the Cluster has joined, cleaning up is its agent's job (it deletes what the work applied, then
// drops the finalizer), and the work waits, re-checked every `recheckMs`: deleting the Cluster is how an
// operator lets go of the works of an agent that will not come back. Local works (fleethub.io/local) have
// no Cluster: the hub cleans them up itself (controllers/addon-local), so they are never released here.
import { LABEL_CLUSTER, LABEL_LOCAL, RESOURCES, WORK_CLEANUP_FINALIZER } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { conditionsOf, findCondition } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import { hasFinalizer, isDeleting, removeFinalizer } from '../runtime/finalizers.js';
import type {
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';

const DEFAULT_RECHECK_MS = 30_000;

/** Whether the hub applies this work to itself: its cleanup is the addon-local controller's, not an agent's. */
export function isLocalWork(work: KubeObject): boolean {
  return work.metadata.labels?.[LABEL_LOCAL] !== undefined;
}

/** Why no agent will clean up a work for this Cluster, or undefined when its agent will. */
export function releaseReason(cluster: KubeObject | undefined): string | undefined {
  if (!cluster) return 'ClusterNotFound';
  if (isDeleting(cluster)) return 'ClusterDeleting';
  if (findCondition(conditionsOf(cluster), 'Joined')?.status !== 'True') return 'ClusterNotJoined';
  return undefined;
}

export class WorkReleaseReconciler implements Reconciler {
  constructor(
    private readonly store: Store,
    private readonly recheckMs = DEFAULT_RECHECK_MS,
  ) {}

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const namespace = req.namespace ?? '';
    const work = await this.store.get(RESOURCES.manifestWorks, namespace, req.name);
    if (!work || !isDeleting(work) || !hasFinalizer(work, WORK_CLEANUP_FINALIZER) || isLocalWork(work))
      return {};
    const clusterName = work.metadata.labels?.[LABEL_CLUSTER] ?? '';
    const cluster = clusterName
      ? await this.store.get(RESOURCES.clusters, namespace, clusterName)
      : undefined;
    const reason = releaseReason(cluster);
    if (!reason) return { requeueAfterMs: this.recheckMs };
    await retryOnConflict(async () => {
      const fresh = await this.store.get(RESOURCES.manifestWorks, namespace, req.name);
      if (!fresh || fresh.metadata.uid !== work.metadata.uid) return;
      const next = structuredClone(fresh);
      if (!removeFinalizer(next, WORK_CLEANUP_FINALIZER)) return;
      try {
        await this.store.update(RESOURCES.manifestWorks, next);
      } catch (e) {
        if (!(isApiError(e) && e.code === 404)) throw e;
      }
    });
    ctx.logger.info({ cluster: clusterName, reason }, 'released a deleted work no agent will clean up');
    return {};
  }
}

export type WorkReleaseControllerOptions = Omit<ControllerOptions, 'name' | 'reconciler'> & {
  store: Store;
  recheckMs?: number;
};

export function workReleaseController(options: WorkReleaseControllerOptions): Controller {
  const reconciler = new WorkReleaseReconciler(options.store, options.recheckMs);
  return new Controller({ ...options, name: 'work-release', reconciler }).for(RESOURCES.manifestWorks, {
    // Only deleting works hold anything up; the rest never need this controller.
    predicate: (obj) => isDeleting(obj) && hasFinalizer(obj, WORK_CLEANUP_FINALIZER) && !isLocalWork(obj),
  });
}
