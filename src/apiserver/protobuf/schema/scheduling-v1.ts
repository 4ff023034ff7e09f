// Protobuf field table for k8s.io/api scheduling/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const schedulingV1: PackageTable = {
  pkg: 'scheduling.v1',
  kinds: ['PriorityClass'],
  messages: {
    PriorityClass: `
      metadata=1:meta.v1.ObjectMeta value=2:int32 globalDefault=3:bool description=4:string
      preemptionPolicy=5:string?
    `,
  },
};
