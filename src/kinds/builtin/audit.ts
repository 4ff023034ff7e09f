// fleet.fleethub.io/v1alpha1 AuditEvent: the append-only audit log, readable (never writable) through
// the API. Records are written by the hub's audit sink, never by clients.
import { Type } from '@sinclair/typebox';
import type { KindDefinition } from '../types.js';
import { kindSchema } from '../meta.js';

export const AuditEvent: KindDefinition = {
  group: 'fleet.fleethub.io',
  version: 'v1alpha1',
  kind: 'AuditEvent',
  plural: 'auditevents',
  singular: 'auditevent',
  namespaced: false,
  verbs: ['get', 'list', 'watch'],
  schema: kindSchema('AuditEvent', 'fleet.fleethub.io/v1alpha1', {
    // Loose on purpose: the sink owns the record shape and it may gain fields over time.
    spec: Type.Record(Type.String(), Type.Unknown()),
  }),
  printerColumns: [
    { name: 'Time', type: 'string', jsonPath: '.spec.time' },
    { name: 'User', type: 'string', jsonPath: '.spec.user.username' },
    { name: 'Verb', type: 'string', jsonPath: '.spec.verb' },
    { name: 'Resource', type: 'string', jsonPath: '.spec.resource' },
    { name: 'Namespace', type: 'string', jsonPath: '.spec.namespace' },
    { name: 'Object', type: 'string', jsonPath: '.spec.name' },
    { name: 'Code', type: 'integer', jsonPath: '.spec.responseCode' },
  ],
};
