// The Helm feature of one (ClusterSummary, cluster): every helmCharts entry fetched (once for the fleet),
// its values instantiated for the cluster, rendered (once per distinct input), namespaced and stamped,
// with Sveltos-shaped helmReleaseSummaries and every failure named by its field path.
//
// What differs from Sveltos's helm install: the hub renders and the agent applies, so chart hooks are
// not run (hook objects are left out, as are test hooks and NOTES.txt), `lookup` finds nothing, and
// random or clock-reading template functions draw from a PRNG seeded by the render's inputs and a pinned
// instant, so a release re-renders to the same objects instead of rotating passwords and certificates.
import { createHash } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../../apiserver/patch/json.js';
import type { GoMap } from '../../gotemplate/value.js';
import { ContentError } from '../content/errors.js';
import type { Manifest } from '../content/sources.js';
import {
  canonicalJson,
  sha256Hex,
  stampObject,
  type IsNamespaced,
  type OwnerInfo,
} from '../content/stamp.js';
import { applyPatches, type Patch } from '../content/patches.js';
import { TemplateContext } from '../content/template.js';
import {
  ChartCache,
  type ChartCacheOptions,
  type ChartCacheStats,
  type FetchedChart,
} from './chart-cache.js';
import { registryAccess, type RegistryCredentialsConfig } from './credentials.js';
import { isChartFetchError, type HelmFeatureError } from './errors.js';
import type { CacheStats } from './lru.js';
import { RenderCache } from './release.js';
import { withReleaseNamespace } from './scope.js';
import {
  EntryError,
  instantiateField,
  instantiateValues,
  type ReadObject,
  type ValueFromRef,
} from './values.js';

/** `spec.helmCharts[]` as written in a ClusterProfile/Profile (the fields this feature reads). */
export interface HelmChartSpec {
  repositoryURL: string;
  repositoryName?: string;
  chartName?: string;
  chartVersion?: string;
  releaseName: string;
  releaseNamespace: string;
  helmChartAction?: 'Install' | 'Uninstall' | string;
  values?: string;
  valuesFrom?: ValueFromRef[];
  options?: { skipCRDs?: boolean; skipSchemaValidation?: boolean; [option: string]: unknown };
  registryCredentialsConfig?: RegistryCredentialsConfig;
}

/** One `status.helmReleaseSummaries[]` item, as Sveltos writes it. */
export interface HelmReleaseSummary {
  releaseName: string;
  releaseNamespace: string;
  /** Managing; Conflict when another profile owns the release's objects (set by the summary controller). */
  status: 'Managing' | 'Conflict';
  conflictMessage?: string;
  /** How the release reached the cluster (fleethub's addition to Sveltos's status, set by the controller). */
  delivery?: string;
  chartName: string;
  chartVersion: string;
  repositoryName?: string;
  repoURL: string;
  /** base64 of sha256 over the canonical JSON of the instantiated values (Sveltos keeps bytes). */
  valuesHash?: string;
}

/** What became of one entry. */
export interface HelmChartOutcome {
  index: number;
  action: 'Install' | 'Uninstall';
  release: HelmReleaseSummary;
  /** Stamped objects of this release, in delivery order (empty for Uninstall and on failure). */
  manifests: Manifest[];
  /** `sha256:<hex>` of the chart archive that was rendered. */
  chartDigest?: string;
  /** The version that was rendered (a constraint such as ^1.2 resolves to one). */
  resolvedVersion?: string;
  /** Whether the render came from the render cache. */
  cached?: boolean;
  error?: HelmFeatureError;
}

export interface HelmFeatureInput {
  charts: readonly HelmChartSpec[];
  /** The fleethub Cluster (`.Cluster` in templates; status.kubernetesVersion and capabilities.apiVersions). */
  cluster: JsonObject;
  /** templateResourceRefs objects by identifier. */
  mgmtResources?: Record<string, JsonObject>;
  /** ConfigMaps and Secrets on the hub: valuesFrom and registry credentials. */
  readObject: ReadObject;
  /** The profile's `patches`, applied to every release's objects after rendering (Sveltos's post-render). */
  patches?: readonly Patch[];
  /** The hub's knowledge of kinds; unknown kinds fall back to the chart's CRDs and Kubernetes built-ins. */
  isNamespaced?: IsNamespaced;
  owner: OwnerInfo;
  /**
   * The instant `now`, `genCA` and friends see (pinned so renders repeat). Default: the Cluster's
   * creationTimestamp. Part of the render-cache key.
   */
  renderEpoch?: Date | string;
}

export interface HelmFeatureResult {
  /** Every release's stamped objects, helmCharts order; a failed entry contributes none. */
  manifests: Manifest[];
  /** helmReleaseSummaries, one per entry (Uninstall entries too). */
  releases: HelmReleaseSummary[];
  charts: HelmChartOutcome[];
  /** Empty on success. Deliver nothing while it is not: a half-installed stack is worse than none. */
  errors: HelmFeatureError[];
  /** `sha256:` over releases and manifests; '' when there are errors. */
  hash: string;
}

export interface HelmFeatureOptions extends ChartCacheOptions {
  /** Distinct renders kept. Default 256. */
  renderCacheSize?: number;
}

export const HELM_FEATURE = 'Helm';
/** What `helm install` stamps on every object it creates (so a later helm can adopt them). */
export const HELM_MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const HELM_RELEASE_NAME_ANNOTATION = 'meta.helm.sh/release-name';
export const HELM_RELEASE_NAMESPACE_ANNOTATION = 'meta.helm.sh/release-namespace';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (isJsonObject(v) ? v : {});

/** One per hub: the fleet's chart store and render cache. */
export class HelmFeatureRenderer {
  readonly charts: ChartCache;
  private readonly renders: RenderCache;

  constructor(options: HelmFeatureOptions = {}) {
    this.charts = new ChartCache(options);
    this.renders = new RenderCache(options.renderCacheSize ?? 256);
  }

  get stats(): { charts: ChartCacheStats; renders: CacheStats } {
    return { charts: this.charts.stats, renders: this.renders.stats };
  }

  async render(input: HelmFeatureInput): Promise<HelmFeatureResult> {
    const ctx = new TemplateContext({
      cluster: input.cluster,
      ...(input.mgmtResources ? { mgmtResources: input.mgmtResources } : {}),
    });
    const outcomes: HelmChartOutcome[] = [];
    // Entries run in order: Sveltos deploys helmCharts top-down, and templates share one context.
    for (const [index, spec] of input.charts.entries())
      outcomes.push(await this.entry(index, spec, ctx, input));
    const errors = outcomes.flatMap((o) => (o.error ? [o.error] : []));
    errors.push(...duplicates(outcomes));
    const releases = outcomes.map((o) => o.release);
    const manifests = outcomes.flatMap((o) => o.manifests);
    const hash =
      errors.length > 0
        ? ''
        : 'sha256:' + sha256Hex(canonicalJson({ releases: releases as unknown as JsonObject[], manifests }));
    return { manifests, releases, charts: outcomes, errors, hash };
  }

  private async entry(
    index: number,
    spec: HelmChartSpec,
    ctx: TemplateContext,
    input: HelmFeatureInput,
  ): Promise<HelmChartOutcome> {
    const field = `spec.helmCharts[${index}]`;
    const action = spec.helmChartAction === 'Uninstall' ? 'Uninstall' : 'Install';
    // Every field of a HelmChart is a template in Sveltos; instantiate the ones that identify the chart.
    const t = (v: string | undefined, name: string): string =>
      v && v.includes('{{') ? instantiateField(ctx, v, `${field}.${name}`) : (v ?? '');
    const release: HelmReleaseSummary = {
      releaseName: spec.releaseName,
      releaseNamespace: spec.releaseNamespace,
      status: 'Managing',
      chartName: spec.chartName ?? '',
      chartVersion: spec.chartVersion ?? '',
      ...(spec.repositoryName ? { repositoryName: spec.repositoryName } : {}),
      repoURL: spec.repositoryURL,
    };
    const outcome: HelmChartOutcome = { index, action, release, manifests: [] };
    try {
      release.releaseName = t(spec.releaseName, 'releaseName');
      release.releaseNamespace = t(spec.releaseNamespace, 'releaseNamespace');
      release.chartName = t(spec.chartName, 'chartName');
      release.chartVersion = t(spec.chartVersion, 'chartVersion');
      release.repoURL = t(spec.repositoryURL, 'repositoryURL');
      if (spec.repositoryName) release.repositoryName = t(spec.repositoryName, 'repositoryName');
      // Uninstall: no objects, so the agent prunes the release's objects; the summary stays listed.
      if (action === 'Uninstall') return outcome;
      for (const key of ['chartName', 'chartVersion'] as const)
        if (!release[key]) throw new EntryError('InvalidReference', `${field}.${key} is required`);
      const clusterNs = String(asObj(input.cluster['metadata'])['namespace'] ?? '');
      const values = await instantiateValues({
        ...(spec.values !== undefined ? { values: spec.values } : {}),
        ...(spec.valuesFrom ? { valuesFrom: spec.valuesFrom } : {}),
        field,
        defaultNamespace: clusterNs,
        ctx,
        read: input.readObject,
      });
      release.valuesHash = createHash('sha256')
        .update(canonicalJson(values as unknown as JsonObject))
        .digest('base64');
      const access = await registryAccess(
        spec.registryCredentialsConfig,
        release.repoURL,
        clusterNs,
        input.readObject,
        field,
      );
      let fetched: FetchedChart;
      try {
        fetched = await this.charts.get({
          repositoryURL: release.repoURL,
          ...(release.repositoryName ? { repositoryName: release.repositoryName } : {}),
          chartName: release.chartName,
          chartVersion: release.chartVersion,
          ...access,
        });
      } catch (e) {
        if (isChartFetchError(e)) throw new EntryError('FetchFailed', `${field}: ${e.message}`);
        throw e;
      }
      outcome.chartDigest = fetched.digest;
      outcome.resolvedVersion = fetched.version;
      outcome.manifests = this.renderRelease(field, fetched, values, release, spec, input, outcome);
    } catch (e) {
      if (e instanceof EntryError) {
        outcome.error = {
          index,
          reason: e.reason,
          message: e.message,
          ...(e.line !== undefined ? { line: e.line } : {}),
        };
        outcome.manifests = [];
        return outcome;
      }
      if (e instanceof ContentError) {
        outcome.error = { index, reason: 'RenderFailed', message: `${field}: ${e.message}` };
        return outcome;
      }
      throw e;
    }
    return outcome;
  }

  private renderRelease(
    field: string,
    fetched: FetchedChart,
    values: GoMap,
    release: HelmReleaseSummary,
    spec: HelmChartSpec,
    input: HelmFeatureInput,
    outcome: HelmChartOutcome,
  ): Manifest[] {
    const status = asObj(input.cluster['status']);
    const kubeVersion =
      typeof status['kubernetesVersion'] === 'string' ? status['kubernetesVersion'] : undefined;
    const reported = asObj(status['capabilities'])['apiVersions'];
    const apiVersions = Array.isArray(reported)
      ? reported.filter((v): v is string => typeof v === 'string')
      : [];
    const { outcome: rendered, cached } = this.renders.render({
      chart: fetched,
      values,
      releaseName: release.releaseName,
      namespace: release.releaseNamespace,
      ...(kubeVersion ? { kubeVersion } : {}),
      apiVersions,
      skipCRDs: spec.options?.skipCRDs === true,
      skipSchemaValidation: spec.options?.skipSchemaValidation === true,
      epochMs: epochOf(input),
    });
    outcome.cached = cached;
    if ('error' in rendered) throw new EntryError('RenderFailed', `${field}: ${rendered.error}`);
    // The cache's objects are shared by every cluster with these inputs: hand out copies.
    let objects = withReleaseNamespace(
      structuredClone(rendered.objects) as JsonObject[],
      release.releaseNamespace,
      input.isNamespaced,
    );
    // The profile's patches over the chart's output (Sveltos's post-render), before the stamps and hash.
    if (input.patches && input.patches.length > 0) {
      const ctx = new TemplateContext({
        cluster: input.cluster,
        ...(input.mgmtResources ? { mgmtResources: input.mgmtResources } : {}),
      });
      const patched = applyPatches(objects, input.patches, ctx);
      if (patched.errors.length > 0)
        throw new EntryError(
          'RenderFailed',
          `${field}: spec.patches: ${patched.errors.map((e) => e.message).join('; ')}`,
        );
      objects = patched.objects;
    }
    return objects.map((o) =>
      stampObject(helmOwnership(o, release), {
        feature: HELM_FEATURE,
        reference: {
          kind: 'HelmChart',
          namespace: release.releaseNamespace,
          name: release.releaseName,
          tier: input.owner.tier,
        },
        owner: input.owner,
      }),
    );
  }
}

/** helm install's ownership metadata: the managed-by label and the release annotations. */
function helmOwnership(obj: JsonObject, release: HelmReleaseSummary): JsonObject {
  const md = asObj(obj['metadata']) as JsonObject;
  const labels = { ...(asObj(md['labels']) as JsonObject), [HELM_MANAGED_BY_LABEL]: 'Helm' };
  const annotations = {
    ...(asObj(md['annotations']) as JsonObject),
    [HELM_RELEASE_NAME_ANNOTATION]: release.releaseName,
    [HELM_RELEASE_NAMESPACE_ANNOTATION]: release.releaseNamespace,
  };
  return { ...obj, metadata: { ...md, labels, annotations } };
}

/** The pinned render instant: the input's, else the Cluster's creation, else the Unix epoch. */
function epochOf(input: HelmFeatureInput): number {
  const given = input.renderEpoch ?? asObj(input.cluster['metadata'])['creationTimestamp'];
  const ms = given instanceof Date ? given.getTime() : typeof given === 'string' ? Date.parse(given) : NaN;
  return Number.isFinite(ms) ? ms : 0;
}

/** Two releases delivering the same object would fight over it in the cluster: refuse, naming both. */
function duplicates(outcomes: readonly HelmChartOutcome[]): HelmFeatureError[] {
  const seen = new Map<string, number>();
  const errors: HelmFeatureError[] = [];
  for (const o of outcomes) {
    for (const m of o.manifests) {
      const md = asObj(m['metadata']);
      const apiVersion = String(m['apiVersion'] ?? '');
      const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
      const id = `${group}/${String(m['kind'])} ${md['namespace'] ? `${String(md['namespace'])}/` : ''}${String(md['name'] ?? '')}`;
      const first = seen.get(id);
      if (first === undefined) seen.set(id, o.index);
      else if (first !== o.index) {
        errors.push({
          index: o.index,
          reason: 'RenderFailed',
          message: `spec.helmCharts[${o.index}]: ${id} is also rendered by spec.helmCharts[${first}]; two releases cannot own one object`,
        });
        break;
      }
    }
  }
  return errors;
}

/** One render of the Helm feature (see HelmFeatureRenderer.render); `renderer` holds the hub's caches. */
export function renderHelmFeature(
  renderer: HelmFeatureRenderer,
  input: HelmFeatureInput,
): Promise<HelmFeatureResult> {
  return renderer.render(input);
}
