// ControllerRevisions for DaemonSets and StatefulSets: one per template (`<name>-<hash>`) numbered like
// kube's history, so `kubectl rollout history/undo` work and a StatefulSet can recreate pods at an older revision.
import type { KubeObject } from '../../store/types.js';
import { createObject, deleteObject, isCode, type SimContext } from './context.js';
import { controlledBy, controllerRefTo, field, nameOf, num, spec, type Json } from './util.js';

export const CONTROLLER_REVISIONS = 'controllerrevisions.apps';

const revisionNumber = (cr: KubeObject): number => num(cr['revision']) ?? 0;

/** The pod template a revision recorded. */
export function revisionTemplate(cr: KubeObject): Json | undefined {
  const t = field(cr, 'data', 'spec', 'template') as Json | undefined;
  if (!t) return undefined;
  const { $patch: _patch, ...template } = t;
  return template;
}

/**
 * Makes the revision `<owner>-<hash>` exist and be the newest (a template returning from history gets
 * the next number, as in a rollback); drops the oldest beyond revisionHistoryLimit except those in use.
 */
export async function syncRevisions(
  ctx: SimContext,
  owner: KubeObject,
  hash: string,
  inUse: readonly string[],
): Promise<KubeObject[]> {
  const ns = owner.metadata.namespace ?? '';
  const name = `${nameOf(owner)}-${hash}`;
  let revisions = (await ctx.store.list(CONTROLLER_REVISIONS, { namespace: ns })).items.filter((cr) =>
    controlledBy(cr, owner),
  );
  const max = Math.max(0, ...revisions.map(revisionNumber));
  const existing = revisions.find((cr) => nameOf(cr) === name);
  try {
    if (!existing) {
      const template = structuredClone((spec(owner)['template'] ?? {}) as Json);
      const created = await createObject(ctx, CONTROLLER_REVISIONS, {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name,
          namespace: ns,
          labels: {
            ...((field(spec(owner), 'selector', 'matchLabels') as Record<string, string> | undefined) ?? {}),
            'controller-revision-hash': hash,
          },
          ownerReferences: [controllerRefTo(owner)],
        },
        data: { spec: { template: { ...template, $patch: 'replace' } } },
        revision: max + 1,
      });
      if (created) revisions.push(created);
    } else if (revisionNumber(existing) < max) {
      const bumped = await ctx.store.update(CONTROLLER_REVISIONS, { ...existing, revision: max + 1 });
      revisions = revisions.map((cr) => (cr === existing ? bumped : cr));
    }
  } catch (e) {
    if (!isCode(e, 409)) throw e;
  }
  const limit = num(spec(owner)['revisionHistoryLimit']) ?? 10;
  const keep = new Set([name, ...inUse]);
  const history = revisions
    .filter((cr) => !keep.has(nameOf(cr)))
    .sort((a, b) => revisionNumber(a) - revisionNumber(b));
  const excess = history.slice(0, Math.max(0, history.length - limit));
  for (const cr of excess) await deleteObject(ctx, CONTROLLER_REVISIONS, cr);
  return revisions.filter((cr) => !excess.includes(cr));
}
