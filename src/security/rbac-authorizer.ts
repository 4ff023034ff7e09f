// The API server's Authorizer backed by an RbacIndex: every request and every SelfSubjectAccessReview is
// decided by the same Kubernetes RBAC evaluation, on the hub and on each simulated cluster alike.
import type { AuthorizationAttributes, Authorizer, Decision } from '../apiserver/types.js';
import type { RbacIndex } from './rbac.js';

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly index: RbacIndex) {}

  authorize(attrs: AuthorizationAttributes): Decision {
    return this.index.authorize(attrs.user, {
      verb: attrs.verb,
      resourceRequest: attrs.isResourceRequest,
      apiGroup: attrs.apiGroup,
      resource: attrs.resource,
      subresource: attrs.subresource,
      name: attrs.name,
      namespace: attrs.namespace,
      path: attrs.path,
    });
  }

  rulesFor(user: AuthorizationAttributes['user'], namespace: string) {
    return this.index.rulesFor(user, namespace);
  }
}
