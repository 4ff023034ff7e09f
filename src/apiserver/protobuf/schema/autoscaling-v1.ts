// Protobuf field table for k8s.io/api autoscaling/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const autoscalingV1: PackageTable = {
  pkg: 'autoscaling.v1',
  kinds: ['HorizontalPodAutoscaler', 'Scale'],
  messages: {
    CrossVersionObjectReference: 'kind=1:string name=2:string apiVersion=3:string',
    HorizontalPodAutoscaler: `
      metadata=1:meta.v1.ObjectMeta spec=2:HorizontalPodAutoscalerSpec status=3:HorizontalPodAutoscalerStatus
    `,
    HorizontalPodAutoscalerSpec: `
      scaleTargetRef=1:CrossVersionObjectReference minReplicas=2:int32? maxReplicas=3:int32
      targetCPUUtilizationPercentage=4:int32?
    `,
    HorizontalPodAutoscalerStatus: `
      observedGeneration=1:int64? lastScaleTime=2:meta.v1.Time? currentReplicas=3:int32
      desiredReplicas=4:int32 currentCPUUtilizationPercentage=5:int32?
    `,
    Scale: 'metadata=1:meta.v1.ObjectMeta spec=2:ScaleSpec status=3:ScaleStatus',
    ScaleSpec: 'replicas=1:int32',
    ScaleStatus: 'replicas=1:int32 selector=2:string',
  },
};
