// Create-only review kinds: `kubectl auth can-i` (SelfSubjectAccessReview, SelfSubjectRulesReview) and
// `kubectl auth whoami` (SelfSubjectReview). They are answered, never stored.
import { Type } from '@sinclair/typebox';
import type { KindDefinition } from '../types.js';
import { closed, kindSchema } from '../meta.js';

const str = Type.Optional(Type.String());

const ResourceAttributes = closed({
  namespace: str,
  verb: str,
  group: str,
  version: str,
  resource: str,
  subresource: str,
  name: str,
  fieldSelector: Type.Optional(Type.Unknown()),
  labelSelector: Type.Optional(Type.Unknown()),
});

const anyStatus = Type.Optional(Type.Record(Type.String(), Type.Unknown()));

export const SelfSubjectAccessReview: KindDefinition = {
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema('SelfSubjectAccessReview', 'authorization.k8s.io/v1', {
    spec: closed({
      resourceAttributes: Type.Optional(ResourceAttributes),
      nonResourceAttributes: Type.Optional(closed({ path: str, verb: str })),
    }),
    status: anyStatus,
  }),
};

export const SelfSubjectRulesReview: KindDefinition = {
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema('SelfSubjectRulesReview', 'authorization.k8s.io/v1', {
    spec: closed({ namespace: str }),
    status: anyStatus,
  }),
};

export const SelfSubjectReview: KindDefinition = {
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema('SelfSubjectReview', 'authentication.k8s.io/v1', { status: anyStatus }),
};

/** Body of POST serviceaccounts/{name}/token; not a served resource of its own. */
export const TokenRequestSchema = kindSchema('TokenRequest', 'authentication.k8s.io/v1', {
  spec: Type.Optional(
    closed({
      audiences: Type.Optional(Type.Array(Type.String())),
      expirationSeconds: Type.Optional(Type.Integer()),
      boundObjectReference: Type.Optional(closed({ kind: str, apiVersion: str, name: str, uid: str })),
    }),
  ),
  status: anyStatus,
});
