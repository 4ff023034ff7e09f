// Sveltos's API as the hub serves it (config.projectsveltos.io/v1beta1): profiles that declare add-ons,
// and the per-cluster summaries and dry-run reports the hub's controllers write. Served by the hub only.
import type { KindDefinition } from '../types.js';
import { ClusterReport } from './clusterreport.js';
import { ClusterSummary } from './clustersummary.js';
import { ClusterProfile, Profile } from './profiles.js';

export { ClusterProfile, Profile, ClusterSummary, ClusterReport };
export { hubReferences } from './profiles.js';
export * from './names.js';
export {
  DEFAULT_MAX_UPDATE,
  DEFAULT_REMOTE_INTERVAL,
  DEPLOYMENT_TYPES,
  FEATURE_IDS,
  HELM_CHART_ACTIONS,
  POLICY_REF_KINDS,
  STOP_MATCHING_BEHAVIORS,
  SYNC_MODES,
  type ProfileSpecType,
  type ProfileStatusType,
} from './spec.js';
export { FEATURE_STATUSES, HELM_CHART_STATUSES } from './clustersummary.js';
export { RELEASE_REPORT_ACTIONS, RESOURCE_REPORT_ACTIONS } from './clusterreport.js';

/** In discovery order. */
export const sveltosKinds: readonly KindDefinition[] = [
  ClusterProfile,
  Profile,
  ClusterSummary,
  ClusterReport,
];
