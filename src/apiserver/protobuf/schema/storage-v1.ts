// Protobuf field table for k8s.io/api storage/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const storageV1: PackageTable = {
  pkg: 'storage.v1',
  kinds: [
    'CSIDriver',
    'CSINode',
    'CSIStorageCapacity',
    'StorageClass',
    'VolumeAttachment',
    'VolumeAttributesClass',
  ],
  messages: {
    CSIDriver: 'metadata=1:meta.v1.ObjectMeta spec=2:CSIDriverSpec',
    CSIDriverSpec: `
      attachRequired=1:bool? podInfoOnMount=2:bool? volumeLifecycleModes=3:string[] storageCapacity=4:bool?
      fsGroupPolicy=5:string? tokenRequests=6:TokenRequest[] requiresRepublish=7:bool? seLinuxMount=8:bool?
      nodeAllocatableUpdatePeriodSeconds=9:int64? serviceAccountTokenInSecrets=10:bool?
    `,
    CSINode: 'metadata=1:meta.v1.ObjectMeta spec=2:CSINodeSpec',
    CSINodeDriver: 'name=1:string nodeID=2:string topologyKeys=3:string[] allocatable=4:VolumeNodeResources?',
    CSINodeSpec: 'drivers=1:CSINodeDriver[]',
    CSIStorageCapacity: `
      metadata=1:meta.v1.ObjectMeta nodeTopology=2:meta.v1.LabelSelector? storageClassName=3:string
      capacity=4:resource.Quantity? maximumVolumeSize=5:resource.Quantity?
    `,
    StorageClass: `
      metadata=1:meta.v1.ObjectMeta provisioner=2:string parameters=3:map<string,string>
      reclaimPolicy=4:string? mountOptions=5:string[] allowVolumeExpansion=6:bool?
      volumeBindingMode=7:string? allowedTopologies=8:core.v1.TopologySelectorTerm[]
    `,
    TokenRequest: 'audience=1:string expirationSeconds=2:int64?',
    VolumeAttachment: `
      metadata=1:meta.v1.ObjectMeta spec=2:VolumeAttachmentSpec status=3:VolumeAttachmentStatus
    `,
    VolumeAttachmentSource: 'persistentVolumeName=1:string? inlineVolumeSpec=2:core.v1.PersistentVolumeSpec?',
    VolumeAttachmentSpec: 'attacher=1:string source=2:VolumeAttachmentSource nodeName=3:string',
    VolumeAttachmentStatus: `
      attached=1:bool attachmentMetadata=2:map<string,string> attachError=3:VolumeError?
      detachError=4:VolumeError?
    `,
    VolumeAttributesClass: `
      metadata=1:meta.v1.ObjectMeta driverName=2:string parameters=3:map<string,string>
    `,
    VolumeError: 'time=1:meta.v1.Time message=2:string errorCode=3:int32?',
    VolumeNodeResources: 'count=1:int32?',
  },
};
