// Protobuf field table for k8s.io/api rbac/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const rbacV1: PackageTable = {
  pkg: 'rbac.v1',
  kinds: ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  messages: {
    AggregationRule: 'clusterRoleSelectors=1:meta.v1.LabelSelector[]',
    ClusterRole: 'metadata=1:meta.v1.ObjectMeta rules=2:PolicyRule[] aggregationRule=3:AggregationRule?',
    ClusterRoleBinding: 'metadata=1:meta.v1.ObjectMeta subjects=2:Subject[] roleRef=3:RoleRef',
    PolicyRule: `
      verbs=1:string[] apiGroups=2:string[] resources=3:string[] resourceNames=4:string[]
      nonResourceURLs=5:string[]
    `,
    Role: 'metadata=1:meta.v1.ObjectMeta rules=2:PolicyRule[]',
    RoleBinding: 'metadata=1:meta.v1.ObjectMeta subjects=2:Subject[] roleRef=3:RoleRef',
    RoleRef: 'apiGroup=1:string kind=2:string name=3:string',
    Subject: 'kind=1:string apiGroup=2:string name=3:string namespace=4:string',
  },
};
