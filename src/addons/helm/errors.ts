// Typed errors of the Helm feature: chart fetching (a machine code plus a message naming the URL, the
// chart and the version) and the per-entry reasons a ClusterSummary's helm feature reports.

/** Why one helmCharts entry failed, as featureSummaries' failureReason shows it. */
export type HelmFailureReason =
  /** The chart could not be fetched: repository down, version missing, digest mismatch, auth refused. */
  | 'FetchFailed'
  /** `values`, a templated valuesFrom object or a templated field failed to instantiate for the cluster. */
  | 'TemplateInstantiationError'
  /** A valuesFrom object or a credentials Secret does not exist. */
  | 'ReferenceNotFound'
  /** The entry itself is unusable: a Flux source URL, a Secret of the wrong type, missing fields. */
  | 'InvalidReference'
  /** The chart rendered with an error (helm's own message), or its output or values are not valid. */
  | 'RenderFailed';

/** One failed entry of `spec.helmCharts`. */
export interface HelmFeatureError {
  /** 0-based index in spec.helmCharts. */
  index: number;
  reason: HelmFailureReason;
  /** Starts with the field path (`spec.helmCharts[0].values: line 3: …`). */
  message: string;
  /** The template line, for TemplateInstantiationError. */
  line?: number;
}

export type ChartFetchErrorCode =
  /** repositoryURL / chartName / chartVersion cannot name a chart (bad URL, unsupported scheme). */
  | 'InvalidChartRef'
  /** The repository's index.yaml or the registry's manifest could not be read. */
  | 'RepositoryUnavailable'
  /** The index or the registry has no chart of that name. */
  | 'ChartNotFound'
  /** The chart exists, but not in the requested version. */
  | 'VersionNotFound'
  /** Downloading the archive (or the OCI layer) failed. */
  | 'DownloadFailed'
  /** The bytes do not match the digest the index or the manifest promised. */
  | 'DigestMismatch'
  /** The server refused the credentials (or wanted some). */
  | 'Unauthorized'
  /** The archive is not a chart helm would load. */
  | 'InvalidChart';

export class ChartFetchError extends Error {
  override name = 'ChartFetchError';
  constructor(
    readonly code: ChartFetchErrorCode,
    message: string,
    /** The URL that failed (index, archive, manifest or blob), passwords masked. */
    readonly url: string,
    readonly httpStatus?: number,
  ) {
    super(message);
  }

  /** Failures no retry can fix until the spec or the repository changes. */
  get permanent(): boolean {
    return this.code === 'InvalidChartRef' || this.code === 'InvalidChart';
  }
}

export function isChartFetchError(e: unknown): e is ChartFetchError {
  return e instanceof ChartFetchError;
}
