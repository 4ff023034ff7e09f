// Protobuf field table for k8s.io/api certificates/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const certificatesV1: PackageTable = {
  pkg: 'certificates.v1',
  kinds: ['CertificateSigningRequest'],
  messages: {
    CertificateSigningRequest: `
      metadata=1:meta.v1.ObjectMeta spec=2:CertificateSigningRequestSpec
      status=3:CertificateSigningRequestStatus
    `,
    CertificateSigningRequestCondition: `
      type=1:string reason=2:string message=3:string lastUpdateTime=4:meta.v1.Time
      lastTransitionTime=5:meta.v1.Time status=6:string
    `,
    CertificateSigningRequestSpec: `
      request=1:bytes username=2:string uid=3:string groups=4:string[] usages=5:string[]
      extra=6:map<string,ExtraValue> signerName=7:string expirationSeconds=8:int32?
    `,
    CertificateSigningRequestStatus: 'conditions=1:CertificateSigningRequestCondition[] certificate=2:bytes',
  },
};
