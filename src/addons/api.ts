// Names the add-on controllers use for Sveltos's API as the hub serves it (config.projectsveltos.io/v1beta1):
// the storage names of the kinds they read and write, and the finalizers Sveltos puts on them.
// The group, version and storage names are the kinds' own (one definition, in src/kinds/sveltos/names.ts).
export { SVELTOS_API_VERSION, SVELTOS_GROUP, SVELTOS_RESOURCES } from '../kinds/sveltos/names.js';

export const CLUSTER_PROFILE_FINALIZER = 'clusterprofilefinalizer.projectsveltos.io';
export const PROFILE_FINALIZER = 'profilefinalizer.projectsveltos.io';
export const CLUSTER_SUMMARY_FINALIZER = 'clustersummaryfinalizer.projectsveltos.io';

/** Sveltos's syncMode values; OneTime summaries never receive later spec changes. */
export type SyncMode = 'OneTime' | 'Continuous' | 'ContinuousWithDriftDetection' | 'DryRun';
