// The verbs on stored kinds: get, list, create, update (PUT), patch (merge, JSON, strategic, apply),
// delete and deletecollection, including the status subresource and dryRun.
import { randomUUID } from 'node:crypto';
import type { KindDefinition } from '../../kinds/types.js';
import { apiVersionOf } from '../../kinds/types.js';
import { validateObject, parseFieldValidation } from '../../kinds/validation.js';
import type { KubeObject, ListResult, Store } from '../../store/types.js';
import { ApiError, errors } from '../../util/errors.js';
import { assertDepth, decodeApplyBody, decodeDeleteOptions, decodeObjectBody, readBody } from '../body.js';
import { fieldManagerOf, isDryRun, type RequestContext } from '../context.js';
import { writeJson } from '../respond.js';
import type { FieldManager } from '../field-manager.js';
import { listPredicate } from '../list-options.js';
import { acceptedPatchTypes, applyPatch, builtinPatchMeta, patchTypeOf } from '../patch/index.js';
import { parseIncludeObject, tableFromList, tableFromObject, wantsTable } from '../table.js';
import {
  asKubeObject,
  assertNamespaceWritable,
  bindNamespace,
  clearServerFields,
  clone,
  resolveGenerateName,
} from './objects.js';

export interface CrudDeps {
  store: Store;
  fields: FieldManager;
}

const MAX_PATCH_RETRIES = 5;

function respondObject(ctx: RequestContext, code: number, obj: KubeObject): void {
  ctx.code = code;
  if (ctx.warnings.length > 0)
    ctx.res.setHeader(
      'Warning',
      ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
  const tableVersion = wantsTable(ctx.req.headers.accept);
  if (tableVersion) {
    const table = tableFromObject(ctx.def, obj, {
      includeObject: parseIncludeObject(ctx.query),
      version: tableVersion,
    });
    writeJson(ctx.res, code, table, tableContentType(tableVersion));
    return;
  }
  writeJson(ctx.res, code, withTypeMeta(ctx.def, obj));
}

export function tableContentType(version: string): string {
  return `application/json;as=Table;v=${version};g=meta.k8s.io`;
}

export function withTypeMeta(def: KindDefinition, obj: KubeObject): KubeObject {
  if (obj.apiVersion === apiVersionOf(def) && obj.kind === def.kind) return obj;
  // Served through another version (a CRD's v2 of an object stored as v1): the no-op conversion
  // rewrites apiVersion, as kube-apiserver's does.
  const { apiVersion: _stored, kind: _kind, ...rest } = obj;
  return { apiVersion: apiVersionOf(def), kind: def.kind, ...rest } as KubeObject;
}

function namespaceOf(ctx: RequestContext): string {
  return ctx.def.namespaced ? ctx.info.namespace : '';
}

export async function getObject(deps: CrudDeps, ctx: RequestContext): Promise<void> {
  const obj = await deps.store.get(ctx.resource, namespaceOf(ctx), ctx.info.name);
  if (!obj) throw errors.notFound(ctx.def.plural, ctx.def.group, ctx.info.name);
  respondObject(ctx, 200, obj);
}

export async function listObjects(deps: CrudDeps, ctx: RequestContext): Promise<void> {
  if (ctx.query.get('sendInitialEvents') !== null)
    throw errors.invalid('ListOptions', 'meta.k8s.io', '', [
      {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: sendInitialEvents is forbidden for list',
        field: 'sendInitialEvents',
      },
    ]);
  const version = ctx.query.get('resourceVersion');
  if (version && !/^\d+$/.test(version))
    throw errors.badRequest(`resourceVersion: Invalid value: "${version}": must be an unsigned integer`);
  const result = await listMatching(deps.store, ctx);
  ctx.code = 200;
  const tableVersion = wantsTable(ctx.req.headers.accept);
  if (tableVersion) {
    const meta: Parameters<typeof tableFromList>[2] = { resourceVersion: result.resourceVersion };
    if (result.continue) meta.continue = result.continue;
    if (result.remainingItemCount !== undefined) meta.remainingItemCount = result.remainingItemCount;
    const table = tableFromList(ctx.def, result.items, meta, {
      includeObject: parseIncludeObject(ctx.query),
      version: tableVersion,
    });
    writeJson(ctx.res, 200, table, tableContentType(tableVersion));
    return;
  }
  writeJson(ctx.res, 200, listBody(ctx.def, result));
}

async function listMatching(store: Store, ctx: RequestContext): Promise<ListResult> {
  const limit = parseLimit(ctx.query.get('limit'));
  const options: Parameters<Store['list']>[1] = { predicate: listPredicate(ctx.def, ctx.query) };
  if (ctx.def.namespaced && ctx.info.namespace) options.namespace = ctx.info.namespace;
  if (limit) options.limit = limit;
  const token = ctx.query.get('continue');
  if (token) options.continue = token;
  return store.list(ctx.resource, options);
}

function parseLimit(value: string | null): number | undefined {
  if (value === null || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw errors.badRequest(`limit must be a non-negative integer, got "${value}"`);
  return n;
}

function listBody(def: KindDefinition, result: ListResult): Record<string, unknown> {
  const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) metadata.continue = result.continue;
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
  return {
    kind: `${def.kind}List`,
    apiVersion: apiVersionOf(def),
    metadata,
    items: result.items.map((item) => withTypeMeta(def, item)),
  };
}

/** Defaults, validation and field ownership for an object about to be created. */
function prepareCreate(
  deps: CrudDeps,
  ctx: RequestContext,
  obj: KubeObject,
  manager: string | undefined,
): void {
  clearServerFields(obj);
  // As kube-apiserver: the uid exists before defaulting (a Job's generated selector names it).
  obj.metadata.uid = randomUUID();
  resolveGenerateName(obj);
  // A kind with a status subresource takes no status on create; its defaults set the initial one.
  if (ctx.def.subresources?.status) delete obj.status;
  ctx.def.admit?.(obj, { operation: 'create', user: ctx.user });
  ctx.def.guard?.({ operation: 'create', user: ctx.user, obj });
  const outcome = validateObject(ctx.def, obj, parseFieldValidation(ctx.query.get('fieldValidation')));
  ctx.warnings.push(...outcome.warnings);
  ctx.def.defaults?.(obj);
  if (manager !== undefined) deps.fields.recordUpdate(ctx.def, undefined, obj, manager, '');
}

export async function createObject(deps: CrudDeps, ctx: RequestContext): Promise<void> {
  if (ctx.info.subresource) throw errors.methodNotAllowed();
  const body = await readBody(ctx.req);
  const obj = asKubeObject(decodeObjectBody(ctx.req.headers['content-type'], body), ctx.def);
  bindNamespace(obj, ctx.def, ctx.info.namespace);
  const dryRun = isDryRun(ctx.query);
  prepareCreate(deps, ctx, obj, fieldManagerOf(ctx, false));
  if (ctx.def.namespaced) await assertNamespaceWritable(deps.store, ctx.info.namespace);
  const created = await deps.store.create(ctx.resource, obj, { dryRun, serverUid: true });
  ctx.createdName = created.metadata.name;
  respondObject(ctx, 201, created);
}

/** Everything an update (PUT, patch, apply) shares once the new object is known. */
async function storeUpdate(
  deps: CrudDeps,
  ctx: RequestContext,
  live: KubeObject,
  next: KubeObject,
  manager: string,
  recordFields: boolean,
): Promise<KubeObject> {
  const subresource = ctx.info.subresource === 'status' ? 'status' : undefined;
  if (next.metadata.name !== live.metadata.name)
    throw errors.badRequest(
      `the name of the object (${String(next.metadata.name)}) does not match the name on the URL (${String(live.metadata.name)})`,
    );
  bindNamespace(next, ctx.def, namespaceOf(ctx));
  // Mutating admission sees writes of the main resource only (PUT, patch, apply), as kube's does for specs.
  if (!subresource) ctx.def.admit?.(next, { operation: 'update', user: ctx.user, old: live });
  ctx.def.guard?.({
    operation: 'update',
    user: ctx.user,
    old: live,
    obj: next,
    ...(ctx.info.subresource ? { subresource: ctx.info.subresource } : {}),
  });
  const outcome = validateObject(ctx.def, next, parseFieldValidation(ctx.query.get('fieldValidation')), live);
  if (live.metadata.deletionTimestamp) {
    // An object on its way out may lose finalizers, never gain them (it could then never go).
    const had = new Set(live.metadata.finalizers ?? []);
    if ((next.metadata.finalizers ?? []).some((f) => !had.has(f)))
      throw errors.invalid(ctx.def.kind, ctx.def.group, live.metadata.name ?? '', [
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: no new finalizers can be added if the object is being deleted',
          field: 'metadata.finalizers',
        },
      ]);
  }
  ctx.warnings.push(...outcome.warnings);
  if (recordFields) deps.fields.recordUpdate(ctx.def, live, next, manager, subresource ?? '');
  const options: Parameters<Store['update']>[2] = {
    dryRun: isDryRun(ctx.query),
    statusSubresource: ctx.def.subresources?.status === true,
  };
  if (subresource) options.subresource = subresource;
  return deps.store.update(ctx.resource, next, options);
}

export async function replaceObject(deps: CrudDeps, ctx: RequestContext): Promise<void> {
  const body = await readBody(ctx.req);
  const obj = asKubeObject(decodeObjectBody(ctx.req.headers['content-type'], body), ctx.def);
  if (obj.metadata.name !== undefined && obj.metadata.name !== ctx.info.name)
    throw errors.badRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${ctx.info.name})`,
    );
  obj.metadata.name = ctx.info.name;
  const live = await deps.store.get(ctx.resource, namespaceOf(ctx), ctx.info.name);
  if (!live) throw errors.notFound(ctx.def.plural, ctx.def.group, ctx.info.name);
  const updated = await storeUpdate(deps, ctx, live, obj, fieldManagerOf(ctx, false), true);
  respondObject(ctx, 200, updated);
}

export async function patchObject(deps: CrudDeps, ctx: RequestContext): Promise<void> {
  const body = await readBody(ctx.req);
  const contentType = ctx.req.headers['content-type'];
  const patchMeta = builtinPatchMeta(ctx.def.group, ctx.def.kind);
  const type = patchTypeOf(contentType);
  if (type === undefined || (type === 'strategic' && !patchMeta))
    throw errors.unsupportedMediaType(contentType ?? '', acceptedPatchTypes(patchMeta !== undefined));
  const isApply = type === 'apply';
  if (ctx.query.get('force') !== null && !isApply)
    throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [
      {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: may not be specified for non-apply patch',
        field: 'force',
      },
    ]);
  const manager = fieldManagerOf(ctx, isApply);
  if (isApply) return applyObject(deps, ctx, decodeApplyBody(body), manager);
  const patch = peekJson(body);
  assertDepth(patch);
  const clientSetVersion = patchSetsResourceVersion(patch);
  for (let attempt = 1; ; attempt++) {
    const live = await deps.store.get(ctx.resource, namespaceOf(ctx), ctx.info.name);
    if (!live) throw errors.notFound(ctx.def.plural, ctx.def.group, ctx.info.name);
    const next = asKubeObject(applyPatch(contentType, clone(live), body, patchMeta), ctx.def);
    try {
      const updated = await storeUpdate(deps, ctx, live, next, manager, !managedFieldsPatched(patch));
      respondObject(ctx, 200, updated);
      return;
    } catch (e) {
      // A patch is relative to whatever is stored: on a race, re-read and re-apply, like kube-apiserver.
      if (
        !(e instanceof ApiError && e.code === 409 && e.reason === 'Conflict') ||
        clientSetVersion ||
        attempt >= MAX_PATCH_RETRIES
      )
        throw e;
    }
  }
}

/** The patch as JSON for inspection only; applyPatch reports malformed bodies properly. */
function peekJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

async function applyObject(
  deps: CrudDeps,
  ctx: RequestContext,
  body: unknown,
  manager: string,
): Promise<void> {
  const force = ctx.query.get('force') === 'true';
  for (let attempt = 1; ; attempt++) {
    const applied = asKubeObject(clone(body), ctx.def);
    if (applied.metadata.name !== undefined && applied.metadata.name !== ctx.info.name)
      throw errors.badRequest(
        `the name of the object (${applied.metadata.name}) does not match the name on the URL (${ctx.info.name})`,
      );
    applied.metadata.name = ctx.info.name;
    bindNamespace(applied, ctx.def, namespaceOf(ctx));
    const live = await deps.store.get(ctx.resource, namespaceOf(ctx), ctx.info.name);
    try {
      if (!live) {
        if (ctx.info.subresource) throw errors.notFound(ctx.def.plural, ctx.def.group, ctx.info.name);
        const obj = deps.fields.apply(ctx.def, undefined, applied, manager, force, '');
        prepareCreate(deps, ctx, obj, undefined);
        if (ctx.def.namespaced) await assertNamespaceWritable(deps.store, ctx.info.namespace);
        const created = await deps.store.create(ctx.resource, obj, {
          dryRun: isDryRun(ctx.query),
          serverUid: true,
        });
        respondObject(ctx, 201, created);
        return;
      }
      const next = deps.fields.apply(ctx.def, live, applied, manager, force, ctx.info.subresource);
      next.metadata.resourceVersion = live.metadata.resourceVersion!;
      const updated = await storeUpdate(deps, ctx, live, next, manager, false);
      respondObject(ctx, 200, updated);
      return;
    } catch (e) {
      const raced =
        e instanceof ApiError &&
        e.code === 409 &&
        (e.reason === 'Conflict' ? !e.details?.causes : e.reason === 'AlreadyExists');
      if (!raced || attempt >= MAX_PATCH_RETRIES) throw e;
    }
  }
}

function patchSetsResourceVersion(patch: unknown): boolean {
  if (Array.isArray(patch))
    return patch.some(
      (op) =>
        typeof op === 'object' &&
        op !== null &&
        String((op as { path?: unknown }).path) === '/metadata/resourceVersion',
    );
  const meta = (patch as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  return meta?.resourceVersion !== undefined && meta.resourceVersion !== null;
}

/** kubectl migrating from client-side apply writes managedFields itself; then they are taken as given. */
function managedFieldsPatched(patch: unknown): boolean {
  if (Array.isArray(patch))
    return patch.some(
      (op) =>
        typeof op === 'object' &&
        op !== null &&
        String((op as { path?: unknown }).path).startsWith('/metadata/managedFields'),
    );
  return (patch as { metadata?: { managedFields?: unknown } } | null)?.metadata?.managedFields !== undefined;
}

export async function deleteObject(deps: CrudDeps, ctx: RequestContext): Promise<void> {
  if (ctx.info.subresource) throw errors.methodNotAllowed();
  const options = decodeDeleteOptions(ctx.req.headers['content-type'], await readBody(ctx.req));
  const dryRun = isDryRun(ctx.query) || (Array.isArray(options.dryRun) && options.dryRun.includes('All'));
  const preconditions = options.preconditions as { uid?: string; resourceVersion?: string } | undefined;
  const namespace = namespaceOf(ctx);
  const deleteOptions: Parameters<Store['delete']>[3] = { dryRun };
  if (preconditions) deleteOptions.preconditions = preconditions;
  if (ctx.def.guard) {
    const live = await deps.store.get(ctx.resource, namespace, ctx.info.name);
    if (!live) throw errors.notFound(ctx.def.plural, ctx.def.group, ctx.info.name);
    ctx.def.guard({ operation: 'delete', user: ctx.user, old: live });
  }
  if (ctx.def.kind === 'Namespace' && ctx.def.group === '') {
    const ns = await deps.store.get(ctx.resource, '', ctx.info.name);
    if (!ns) throw errors.notFound(ctx.def.plural, ctx.def.group, ctx.info.name);
    if (((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length > 0) {
      // Already terminating: deleting again changes nothing (the content may still be going).
      if (ns.metadata.deletionTimestamp) {
        respondObject(ctx, 200, ns);
        return;
      }
      // The namespace controller empties it, drops the `kubernetes` finalizer and deletes it for good.
      if (!dryRun) {
        const terminating = clone(ns);
        terminating.status = { ...(terminating.status as object | undefined), phase: 'Terminating' };
        await deps.store.update(ctx.resource, terminating, { subresource: 'status' });
      }
      deleteOptions.markOnly = true;
    }
  }
  if (ctx.def.gracefulDeletion) {
    const grace = await gracePeriodOf(deps.store, ctx, namespace, options.gracePeriodSeconds);
    if (grace > 0) {
      deleteOptions.markOnly = true;
      deleteOptions.gracePeriodSeconds = grace;
    }
  }
  const result = await deps.store.delete(ctx.resource, namespace, ctx.info.name, deleteOptions);
  if (!result.deleted || ctx.def.deleteReturnsObject) {
    respondObject(ctx, 200, result.object);
    return;
  }
  ctx.code = 200;
  const details: Record<string, unknown> = { name: ctx.info.name, kind: ctx.def.plural };
  if (ctx.def.group) details.group = ctx.def.group;
  if (result.object.metadata.uid) details.uid = result.object.metadata.uid;
  writeJson(ctx.res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
}

/** A pod's grace period as kube-apiserver decides it: the request's, else the spec's (30 s default). */
async function gracePeriodOf(
  store: Store,
  ctx: RequestContext,
  namespace: string,
  requested: unknown,
): Promise<number> {
  const live = await store.get(ctx.resource, namespace, ctx.info.name);
  if (!live) throw errors.notFound(ctx.def.plural, ctx.def.group, ctx.info.name);
  const spec = (live['spec'] ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (live['status'] as { phase?: string } | undefined)?.phase;
  // Nothing runs it (unscheduled) or it has finished: nothing to wait for.
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  if (typeof requested === 'number' && Number.isInteger(requested) && requested >= 0) return requested;
  return spec.terminationGracePeriodSeconds ?? 30;
}

export async function deleteCollection(deps: CrudDeps, ctx: RequestContext): Promise<void> {
  decodeDeleteOptions(ctx.req.headers['content-type'], await readBody(ctx.req));
  const dryRun = isDryRun(ctx.query);
  const { items, resourceVersion } = await listMatching(deps.store, ctx);
  const deleted: KubeObject[] = [];
  // All or nothing: one object the guard refuses stops the collection before anything is deleted.
  for (const item of items) ctx.def.guard?.({ operation: 'delete', user: ctx.user, old: item });
  for (const item of items) {
    try {
      const result = await deps.store.delete(
        ctx.resource,
        item.metadata.namespace ?? '',
        item.metadata.name!,
        { dryRun },
      );
      deleted.push(result.object);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }
  ctx.code = 200;
  writeJson(ctx.res, 200, listBody(ctx.def, { items: deleted, resourceVersion }));
}
