// Names of Sveltos's API as the hub serves it (config.projectsveltos.io/v1beta1): the storage names of the
// kinds the add-on controllers read and write, and the finalizers Sveltos puts on them.
export const SVELTOS_GROUP = 'config.projectsveltos.io';
export const SVELTOS_API_VERSION = `${SVELTOS_GROUP}/v1beta1`;

export const SVELTOS_RESOURCES = {
  clusterProfiles: `clusterprofiles.${SVELTOS_GROUP}`,
  profiles: `profiles.${SVELTOS_GROUP}`,
  clusterSummaries: `clustersummaries.${SVELTOS_GROUP}`,
  clusterReports: `clusterreports.${SVELTOS_GROUP}`,
} as const;

export const CLUSTER_PROFILE_FINALIZER = 'clusterprofilefinalizer.projectsveltos.io';
export const PROFILE_FINALIZER = 'profilefinalizer.projectsveltos.io';
export const CLUSTER_SUMMARY_FINALIZER = 'clustersummaryfinalizer.projectsveltos.io';

/** Sveltos's syncMode values; OneTime summaries never receive later spec changes. */
export type SyncMode = 'OneTime' | 'Continuous' | 'ContinuousWithDriftDetection' | 'DryRun';
