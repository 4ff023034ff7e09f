// What it takes to serve a kind: one definition carrying its names, scope, schema (validation, types
// and OpenAPI), defaults, printer columns and subresources. Adding a kind needs nothing else.
import type { TObject } from '@sinclair/typebox';
import type { KubeObject } from '../store/types.js';
import type { UserInfo } from '../security/user.js';
import type { StatusCause } from '../util/errors.js';
import type { NameRule } from './meta.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** A simple JSONPath like `.spec.replicas` or `.status.conditions[?(@.type=="Ready")].status`. */
  jsonPath: string;
  /** Computed cell (e.g. the number of keys in `data`); takes precedence over `jsonPath`. */
  value?: (obj: KubeObject) => unknown;
  description?: string;
  /** 1 = only shown by `-o wide`. */
  priority?: number;
  format?: string;
}

export interface KindDefinition {
  group: string;
  version: string;
  kind: string;
  /** Resource name in URLs: `configmaps`. */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** The whole object's schema; `metadata` is checked separately by the common ObjectMeta rules. */
  schema: TObject;
  /** Verbs served; default all eight. Create-only review kinds list just 'create'. */
  verbs?: readonly Verb[];
  subresources?: { status?: boolean };
  /**
   * A CRD's `subresources.scale`: where `/scale` reads and writes replicas and the selector string
   * (`.spec.replicas`-style paths, as in the CRD). Serving `/scale` and listing it in discovery is the
   * API server's job; the kind only says where the fields are.
   */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  printerColumns?: PrinterColumn[];
  /** Create-time defaults (also when a server-side apply creates). Mutates `obj`. */
  defaults?(obj: KubeObject): void;
  /**
   * Mutating admission for writes of the main resource (create, update, patch, apply; not /status):
   * runs before validation with the requesting user; may change `obj` (e.g. stamp labels, record the
   * requester). It sees the body as sent, before schema checks: read fields defensively.
   */
  admit?(obj: KubeObject, request: AdmissionRequest): void;
  /**
   * Validating admission that may refuse any write through the API — create, update of the main resource
   * or a subresource, delete — by throwing an ApiError: e.g. objects only the hub's controllers (which
   * write through the store) may change.
   */
  guard?(request: GuardRequest): void;
  /** Semantic checks beyond the schema; `old` is set on update. */
  validate?(obj: KubeObject, old?: KubeObject): StatusCause[];
  /** Stored encrypted at rest (Secrets). */
  encrypted?: boolean;
  /**
   * Pods: a DELETE of a running pod only marks it (deletionTimestamp = now + grace period) and the kubelet
   * removes it; unbound or finished pods, and a grace period of 0, delete at once.
   */
  gracefulDeletion?: boolean;
  /** A successful DELETE answers with the object instead of a Success Status (pods, serviceaccounts). */
  deleteReturnsObject?: boolean;
  /** Field selectors beyond metadata.name/metadata.namespace: label → value getter. */
  selectableFields?: Record<string, (obj: KubeObject) => string | undefined>;
  /** Rule for metadata.name; default 'dns1123-subdomain'. */
  nameRule?: NameRule;
  /** Subresources answered by custom handlers, e.g. serviceaccounts/token (TokenRequest). */
  extraSubresources?: ExtraSubresource[];
  description?: string;
}

/** What a kind's `guard` hook judges. */
export interface GuardRequest {
  operation: 'create' | 'update' | 'delete';
  subresource?: string;
  user: UserInfo;
  /** The stored object (update, delete). */
  old?: KubeObject;
  /** The object as it would be stored (create, update). */
  obj?: KubeObject;
}

/** What a kind's `admit` hook learns about the write. */
export interface AdmissionRequest {
  operation: 'create' | 'update';
  user: UserInfo;
  /** The stored object, on update. */
  old?: KubeObject;
}

/** `leases.coordination.k8s.io`, `configmaps`: the storage identity of a kind. */
export function resourceName(def: Pick<KindDefinition, 'plural' | 'group'>): string {
  return def.group ? `${def.plural}.${def.group}` : def.plural;
}

export function apiVersionOf(def: Pick<KindDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export interface ExtraSubresource {
  name: string;
  group: string;
  version: string;
  kind: string;
  verbs: readonly Verb[];
}
