// Protobuf field table for k8s.io/api autoscaling/v2 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const autoscalingV2: PackageTable = {
  pkg: 'autoscaling.v2',
  kinds: ['HorizontalPodAutoscaler'],
  messages: {
    ContainerResourceMetricSource: 'name=1:string target=2:MetricTarget container=3:string',
    ContainerResourceMetricStatus: 'name=1:string current=2:MetricValueStatus container=3:string',
    CrossVersionObjectReference: 'kind=1:string name=2:string apiVersion=3:string',
    ExternalMetricSource: 'metric=1:MetricIdentifier target=2:MetricTarget',
    ExternalMetricStatus: 'metric=1:MetricIdentifier current=2:MetricValueStatus',
    HPAScalingPolicy: 'type=1:string value=2:int32 periodSeconds=3:int32',
    HPAScalingRules: `
      selectPolicy=1:string? policies=2:HPAScalingPolicy[] stabilizationWindowSeconds=3:int32?
      tolerance=4:resource.Quantity?
    `,
    HorizontalPodAutoscaler: `
      metadata=1:meta.v1.ObjectMeta spec=2:HorizontalPodAutoscalerSpec status=3:HorizontalPodAutoscalerStatus
    `,
    HorizontalPodAutoscalerBehavior: 'scaleUp=1:HPAScalingRules? scaleDown=2:HPAScalingRules?',
    HorizontalPodAutoscalerCondition: `
      type=1:string status=2:string lastTransitionTime=3:meta.v1.Time reason=4:string message=5:string
    `,
    HorizontalPodAutoscalerSpec: `
      scaleTargetRef=1:CrossVersionObjectReference minReplicas=2:int32? maxReplicas=3:int32
      metrics=4:MetricSpec[] behavior=5:HorizontalPodAutoscalerBehavior?
    `,
    HorizontalPodAutoscalerStatus: `
      observedGeneration=1:int64? lastScaleTime=2:meta.v1.Time? currentReplicas=3:int32
      desiredReplicas=4:int32 currentMetrics=5:MetricStatus[] conditions=6:HorizontalPodAutoscalerCondition[]
    `,
    MetricIdentifier: 'name=1:string selector=2:meta.v1.LabelSelector?',
    MetricSpec: `
      type=1:string object=2:ObjectMetricSource? pods=3:PodsMetricSource? resource=4:ResourceMetricSource?
      external=5:ExternalMetricSource? containerResource=7:ContainerResourceMetricSource?
    `,
    MetricStatus: `
      type=1:string object=2:ObjectMetricStatus? pods=3:PodsMetricStatus? resource=4:ResourceMetricStatus?
      external=5:ExternalMetricStatus? containerResource=7:ContainerResourceMetricStatus?
    `,
    MetricTarget: `
      type=1:string value=2:resource.Quantity? averageValue=3:resource.Quantity? averageUtilization=4:int32?
    `,
    MetricValueStatus: `
      value=1:resource.Quantity? averageValue=2:resource.Quantity? averageUtilization=3:int32?
    `,
    ObjectMetricSource: `
      describedObject=1:CrossVersionObjectReference target=2:MetricTarget metric=3:MetricIdentifier
    `,
    ObjectMetricStatus: `
      metric=1:MetricIdentifier current=2:MetricValueStatus describedObject=3:CrossVersionObjectReference
    `,
    PodsMetricSource: 'metric=1:MetricIdentifier target=2:MetricTarget',
    PodsMetricStatus: 'metric=1:MetricIdentifier current=2:MetricValueStatus',
    ResourceMetricSource: 'name=1:string target=2:MetricTarget',
    ResourceMetricStatus: 'name=1:string current=2:MetricValueStatus',
  },
};
