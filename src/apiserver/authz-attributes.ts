// Authorization attributes, built one way for real requests and for SelfSubjectAccessReview questions,
// so `kubectl auth can-i` answers exactly what the request itself would meet.
import type { AuthorizationAttributes, UserInfo } from './types.js';

export interface ResourceAttributes {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export function resourceAttributes(
  user: UserInfo,
  attrs: ResourceAttributes,
  path = '',
  selectors: { labelSelector?: string | null; fieldSelector?: string | null } = {},
): AuthorizationAttributes {
  const out: AuthorizationAttributes = {
    user,
    verb: attrs.verb,
    isResourceRequest: true,
    path,
    apiGroup: attrs.group,
    apiVersion: attrs.version,
    resource: attrs.resource,
    subresource: attrs.subresource,
    // As in kube-apiserver, a namespace is in itself: a RoleBinding in "team" may grant get on it.
    namespace:
      attrs.group === '' && attrs.resource === 'namespaces' && attrs.name ? attrs.name : attrs.namespace,
    name: attrs.name,
  };
  if (selectors.labelSelector) out.labelSelector = selectors.labelSelector;
  if (selectors.fieldSelector) out.fieldSelector = selectors.fieldSelector;
  return out;
}

export function nonResourceAttributes(user: UserInfo, verb: string, path: string): AuthorizationAttributes {
  return {
    user,
    verb,
    isResourceRequest: false,
    path,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
}
