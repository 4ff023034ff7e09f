// A DryRun ClusterProfile for tests: "preview" over Cluster edge-1, delivering two ConfigMaps in namespace
// apps (settings: mode blue; fresh: mode new) from ConfigMap platform/apps, key apps.yaml.
import type { KubeObject } from '../store/types.js';

/** The content of ConfigMap platform/apps, key apps.yaml. */
export const PREVIEW_CONTENT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: apps
data:
  mode: blue
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: fresh
  namespace: apps
data:
  mode: new
`;

/** The ClusterProfile "preview" with the given syncMode. */
export function previewProfile(syncMode: string): KubeObject {
  return {
    apiVersion: 'config.projectsveltos.io/v1beta1',
    kind: 'ClusterProfile',
    metadata: { name: 'preview' },
    spec: {
      clusterSelector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'edge-1' } },
      syncMode,
      policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'apps' }],
    },
  };
}
