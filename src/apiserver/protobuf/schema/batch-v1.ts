// Protobuf field table for k8s.io/api batch/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const batchV1: PackageTable = {
  pkg: 'batch.v1',
  kinds: ['CronJob', 'Job'],
  messages: {
    CronJob: 'metadata=1:meta.v1.ObjectMeta spec=2:CronJobSpec status=3:CronJobStatus',
    CronJobSpec: `
      schedule=1:string startingDeadlineSeconds=2:int64? concurrencyPolicy=3:string suspend=4:bool?
      jobTemplate=5:JobTemplateSpec successfulJobsHistoryLimit=6:int32? failedJobsHistoryLimit=7:int32?
      timeZone=8:string?
    `,
    CronJobStatus: `
      active=1:core.v1.ObjectReference[] lastScheduleTime=4:meta.v1.Time? lastSuccessfulTime=5:meta.v1.Time?
    `,
    Job: 'metadata=1:meta.v1.ObjectMeta spec=2:JobSpec status=3:JobStatus',
    JobCondition: `
      type=1:string status=2:string lastProbeTime=3:meta.v1.Time lastTransitionTime=4:meta.v1.Time
      reason=5:string message=6:string
    `,
    JobSpec: `
      parallelism=1:int32? completions=2:int32? activeDeadlineSeconds=3:int64?
      selector=4:meta.v1.LabelSelector? manualSelector=5:bool? template=6:core.v1.PodTemplateSpec
      backoffLimit=7:int32? ttlSecondsAfterFinished=8:int32? completionMode=9:string? suspend=10:bool?
      podFailurePolicy=11:PodFailurePolicy? backoffLimitPerIndex=12:int32? maxFailedIndexes=13:int32?
      podReplacementPolicy=14:string? managedBy=15:string? successPolicy=16:SuccessPolicy?
    `,
    JobStatus: `
      conditions=1:JobCondition[] startTime=2:meta.v1.Time? completionTime=3:meta.v1.Time? active=4:int32
      succeeded=5:int32 failed=6:int32 completedIndexes=7:string
      uncountedTerminatedPods=8:UncountedTerminatedPods? ready=9:int32? failedIndexes=10:string?
      terminating=11:int32?
    `,
    JobTemplateSpec: 'metadata=1:meta.v1.ObjectMeta spec=2:JobSpec',
    PodFailurePolicy: 'rules=1:PodFailurePolicyRule[]',
    PodFailurePolicyOnExitCodesRequirement: 'containerName=1:string? operator=2:string values=3:int32[]',
    PodFailurePolicyOnPodConditionsPattern: 'type=1:string status=2:string',
    PodFailurePolicyRule: `
      action=1:string onExitCodes=2:PodFailurePolicyOnExitCodesRequirement?
      onPodConditions=3:PodFailurePolicyOnPodConditionsPattern[]
    `,
    SuccessPolicy: 'rules=1:SuccessPolicyRule[]',
    SuccessPolicyRule: 'succeededIndexes=1:string? succeededCount=2:int32?',
    UncountedTerminatedPods: 'succeeded=1:string[] failed=2:string[]',
  },
};
