// Protobuf field table for k8s.io/api apps/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const appsV1: PackageTable = {
  pkg: 'apps.v1',
  kinds: ['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet'],
  messages: {
    ControllerRevision: 'metadata=1:meta.v1.ObjectMeta data=2:runtime.RawExtension revision=3:int64',
    DaemonSet: 'metadata=1:meta.v1.ObjectMeta spec=2:DaemonSetSpec status=3:DaemonSetStatus',
    DaemonSetCondition: `
      type=1:string status=2:string lastTransitionTime=3:meta.v1.Time reason=4:string message=5:string
    `,
    DaemonSetSpec: `
      selector=1:meta.v1.LabelSelector? template=2:core.v1.PodTemplateSpec
      updateStrategy=3:DaemonSetUpdateStrategy minReadySeconds=4:int32 revisionHistoryLimit=6:int32?
    `,
    DaemonSetStatus: `
      currentNumberScheduled=1:int32 numberMisscheduled=2:int32 desiredNumberScheduled=3:int32
      numberReady=4:int32 observedGeneration=5:int64 updatedNumberScheduled=6:int32 numberAvailable=7:int32
      numberUnavailable=8:int32 collisionCount=9:int32? conditions=10:DaemonSetCondition[]
    `,
    DaemonSetUpdateStrategy: 'type=1:string rollingUpdate=2:RollingUpdateDaemonSet?',
    Deployment: 'metadata=1:meta.v1.ObjectMeta spec=2:DeploymentSpec status=3:DeploymentStatus',
    DeploymentCondition: `
      type=1:string status=2:string reason=4:string message=5:string lastUpdateTime=6:meta.v1.Time
      lastTransitionTime=7:meta.v1.Time
    `,
    DeploymentSpec: `
      replicas=1:int32? selector=2:meta.v1.LabelSelector? template=3:core.v1.PodTemplateSpec
      strategy=4:DeploymentStrategy minReadySeconds=5:int32 revisionHistoryLimit=6:int32? paused=7:bool
      progressDeadlineSeconds=9:int32?
    `,
    DeploymentStatus: `
      observedGeneration=1:int64 replicas=2:int32 updatedReplicas=3:int32 availableReplicas=4:int32
      unavailableReplicas=5:int32 conditions=6:DeploymentCondition[] readyReplicas=7:int32
      collisionCount=8:int32? terminatingReplicas=9:int32?
    `,
    DeploymentStrategy: 'type=1:string rollingUpdate=2:RollingUpdateDeployment?',
    ReplicaSet: 'metadata=1:meta.v1.ObjectMeta spec=2:ReplicaSetSpec status=3:ReplicaSetStatus',
    ReplicaSetCondition: `
      type=1:string status=2:string lastTransitionTime=3:meta.v1.Time reason=4:string message=5:string
    `,
    ReplicaSetSpec: `
      replicas=1:int32? selector=2:meta.v1.LabelSelector? template=3:core.v1.PodTemplateSpec
      minReadySeconds=4:int32
    `,
    ReplicaSetStatus: `
      replicas=1:int32 fullyLabeledReplicas=2:int32 observedGeneration=3:int64 readyReplicas=4:int32
      availableReplicas=5:int32 conditions=6:ReplicaSetCondition[] terminatingReplicas=7:int32?
    `,
    RollingUpdateDaemonSet: 'maxUnavailable=1:intstr.IntOrString? maxSurge=2:intstr.IntOrString?',
    RollingUpdateDeployment: 'maxUnavailable=1:intstr.IntOrString? maxSurge=2:intstr.IntOrString?',
    RollingUpdateStatefulSetStrategy: 'partition=1:int32? maxUnavailable=2:intstr.IntOrString?',
    StatefulSet: 'metadata=1:meta.v1.ObjectMeta spec=2:StatefulSetSpec status=3:StatefulSetStatus',
    StatefulSetCondition: `
      type=1:string status=2:string lastTransitionTime=3:meta.v1.Time reason=4:string message=5:string
    `,
    StatefulSetOrdinals: 'start=1:int32',
    StatefulSetPersistentVolumeClaimRetentionPolicy: 'whenDeleted=1:string whenScaled=2:string',
    StatefulSetSpec: `
      replicas=1:int32? selector=2:meta.v1.LabelSelector? template=3:core.v1.PodTemplateSpec
      volumeClaimTemplates=4:core.v1.PersistentVolumeClaim[] serviceName=5:string
      podManagementPolicy=6:string updateStrategy=7:StatefulSetUpdateStrategy revisionHistoryLimit=8:int32?
      minReadySeconds=9:int32
      persistentVolumeClaimRetentionPolicy=10:StatefulSetPersistentVolumeClaimRetentionPolicy?
      ordinals=11:StatefulSetOrdinals?
    `,
    StatefulSetStatus: `
      observedGeneration=1:int64 replicas=2:int32 readyReplicas=3:int32 currentReplicas=4:int32
      updatedReplicas=5:int32 currentRevision=6:string updateRevision=7:string collisionCount=9:int32?
      conditions=10:StatefulSetCondition[] availableReplicas=11:int32
    `,
    StatefulSetUpdateStrategy: 'type=1:string rollingUpdate=2:RollingUpdateStatefulSetStrategy?',
  },
};
