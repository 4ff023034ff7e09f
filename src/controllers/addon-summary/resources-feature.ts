// The Resources feature: policyRefs read from the hub (ConfigMaps, cluster-profile Secrets) or fetched
// (remoteURL, once per interval for the fleet), then rendered for the cluster with templates and patches.
import { renderResources, type ResourceSource, type SourceRef } from '../../addons/content/render.js';
import type { Patch } from '../../addons/content/patches.js';
import type { SourceObject } from '../../addons/content/sources.js';
import type { IsNamespaced } from '../../addons/content/stamp.js';
import {
  credentialsFromSecret,
  isRemoteError,
  parseGoDuration,
  type RemoteContentCache,
  type RemoteURLRef,
} from '../../addons/remote/index.js';
import type { JsonObject } from '../../apiserver/patch/json.js';
import { RESOURCES } from '../../fleet/names.js';
import type { Store } from '../../store/types.js';
import type { CacheReader } from '../runtime/reconcile.js';
import { failed, type FeatureContent, type FeatureInput } from './feature.js';
import { RenderMemo, renderKey } from './render-memo.js';

/** How soon a summary whose remote content could not be fetched is tried again. */
const RETRY_FAILED_MS = 30_000;

interface PolicyRef {
  kind?: string;
  namespace?: string;
  name?: string;
  tier?: number;
  deploymentType?: 'Local' | 'Remote';
  optional?: boolean;
  remoteURL?: RemoteURLRef;
}

export class ResourcesFeature {
  private readonly memo = new RenderMemo();

  constructor(
    private readonly store: Store,
    private readonly remote: RemoteContentCache,
    private readonly isNamespaced: IsNamespaced,
  ) {}

  async render(input: FeatureInput): Promise<FeatureContent> {
    const { profileSpec, cluster, owner } = input;
    const gathered = await this.gather(input.cache, profileSpec, cluster.metadata.namespace ?? '');
    if (gathered.errors.length > 0)
      return failed(gathered.reason ?? 'InvalidReference', gathered.errors.join('; '), gathered.retryMs);
    const uid = input.summary.metadata.uid;
    const key = uid ? renderKey(input.summary, owner, cluster, gathered.sources) : undefined;
    let content = uid && key ? this.memo.get(uid, key) : undefined;
    if (!content) {
      content = this.renderNow(gathered.sources, profileSpec, cluster, owner);
      if (uid && key) this.memo.set(uid, key, content);
    }
    return gathered.retryMs !== undefined ? { ...content, retryMs: gathered.retryMs } : content;
  }

  private renderNow(
    sources: ResourceSource[],
    profileSpec: Record<string, unknown>,
    cluster: FeatureInput['cluster'],
    owner: FeatureInput['owner'],
  ): FeatureContent {
    const rendered = renderResources({
      sources,
      patches: (Array.isArray(profileSpec['patches']) ? profileSpec['patches'] : []) as Patch[],
      cluster: cluster as unknown as JsonObject,
      owner,
      isNamespaced: this.isNamespaced,
    });
    if (rendered.errors.length > 0)
      return failed(
        rendered.errors[0]!.code.startsWith('Template') ? 'TemplateInstantiationError' : 'InvalidContent',
        rendered.errors.map((e) => e.message).join('; '),
      );
    return { manifests: rendered.manifests.Remote, local: rendered.manifests.Local, hash: rendered.hash };
  }

  /** Reads every policyRef: ConfigMaps and Secrets from the store, remoteURLs through the cache. */
  private async gather(
    cache: CacheReader,
    profileSpec: Record<string, unknown>,
    clusterNs: string,
  ): Promise<{ sources: ResourceSource[]; errors: string[]; reason?: string; retryMs?: number }> {
    const refs = (Array.isArray(profileSpec['policyRefs']) ? profileSpec['policyRefs'] : []) as PolicyRef[];
    const sources: ResourceSource[] = [];
    const errors: string[] = [];
    let reason: string | undefined;
    let retryMs: number | undefined;
    for (const [i, ref] of refs.entries()) {
      const base = { tier: ref.tier ?? 100, deploymentType: ref.deploymentType ?? 'Remote' } as const;
      if (ref.remoteURL) {
        const sourceRef: SourceRef = { kind: 'RemoteURL', namespace: '', name: ref.remoteURL.url, ...base };
        try {
          const credentials = await this.remoteCredentials(ref.remoteURL, clusterNs);
          const content = await this.remote.get(ref.remoteURL, credentials);
          sources.push({
            ref: sourceRef,
            text: content.body,
            ...(ref.remoteURL.template ? { templated: true } : {}),
          });
          const every = parseGoDuration(
            ref.remoteURL.interval ?? '5m',
            `spec.policyRefs[${i}].remoteURL.interval`,
          );
          retryMs = Math.min(retryMs ?? every, every);
        } catch (e) {
          errors.push(`spec.policyRefs[${i}]: ${e instanceof Error ? e.message : String(e)}`);
          reason ??= isRemoteError(e) ? 'FetchFailed' : 'InvalidReference';
          retryMs = Math.min(retryMs ?? RETRY_FAILED_MS, RETRY_FAILED_MS);
        }
        continue;
      }
      const kind = ref.kind ?? '';
      const ns = ref.namespace || clusterNs;
      const name = ref.name ?? '';
      const resource =
        kind === 'Secret' ? RESOURCES.secrets : kind === 'ConfigMap' ? 'configmaps' : undefined;
      if (!resource) {
        errors.push(
          `spec.policyRefs[${i}]: kind ${kind || '(none)'} is not supported (ConfigMap, Secret or remoteURL)`,
        );
        reason ??= 'InvalidReference';
        continue;
      }
      // ConfigMaps from the cache (their events bring summaries back); Secrets only from the store.
      const obj =
        resource === 'configmaps' ? cache.get(resource, ns, name) : await this.store.get(resource, ns, name);
      if (!obj) {
        if (ref.optional) continue;
        errors.push(`spec.policyRefs[${i}]: ${kind} ${ns}/${name} not found`);
        reason ??= 'ReferenceNotFound';
        continue;
      }
      sources.push({ ref: { kind, namespace: ns, name, ...base }, object: obj as unknown as SourceObject });
    }
    return { sources, errors, ...(reason ? { reason } : {}), ...(retryMs !== undefined ? { retryMs } : {}) };
  }

  private async remoteCredentials(ref: RemoteURLRef, clusterNs: string) {
    if (!ref.secretRef?.name) return undefined;
    const ns = ref.secretRef.namespace || clusterNs;
    const secret = await this.store.get(RESOURCES.secrets, ns, ref.secretRef.name);
    if (!secret) throw new Error(`remoteURL secretRef ${ns}/${ref.secretRef.name} not found`);
    return credentialsFromSecret(secret);
  }
}
