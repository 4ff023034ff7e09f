// One release rendered for one set of inputs, remembered by the digest of those inputs: identical
// (chart, values, capabilities, release) render once, and under a PRNG seeded with that digest, so
// charts calling randAlphaNum, uuidv4 or genCA give the same output on every render and every hub.
import type { JsonObject } from '../../apiserver/patch/json.js';
import { seededEntropy, withEntropy } from '../../gotemplate/sprig/index.js';
import type { GoMap } from '../../gotemplate/value.js';
import { HelmChartError } from '../../helm/errors.js';
import { renderRelease } from '../../helm/render.js';
import { ContentError } from '../content/errors.js';
import { parseDocuments } from '../content/sources.js';
import { canonicalJson, sha256Hex } from '../content/stamp.js';
import type { FetchedChart } from './chart-cache.js';
import { LruCache, type CacheStats } from './lru.js';

export interface ReleaseInput {
  chart: FetchedChart;
  /** The user values (instantiated and merged). */
  values: GoMap;
  releaseName: string;
  namespace: string;
  /** `--kube-version`; helm's default (v1.35.0) when the cluster has not reported one. */
  kubeVersion?: string;
  /** Extra `.Capabilities.APIVersions` the cluster reported. */
  apiVersions: readonly string[];
  skipCRDs?: boolean;
  skipSchemaValidation?: boolean;
  /** The instant `now` and certificate validity read, ms since the epoch. */
  epochMs: number;
}

/** CRDs (crds/) first, then the manifests in helm's install order; hooks and NOTES.txt left out. */
export type RenderOutcome = { objects: readonly JsonObject[] } | { error: string };

/** The render-cache key: sha256 over the canonical JSON of everything that can change the output. */
export function renderKey(input: ReleaseInput): string {
  return sha256Hex(
    canonicalJson({
      chart: input.chart.digest,
      values: input.values as unknown as JsonObject,
      kubeVersion: input.kubeVersion ?? '',
      apiVersions: [...input.apiVersions],
      release: input.releaseName,
      namespace: input.namespace,
      skipCRDs: input.skipCRDs === true,
      skipSchemaValidation: input.skipSchemaValidation === true,
      epochMs: input.epochMs,
    }),
  );
}

/** Renders with the engine's randomness seeded by `key`. Errors are outcomes too: same input, same error. */
export function renderOnce(input: ReleaseInput, key: string): RenderOutcome {
  const source = seededEntropy(key, input.epochMs);
  const what = `chart ${input.chart.chart.metadata.name} ${input.chart.version}`;
  try {
    const rendered = withEntropy(source, () =>
      renderRelease(input.chart.chart, {
        releaseName: input.releaseName,
        namespace: input.namespace,
        values: input.values,
        ...(input.kubeVersion ? { kubeVersion: input.kubeVersion } : {}),
        apiVersions: [...input.apiVersions],
        includeCrds: !input.skipCRDs,
        noHooks: true,
        ...(input.skipSchemaValidation ? { skipSchemaValidation: true } : {}),
      }),
    );
    const objects: JsonObject[] = [];
    for (const crd of rendered.crds)
      objects.push(
        ...parseDocuments(crd.data.toString('utf8'), { kind: 'Chart', name: what, key: crd.filename }),
      );
    for (const m of rendered.manifests)
      objects.push(...parseDocuments(m.content, { kind: 'Chart', name: what, key: m.path }));
    return { objects };
  } catch (e) {
    if (e instanceof HelmChartError) return { error: `${what}: ${e.message}` };
    if (e instanceof ContentError) return { error: e.message };
    // Anything else (an engine limit, a JS stack overflow) is still this chart's failure to render.
    return { error: `${what}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** The bounded cache of render outcomes (one per hub, shared by every cluster). */
export class RenderCache {
  private readonly lru: LruCache<RenderOutcome>;

  constructor(capacity = 256) {
    this.lru = new LruCache(capacity);
  }

  /** The outcome for `input`, rendered only on a miss; `cached` says which. */
  render(input: ReleaseInput): { outcome: RenderOutcome; key: string; cached: boolean } {
    const key = renderKey(input);
    const hit = this.lru.get(key);
    if (hit) return { outcome: hit, key, cached: true };
    const outcome = renderOnce(input, key);
    this.lru.set(key, outcome);
    return { outcome, key, cached: false };
  }

  get stats(): CacheStats {
    return this.lru.stats;
  }
}
