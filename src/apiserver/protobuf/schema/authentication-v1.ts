// Protobuf field table for k8s.io/api authentication/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const authenticationV1: PackageTable = {
  pkg: 'authentication.v1',
  kinds: ['SelfSubjectReview', 'TokenRequest', 'TokenReview'],
  messages: {
    BoundObjectReference: 'kind=1:string apiVersion=2:string name=3:string uid=4:string',
    SelfSubjectReview: 'metadata=1:meta.v1.ObjectMeta status=2:SelfSubjectReviewStatus',
    SelfSubjectReviewStatus: 'userInfo=1:UserInfo',
    TokenRequest: 'metadata=1:meta.v1.ObjectMeta spec=2:TokenRequestSpec status=3:TokenRequestStatus',
    TokenRequestSpec: `
      audiences=1:string[] boundObjectRef=3:BoundObjectReference? expirationSeconds=4:int64?
    `,
    TokenRequestStatus: 'token=1:string expirationTimestamp=2:meta.v1.Time',
    TokenReview: 'metadata=1:meta.v1.ObjectMeta spec=2:TokenReviewSpec status=3:TokenReviewStatus',
    TokenReviewSpec: 'token=1:string audiences=2:string[]',
    TokenReviewStatus: 'authenticated=1:bool user=2:UserInfo error=3:string audiences=4:string[]',
    UserInfo: 'username=1:string uid=2:string groups=3:string[] extra=4:map<string,ExtraValue>',
  },
};
