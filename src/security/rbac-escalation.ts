// RBAC privilege-escalation prevention, as Kubernetes does it: a user may write a Role or binding only
// if it grants nothing the user does not hold, unless the user has the `escalate` / `bind` verb for it.
import type { KubeObject } from '../store/types.js';
import { errors, type ApiError } from '../util/errors.js';
import { RBAC_GROUP, type PolicyRule, type RbacIndex, type RoleRef } from './rbac.js';
import type { UserInfo } from './user.js';

type Atomic =
  | { kind: 'resource'; verb: string; group: string; resource: string; name?: string }
  | { kind: 'url'; verb: string; url: string };

/** The rules of `requested` that `owner` does not cover (each as a single-verb, single-resource rule). */
export function uncoveredRules(owner: PolicyRule[], requested: PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const atom of breakdown(rule)) {
      if (!owner.some((o) => ownerCovers(o, atom))) missing.push(toRule(atom));
    }
  }
  return missing;
}

/**
 * For a create/update of a Role (namespace set) or ClusterRole (namespace ''): undefined when allowed,
 * else the 403 Kubernetes sends. Allowed with `escalate` on the role, or when the user holds every rule.
 */
export function checkRoleEscalation(
  index: RbacIndex,
  user: UserInfo,
  role: { kind: 'Role' | 'ClusterRole'; namespace: string; name: string; rules: PolicyRule[] },
): ApiError | undefined {
  const resource = role.kind === 'Role' ? 'roles' : 'clusterroles';
  const escalate = index.authorize(user, {
    verb: 'escalate',
    resourceRequest: true,
    apiGroup: RBAC_GROUP,
    resource,
    name: role.name,
    namespace: role.namespace,
  });
  if (escalate.allowed) return undefined;
  return confirmNoEscalation(index, user, role.namespace, role.rules, resource, role.name);
}

/**
 * For a create/update of a RoleBinding or ClusterRoleBinding: undefined when allowed, else a 403.
 * Allowed with `bind` on the referenced role (in the binding's namespace), or when the user holds every
 * rule of that role there.
 */
export function checkBindingEscalation(
  index: RbacIndex,
  user: UserInfo,
  binding: KubeObject,
): ApiError | undefined {
  const roleRef = binding['roleRef'] as RoleRef | undefined;
  const namespace = binding.metadata.namespace ?? '';
  const bindingResource = namespace ? 'rolebindings' : 'clusterrolebindings';
  const name = binding.metadata.name ?? '';
  if (!roleRef || (roleRef.kind !== 'Role' && roleRef.kind !== 'ClusterRole')) {
    return errors.forbidden(
      `${bindingResource}.${RBAC_GROUP} "${name}" is forbidden: invalid roleRef`,
      bindingResource,
      RBAC_GROUP,
      name,
    );
  }
  const bind = index.authorize(user, {
    verb: 'bind',
    resourceRequest: true,
    apiGroup: RBAC_GROUP,
    resource: roleRef.kind === 'Role' ? 'roles' : 'clusterroles',
    name: roleRef.name,
    namespace,
  });
  if (bind.allowed) return undefined;
  const rules = index.roleRules(roleRef.kind, namespace, roleRef.name);
  if (!rules) {
    const what = `${roleRef.kind === 'Role' ? 'role' : 'clusterrole'}.${RBAC_GROUP} "${roleRef.name}" not found`;
    return errors.forbidden(
      `${bindingResource}.${RBAC_GROUP} "${name}" is forbidden: ${what}`,
      bindingResource,
      RBAC_GROUP,
      name,
    );
  }
  return confirmNoEscalation(index, user, namespace, rules, bindingResource, name);
}

function confirmNoEscalation(
  index: RbacIndex,
  user: UserInfo,
  namespace: string,
  rules: PolicyRule[],
  resource: string,
  name: string,
): ApiError | undefined {
  const held = index.rulesFor(user, namespace);
  const owner: PolicyRule[] = [
    ...held.resourceRules.map((r) => ({ ...r })),
    ...held.nonResourceRules.map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
  ];
  const missing = uncoveredRules(owner, rules);
  if (missing.length === 0) return undefined;
  const groups = `[${user.groups.map((g) => JSON.stringify(g)).join(' ')}]`;
  const message =
    `${resource}.${RBAC_GROUP} "${name}" is forbidden: user "${user.username}" (groups=${groups}) is attempting ` +
    `to grant RBAC permissions not currently held:\n${missing.map(compact).join('\n')}`;
  return errors.forbidden(message, resource, RBAC_GROUP, name);
}

function breakdown(rule: PolicyRule): Atomic[] {
  const out: Atomic[] = [];
  const verbs = rule.verbs ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of verbs) {
        if (rule.resourceNames && rule.resourceNames.length > 0) {
          for (const name of rule.resourceNames) out.push({ kind: 'resource', verb, group, resource, name });
        } else {
          out.push({ kind: 'resource', verb, group, resource });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of verbs) out.push({ kind: 'url', verb, url });
  }
  return out;
}

function ownerCovers(owner: PolicyRule, atom: Atomic): boolean {
  const verbs = owner.verbs ?? [];
  if (!verbs.includes('*') && !verbs.includes(atom.verb)) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (atom.kind === 'url') {
    if (ownerNames.length > 0) return false;
    return (owner.nonResourceURLs ?? []).some(
      (u) => u === '*' || u === atom.url || (u.endsWith('*') && atom.url.startsWith(u.replace(/\*+$/, ''))),
    );
  }
  const groups = owner.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(atom.group)) return false;
  const resources = owner.resources ?? [];
  const slash = atom.resource.indexOf('/');
  const coversResource =
    resources.includes('*') ||
    resources.includes(atom.resource) ||
    (slash > 0 && resources.includes(`*/${atom.resource.slice(slash + 1)}`));
  if (!coversResource) return false;
  if (ownerNames.length === 0) return true;
  return atom.name !== undefined && ownerNames.includes(atom.name);
}

function toRule(atom: Atomic): PolicyRule {
  if (atom.kind === 'url') return { verbs: [atom.verb], nonResourceURLs: [atom.url] };
  const rule: PolicyRule = { verbs: [atom.verb], apiGroups: [atom.group], resources: [atom.resource] };
  if (atom.name !== undefined) rule.resourceNames = [atom.name];
  return rule;
}

/** Kubernetes' compact rule text: `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`. */
function compact(rule: PolicyRule): string {
  const list = (values: string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
  const parts: string[] = [];
  if (rule.apiGroups) parts.push(`APIGroups:${list(rule.apiGroups)}`);
  if (rule.resources) parts.push(`Resources:${list(rule.resources)}`);
  if (rule.resourceNames) parts.push(`ResourceNames:${list(rule.resourceNames)}`);
  if (rule.nonResourceURLs) parts.push(`NonResourceURLs:${list(rule.nonResourceURLs)}`);
  parts.push(`Verbs:${list(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
