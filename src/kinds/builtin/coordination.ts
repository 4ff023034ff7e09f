// coordination.k8s.io/v1 Lease: agent heartbeats and the controllers' leader election.
import { Type } from '@sinclair/typebox';
import type { KindDefinition } from '../types.js';
import { closed, kindSchema } from '../meta.js';

export const Lease: KindDefinition = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  singular: 'lease',
  namespaced: true,
  schema: kindSchema('Lease', 'coordination.k8s.io/v1', {
    spec: Type.Optional(
      closed({
        holderIdentity: Type.Optional(Type.String()),
        leaseDurationSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
        acquireTime: Type.Optional(Type.String()),
        renewTime: Type.Optional(Type.String()),
        leaseTransitions: Type.Optional(Type.Integer({ minimum: 0 })),
        strategy: Type.Optional(Type.String()),
        preferredHolder: Type.Optional(Type.String()),
      }),
    ),
  }),
};
