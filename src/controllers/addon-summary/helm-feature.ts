// The Helm feature: helmCharts rendered on the hub (charts fetched once for the fleet, renders cached by
// input) and delivered as manifests. A release is delivered whole or not at all: when another profile owns
// any of its objects the release is withheld and its helmReleaseSummary says Conflict, naming the owner.
import { isJsonObject, type JsonObject } from '../../apiserver/patch/json.js';
import type { Patch } from '../../addons/content/patches.js';
import type { IsNamespaced } from '../../addons/content/stamp.js';
import {
  renderHelmFeature,
  type HelmChartSpec,
  type HelmFeatureRenderer,
  type HelmReleaseSummary,
} from '../../addons/helm/index.js';
import {
  SHARED_ANNOTATION,
  describeConflict,
  objectKey,
  type Conflict,
  type ProfileRef,
} from '../../addons/ownership.js';
import { RESOURCES } from '../../fleet/names.js';
import type { Store } from '../../store/types.js';
import { failed, type FeatureContent, type FeatureInput } from './feature.js';

/** What "Helm" means here, said in every helmReleaseSummaries entry (and in docs/addons.md). */
export const HELM_DELIVERY =
  'rendered on the hub and applied as manifests: no helm release in the cluster (helm list is empty there), hooks not run, lookup empty';

const RELEASE_NAME = 'meta.helm.sh/release-name';
const RELEASE_NAMESPACE = 'meta.helm.sh/release-namespace';

export class HelmFeature {
  constructor(
    private readonly store: Store,
    private readonly renderer: HelmFeatureRenderer,
    private readonly isNamespaced: IsNamespaced,
  ) {}

  async render(input: FeatureInput): Promise<FeatureContent> {
    const charts = (
      Array.isArray(input.profileSpec['helmCharts']) ? input.profileSpec['helmCharts'] : []
    ) as HelmChartSpec[];
    const result = await renderHelmFeature(this.renderer, {
      charts,
      cluster: input.cluster as unknown as JsonObject,
      readObject: async (kind, namespace, name) =>
        this.store.get(kind === 'Secret' ? RESOURCES.secrets : 'configmaps', namespace, name),
      isNamespaced: this.isNamespaced,
      owner: input.owner,
      patches: (Array.isArray(input.profileSpec['patches']) ? input.profileSpec['patches'] : []) as Patch[],
    });
    const releases = result.releases.map((r) => ({ ...r, delivery: HELM_DELIVERY }));
    if (result.errors.length > 0) {
      const content = failed(result.errors[0]!.reason, result.errors.map((e) => e.message).join('; '));
      return { ...content, releases };
    }
    // helm install --create-namespace, as Sveltos installs: the namespace is created, shared, never removed.
    const namespaces = [
      ...new Set(result.charts.filter((c) => c.action === 'Install').map((c) => c.release.releaseNamespace)),
    ].map((name): JsonObject => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, annotations: { [SHARED_ANNOTATION]: 'helm-release-namespace' } },
    }));
    return {
      manifests: [...namespaces, ...result.manifests],
      local: [],
      hash: result.hash,
      releases,
    };
  }
}

/** `namespace/name` of the release an object was rendered for (helm's ownership annotations). */
function releaseOf(obj: JsonObject): string | undefined {
  const md = isJsonObject(obj['metadata']) ? obj['metadata'] : {};
  const a = isJsonObject(md['annotations']) ? md['annotations'] : {};
  const name = a[RELEASE_NAME];
  return typeof name === 'string' ? `${String(a[RELEASE_NAMESPACE] ?? '')}/${name}` : undefined;
}

/**
 * Takes out every object of a release that lost any object to another profile, and marks that release
 * Conflict with who owns what. A partly installed release would be a broken one.
 */
export function withholdConflictingReleases(
  owned: JsonObject[],
  desired: readonly JsonObject[],
  conflicts: readonly Conflict[],
  releases: readonly HelmReleaseSummary[],
  self: ProfileRef,
): { manifests: JsonObject[]; releases: HelmReleaseSummary[] } {
  const releaseByKey = new Map(desired.map((m) => [objectKey(m), releaseOf(m)]));
  const lost = new Map<string, string[]>();
  for (const c of conflicts) {
    const release = releaseByKey.get(c.key);
    if (release) lost.set(release, [...(lost.get(release) ?? []), describeConflict(c, self)]);
  }
  return {
    manifests: owned.filter((m) => !lost.has(releaseOf(m) ?? '')),
    releases: releases.map((r) => {
      const why = lost.get(`${r.releaseNamespace}/${r.releaseName}`);
      return why ? { ...r, status: 'Conflict' as const, conflictMessage: why.join('; ') } : r;
    }),
  };
}
