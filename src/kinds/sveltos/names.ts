// Sveltos's API group and the fixed names its kinds share, for the kinds here and the controllers
// that read and write them.

export const SVELTOS_GROUP = 'config.projectsveltos.io';
export const SVELTOS_VERSION = 'v1beta1';
export const SVELTOS_API_VERSION = `${SVELTOS_GROUP}/${SVELTOS_VERSION}`;

/** Sveltos's CRDs declare no categories or short names; `kubectl get sveltos` lists all four kinds here. */
export const SVELTOS_CATEGORIES = ['sveltos'];

/** Store resource names (`plural.group`). */
export const SVELTOS_RESOURCES = {
  clusterProfiles: `clusterprofiles.${SVELTOS_GROUP}`,
  profiles: `profiles.${SVELTOS_GROUP}`,
  clusterSummaries: `clustersummaries.${SVELTOS_GROUP}`,
  clusterReports: `clusterreports.${SVELTOS_GROUP}`,
} as const;

/** ClusterSummary.spec.clusterType: fleethub Clusters take the place of Cluster API clusters (`Capi`). */
export const CLUSTER_TYPES = ['Capi', 'Sveltos'] as const;
