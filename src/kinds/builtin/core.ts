// Core (v1) kinds the hub serves: Namespace, ConfigMap, Secret, ServiceAccount, Event.
// Tenants and environments are namespaces; Secrets are encrypted at rest by the store codec.
import { Type } from '@sinclair/typebox';
import type { KindDefinition } from '../types.js';
import { closed, kindSchema, StringMap } from '../meta.js';
import type { KubeObject } from '../../store/types.js';

const ObjectReference = closed({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  fieldPath: Type.Optional(Type.String()),
});

const LocalObjectReference = closed({ name: Type.Optional(Type.String()) });

export const Namespace: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  shortNames: ['ns'],
  nameRule: 'dns1123-label',
  subresources: { status: true },
  schema: kindSchema('Namespace', 'v1', {
    spec: Type.Optional(closed({ finalizers: Type.Optional(Type.Array(Type.String())) })),
    status: Type.Optional(
      closed({
        phase: Type.Optional(Type.Union([Type.Literal('Active'), Type.Literal('Terminating')])),
        conditions: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
      }),
    ),
  }),
  selectableFields: { 'status.phase': (o) => (o.status as { phase?: string } | undefined)?.phase },
  defaults(obj) {
    const spec = (obj.spec ??= {}) as { finalizers?: string[] };
    spec.finalizers ??= ['kubernetes'];
    const status = (obj.status ??= {}) as { phase?: string };
    status.phase ??= 'Active';
  },
};

export const ConfigMap: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  shortNames: ['cm'],
  schema: kindSchema('ConfigMap', 'v1', {
    data: Type.Optional(StringMap),
    binaryData: Type.Optional(Type.Record(Type.String(), Type.String({ contentEncoding: 'base64' }))),
    immutable: Type.Optional(Type.Boolean()),
  }),
  validate(obj, old) {
    if (
      old &&
      old.immutable === true &&
      JSON.stringify([old.data, old.binaryData]) !== JSON.stringify([obj.data, obj.binaryData])
    )
      return [
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: field is immutable when `immutable` is set',
          field: 'data',
        },
      ];
    return [];
  },
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const Secret: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  singular: 'secret',
  namespaced: true,
  encrypted: true,
  schema: kindSchema('Secret', 'v1', {
    data: Type.Optional(Type.Record(Type.String(), Type.String({ contentEncoding: 'base64' }))),
    stringData: Type.Optional(StringMap),
    type: Type.Optional(Type.String()),
    immutable: Type.Optional(Type.Boolean()),
  }),
  selectableFields: { type: (o) => o.type as string | undefined },
  defaults(obj) {
    obj.type ??= 'Opaque';
  },
  validate(obj, old) {
    const causes = [];
    for (const [key, value] of Object.entries((obj.data as Record<string, string> | undefined) ?? {}))
      if (value.length % 4 !== 0 || !BASE64.test(value))
        causes.push({
          reason: 'FieldValueInvalid',
          message: 'Invalid value: illegal base64 data',
          field: `data[${key}]`,
        });
    if (old && old.type !== undefined && obj.type !== old.type)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${String(obj.type)}": field is immutable`,
        field: 'type',
      });
    if (old && old.immutable === true && JSON.stringify(old.data) !== JSON.stringify(obj.data))
      causes.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: field is immutable when `immutable` is set',
        field: 'data',
      });
    return causes;
  },
};

export const ServiceAccount: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  namespaced: true,
  shortNames: ['sa'],
  deleteReturnsObject: true,
  schema: kindSchema('ServiceAccount', 'v1', {
    secrets: Type.Optional(Type.Array(ObjectReference)),
    imagePullSecrets: Type.Optional(Type.Array(LocalObjectReference)),
    automountServiceAccountToken: Type.Optional(Type.Boolean()),
  }),
  extraSubresources: [
    { name: 'token', group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
  ],
};

export const Event: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  singular: 'event',
  namespaced: true,
  shortNames: ['ev'],
  schema: kindSchema('Event', 'v1', {
    involvedObject: ObjectReference,
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    source: Type.Optional(
      closed({ component: Type.Optional(Type.String()), host: Type.Optional(Type.String()) }),
    ),
    firstTimestamp: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    lastTimestamp: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    count: Type.Optional(Type.Integer()),
    type: Type.Optional(Type.String()),
    eventTime: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    series: Type.Optional(
      closed({ count: Type.Optional(Type.Integer()), lastObservedTime: Type.Optional(Type.String()) }),
    ),
    action: Type.Optional(Type.String()),
    related: Type.Optional(ObjectReference),
    reportingComponent: Type.Optional(Type.String()),
    reportingInstance: Type.Optional(Type.String()),
  }),
  selectableFields: eventFields(),
};

function eventFields(): Record<string, (o: KubeObject) => string> {
  const fields: Record<string, (o: KubeObject) => string> = {};
  for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'])
    fields[`involvedObject.${f}`] = (o) =>
      (o.involvedObject as Record<string, string> | undefined)?.[f] ?? '';
  for (const f of ['reason', 'reportingComponent', 'type'])
    fields[f] = (o) => (o[f] as string | undefined) ?? '';
  fields.source = (o) => (o.source as { component?: string } | undefined)?.component ?? '';
  return fields;
}
