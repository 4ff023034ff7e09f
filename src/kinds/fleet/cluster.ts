// fleet.fleethub.io/v1alpha1 Cluster (a managed Kubernetes cluster, reported on by its agent) and
// FleetClusterJoin (a one-time, expiring invitation for a cluster to join the fleet).
import { Type } from '@sinclair/typebox';
import {
  FLEET_GROUP,
  FLEET_VERSION,
  FLEET_API_VERSION,
  LABEL_CAPI_CLUSTER_NAME,
  LABEL_SITE,
  LABEL_TENANT,
} from '../../fleet/names.js';
import type { StatusCause } from '../../util/errors.js';
import { AGE } from '../builtin/kube-helpers.js';
import { closed, kindSchema } from '../meta.js';
import type { KindDefinition } from '../types.js';
import {
  ClusterNetworkSchema,
  conditionColumn,
  Conditions,
  FLEET_CATEGORIES,
  siteOf,
  spec,
  stampLabels,
  status,
  StringMap,
  validateClusterNetwork,
  validateConditions,
  validateSite,
  Site,
} from './common.js';
import { joinKind } from './join-kind.js';

export const Cluster: KindDefinition = {
  group: FLEET_GROUP,
  version: FLEET_VERSION,
  kind: 'Cluster',
  plural: 'clusters',
  singular: 'cluster',
  namespaced: true,
  categories: FLEET_CATEGORIES,
  subresources: { status: true },
  // The name ends up in agent certificate CNs and Lease names.
  nameRule: 'dns1123-label',
  description:
    'A Kubernetes cluster of the fleet. The namespace is its tenant; the agent in the cluster reports its status.',
  schema: kindSchema('Cluster', FLEET_API_VERSION, {
    spec: Type.Optional(
      closed({
        site: Site,
        clusterNetwork: Type.Optional(ClusterNetworkSchema),
        paused: Type.Optional(Type.Boolean({ description: 'Stop delivering work to the cluster.' })),
      }),
    ),
    status: Type.Optional(
      closed({
        conditions: Conditions,
        kubernetesVersion: Type.Optional(Type.String()),
        nodeCount: Type.Optional(Type.Integer({ minimum: 0 })),
        capacity: Type.Optional(StringMap),
        allocatable: Type.Optional(StringMap),
        capabilities: Type.Optional(
          closed({
            apiVersions: Type.Optional(Type.Array(Type.String())),
            storageClasses: Type.Optional(Type.Array(Type.String())),
            ingressClasses: Type.Optional(Type.Array(Type.String())),
          }),
        ),
        agentVersion: Type.Optional(Type.String()),
        lastContactTime: Type.Optional(Type.String({ format: 'date-time' })),
        clusterNetwork: Type.Optional(ClusterNetworkSchema),
      }),
    ),
  }),
  printerColumns: [
    { name: 'Site', type: 'string', jsonPath: '.spec.site', description: 'Where the cluster runs.' },
    conditionColumn('Available', 'Available', 'Whether the agent reports the cluster available.'),
    {
      name: 'Version',
      type: 'string',
      jsonPath: '.status.kubernetesVersion',
      description: 'Kubernetes version the agent reports.',
    },
    { name: 'Nodes', type: 'integer', jsonPath: '.status.nodeCount', description: 'Number of nodes.' },
    AGE,
  ],
  admit(obj) {
    stampLabels(obj, {
      [LABEL_TENANT]: obj.metadata.namespace,
      [LABEL_CAPI_CLUSTER_NAME]: obj.metadata.name,
      [LABEL_SITE]: siteOf(obj),
    });
  },
  validate(obj) {
    const causes: StatusCause[] = [];
    validateSite(causes, obj);
    validateClusterNetwork(causes, spec(obj).clusterNetwork, 'spec.clusterNetwork');
    validateConditions(causes, status(obj).conditions, 'status.conditions');
    return causes;
  },
};

export const FleetClusterJoin: KindDefinition = joinKind({
  kind: 'FleetClusterJoin',
  namespaced: true,
  shortName: 'fcj',
  description:
    'An invitation for one cluster to join the fleet in this namespace: the hub issues a one-time token and a join command.',
  target: {
    field: 'clusterName',
    column: 'Cluster',
    description: 'Name of the Cluster the join creates (a DNS-1123 label).',
  },
  extraSpec: { clusterNetwork: Type.Optional(ClusterNetworkSchema) },
  ref: { clusterRef: Type.Optional(closed({ namespace: Type.String(), name: Type.String() })) },
  validateExtra: (causes, obj) =>
    validateClusterNetwork(causes, spec(obj).clusterNetwork, 'spec.clusterNetwork'),
});
