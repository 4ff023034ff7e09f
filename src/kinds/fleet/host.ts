// fleet.fleethub.io/v1alpha1 Host (a machine running the host agent, which may run k3s) and
// FleetHostJoin (a one-time, expiring invitation for a machine to join the fleet).
import { Type } from '@sinclair/typebox';
import { FLEET_GROUP, FLEET_VERSION, FLEET_API_VERSION, LABEL_SITE } from '../../fleet/names.js';
import type { StatusCause } from '../../util/errors.js';
import { AGE } from '../builtin/kube-helpers.js';
import { closed, kindSchema } from '../meta.js';
import type { KindDefinition } from '../types.js';
import {
  conditionColumn,
  Conditions,
  FLEET_CATEGORIES,
  siteOf,
  stampLabels,
  status,
  validateConditions,
  validateSite,
  Site,
} from './common.js';
import { joinKind } from './join-kind.js';

/** A resource.Quantity as the agent reports it (`8`, `16Gi`). */
const Quantity = Type.String({ pattern: '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' });

export const Host: KindDefinition = {
  group: FLEET_GROUP,
  version: FLEET_VERSION,
  kind: 'Host',
  plural: 'hosts',
  singular: 'host',
  namespaced: false,
  categories: FLEET_CATEGORIES,
  subresources: { status: true },
  // The name ends up in agent certificate CNs and Lease names.
  nameRule: 'dns1123-label',
  description: 'A machine of the fleet; its host agent reports what it is and whether k3s runs on it.',
  schema: kindSchema('Host', FLEET_API_VERSION, {
    spec: Type.Optional(
      closed({
        site: Site,
        unschedulable: Type.Optional(Type.Boolean({ description: 'Place no new clusters on this host.' })),
      }),
    ),
    status: Type.Optional(
      closed({
        hostname: Type.Optional(Type.String()),
        addresses: Type.Optional(Type.Array(closed({ type: Type.String(), address: Type.String() }))),
        os: Type.Optional(Type.String()),
        osImage: Type.Optional(Type.String()),
        kernelVersion: Type.Optional(Type.String()),
        architecture: Type.Optional(Type.String()),
        cpu: Type.Optional(Quantity),
        memory: Type.Optional(Quantity),
        k3sEnabled: Type.Optional(Type.Boolean()),
        agentVersion: Type.Optional(Type.String()),
        lastContactTime: Type.Optional(Type.String({ format: 'date-time' })),
        conditions: Conditions,
      }),
    ),
  }),
  printerColumns: [
    { name: 'Site', type: 'string', jsonPath: '.spec.site', description: 'Where the host runs.' },
    conditionColumn('Available', 'Available', 'Whether the host agent reports the host available.'),
    { name: 'Arch', type: 'string', jsonPath: '.status.architecture', description: 'CPU architecture.' },
    { name: 'CPU', type: 'string', jsonPath: '.status.cpu', description: 'CPU cores.' },
    { name: 'Memory', type: 'string', jsonPath: '.status.memory', description: 'Memory.' },
    { name: 'K3s', type: 'boolean', jsonPath: '.status.k3sEnabled', description: 'Whether k3s runs on it.' },
    AGE,
  ],
  admit(obj) {
    stampLabels(obj, { [LABEL_SITE]: siteOf(obj) });
  },
  validate(obj) {
    const causes: StatusCause[] = [];
    validateSite(causes, obj);
    validateConditions(causes, status(obj).conditions, 'status.conditions');
    return causes;
  },
};

export const FleetHostJoin: KindDefinition = joinKind({
  kind: 'FleetHostJoin',
  namespaced: false,
  shortName: 'fhj',
  description:
    'An invitation for one machine to join the fleet as a Host: the hub issues a one-time token and a join command.',
  target: {
    field: 'hostName',
    column: 'Host',
    description: 'Name of the Host the join creates (a DNS-1123 label).',
  },
  ref: { hostRef: Type.Optional(closed({ name: Type.String() })) },
});
