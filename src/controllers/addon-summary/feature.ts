// What a feature (Resources, Helm) of one summary renders to, before ownership and delivery: the manifests
// for the cluster and their hash, or the failure the summary shows — plus what the feature's status carries.
import type { JsonObject } from '../../apiserver/patch/json.js';
import type { HelmReleaseSummary } from '../../addons/helm/index.js';
import type { KubeObject } from '../../store/types.js';
import type { CacheReader } from '../runtime/reconcile.js';

export type FeatureID = 'Resources' | 'Helm';

export interface FeatureFailure {
  reason: string;
  message: string;
}

export interface FeatureContent {
  /** Stamped manifests for the agent; empty on failure. */
  manifests: JsonObject[];
  /** Manifests for the hub itself (deploymentType Local). */
  local: JsonObject[];
  /** `sha256:<hex>`; '' on failure. */
  hash: string;
  failure?: FeatureFailure;
  /** Look again after this long (remote content's interval, a failed fetch's retry). */
  retryMs?: number;
  /** Helm only: one per helmCharts entry. */
  releases?: HelmReleaseSummary[];
}

/** The summary and the cluster a feature renders for, and the profile's spec the summary carries. */
export interface FeatureInput {
  summary: KubeObject;
  cluster: KubeObject;
  profileSpec: Record<string, unknown>;
  owner: { kind: string; name: string; tier: number };
  /** The informer caches (ConfigMaps are watched: read there; Secrets are not cached whole). */
  cache: CacheReader;
}

export const failed = (reason: string, message: string, retryMs?: number): FeatureContent => ({
  manifests: [],
  local: [],
  hash: '',
  failure: { reason, message },
  ...(retryMs !== undefined ? { retryMs } : {}),
});
