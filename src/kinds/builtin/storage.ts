// storage.k8s.io/v1 StorageClass and CSIDriver of a simulated cluster, with kube's defaults and printers
// (a StorageClass marked default shows as `name (default)` in kubectl, the one cell a column cannot express).
import type { KubeObject } from '../../store/types.js';
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import { AGE, child, col, defaultPtr, defaultTo, str } from './kube-helpers.js';

const GROUP = 'storage.k8s.io';

const field = (o: KubeObject, key: string) => o[key];

export const StorageClass: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'StorageClass',
  plural: 'storageclasses',
  singular: 'storageclass',
  namespaced: false,
  shortNames: ['sc'],
  schema: protoSchema('storage.v1.StorageClass'),
  deleteReturnsObject: true,
  printerColumns: [
    col('Provisioner', 'string', 'provisioner indicates the type of the provisioner.', (o) =>
      str(field(o, 'provisioner')),
    ),
    col(
      'ReclaimPolicy',
      'string',
      'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.',
      (o) => str(field(o, 'reclaimPolicy')) || 'Delete',
    ),
    col(
      'VolumeBindingMode',
      'string',
      'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.',
      (o) => str(field(o, 'volumeBindingMode')) || 'Immediate',
    ),
    col(
      'AllowVolumeExpansion',
      'boolean',
      'allowVolumeExpansion shows whether the storage class allow volume expand.',
      (o) => field(o, 'allowVolumeExpansion') === true,
    ),
    AGE,
  ],
  defaults(obj) {
    defaultTo(obj, 'reclaimPolicy', 'Delete');
    defaultTo(obj, 'volumeBindingMode', 'Immediate');
  },
};

const flag = (o: KubeObject, key: string) => (o.spec as Record<string, unknown> | undefined)?.[key] === true;

export const CSIDriver: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'CSIDriver',
  plural: 'csidrivers',
  singular: 'csidriver',
  namespaced: false,
  schema: protoSchema('storage.v1.CSIDriver'),
  printerColumns: [
    col('AttachRequired', 'boolean', 'Indicates this CSI volume driver requires an attach operation.', (o) =>
      flag(o, 'attachRequired'),
    ),
    col(
      'PodInfoOnMount',
      'boolean',
      'Indicates this CSI volume driver requires additional pod information during mount operations.',
      (o) => flag(o, 'podInfoOnMount'),
    ),
    col(
      'StorageCapacity',
      'boolean',
      'Indicates this CSI volume driver has storage capacity tracking.',
      (o) => flag(o, 'storageCapacity'),
    ),
    col(
      'TokenRequests',
      'string',
      "Indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.",
      (o) => {
        const reqs = (o.spec as { tokenRequests?: { audience?: string }[] } | undefined)?.tokenRequests ?? [];
        return reqs.length ? reqs.map((r) => r.audience ?? '').join(',') : '<unset>';
      },
    ),
    col(
      'RequiresRepublish',
      'boolean',
      'Indicates the CSI driver wants NodePublishVolume being periodically called.',
      (o) => flag(o, 'requiresRepublish'),
    ),
    col('Modes', 'string', 'Volume lifecycle modes', (o) => {
      const modes = (o.spec as { volumeLifecycleModes?: string[] } | undefined)?.volumeLifecycleModes ?? [];
      return modes.length ? modes.join(',') : '<none>';
    }),
    AGE,
  ],
  defaults(obj) {
    const sp = child(obj, 'spec');
    defaultPtr(sp, 'attachRequired', true);
    defaultPtr(sp, 'podInfoOnMount', false);
    defaultPtr(sp, 'storageCapacity', false);
    defaultPtr(sp, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
    defaultPtr(sp, 'requiresRepublish', false);
    if (!Array.isArray(sp.volumeLifecycleModes) || sp.volumeLifecycleModes.length === 0)
      sp.volumeLifecycleModes = ['Persistent'];
    defaultPtr(sp, 'seLinuxMount', false);
  },
};

export const storageKinds: readonly KindDefinition[] = [StorageClass, CSIDriver];
