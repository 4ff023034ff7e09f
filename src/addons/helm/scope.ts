// Which rendered objects are namespaced, to give them the release namespace as `helm install -n` does:
// the caller's knowledge first, then the chart's own CRDs, then Kubernetes' cluster-scoped built-ins;
// anything else is taken as namespaced (most custom resources are).
import { isJsonObject, type JsonObject } from '../../apiserver/patch/json.js';
import type { IsNamespaced } from '../content/stamp.js';

/** group/Kind of the cluster-scoped kinds of Kubernetes 1.35 (core group written as ''). */
const CLUSTER_SCOPED: ReadonlySet<string> = new Set([
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  '/ComponentStatus',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment',
  'storage.k8s.io/VolumeAttributesClass',
  'scheduling.k8s.io/PriorityClass',
  'node.k8s.io/RuntimeClass',
  'networking.k8s.io/IngressClass',
  'networking.k8s.io/IPAddress',
  'networking.k8s.io/ServiceCIDR',
  'certificates.k8s.io/CertificateSigningRequest',
  'certificates.k8s.io/ClusterTrustBundle',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'policy/PodSecurityPolicy',
  'resource.k8s.io/DeviceClass',
  'resource.k8s.io/ResourceSlice',
  'storagemigration.k8s.io/StorageVersionMigration',
  'internal.apiserver.k8s.io/StorageVersion',
]);

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** group/Kind → namespaced, from the CustomResourceDefinitions among `objects` (spec.scope). */
function crdScopes(objects: readonly JsonObject[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const o of objects) {
    if (
      o['kind'] !== 'CustomResourceDefinition' ||
      groupOf(String(o['apiVersion'])) !== 'apiextensions.k8s.io'
    )
      continue;
    const spec = isJsonObject(o['spec']) ? o['spec'] : {};
    const names = isJsonObject(spec['names']) ? spec['names'] : {};
    if (typeof spec['group'] === 'string' && typeof names['kind'] === 'string')
      out.set(`${spec['group']}/${names['kind']}`, spec['scope'] !== 'Cluster');
  }
  return out;
}

/**
 * A copy of each object with `namespace` where its kind is namespaced and it names none (objects
 * naming one keep it, as helm leaves them).
 */
export function withReleaseNamespace(
  objects: readonly JsonObject[],
  namespace: string,
  isNamespaced: IsNamespaced | undefined,
): JsonObject[] {
  const fromChart = crdScopes(objects);
  return objects.map((o) => {
    const md = isJsonObject(o['metadata']) ? o['metadata'] : {};
    if (typeof md['namespace'] === 'string' && md['namespace'] !== '') return o;
    const apiVersion = String(o['apiVersion'] ?? '');
    const kind = String(o['kind'] ?? '');
    const key = `${groupOf(apiVersion)}/${kind}`;
    const namespaced = isNamespaced?.(apiVersion, kind) ?? fromChart.get(key) ?? !CLUSTER_SCOPED.has(key);
    return namespaced ? { ...o, metadata: { ...md, namespace } } : o;
  });
}
