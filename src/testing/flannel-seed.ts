// The seed's flannel add-on (../shared/seeds/001_…) for tests: its ClusterProfile as written there (the
// remoteURL replaceable by a loopback copy), the patch it carries, and a small flannel-like release manifest.
import { parse } from 'yaml';

export const SEED_FLANNEL_URL =
  'https://github.com/flannel-io/flannel/releases/download/v0.28.2/kube-flannel.yml';

/** The seed's ClusterProfile, unchanged but for the URL when one is given. */
export function seedFlannelProfile(url = SEED_FLANNEL_URL): string {
  return `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: flannel-cni
spec:
  clusterSelector:
    matchExpressions:
      - key: cluster.x-k8s.io/cluster-name
        operator: Exists
        values: []
  syncMode: ContinuousWithDriftDetection
  policyRefs:
    - remoteURL:
        url: "${url}"
        interval: 10m
  patches:
    - patch: |-
        - op: replace
          path: /data/net-conf.json
          value: |
            {
              "Backend": {"Type": "host-gw"},
              "EnableNFTables": false,
              "Network": "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 0 }}"
            }
      target:
        kind: ConfigMap
        name: kube-flannel-cfg
        namespace: kube-flannel
        version: v1
`;
}

/** The seed profile's one patch text (a JSON 6902 op list templated with the cluster's pod CIDR). */
export const SEED_FLANNEL_PATCH = (parse(seedFlannelProfile()) as { spec: { patches: { patch: string }[] } })
  .spec.patches[0]!.patch;

/** A flannel-like release manifest: its namespace and the ConfigMap the seed's patch rewrites. */
export const FLANNEL_MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: kube-flannel
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-flannel-cfg
  namespace: kube-flannel
data:
  net-conf.json: |
    { "Network": "10.244.0.0/16", "Backend": { "Type": "vxlan" } }
`;
