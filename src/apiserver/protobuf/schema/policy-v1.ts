// Protobuf field table for k8s.io/api policy/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const policyV1: PackageTable = {
  pkg: 'policy.v1',
  kinds: ['Eviction', 'PodDisruptionBudget'],
  messages: {
    Eviction: 'metadata=1:meta.v1.ObjectMeta deleteOptions=2:meta.v1.DeleteOptions?',
    PodDisruptionBudget: `
      metadata=1:meta.v1.ObjectMeta spec=2:PodDisruptionBudgetSpec status=3:PodDisruptionBudgetStatus
    `,
    PodDisruptionBudgetSpec: `
      minAvailable=1:intstr.IntOrString? selector=2:meta.v1.LabelSelector?
      maxUnavailable=3:intstr.IntOrString? unhealthyPodEvictionPolicy=4:string?
    `,
    PodDisruptionBudgetStatus: `
      observedGeneration=1:int64 disruptedPods=2:map<string,meta.v1.Time> disruptionsAllowed=3:int32
      currentHealthy=4:int32 desiredHealthy=5:int32 expectedPods=6:int32 conditions=7:meta.v1.Condition[]
    `,
  },
};
