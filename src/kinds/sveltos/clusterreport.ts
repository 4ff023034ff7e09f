// ClusterReport: what a DryRun profile would change in one cluster, per release and per object
// (addon-controller api/v1beta1 clusterreport_types.go). Named <profile>--capi--<cluster> (p-- for Profiles).
import { Type } from '@sinclair/typebox';
import type { StatusCause } from '../../util/errors.js';
import { closed, kindSchema } from '../meta.js';
import type { KindDefinition } from '../types.js';
import { enumString, status } from '../fleet/common.js';
import { applySchemaDefaults, checkSchemaEnums } from './schema-walk.js';
import { Time } from './spec.js';
import { SVELTOS_API_VERSION, SVELTOS_CATEGORIES, SVELTOS_GROUP, SVELTOS_VERSION } from './names.js';

export const RELEASE_REPORT_ACTIONS = [
  'No Action',
  'Install',
  'Upgrade',
  'Delete',
  'Conflict',
  'Update Values',
] as const;
export const RESOURCE_REPORT_ACTIONS = [
  'No Action',
  'Create',
  'Update',
  'Delete',
  'Conflict',
  'Error',
] as const;

const ResourceReport = closed({
  resource: closed({
    name: Type.String({ minLength: 1 }),
    namespace: Type.Optional(Type.String()),
    group: Type.String(),
    kind: Type.String({ minLength: 1 }),
    version: Type.String({ minLength: 1 }),
    lastAppliedTime: Type.Optional(Time),
    ignoreForConfigurationDrift: Type.Optional(Type.Boolean({ default: false })),
  }),
  action: Type.Optional(enumString(RESOURCE_REPORT_ACTIONS)),
  message: Type.Optional(Type.String()),
});

const ClusterReportStatus = closed({
  releaseReports: Type.Optional(
    Type.Array(
      closed({
        chartName: Type.String({ minLength: 1, description: 'The release name.' }),
        releaseNamespace: Type.String({ minLength: 1 }),
        chartVersion: Type.String(),
        action: Type.Optional(enumString(RELEASE_REPORT_ACTIONS)),
        message: Type.Optional(Type.String()),
      }),
    ),
  ),
  resourceReports: Type.Optional(Type.Array(ResourceReport)),
  kustomizeResourceReports: Type.Optional(Type.Array(ResourceReport)),
  helmResourceReports: Type.Optional(Type.Array(ResourceReport)),
});

const clusterReportSchema = kindSchema('ClusterReport', SVELTOS_API_VERSION, {
  spec: Type.Optional(closed({ clusterNamespace: Type.String(), clusterName: Type.String() })),
  status: Type.Optional(ClusterReportStatus),
});

export const ClusterReport: KindDefinition = {
  group: SVELTOS_GROUP,
  version: SVELTOS_VERSION,
  kind: 'ClusterReport',
  plural: 'clusterreports',
  singular: 'clusterreport',
  namespaced: true,
  categories: SVELTOS_CATEGORIES,
  subresources: { status: true },
  description:
    'What a DryRun profile would change in one cluster (Sveltos’s ClusterReport); nothing is applied.',
  schema: clusterReportSchema,
  // Sveltos declares no columns; the cluster is what one scans a list of reports for.
  printerColumns: [
    {
      name: 'Cluster',
      type: 'string',
      jsonPath: '.spec.clusterName',
      description: 'The cluster reported on.',
    },
    {
      name: 'Resources',
      type: 'integer',
      jsonPath: '.status.resourceReports',
      description: 'How many objects the report lists, over all features.',
      value: (o) => {
        const st = status(o);
        return ['resourceReports', 'kustomizeResourceReports', 'helmResourceReports'].reduce(
          (n, key) => n + (Array.isArray(st[key]) ? st[key].length : 0),
          0,
        );
      },
    },
    {
      name: 'Releases',
      type: 'integer',
      jsonPath: '.status.releaseReports',
      description: 'How many Helm releases the report lists.',
      value: (o) => {
        const reports = status(o).releaseReports;
        return Array.isArray(reports) ? reports.length : 0;
      },
    },
    {
      name: 'Age',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
      description: 'Time duration since creation of ClusterReport',
    },
  ],
  defaults: (obj) => applySchemaDefaults(clusterReportSchema, obj),
  admit(obj, { operation }) {
    if (operation === 'update') applySchemaDefaults(clusterReportSchema, obj);
  },
  validate(obj) {
    const causes: StatusCause[] = [];
    checkSchemaEnums(causes, ClusterReportStatus, status(obj), 'status');
    return causes;
  },
};
