// Protobuf field table for k8s.io/api authorization/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const authorizationV1: PackageTable = {
  pkg: 'authorization.v1',
  kinds: [
    'LocalSubjectAccessReview',
    'SelfSubjectAccessReview',
    'SelfSubjectRulesReview',
    'SubjectAccessReview',
  ],
  messages: {
    FieldSelectorAttributes: 'rawSelector=1:string requirements=2:meta.v1.FieldSelectorRequirement[]',
    LabelSelectorAttributes: 'rawSelector=1:string requirements=2:meta.v1.LabelSelectorRequirement[]',
    LocalSubjectAccessReview: `
      metadata=1:meta.v1.ObjectMeta spec=2:SubjectAccessReviewSpec status=3:SubjectAccessReviewStatus
    `,
    NonResourceAttributes: 'path=1:string verb=2:string',
    NonResourceRule: 'verbs=1:string[] nonResourceURLs=2:string[]',
    ResourceAttributes: `
      namespace=1:string verb=2:string group=3:string version=4:string resource=5:string subresource=6:string
      name=7:string fieldSelector=8:FieldSelectorAttributes? labelSelector=9:LabelSelectorAttributes?
    `,
    ResourceRule: 'verbs=1:string[] apiGroups=2:string[] resources=3:string[] resourceNames=4:string[]',
    SelfSubjectAccessReview: `
      metadata=1:meta.v1.ObjectMeta spec=2:SelfSubjectAccessReviewSpec status=3:SubjectAccessReviewStatus
    `,
    SelfSubjectAccessReviewSpec: `
      resourceAttributes=1:ResourceAttributes? nonResourceAttributes=2:NonResourceAttributes?
    `,
    SelfSubjectRulesReview: `
      metadata=1:meta.v1.ObjectMeta spec=2:SelfSubjectRulesReviewSpec status=3:SubjectRulesReviewStatus
    `,
    SelfSubjectRulesReviewSpec: 'namespace=1:string',
    SubjectAccessReview: `
      metadata=1:meta.v1.ObjectMeta spec=2:SubjectAccessReviewSpec status=3:SubjectAccessReviewStatus
    `,
    SubjectAccessReviewSpec: `
      resourceAttributes=1:ResourceAttributes? nonResourceAttributes=2:NonResourceAttributes? user=3:string
      groups=4:string[] extra=5:map<string,ExtraValue> uid=6:string
    `,
    SubjectAccessReviewStatus: 'allowed=1:bool reason=2:string evaluationError=3:string denied=4:bool',
    SubjectRulesReviewStatus: `
      resourceRules=1:ResourceRule[] nonResourceRules=2:NonResourceRule[] incomplete=3:bool
      evaluationError=4:string
    `,
  },
};
