// Kubernetes RBAC authorization: an in-memory index of Roles, ClusterRoles and their bindings (fed by the
// caller from the store), evaluated with Kubernetes semantics, plus the 403 texts Kubernetes sends.
import type { KubeObject } from '../store/types.js';
import { errors, qualifiedResource, type ApiError } from '../util/errors.js';
import { serviceAccountUsername, type UserInfo } from './user.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** Storage identities of the four RBAC resources (what `upsert`/`remove` expect; bare plurals work too). */
export const RBAC_RESOURCES = {
  roles: `roles.${RBAC_GROUP}`,
  clusterRoles: `clusterroles.${RBAC_GROUP}`,
  roleBindings: `rolebindings.${RBAC_GROUP}`,
  clusterRoleBindings: `clusterrolebindings.${RBAC_GROUP}`,
} as const;

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** What a request wants to do, as the API server derives it from the URL and method. */
export interface RequestAttributes {
  /** get, list, watch, create, update, patch, delete, deletecollection (or bind, escalate, impersonate…). */
  verb: string;
  resourceRequest: boolean;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  /** Object name; empty for list/watch/create without a name. */
  name?: string;
  /** Empty for cluster-scoped resources and for requests across all namespaces. */
  namespace?: string;
  /** Request path, for non-resource requests (`/healthz`, `/apis`). */
  path?: string;
}

/** RequestAttributes from the API server's request info (`src/apiserver/request-info.ts` shape). */
export function requestAttributes(info: {
  isResourceRequest: boolean;
  verb: string;
  path: string;
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
}): RequestAttributes {
  if (!info.isResourceRequest) return { verb: info.verb, resourceRequest: false, path: info.path };
  return {
    verb: info.verb,
    resourceRequest: true,
    apiGroup: info.group ?? '',
    resource: info.resource ?? '',
    subresource: info.subresource ?? '',
    name: info.name ?? '',
    namespace: info.namespace ?? '',
    path: info.path,
  };
}

export interface Decision {
  allowed: boolean;
  /** Which binding allowed it, or (denied) which referenced roles were missing; may be empty. */
  reason: string;
}

export interface SubjectRules {
  resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
  incomplete: boolean;
  evaluationError?: string;
}

interface CompiledRule {
  verbs: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  resources: ReadonlySet<string>;
  names: ReadonlySet<string>;
  urls: readonly string[];
  source: PolicyRule;
}

interface Binding {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  namespace: string;
  name: string;
  roleRef: RoleRef;
  /** Index key → how the subject reads in a reason (`User "alice"`). */
  subjects: Map<string, string>;
}

type RbacKind = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';

function kindOf(resource: string): RbacKind | undefined {
  const plural = resource.endsWith(`.${RBAC_GROUP}`) ? resource.slice(0, -RBAC_GROUP.length - 1) : resource;
  return plural === 'roles' ||
    plural === 'clusterroles' ||
    plural === 'rolebindings' ||
    plural === 'clusterrolebindings'
    ? plural
    : undefined;
}

const userKey = (username: string): string => `u\0${username}`;
const groupKey = (group: string): string => `g\0${group}`;

/**
 * The RBAC objects by subject, so that a decision touches only the bindings naming the user, one of
 * its groups or its ServiceAccount, however many bindings exist. Roles are looked up when used, so
 * objects may arrive in any order.
 */
export class RbacIndex {
  private readonly clusterRoles = new Map<string, CompiledRule[]>();
  private readonly roles = new Map<string, CompiledRule[]>();
  private readonly clusterBindings = new Map<string, Binding>();
  private readonly roleBindings = new Map<string, Binding>();
  /** subject key → ClusterRoleBindings naming it. */
  private readonly clusterBySubject = new Map<string, Set<Binding>>();
  /** `namespace\0subject key` → RoleBindings in that namespace naming it. */
  private readonly namespacedBySubject = new Map<string, Set<Binding>>();

  /** Adds or replaces an object of one of the four RBAC resources; other resources are ignored. */
  upsert(resource: string, obj: KubeObject): void {
    const kind = kindOf(resource);
    const name = obj.metadata.name ?? '';
    const namespace = obj.metadata.namespace ?? '';
    switch (kind) {
      case 'clusterroles':
        this.clusterRoles.set(name, compileRules(obj['rules']));
        return;
      case 'roles':
        this.roles.set(`${namespace}/${name}`, compileRules(obj['rules']));
        return;
      case 'clusterrolebindings':
      case 'rolebindings': {
        this.remove(resource, namespace, name);
        const binding = toBinding(kind, obj);
        if (!binding) return;
        if (kind === 'clusterrolebindings') {
          this.clusterBindings.set(name, binding);
          for (const key of binding.subjects.keys()) addTo(this.clusterBySubject, key, binding);
        } else {
          this.roleBindings.set(`${namespace}/${name}`, binding);
          for (const key of binding.subjects.keys())
            addTo(this.namespacedBySubject, `${namespace}\0${key}`, binding);
        }
        return;
      }
      default:
        return;
    }
  }

  /** Forgets an object (namespace '' for cluster-scoped ones). */
  remove(resource: string, namespace: string, name: string): void {
    switch (kindOf(resource)) {
      case 'clusterroles':
        this.clusterRoles.delete(name);
        return;
      case 'roles':
        this.roles.delete(`${namespace}/${name}`);
        return;
      case 'clusterrolebindings': {
        const old = this.clusterBindings.get(name);
        if (!old) return;
        this.clusterBindings.delete(name);
        for (const key of old.subjects.keys()) removeFrom(this.clusterBySubject, key, old);
        return;
      }
      case 'rolebindings': {
        const old = this.roleBindings.get(`${namespace}/${name}`);
        if (!old) return;
        this.roleBindings.delete(`${namespace}/${name}`);
        for (const key of old.subjects.keys())
          removeFrom(this.namespacedBySubject, `${namespace}\0${key}`, old);
        return;
      }
      default:
        return;
    }
  }

  /** Is `user` allowed `attrs`? ClusterRoleBindings grant everywhere; RoleBindings inside their namespace. */
  authorize(user: UserInfo, attrs: RequestAttributes): Decision {
    const missing: string[] = [];
    for (const { binding, subject } of this.applicableBindings(
      user,
      attrs.resourceRequest ? attrs.namespace : '',
    )) {
      const rules = this.rulesOf(binding, missing);
      if (rules && rules.some((rule) => ruleAllows(rule, attrs))) {
        const bindingName =
          binding.kind === 'RoleBinding' ? `${binding.name}/${binding.namespace}` : binding.name;
        const role = `${binding.roleRef.kind} "${binding.roleRef.name}"`;
        return {
          allowed: true,
          reason: `RBAC: allowed by ${binding.kind} "${bindingName}" of ${role} to ${subject}`,
        };
      }
    }
    return { allowed: false, reason: missing.length === 0 ? '' : `RBAC: ${aggregate(missing)}` };
  }

  /** Everything `user` may do in `namespace` (cluster-wide grants included), for SelfSubjectRulesReview. */
  rulesFor(user: UserInfo, namespace: string): SubjectRules {
    const result: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const missing: string[] = [];
    for (const { binding } of this.applicableBindings(user, namespace)) {
      for (const rule of this.rulesOf(binding, missing) ?? []) {
        const r = rule.source;
        if (r.resources && r.resources.length > 0) {
          const out: SubjectRules['resourceRules'][number] = {
            verbs: [...r.verbs],
            apiGroups: [...(r.apiGroups ?? [])],
            resources: [...r.resources],
          };
          if (r.resourceNames && r.resourceNames.length > 0) out.resourceNames = [...r.resourceNames];
          result.resourceRules.push(out);
        }
        if (r.nonResourceURLs && r.nonResourceURLs.length > 0) {
          result.nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
        }
      }
    }
    if (missing.length > 0) {
      result.incomplete = true;
      result.evaluationError = aggregate(missing);
    }
    return result;
  }

  /** The rules of a Role (namespace set) or ClusterRole (namespace ''); undefined when not loaded. */
  roleRules(kind: 'Role' | 'ClusterRole', namespace: string, name: string): PolicyRule[] | undefined {
    const compiled =
      kind === 'ClusterRole' ? this.clusterRoles.get(name) : this.roles.get(`${namespace}/${name}`);
    return compiled?.map((r) => r.source);
  }

  /** Bindings that apply to `user`: cluster-wide ones, then (namespace set) those of the namespace. */
  private *applicableBindings(
    user: UserInfo,
    namespace: string | undefined,
  ): Generator<{ binding: Binding; subject: string }> {
    const keys = [userKey(user.username), ...user.groups.map(groupKey)];
    const seen = new Set<Binding>();
    for (const key of keys) {
      for (const binding of this.clusterBySubject.get(key) ?? []) {
        if (seen.has(binding)) continue;
        seen.add(binding);
        yield { binding, subject: binding.subjects.get(key) ?? '' };
      }
    }
    if (!namespace) return;
    for (const key of keys) {
      for (const binding of this.namespacedBySubject.get(`${namespace}\0${key}`) ?? []) {
        if (seen.has(binding)) continue;
        seen.add(binding);
        yield { binding, subject: binding.subjects.get(key) ?? '' };
      }
    }
  }

  private rulesOf(binding: Binding, missing: string[]): CompiledRule[] | undefined {
    const ref = binding.roleRef;
    if (ref.kind === 'ClusterRole') {
      const rules = this.clusterRoles.get(ref.name);
      if (!rules) missing.push(`clusterrole.${RBAC_GROUP} "${ref.name}" not found`);
      return rules;
    }
    if (ref.kind === 'Role' && binding.kind === 'RoleBinding') {
      const rules = this.roles.get(`${binding.namespace}/${ref.name}`);
      if (!rules) missing.push(`role.${RBAC_GROUP} "${ref.name}" not found`);
      return rules;
    }
    return undefined;
  }
}

export interface RbacObjects {
  roles?: KubeObject[];
  clusterRoles?: KubeObject[];
  roleBindings?: KubeObject[];
  clusterRoleBindings?: KubeObject[];
}

/** One-off evaluation over explicit objects (builds a throwaway index; servers keep an RbacIndex). */
export function authorize(user: UserInfo, attrs: RequestAttributes, objects: RbacObjects): Decision {
  const index = new RbacIndex();
  for (const o of objects.clusterRoles ?? []) index.upsert(RBAC_RESOURCES.clusterRoles, o);
  for (const o of objects.roles ?? []) index.upsert(RBAC_RESOURCES.roles, o);
  for (const o of objects.clusterRoleBindings ?? []) index.upsert(RBAC_RESOURCES.clusterRoleBindings, o);
  for (const o of objects.roleBindings ?? []) index.upsert(RBAC_RESOURCES.roleBindings, o);
  return index.authorize(user, attrs);
}

/** Kubernetes' rule semantics for one request. */
function ruleAllows(rule: CompiledRule, attrs: RequestAttributes): boolean {
  if (!rule.verbs.has('*') && !rule.verbs.has(attrs.verb)) return false;
  if (!attrs.resourceRequest) return urlMatches(rule.urls, attrs.path ?? '');
  if (!rule.groups.has('*') && !rule.groups.has(attrs.apiGroup ?? '')) return false;
  const resource = attrs.resource ?? '';
  const sub = attrs.subresource ?? '';
  const combined = sub ? `${resource}/${sub}` : resource;
  // `pods` does not cover `pods/log`; `*` covers everything, `*/status` every status subresource.
  if (!rule.resources.has('*') && !rule.resources.has(combined) && !(sub && rule.resources.has(`*/${sub}`))) {
    return false;
  }
  // A rule limited to names never matches a request without one (list, watch, create without name).
  return rule.names.size === 0 || rule.names.has(attrs.name ?? '');
}

function urlMatches(urls: readonly string[], path: string): boolean {
  for (const url of urls) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

function compileRules(raw: unknown): CompiledRule[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((r: PolicyRule) => ({
    verbs: new Set(strings(r?.verbs)),
    groups: new Set(strings(r?.apiGroups)),
    resources: new Set(strings(r?.resources)),
    names: new Set(strings(r?.resourceNames)),
    urls: strings(r?.nonResourceURLs),
    source: {
      verbs: strings(r?.verbs),
      ...(r?.apiGroups ? { apiGroups: strings(r.apiGroups) } : {}),
      ...(r?.resources ? { resources: strings(r.resources) } : {}),
      ...(r?.resourceNames ? { resourceNames: strings(r.resourceNames) } : {}),
      ...(r?.nonResourceURLs ? { nonResourceURLs: strings(r.nonResourceURLs) } : {}),
    },
  }));
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function toBinding(kind: 'rolebindings' | 'clusterrolebindings', obj: KubeObject): Binding | undefined {
  const roleRef = obj['roleRef'] as RoleRef | undefined;
  if (!roleRef || typeof roleRef.name !== 'string' || typeof roleRef.kind !== 'string') return undefined;
  const namespace = kind === 'rolebindings' ? (obj.metadata.namespace ?? '') : '';
  const subjects = new Map<string, string>();
  const raw = Array.isArray(obj['subjects']) ? (obj['subjects'] as Subject[]) : [];
  for (const s of raw) {
    if (!s || typeof s.name !== 'string') continue;
    if (s.kind === 'User') subjects.set(userKey(s.name), `User "${s.name}"`);
    else if (s.kind === 'Group') subjects.set(groupKey(s.name), `Group "${s.name}"`);
    else if (s.kind === 'ServiceAccount') {
      // A RoleBinding's ServiceAccount subject without namespace means one in the binding's namespace.
      const ns = s.namespace || namespace;
      if (ns) subjects.set(userKey(serviceAccountUsername(ns, s.name)), `ServiceAccount "${s.name}/${ns}"`);
    }
  }
  return {
    kind: kind === 'rolebindings' ? 'RoleBinding' : 'ClusterRoleBinding',
    namespace,
    name: obj.metadata.name ?? '',
    roleRef: { kind: roleRef.kind, name: roleRef.name },
    subjects,
  };
}

function addTo(map: Map<string, Set<Binding>>, key: string, binding: Binding): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(binding);
}

function removeFrom(map: Map<string, Set<Binding>>, key: string, binding: Binding): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(binding);
  if (set.size === 0) map.delete(key);
}

function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

/**
 * The message of Kubernetes' 403, e.g. `configmaps "x" is forbidden: User "u" cannot get resource
 * "configmaps" in API group "" in the namespace "default"`; `reason` (from a Decision) is appended.
 */
export function forbiddenMessage(user: UserInfo, attrs: RequestAttributes, reason = ''): string {
  const suffix = reason ? `: ${reason}` : '';
  if (!attrs.resourceRequest) {
    return `forbidden: User "${user.username}" cannot ${attrs.verb} path "${attrs.path ?? ''}"${suffix}`;
  }
  const group = attrs.apiGroup ?? '';
  const resource = attrs.resource ?? '';
  const shown = attrs.subresource ? `${resource}/${attrs.subresource}` : resource;
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  const what = `User "${user.username}" cannot ${attrs.verb} resource "${shown}" in API group "${group}" ${scope}`;
  const subject = qualifiedResource(resource, group);
  return attrs.name
    ? `${subject} "${attrs.name}" is forbidden: ${what}${suffix}`
    : `${subject} is forbidden: ${what}${suffix}`;
}

/** The 403 ApiError for a denied request (details name the resource, group and object like Kubernetes). */
export function forbiddenError(user: UserInfo, attrs: RequestAttributes, reason = ''): ApiError {
  const message = forbiddenMessage(user, attrs, reason);
  if (!attrs.resourceRequest) return errors.forbidden(message);
  return errors.forbidden(message, attrs.resource, attrs.apiGroup, attrs.name);
}
