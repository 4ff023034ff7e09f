// Protobuf field table for k8s.io/api coordination/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const coordinationV1: PackageTable = {
  pkg: 'coordination.v1',
  kinds: ['Lease'],
  messages: {
    Lease: 'metadata=1:meta.v1.ObjectMeta spec=2:LeaseSpec',
    LeaseSpec: `
      holderIdentity=1:string? leaseDurationSeconds=2:int32? acquireTime=3:meta.v1.MicroTime?
      renewTime=4:meta.v1.MicroTime? leaseTransitions=5:int32? strategy=6:string? preferredHolder=7:string?
    `,
  },
};
