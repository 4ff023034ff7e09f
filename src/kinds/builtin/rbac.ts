// The four RBAC kinds (rbac.authorization.k8s.io/v1) with Kubernetes' shapes and name rules (path
// segments, so `fleethub:admin` is a valid name). Evaluation lives in src/security/rbac.ts.
import { Type } from '@sinclair/typebox';
import type { KindDefinition } from '../types.js';
import { closed, kindSchema, StringMap } from '../meta.js';
import type { KubeObject } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';

const strings = Type.Optional(Type.Array(Type.String()));

const PolicyRule = closed({
  verbs: Type.Array(Type.String()),
  apiGroups: strings,
  resources: strings,
  resourceNames: strings,
  nonResourceURLs: strings,
});

const LabelSelector = closed({
  matchLabels: Type.Optional(StringMap),
  matchExpressions: Type.Optional(
    Type.Array(closed({ key: Type.String(), operator: Type.String(), values: strings })),
  ),
});

const Subject = closed({
  kind: Type.String(),
  apiGroup: Type.Optional(Type.String()),
  name: Type.String(),
  namespace: Type.Optional(Type.String()),
});

const RoleRef = closed({ apiGroup: Type.String(), kind: Type.String(), name: Type.String() });

const GROUP = 'rbac.authorization.k8s.io';

function validateRules(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const rules =
    (obj.rules as { verbs: string[]; resources?: string[]; nonResourceURLs?: string[] }[] | undefined) ?? [];
  rules.forEach((rule, i) => {
    if (rule.verbs.length === 0)
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value: verbs must contain at least one value',
        field: `rules[${i}].verbs`,
      });
    if (!rule.resources?.length && !rule.nonResourceURLs?.length)
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value: resource rules must supply at least one api group',
        field: `rules[${i}].resources`,
      });
  });
  return causes;
}

function validateBinding(obj: KubeObject, old: KubeObject | undefined, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const roleRef = obj.roleRef as { apiGroup: string; kind: string; name: string } | undefined;
  if (!roleRef) return [{ reason: 'FieldValueRequired', message: 'Required value', field: 'roleRef' }];
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(roleRef.kind))
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${roleRef.kind}": supported values: ${kinds.map((k) => `"${k}"`).join(', ')}`,
      field: 'roleRef.kind',
    });
  if (roleRef.apiGroup !== GROUP)
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${roleRef.apiGroup}": supported values: "${GROUP}"`,
      field: 'roleRef.apiGroup',
    });
  if (!roleRef.name)
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'roleRef.name' });
  if (old && JSON.stringify(old.roleRef) !== JSON.stringify(obj.roleRef))
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: cannot change roleRef',
      field: 'roleRef',
    });
  const subjects = (obj.subjects as { kind: string; name: string; namespace?: string }[] | undefined) ?? [];
  subjects.forEach((s, i) => {
    if (!['User', 'Group', 'ServiceAccount'].includes(s.kind))
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${s.kind}": supported values: "ServiceAccount", "User", "Group"`,
        field: `subjects[${i}].kind`,
      });
    if (s.kind === 'ServiceAccount' && !namespaced && !s.namespace)
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `subjects[${i}].namespace`,
      });
  });
  return causes;
}

export const Role: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  singular: 'role',
  namespaced: true,
  nameRule: 'path-segment',
  schema: kindSchema('Role', `${GROUP}/v1`, { rules: Type.Optional(Type.Array(PolicyRule)) }),
  validate: (obj) => validateRules(obj),
};

export const ClusterRole: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  singular: 'clusterrole',
  namespaced: false,
  nameRule: 'path-segment',
  schema: kindSchema('ClusterRole', `${GROUP}/v1`, {
    rules: Type.Optional(Type.Array(PolicyRule)),
    aggregationRule: Type.Optional(
      closed({ clusterRoleSelectors: Type.Optional(Type.Array(LabelSelector)) }),
    ),
  }),
  validate: (obj) => validateRules(obj),
};

export const RoleBinding: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'RoleBinding',
  plural: 'rolebindings',
  singular: 'rolebinding',
  namespaced: true,
  nameRule: 'path-segment',
  schema: kindSchema('RoleBinding', `${GROUP}/v1`, {
    subjects: Type.Optional(Type.Array(Subject)),
    roleRef: RoleRef,
  }),
  validate: (obj, old) => validateBinding(obj, old, true),
};

export const ClusterRoleBinding: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  namespaced: false,
  nameRule: 'path-segment',
  schema: kindSchema('ClusterRoleBinding', `${GROUP}/v1`, {
    subjects: Type.Optional(Type.Array(Subject)),
    roleRef: RoleRef,
  }),
  validate: (obj, old) => validateBinding(obj, old, false),
};
