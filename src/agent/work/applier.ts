// Converges a managed cluster to one ManifestWork through KubeClientApi: applies each manifest with its
// update strategy, prunes what the work no longer lists, computes the status; and deletes a work's objects.
import { setTimeout as sleep } from 'node:timers/promises';
import { AGENT_FIELD_MANAGER, ANNOTATION_DRY_RUN } from '../../fleet/names.js';
import { KubeApiError, type KubeClientApi, type ResourceRef } from '../../kube/types.js';
import type { KubeObject } from '../../store/types.js';
import { buildWorkStatus, type AppliedState, type AvailableState, type ManifestState } from './conditions.js';
import { dryRunVerdict, type DryRunResult } from './dryrun.js';
import { feedbackValues } from './feedback.js';
import {
  clone,
  deepMerge,
  errorMessage,
  hashOf,
  identifies,
  isMap,
  objectFingerprint,
  removePath,
  sameContent,
  splitApiVersion,
} from './objects.js';
import {
  CONFIG_SPEC_HASH_ANNOTATION,
  type AppliedRecord,
  type AppliedResource,
  type DeleteOption,
  type DryRunDeletion,
  type IgnoreField,
  type ManifestConfigOption,
  type ManifestResourceMeta,
  type ManifestWork,
  type ManifestWorkStatus,
  type UpdateStrategyType,
} from './types.js';

export interface ApplyWorkOptions {
  /** How long to wait for an applied CRD to become Established before the next manifest; default 15 s. */
  crdEstablishTimeoutMs?: number;
  /** The time stamped on conditions that change; default now. */
  now?: Date;
}

export type ManifestAction = 'created' | 'updated' | 'unchanged' | 'read' | 'failed';

/** What happened to one manifest. */
export interface ManifestOutcome {
  ordinal: number;
  meta: ManifestResourceMeta;
  strategy: UpdateStrategyType;
  /** In a dry run: what the write would have done (`created`/`updated` when it would change something). */
  action: ManifestAction;
  error?: string;
  /** Dry run only: whether applying would change the live object (a missing object counts as a change). */
  wouldChange?: boolean;
  /** Dry run only: the verdict reported in the manifest's Applied condition. */
  dryRun?: DryRunResult;
  /** The object after the step (the dry-run result in a dry run); absent when unknown or missing. */
  object?: KubeObject;
}

export interface PruneFailure {
  resource: AppliedResource;
  error: string;
}

export interface ApplyOutcome {
  dryRun: boolean;
  /** The work's new status (conditions, resourceStatus); lastTransitionTimes kept from work.status. */
  status: ManifestWorkStatus;
  /** What to pass as `previous` next time (unchanged in a dry run). */
  record: AppliedRecord;
  manifests: ManifestOutcome[];
  /** Deleted because the work no longer lists them (in a dry run: would be deleted). */
  pruned: AppliedResource[];
  /** No longer listed, left in the cluster and forgotten because of the deleteOption. */
  orphaned: AppliedResource[];
  /** No longer listed and not deleted: already gone, or recreated by someone else (another uid). */
  skipped: AppliedResource[];
  /** Deletions that failed; these stay in the record and are retried next time. */
  pruneErrors: PruneFailure[];
}

const CRD_GROUP = 'apiextensions.k8s.io';
const CRD_KIND = 'CustomResourceDefinition';

export function isDryRun(work: ManifestWork): boolean {
  return work.metadata.annotations?.[ANNOTATION_DRY_RUN] === 'true';
}

/** The manifestConfig naming this resource, if any. */
export function findManifestConfig(
  work: ManifestWork,
  target: { group: string; resource: string; namespace: string; name: string },
): ManifestConfigOption | undefined {
  return work.spec.manifestConfigs?.find((c) => identifies(c.resourceIdentifier, target));
}

export interface EffectiveStrategy {
  type: UpdateStrategyType;
  /** ServerSideApply only (also sent as the field manager of Update/CreateOnly writes). */
  fieldManager: string;
  force: boolean;
  ignoreFields: IgnoreField[];
}

/**
 * The update strategy of a manifest. OCM's default is Update; fleethub deliberately defaults to
 * ServerSideApply with field manager `fleethub-agent` and force=true, because that is what users of
 * kubectl apply --server-side and helm-era tooling expect: the work's fields win, other managers keep theirs.
 * An explicit ServerSideApply config keeps force=true unless it sets `force: false`.
 */
export function effectiveStrategy(config: ManifestConfigOption | undefined): EffectiveStrategy {
  const s = config?.updateStrategy;
  const ssa = s?.serverSideApply;
  return {
    type: s?.type ?? 'ServerSideApply',
    fieldManager: ssa?.fieldManager || AGENT_FIELD_MANAGER,
    force: ssa?.force ?? true,
    ignoreFields: ssa?.ignoreFields ?? [],
  };
}

/** Whether the deleteOption leaves this object in the cluster (Orphan, or matched by an orphaning rule). */
export function isOrphaned(deleteOption: DeleteOption | undefined, r: AppliedResource): boolean {
  const policy = deleteOption?.propagationPolicy ?? 'Foreground';
  if (policy === 'Orphan') return true;
  if (policy !== 'SelectivelyOrphan') return false;
  return (deleteOption?.selectivelyOrphans?.orphaningRules ?? []).some((rule) => identifies(rule, r));
}

function refOf(r: AppliedResource): ResourceRef {
  return {
    group: r.group,
    version: r.version,
    resource: r.resource,
    kind: r.kind,
    namespaced: r.namespace !== '',
  };
}

function isCode(err: unknown, code: number): boolean {
  return err instanceof KubeApiError && err.code === code;
}

/** Applies one work: every manifest in order (errors stay per manifest), then prunes, then the status. */
export async function applyWork(
  client: KubeClientApi,
  work: ManifestWork,
  previous?: AppliedRecord,
  options: ApplyWorkOptions = {},
): Promise<ApplyOutcome> {
  const dryRun = isDryRun(work);
  const generation = work.metadata.generation;
  const manifests = work.spec.workload?.manifests ?? [];
  const previousResources = previous?.resources ?? [];
  const outcomes: ManifestOutcome[] = [];
  const states: ManifestState[] = [];
  const record: AppliedResource[] = [];
  /** group|kind|namespace|name of everything the work lists, resolved or not. */
  const listed = new Set<string>();
  let crdApplied = false;

  for (const [ordinal, raw] of manifests.entries()) {
    const step = await applyManifest(client, work, ordinal, raw, {
      dryRun,
      crdApplied,
      crdEstablishTimeoutMs: options.crdEstablishTimeoutMs ?? 15_000,
    });
    if (step.isCrd && step.outcome.action !== 'failed') crdApplied = true;
    outcomes.push(step.outcome);
    states.push(step.state);
    const m = step.outcome.meta;
    listed.add(`${m.group}|${m.kind}|${m.namespace}|${m.name}`);
    const before = previousResources.find(
      (r) => r.group === m.group && r.kind === m.kind && r.namespace === m.namespace && r.name === m.name,
    );
    if (dryRun) {
      if (before) record.push(before);
    } else if (step.applied) {
      record.push(step.applied);
    } else if (before && step.outcome.strategy !== 'ReadOnly') {
      // Failed this time: keep what we own so it is neither forgotten nor pruned.
      record.push(before);
    }
  }

  const pruned: AppliedResource[] = [];
  const orphaned: AppliedResource[] = [];
  const skipped: AppliedResource[] = [];
  const pruneErrors: PruneFailure[] = [];
  for (const r of previousResources) {
    if (listed.has(`${r.group}|${r.kind}|${r.namespace}|${r.name}`)) continue;
    if (isOrphaned(work.spec.deleteOption, r)) {
      orphaned.push(r);
      if (dryRun) record.push(r);
      continue;
    }
    try {
      const deleted = await client.delete(refOf(r), r.namespace || undefined, r.name, {
        propagationPolicy: 'Foreground',
        preconditions: { uid: r.uid },
        dryRun,
      });
      (deleted ? pruned : skipped).push(r);
    } catch (err) {
      // 409: the uid precondition failed, someone else's object now has the name: not ours to delete.
      if (isCode(err, 409)) skipped.push(r);
      else if (isCode(err, 404)) skipped.push(r);
      else pruneErrors.push({ resource: r, error: errorMessage(err) });
    }
    if (dryRun) record.push(r);
  }
  if (!dryRun) for (const f of pruneErrors) record.push(f.resource);

  const status = buildWorkStatus(states, work.status, generation, {
    dryRun,
    ...(dryRun ? { dryRunDeletions: pruned.map(deletionOf) } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    dryRun,
    status,
    record: { resources: dryRun ? clone(previousResources) : record },
    manifests: outcomes,
    pruned,
    orphaned,
    skipped,
    pruneErrors,
  };
}

function deletionOf({ group, version, kind, resource, namespace, name }: AppliedResource): DryRunDeletion {
  return { group, version, kind, resource, namespace, name };
}

interface StepOptions {
  dryRun: boolean;
  crdApplied: boolean;
  crdEstablishTimeoutMs: number;
}

interface Step {
  outcome: ManifestOutcome;
  state: ManifestState;
  /** The record entry when the object exists and the agent owns it (not ReadOnly, not a dry run). */
  applied?: AppliedResource;
  isCrd: boolean;
}

/** Resolves the kind; right after a CRD was applied in this run, retries while discovery catches up. */
async function resolve(
  client: KubeClientApi,
  apiVersion: string,
  kind: string,
  options: StepOptions,
): Promise<ResourceRef> {
  const deadline = Date.now() + (options.crdApplied ? options.crdEstablishTimeoutMs : 0);
  for (;;) {
    try {
      return await client.resourceFor(apiVersion, kind);
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await sleep(250);
    }
  }
}

async function waitEstablished(client: KubeClientApi, ref: ResourceRef, name: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const crd = await client.get(ref, undefined, name).catch(() => undefined);
    const status = crd?.['status'];
    const conditions = isMap(status) && Array.isArray(status['conditions']) ? status['conditions'] : [];
    if (conditions.some((c) => isMap(c) && c['type'] === 'Established' && c['status'] === 'True')) return;
    await sleep(100);
  }
}

async function applyManifest(
  client: KubeClientApi,
  work: ManifestWork,
  ordinal: number,
  raw: KubeObject,
  options: StepOptions,
): Promise<Step> {
  const manifest = clone(raw);
  const { group, version } = splitApiVersion(manifest.apiVersion);
  const kind = manifest.kind ?? '';
  const meta: ManifestResourceMeta = {
    ordinal,
    group,
    version,
    kind,
    resource: '',
    name: manifest.metadata?.name ?? '',
    namespace: manifest.metadata?.namespace ?? '',
  };
  const isCrd = group === CRD_GROUP && kind === CRD_KIND;
  const fail = (
    strategy: UpdateStrategyType,
    message: string,
    available: AvailableState,
    object?: KubeObject,
    reason?: string,
  ): Step => ({
    outcome: { ordinal, meta, strategy, action: 'failed', error: message, ...(object ? { object } : {}) },
    state: { meta, applied: { ok: false, message, ...(reason ? { reason } : {}) }, available },
    isCrd,
  });
  const incomplete: AvailableState = {
    status: 'Unknown',
    reason: 'IncompletedResourceMeta',
    message: 'Resource meta is incomplete',
  };
  if (!manifest.apiVersion || !kind || !meta.name) {
    return fail('ServerSideApply', 'the manifest needs apiVersion, kind and metadata.name', incomplete);
  }

  let ref: ResourceRef;
  try {
    ref = await resolve(client, manifest.apiVersion, kind, options);
  } catch (err) {
    return fail(
      'ServerSideApply',
      `cannot resolve ${manifest.apiVersion}, Kind=${kind}: ${errorMessage(err)}`,
      incomplete,
    );
  }
  meta.resource = ref.resource;
  meta.version = ref.version;
  if (ref.namespaced) {
    meta.namespace ||= 'default';
    manifest.metadata.namespace = meta.namespace;
  } else {
    meta.namespace = '';
    delete manifest.metadata.namespace;
  }
  // Never send what identifies one incarnation of an object (OCM drops the uid for the same reason).
  delete manifest.metadata.uid;
  delete manifest.metadata.resourceVersion;
  delete manifest.metadata.creationTimestamp;
  delete manifest.metadata.managedFields;

  const config = findManifestConfig(work, meta);
  const strategy = effectiveStrategy(config);
  const ns = ref.namespaced ? meta.namespace : undefined;

  let live: KubeObject | undefined;
  try {
    live = await client.get(ref, ns, meta.name);
  } catch (err) {
    return fail(strategy.type, `cannot read the live object: ${errorMessage(err)}`, {
      status: 'Unknown',
      reason: 'FetchingResourceFailed',
      message: `Failed to fetch resource: ${errorMessage(err)}`,
    });
  }

  let result: KubeObject | undefined;
  let action: ManifestAction;
  try {
    ({ result, action } = await write(client, ref, ns, manifest, live, strategy, options.dryRun));
  } catch (err) {
    const available: AvailableState = live ? { status: 'True' } : { status: 'False' };
    // OCM: a server-side apply conflict (another field manager, no force) is reason ApplyConflict.
    const conflict = strategy.type === 'ServerSideApply' && isCode(err, 409);
    return fail(strategy.type, errorMessage(err), available, live, conflict ? 'ApplyConflict' : undefined);
  }

  if (strategy.type === 'ReadOnly' && !live) {
    return fail('ReadOnly', `${kind} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name} not found`, {
      status: 'False',
    });
  }
  const object = result ?? live;
  const outcome: ManifestOutcome = { ordinal, meta, strategy: strategy.type, action };
  if (object) outcome.object = object;
  let applied: AppliedState = { ok: true };
  if (options.dryRun) {
    const wouldChange = action === 'created' || action === 'updated';
    outcome.wouldChange = wouldChange;
    // ReadOnly and CreateOnly never write over a live object, whoever owns it.
    const writes = action !== 'read' && !(strategy.type === 'CreateOnly' && live);
    outcome.dryRun = writes
      ? dryRunVerdict(manifest, live, result, wouldChange)
      : { action: 'NoAction', message: `Applying would not change the object (${strategy.type})` };
    applied = { ok: true, dryRun: outcome.dryRun };
  }
  // In a dry run only the live object says whether it exists and what its status is.
  const observed = options.dryRun ? live : object;
  const state: ManifestState = {
    meta,
    applied,
    available: observed ? { status: 'True' } : { status: 'False' },
  };
  const rules = config?.feedbackRules ?? [];
  if (rules.length > 0 && observed) state.feedback = feedbackValues(observed, rules);

  const step: Step = { outcome, state, isCrd };
  if (!options.dryRun && object && strategy.type !== 'ReadOnly') {
    step.applied = {
      group: ref.group,
      version: ref.version,
      resource: ref.resource,
      kind: ref.kind,
      namespace: meta.namespace,
      name: meta.name,
      uid: object.metadata.uid ?? '',
      resourceVersion: object.metadata.resourceVersion ?? '',
      fingerprint: objectFingerprint(object),
      strategy: strategy.type,
    };
  }
  if (isCrd && !options.dryRun && action !== 'unchanged') {
    await waitEstablished(client, ref, meta.name, options.crdEstablishTimeoutMs);
  }
  return step;
}

/** Performs (or dry-runs) the strategy's write; `action` says what it did or would do. */
async function write(
  client: KubeClientApi,
  ref: ResourceRef,
  ns: string | undefined,
  manifest: KubeObject,
  live: KubeObject | undefined,
  strategy: EffectiveStrategy,
  dryRun: boolean,
): Promise<{ result: KubeObject | undefined; action: ManifestAction }> {
  const changed = (result: KubeObject): ManifestAction => {
    if (!live) return 'created';
    if (dryRun) return sameContent(result, live) ? 'unchanged' : 'updated';
    return result.metadata.resourceVersion === live.metadata.resourceVersion ? 'unchanged' : 'updated';
  };
  switch (strategy.type) {
    case 'ReadOnly':
      return { result: live, action: 'read' };
    case 'CreateOnly': {
      if (live) return { result: live, action: 'unchanged' };
      const created = await client.create(ref, manifest, { fieldManager: strategy.fieldManager, dryRun });
      return { result: created, action: 'created' };
    }
    case 'Update': {
      if (!live) {
        const created = await client.create(ref, manifest, { fieldManager: strategy.fieldManager, dryRun });
        return { result: created, action: 'created' };
      }
      let current = live;
      for (let attempt = 0; ; attempt++) {
        const merged = deepMerge(current, manifest) as KubeObject;
        merged.metadata.resourceVersion = current.metadata.resourceVersion;
        if (sameContent(merged, current)) return { result: current, action: 'unchanged' };
        try {
          const updated = await client.update(ref, merged, { fieldManager: strategy.fieldManager, dryRun });
          return { result: updated, action: changed(updated) };
        } catch (err) {
          // Someone wrote in between: merge over the newer object, a few times.
          if (!isCode(err, 409) || attempt >= 3) throw err;
          const fresh = await client.get(ref, ns, manifest.metadata.name ?? '');
          if (!fresh) throw err;
          current = fresh;
        }
      }
    }
    case 'ServerSideApply': {
      let body = manifest;
      if (strategy.ignoreFields.length > 0) {
        // OCM's ignoreFields: OnSpokePresent paths are left out of what is applied to an existing object
        // (and of the hash); OnSpokeChange paths stay in the hash, so they are applied again only when
        // the work's own content changes, never merely because someone changed them in the cluster.
        const required = clone(manifest);
        for (const f of strategy.ignoreFields) {
          if (f.condition === 'OnSpokeChange') continue;
          for (const p of f.jsonPaths) removePath(required, p);
        }
        const hash = hashOf(required);
        for (const o of [required, manifest]) {
          o.metadata.annotations = { ...o.metadata.annotations, [CONFIG_SPEC_HASH_ANNOTATION]: hash };
        }
        if (live && live.metadata.annotations?.[CONFIG_SPEC_HASH_ANNOTATION] === hash) {
          return { result: live, action: 'unchanged' };
        }
        body = live ? required : manifest;
      }
      const result = await client.apply(ref, body, {
        fieldManager: strategy.fieldManager,
        force: strategy.force,
        dryRun,
      });
      return { result, action: changed(result) };
    }
  }
}

export interface DeleteWorkOptions {
  /** How long to wait for the deleted objects to disappear; default 60 s. */
  timeoutMs?: number;
  pollMs?: number;
}

export interface DeleteWorkOutcome {
  /** Deleted and gone from the cluster. */
  deleted: AppliedResource[];
  /** Left in place by the deleteOption. */
  orphaned: AppliedResource[];
  /** Not deleted: already gone or recreated by someone else (another uid). */
  skipped: AppliedResource[];
  /** Deletion started but the object was still there when the timeout passed. */
  remaining: AppliedResource[];
  errors: PruneFailure[];
}

/**
 * On work deletion: deletes everything the record holds, except what the deleteOption orphans, with
 * Foreground propagation and a uid precondition, newest first; resolves once they are gone (or the timeout).
 */
export async function deleteWork(
  client: KubeClientApi,
  record: AppliedRecord,
  deleteOption: DeleteOption | undefined,
  options: DeleteWorkOptions = {},
): Promise<DeleteWorkOutcome> {
  const out: DeleteWorkOutcome = { deleted: [], orphaned: [], skipped: [], remaining: [], errors: [] };
  const started: AppliedResource[] = [];
  for (const r of [...record.resources].reverse()) {
    if (r.strategy === 'ReadOnly') continue;
    if (isOrphaned(deleteOption, r)) {
      out.orphaned.push(r);
      continue;
    }
    try {
      const deleted = await client.delete(refOf(r), r.namespace || undefined, r.name, {
        propagationPolicy: 'Foreground',
        preconditions: { uid: r.uid },
      });
      (deleted ? started : out.skipped).push(r);
    } catch (err) {
      if (isCode(err, 409) || isCode(err, 404)) out.skipped.push(r);
      else out.errors.push({ resource: r, error: errorMessage(err) });
    }
  }
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let waiting = started;
  for (;;) {
    const still: AppliedResource[] = [];
    for (const r of waiting) {
      const live = await client.get(refOf(r), r.namespace || undefined, r.name).catch(() => undefined);
      if (live && live.metadata.uid === r.uid) still.push(r);
      else out.deleted.push(r);
    }
    waiting = still;
    if (waiting.length === 0 || Date.now() >= deadline) break;
    await sleep(options.pollMs ?? 200);
  }
  out.remaining = waiting;
  return out;
}

/**
 * A status-only refresh (OCM's status controller): reads every manifest's live object for Available and
 * feedback, keeping the Applied conditions of work.status. Writes nothing.
 */
export async function refreshStatus(
  client: KubeClientApi,
  work: ManifestWork,
  options: { now?: Date } = {},
): Promise<ManifestWorkStatus> {
  const states: ManifestState[] = [];
  for (const [ordinal, raw] of (work.spec.workload?.manifests ?? []).entries()) {
    const { group, version } = splitApiVersion(raw.apiVersion);
    const meta: ManifestResourceMeta = {
      ordinal,
      group,
      version,
      kind: raw.kind ?? '',
      resource: '',
      name: raw.metadata?.name ?? '',
      namespace: raw.metadata?.namespace ?? '',
    };
    const state: ManifestState = { meta, available: { status: 'Unknown', reason: '', message: '' } };
    states.push(state);
    let ref: ResourceRef;
    try {
      ref = await client.resourceFor(raw.apiVersion ?? '', meta.kind);
    } catch {
      state.available = {
        status: 'Unknown',
        reason: 'IncompletedResourceMeta',
        message: 'Resource meta is incomplete',
      };
      continue;
    }
    meta.resource = ref.resource;
    meta.version = ref.version;
    meta.namespace = ref.namespaced ? meta.namespace || 'default' : '';
    try {
      const live = await client.get(ref, ref.namespaced ? meta.namespace : undefined, meta.name);
      state.available = live ? { status: 'True' } : { status: 'False' };
      const rules = findManifestConfig(work, meta)?.feedbackRules ?? [];
      if (live && rules.length > 0) state.feedback = feedbackValues(live, rules);
    } catch (err) {
      state.available = {
        status: 'Unknown',
        reason: 'FetchingResourceFailed',
        message: `Failed to fetch resource: ${errorMessage(err)}`,
      };
    }
  }
  return buildWorkStatus(states, work.status, work.metadata.generation, {
    keepApplied: true,
    ...(options.now ? { now: options.now } : {}),
  });
}
