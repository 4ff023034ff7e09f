// Protobuf field table for apimachinery pkg/apis/meta/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const metaV1: PackageTable = {
  pkg: 'meta.v1',
  kinds: ['DeleteOptions', 'PartialObjectMetadata', 'Status'],
  messages: {
    Condition: `
      type=1:string status=2:string observedGeneration=3:int64 lastTransitionTime=4:Time reason=5:string
      message=6:string
    `,
    DeleteOptions: `
      gracePeriodSeconds=1:int64? preconditions=2:Preconditions? orphanDependents=3:bool?
      propagationPolicy=4:string? dryRun=5:string[] ignoreStoreReadErrorWithClusterBreakingPotential=6:bool?
    `,
    FieldSelectorRequirement: 'key=1:string operator=2:string values=3:string[]',
    LabelSelector: 'matchLabels=1:map<string,string> matchExpressions=2:LabelSelectorRequirement[]',
    LabelSelectorRequirement: 'key=1:string operator=2:string values=3:string[]',
    ListMeta: 'selfLink=1:string resourceVersion=2:string continue=3:string remainingItemCount=4:int64?',
    ManagedFieldsEntry: `
      manager=1:string operation=2:string apiVersion=3:string time=4:Time? fieldsType=6:string
      fieldsV1=7:FieldsV1? subresource=8:string
    `,
    ObjectMeta: `
      name=1:string generateName=2:string namespace=3:string selfLink=4:string uid=5:string
      resourceVersion=6:string generation=7:int64 creationTimestamp=8:Time deletionTimestamp=9:Time?
      deletionGracePeriodSeconds=10:int64? labels=11:map<string,string> annotations=12:map<string,string>
      ownerReferences=13:OwnerReference[] finalizers=14:string[] managedFields=17:ManagedFieldsEntry[]
    `,
    OwnerReference: `
      kind=1:string name=3:string uid=4:string apiVersion=5:string controller=6:bool?
      blockOwnerDeletion=7:bool?
    `,
    PartialObjectMetadata: 'metadata=1:ObjectMeta',
    Preconditions: 'uid=1:string? resourceVersion=2:string?',
    Status: `
      metadata=1:ListMeta status=2:string message=3:string reason=4:string details=5:StatusDetails?
      code=6:int32
    `,
    StatusCause: 'reason=1:string message=2:string field=3:string',
    StatusDetails: `
      name=1:string group=2:string kind=3:string causes=4:StatusCause[] retryAfterSeconds=5:int32
      uid=6:string
    `,
  },
};
