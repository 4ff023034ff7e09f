// Every protobuf field table the decoder knows, one per API package (k8s.io/api and apimachinery v0.35.2).
// Adding a group/version = adding its table here; kinds resolve as `<first label of group>.<version>.<Kind>`.

import type { PackageTable } from '../descriptors.js';
import { appsV1 } from './apps-v1.js';
import { authenticationV1 } from './authentication-v1.js';
import { authorizationV1 } from './authorization-v1.js';
import { autoscalingV1 } from './autoscaling-v1.js';
import { autoscalingV2 } from './autoscaling-v2.js';
import { batchV1 } from './batch-v1.js';
import { certificatesV1 } from './certificates-v1.js';
import { coordinationV1 } from './coordination-v1.js';
import { coreV1 } from './core-v1.js';
import { discoveryV1 } from './discovery-v1.js';
import { eventsV1 } from './events-v1.js';
import { metaV1 } from './meta-v1.js';
import { networkingV1 } from './networking-v1.js';
import { policyV1 } from './policy-v1.js';
import { rbacV1 } from './rbac-v1.js';
import { schedulingV1 } from './scheduling-v1.js';
import { storageV1 } from './storage-v1.js';

export const ALL_TABLES: readonly PackageTable[] = [
  metaV1,
  coreV1,
  appsV1,
  batchV1,
  policyV1,
  rbacV1,
  authenticationV1,
  authorizationV1,
  certificatesV1,
  coordinationV1,
  eventsV1,
  networkingV1,
  schedulingV1,
  autoscalingV1,
  autoscalingV2,
  discoveryV1,
  storageV1,
];
