// Garbage collector: dependents whose owners are all gone are deleted (Background); an owner marked with
// the `foregroundDeletion` finalizer loses its dependents first, one with `orphan` has them released, then the finalizer goes.
import type { KubeObject, ObjectMeta, OwnerReference } from '../../store/types.js';
import { deleteObject, deletePod, isCode, type KindInfo, type SimContext } from './context.js';
import { nameOf, nsOf } from './util.js';

export const FOREGROUND = 'foregroundDeletion';
export const ORPHAN = 'orphan';

/** Built-in kinds owner references point at, by `group/Kind`. */
const BUILTIN_KINDS: Record<string, KindInfo> = {
  '/Node': { resource: 'nodes', namespaced: false },
  '/Namespace': { resource: 'namespaces', namespaced: false },
  '/Pod': { resource: 'pods', namespaced: true },
  '/Service': { resource: 'services', namespaced: true },
  '/ConfigMap': { resource: 'configmaps', namespaced: true },
  '/Secret': { resource: 'secrets', namespaced: true },
  '/ServiceAccount': { resource: 'serviceaccounts', namespaced: true },
  '/PersistentVolumeClaim': { resource: 'persistentvolumeclaims', namespaced: true },
  '/PersistentVolume': { resource: 'persistentvolumes', namespaced: false },
  '/ReplicationController': { resource: 'replicationcontrollers', namespaced: true },
  'apps/Deployment': { resource: 'deployments.apps', namespaced: true },
  'apps/ReplicaSet': { resource: 'replicasets.apps', namespaced: true },
  'apps/DaemonSet': { resource: 'daemonsets.apps', namespaced: true },
  'apps/StatefulSet': { resource: 'statefulsets.apps', namespaced: true },
  'apps/ControllerRevision': { resource: 'controllerrevisions.apps', namespaced: true },
  'batch/Job': { resource: 'jobs.batch', namespaced: true },
  'batch/CronJob': { resource: 'cronjobs.batch', namespaced: true },
  'policy/PodDisruptionBudget': { resource: 'poddisruptionbudgets.policy', namespaced: true },
  'discovery.k8s.io/EndpointSlice': { resource: 'endpointslices.discovery.k8s.io', namespaced: true },
  'coordination.k8s.io/Lease': { resource: 'leases.coordination.k8s.io', namespaced: true },
  'apiextensions.k8s.io/CustomResourceDefinition': {
    resource: 'customresourcedefinitions.apiextensions.k8s.io',
    namespaced: false,
  },
  'rbac.authorization.k8s.io/ClusterRole': {
    resource: 'clusterroles.rbac.authorization.k8s.io',
    namespaced: false,
  },
  'rbac.authorization.k8s.io/Role': { resource: 'roles.rbac.authorization.k8s.io', namespaced: true },
};

/** Where dependents are looked for by default: the built-ins that carry owner references in practice. */
export const DEFAULT_GC_RESOURCES: readonly string[] = [
  'pods',
  'replicasets.apps',
  'controllerrevisions.apps',
  'deployments.apps',
  'daemonsets.apps',
  'statefulsets.apps',
  'jobs.batch',
  'cronjobs.batch',
  'endpoints',
  'endpointslices.discovery.k8s.io',
  'services',
  'configmaps',
  'secrets',
  'serviceaccounts',
  'persistentvolumeclaims',
  'poddisruptionbudgets.policy',
  'leases.coordination.k8s.io',
  'roles.rbac.authorization.k8s.io',
  'rolebindings.rbac.authorization.k8s.io',
];

export function resolveKind(ctx: SimContext, apiVersion: string, kind: string): KindInfo | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return BUILTIN_KINDS[`${group}/${kind}`] ?? ctx.options.resolveKind?.(apiVersion, kind);
}

/** Every object (of the searched resources) that lists `uid` as an owner, in `ns` ('' = everywhere). */
async function dependentsOf(ctx: SimContext, uid: string, ns: string): Promise<[string, KubeObject][]> {
  const found: [string, KubeObject][] = [];
  const predicate = (o: KubeObject) => o.metadata.ownerReferences?.some((r) => r.uid === uid) ?? false;
  for (const resource of ctx.options.gcResources) {
    const list = await ctx.store.list(resource, ns ? { namespace: ns, predicate } : { predicate });
    for (const o of list.items) found.push([resource, o]);
  }
  return found;
}

/** Whether the owner a reference names still exists with that uid; unknown kinds count as present. */
async function ownerExists(ctx: SimContext, ref: OwnerReference, ns: string): Promise<boolean> {
  const info = resolveKind(ctx, ref.apiVersion, ref.kind);
  if (!info) return true;
  const owner = await ctx.store.get(info.resource, info.namespaced ? ns : '', ref.name);
  return owner !== undefined && owner.metadata.uid === ref.uid;
}

async function remove(ctx: SimContext, resource: string, obj: KubeObject): Promise<void> {
  if (resource === 'pods') await deletePod(ctx, obj);
  else await deleteObject(ctx, resource, obj);
}

/**
 * attemptToDelete for one object: all owners gone → delete it; some gone → drop the dangling
 * references (kube patches them away) so the survivors keep it.
 */
export async function collectDependent(
  ctx: SimContext,
  resource: string,
  ns: string,
  name: string,
): Promise<void> {
  const obj = await ctx.store.get(resource, ns, name);
  const refs = obj?.metadata.ownerReferences ?? [];
  if (!obj || refs.length === 0 || obj.metadata.deletionTimestamp) return;
  const present: OwnerReference[] = [];
  for (const ref of refs) if (await ownerExists(ctx, ref, ns)) present.push(ref);
  if (present.length === refs.length) return;
  try {
    if (present.length === 0) await remove(ctx, resource, obj);
    else
      await ctx.store.update(resource, { ...obj, metadata: { ...obj.metadata, ownerReferences: present } });
  } catch (e) {
    if (!isCode(e, 404, 409)) throw e;
  }
}

/** An owner disappeared: look at each of its dependents. */
export async function ownerGone(ctx: SimContext, ns: string, uid: string): Promise<void> {
  for (const [resource, dep] of await dependentsOf(ctx, uid, ns))
    await collectDependent(ctx, resource, nsOf(dep), nameOf(dep));
}

/** An owner being deleted with the foregroundDeletion or orphan finalizer. */
export async function finalizeOwner(
  ctx: SimContext,
  resource: string,
  ns: string,
  name: string,
): Promise<void> {
  const owner = await ctx.store.get(resource, ns, name);
  const uid = owner?.metadata.uid;
  if (!owner || !uid || !owner.metadata.deletionTimestamp) return;
  const finalizers = owner.metadata.finalizers ?? [];
  if (finalizers.includes(ORPHAN)) {
    for (const [depResource, dep] of await dependentsOf(ctx, uid, ns)) {
      const refs = (dep.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      const metadata: ObjectMeta = { ...dep.metadata, ownerReferences: refs };
      if (refs.length === 0) delete metadata.ownerReferences;
      try {
        await ctx.store.update(depResource, { ...dep, metadata });
      } catch (e) {
        if (!isCode(e, 404)) throw e;
      }
    }
    await dropFinalizer(ctx, resource, owner, ORPHAN);
    return;
  }
  if (!finalizers.includes(FOREGROUND)) return;
  ctx.foregroundOwners.add(uid);
  let blocking = 0;
  for (const [depResource, dep] of await dependentsOf(ctx, uid, ns)) {
    const ref = dep.metadata.ownerReferences?.find((r) => r.uid === uid);
    if (!dep.metadata.deletionTimestamp) {
      // A dependent that owns things itself is deleted in the foreground too, so the chain unwinds bottom-up.
      const depUid = dep.metadata.uid ?? '';
      const hasOwnDependents = depUid !== '' && (await dependentsOf(ctx, depUid, nsOf(dep))).length > 0;
      try {
        if (hasOwnDependents && depResource !== 'pods') {
          const marked = await ctx.store.update(depResource, {
            ...dep,
            metadata: { ...dep.metadata, finalizers: [...(dep.metadata.finalizers ?? []), FOREGROUND] },
          });
          await ctx.store.delete(depResource, nsOf(marked), nameOf(marked), {
            preconditions: { uid: depUid },
          });
        } else await remove(ctx, depResource, dep);
      } catch (e) {
        if (!isCode(e, 404, 409)) throw e;
      }
    }
    if (
      ref?.blockOwnerDeletion === true &&
      (await ctx.store.get(depResource, nsOf(dep), nameOf(dep)))?.metadata.uid === dep.metadata.uid
    )
      blocking++;
  }
  if (blocking > 0) {
    // Dependents' deletions re-queue this owner; the delay only guards against a missed event.
    ctx.enqueue(`gcfin|${resource}|${ns}|${name}`, 2000);
    return;
  }
  ctx.foregroundOwners.delete(uid);
  await dropFinalizer(ctx, resource, owner, FOREGROUND);
}

async function dropFinalizer(
  ctx: SimContext,
  resource: string,
  owner: KubeObject,
  finalizer: string,
): Promise<void> {
  const current = await ctx.store.get(resource, nsOf(owner), nameOf(owner));
  if (!current || current.metadata.uid !== owner.metadata.uid) return;
  const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  await ctx.store.update(resource, { ...current, metadata: { ...current.metadata, finalizers } });
}
