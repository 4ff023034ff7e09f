// Namespace deletion: a Namespace marked for deletion goes Terminating, everything in it is deleted,
// and once nothing is left (finalizers done) the `kubernetes` finalizer comes off and it is removed.
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { conditionsOf, setCondition, type ConditionUpdate } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import type {
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';

/** The spec finalizer the API server puts on every Namespace: this controller's to remove. */
export const NAMESPACE_FINALIZER = 'kubernetes';

const NAMESPACES = 'namespaces';

export interface NamespaceReconcilerOptions {
  store: Store;
  /** Every namespaced resource the hub serves (store names), read on each pass so new kinds count. */
  namespacedResources: () => string[];
  /** How soon to look again while content (held by finalizers) remains. Default 1000 ms. */
  recheckAfterMs?: number;
  now?: () => Date;
}

/** What one sweep over the namespace's content found. */
interface ContentSweep {
  /** Objects still present, per resource (being deleted, or failed to delete). */
  remaining: Map<string, number>;
  /** Remaining objects per finalizer that holds them. */
  finalizers: Map<string, number>;
  failures: string[];
}

function specFinalizers(ns: KubeObject): string[] {
  const spec = ns['spec'];
  if (typeof spec !== 'object' || spec === null) return [];
  const finalizers = (spec as { finalizers?: unknown }).finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f): f is string => typeof f === 'string') : [];
}

function isCode(e: unknown, code: number): boolean {
  return isApiError(e) && e.code === code;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Kubernetes' namespace-deletion conditions, so `kubectl describe ns` reads the same. */
function deletionConditions(sweep: ContentSweep): ConditionUpdate[] {
  const remaining = [...sweep.remaining].map(([r, n]) => `${r} has ${n} resource instances`).join(', ');
  const finalizers = [...sweep.finalizers].map(([f, n]) => `${f} in ${n} resource instances`).join(', ');
  return [
    sweep.failures.length
      ? {
          type: 'NamespaceDeletionContentFailure',
          status: 'True',
          reason: 'ContentDeletionFailed',
          message: `Failed to delete all resource types, ${sweep.failures.length} remaining: ${sweep.failures.join(', ')}`,
        }
      : {
          type: 'NamespaceDeletionContentFailure',
          status: 'False',
          reason: 'ContentDeleted',
          message: 'All content successfully deleted, may be waiting on finalization',
        },
    remaining
      ? {
          type: 'NamespaceContentRemaining',
          status: 'True',
          reason: 'SomeResourcesRemain',
          message: `Some resources are remaining: ${remaining}`,
        }
      : {
          type: 'NamespaceContentRemaining',
          status: 'False',
          reason: 'ContentRemoved',
          message: 'All content successfully removed',
        },
    finalizers
      ? {
          type: 'NamespaceFinalizersRemaining',
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: `Some content in the namespace has finalizers remaining: ${finalizers}`,
        }
      : {
          type: 'NamespaceFinalizersRemaining',
          status: 'False',
          reason: 'ContentHasNoFinalizers',
          message: 'All content-preserving finalizers finished',
        },
  ];
}

export class NamespaceReconciler implements Reconciler {
  private readonly store: Store;
  private readonly namespacedResources: () => string[];
  private readonly recheckAfterMs: number;
  private readonly now: () => Date;

  constructor(options: NamespaceReconcilerOptions) {
    this.store = options.store;
    this.namespacedResources = options.namespacedResources;
    this.recheckAfterMs = options.recheckAfterMs ?? 1000;
    this.now = options.now ?? (() => new Date());
  }

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const ns = await this.store.get(NAMESPACES, '', req.name);
    if (!ns?.metadata.deletionTimestamp) return {};
    if (!specFinalizers(ns).includes(NAMESPACE_FINALIZER)) {
      // Our part is done (perhaps by a run that stopped before the delete); finish when nobody else holds it.
      if (specFinalizers(ns).length === 0) await this.deleteNamespace(ns);
      return {};
    }

    const sweep = await this.deleteContent(req.name, ctx.signal);
    await this.updateStatus(req.name, sweep);
    if (sweep.failures.length) {
      throw new Error(`deleting content of namespace ${req.name}: ${sweep.failures.join('; ')}`);
    }
    if (sweep.remaining.size) {
      ctx.logger.debug({ remaining: Object.fromEntries(sweep.remaining) }, 'content remains');
      return { requeueAfterMs: this.recheckAfterMs };
    }

    const finalized = await retryOnConflict(async () => {
      const current = await this.store.get(NAMESPACES, '', req.name);
      if (!current || current.metadata.uid !== ns.metadata.uid) return undefined;
      const left = specFinalizers(current).filter((f) => f !== NAMESPACE_FINALIZER);
      if (left.length === specFinalizers(current).length) return current;
      const spec = { ...(current['spec'] as object), finalizers: left };
      return this.store.update(NAMESPACES, { ...current, spec });
    });
    if (!finalized) return {};
    ctx.logger.info('namespace content removed; finalized');
    if (specFinalizers(finalized).length === 0) await this.deleteNamespace(finalized);
    return {};
  }

  /** Deletes every object in the namespace that is not already being deleted, and counts what is left. */
  private async deleteContent(namespace: string, signal: AbortSignal): Promise<ContentSweep> {
    const sweep: ContentSweep = { remaining: new Map(), finalizers: new Map(), failures: [] };
    for (const resource of this.namespacedResources()) {
      if (signal.aborted) throw new Error('stopped');
      let items: KubeObject[];
      try {
        items = (await this.store.list(resource, { namespace })).items;
      } catch (e) {
        sweep.failures.push(`listing ${resource}: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      for (let obj of items) {
        if (signal.aborted) throw new Error('stopped');
        const name = obj.metadata.name ?? '';
        if (!obj.metadata.deletionTimestamp) {
          try {
            const preconditions = obj.metadata.uid ? { uid: obj.metadata.uid } : undefined;
            const result = await this.store.delete(
              resource,
              namespace,
              name,
              preconditions ? { preconditions } : {},
            );
            if (result.deleted) continue;
            obj = result.object;
          } catch (e) {
            if (isCode(e, 404)) continue;
            // 409: the name now holds a newer object; the next sweep deletes that one.
            if (!isCode(e, 409)) {
              sweep.failures.push(
                `deleting ${resource} ${name}: ${e instanceof Error ? e.message : String(e)}`,
              );
            }
          }
        }
        increment(sweep.remaining, resource);
        for (const f of obj.metadata.finalizers ?? []) increment(sweep.finalizers, f);
      }
    }
    return sweep;
  }

  /** Terminating phase plus the deletion conditions; written only when something changed. */
  private async updateStatus(name: string, sweep: ContentSweep): Promise<void> {
    const updates = deletionConditions(sweep);
    await retryOnConflict(async () => {
      const current = await this.store.get(NAMESPACES, '', name);
      if (!current) return;
      const next: KubeObject = structuredClone(current);
      const conditions = conditionsOf(next);
      const status = next['status'] as { phase?: string };
      let changed = status.phase !== 'Terminating';
      status.phase = 'Terminating';
      const now = this.now();
      for (const update of updates) changed = setCondition(conditions, update, now) || changed;
      if (changed) await this.store.update(NAMESPACES, next, { subresource: 'status' });
    });
  }

  private async deleteNamespace(ns: KubeObject): Promise<void> {
    try {
      const uid = ns.metadata.uid;
      await this.store.delete(NAMESPACES, '', ns.metadata.name ?? '', uid ? { preconditions: { uid } } : {});
    } catch (e) {
      if (!isCode(e, 404)) throw e;
    }
  }
}

export type NamespaceControllerOptions = NamespaceReconcilerOptions &
  Omit<ControllerOptions, 'name' | 'reconciler'>;

/** The namespace controller: reconciles Namespaces by name. */
export function namespaceController(options: NamespaceControllerOptions): Controller {
  const reconciler = new NamespaceReconciler(options);
  return new Controller({ ...options, name: 'namespace', reconciler }).for(NAMESPACES);
}
