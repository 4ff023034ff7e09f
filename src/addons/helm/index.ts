// The Helm feature's public surface: one renderer per hub (chart store + render cache) and the one call
// a summary controller makes per (summary, cluster).
export {
  HELM_FEATURE,
  HelmFeatureRenderer,
  renderHelmFeature,
  type HelmChartOutcome,
  type HelmChartSpec,
  type HelmFeatureInput,
  type HelmFeatureOptions,
  type HelmFeatureResult,
  type HelmReleaseSummary,
} from './feature.js';
export { ChartCache, type ChartCacheOptions, type ChartRequest, type FetchedChart } from './chart-cache.js';
export {
  ChartFetchError,
  isChartFetchError,
  type ChartFetchErrorCode,
  type HelmFailureReason,
  type HelmFeatureError,
} from './errors.js';
export type { RegistryCredentialsConfig } from './credentials.js';
export type { ReadObject, ValueFromRef } from './values.js';
