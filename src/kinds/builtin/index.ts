// The kinds the hub serves today, in discovery order.
import type { KindDefinition } from '../types.js';
import { ConfigMap, Event, Namespace, Secret, ServiceAccount } from './core.js';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './rbac.js';
import { Lease } from './coordination.js';
import { SelfSubjectAccessReview, SelfSubjectReview, SelfSubjectRulesReview } from './reviews.js';
import { AuditEvent } from './audit.js';

export const builtinKinds: readonly KindDefinition[] = [
  Namespace,
  ConfigMap,
  Secret,
  ServiceAccount,
  Event,
  Lease,
  Role,
  ClusterRole,
  RoleBinding,
  ClusterRoleBinding,
  SelfSubjectAccessReview,
  SelfSubjectRulesReview,
  SelfSubjectReview,
  AuditEvent,
];
