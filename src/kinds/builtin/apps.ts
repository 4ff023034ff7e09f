// apps/v1 kinds of a simulated cluster: Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision,
// with kube's defaults (pkg/apis/apps/v1/defaults.go), printers and the selector checks helm users hit.
import type { KubeObject } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import { SCALE_SUBRESOURCE } from './core-workloads.js';
import {
  AGE,
  at,
  child,
  col,
  containerColumns,
  defaultPodTemplate,
  defaultPtr,
  defaultTo,
  formatLabels,
  formatSelector,
  isObj,
  list,
  num,
  selectorString,
  spec,
  status,
  str,
  type Obj,
} from './kube-helpers.js';

const GROUP = 'apps';

/** Whether a metav1.LabelSelector matches a label set (empty selector matches everything). */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  if (!isObj(selector)) return false;
  const matchLabels = selector.matchLabels;
  if (isObj(matchLabels)) for (const [k, v] of Object.entries(matchLabels)) if (labels[k] !== v) return false;
  for (const e of list(selector.matchExpressions)) {
    const key = str(e.key);
    const values = Array.isArray(e.values) ? e.values.map(String) : [];
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(labels[key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function goStringMap(labels: Record<string, string>): string {
  const entries = Object.keys(labels)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(labels[k])}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/**
 * apps/v1 (and batch) rules every workload shares: a selector is required, must select the template's
 * labels, and cannot change afterwards. `templatePath` leads to the pod template.
 */
export function validateWorkloadSelector(
  obj: KubeObject,
  old: KubeObject | undefined,
  templatePath = 'spec.template',
  requireSelector = true,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const sp = spec(obj);
  const selector = sp.selector;
  const template = at(obj, ...templatePath.split('.'));
  const labels = (at(template, 'metadata', 'labels') ?? {}) as Record<string, string>;
  if (!isObj(selector)) {
    if (requireSelector)
      causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  } else if (!isObj(selector.matchLabels) && list(selector.matchExpressions).length === 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "null": empty selector is invalid for deployment',
      field: 'spec.selector',
    });
  } else if (!selectorMatches(selector, labels)) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goStringMap(labels)}: \`selector\` does not match template \`labels\``,
      field: `${templatePath}.metadata.labels`,
    });
  }
  if (old && JSON.stringify(spec(old).selector) !== JSON.stringify(selector))
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(selector ?? null)}: field is immutable`,
      field: 'spec.selector',
    });
  return causes;
}

const ready = (readyReplicas: unknown, desired: unknown) => `${num(readyReplicas)}/${num(desired)}`;
const templateSpec = (o: KubeObject) => at(o, 'spec', 'template', 'spec');
const selectorColumn = (format: (s: unknown) => string) =>
  col('Selector', 'string', 'Label selector for pods.', (o) => format(spec(o).selector), 1);

export const Deployment: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  schema: protoSchema('apps.v1.Deployment'),
  subresources: { status: true },
  extraSubresources: [SCALE_SUBRESOURCE],
  printerColumns: [
    col('Ready', 'string', 'Number of the pod with ready state', (o) =>
      ready(status(o).readyReplicas, spec(o).replicas),
    ),
    col(
      'Up-to-date',
      'integer',
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      (o) => num(status(o).updatedReplicas),
    ),
    col(
      'Available',
      'integer',
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      (o) => num(status(o).availableReplicas),
    ),
    AGE,
    ...containerColumns(templateSpec),
    selectorColumn(selectorString),
  ],
  defaults(obj) {
    const sp = child(obj, 'spec');
    defaultPtr(sp, 'replicas', 1);
    const strategy = child(sp, 'strategy');
    defaultTo(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const rolling = child(strategy, 'rollingUpdate');
      defaultPtr(rolling, 'maxUnavailable', '25%');
      defaultPtr(rolling, 'maxSurge', '25%');
    }
    defaultPtr(sp, 'revisionHistoryLimit', 10);
    defaultPtr(sp, 'progressDeadlineSeconds', 600);
    defaultPodTemplate(sp.template);
    obj.status = {};
  },
  validate: (obj, old) => validateWorkloadSelector(obj, old),
};

export const ReplicaSet: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'ReplicaSet',
  plural: 'replicasets',
  singular: 'replicaset',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  schema: protoSchema('apps.v1.ReplicaSet'),
  subresources: { status: true },
  extraSubresources: [SCALE_SUBRESOURCE],
  printerColumns: [
    col('Desired', 'integer', 'Replicas is the number of desired replicas.', (o) => num(spec(o).replicas)),
    col('Current', 'integer', 'Replicas is the most recently observed number of replicas.', (o) =>
      num(status(o).replicas),
    ),
    col(
      'Ready',
      'integer',
      'readyReplicas is the number of pods targeted by this ReplicaSet with a Ready Condition.',
      (o) => num(status(o).readyReplicas),
    ),
    AGE,
    ...containerColumns(templateSpec),
    selectorColumn(selectorString),
  ],
  selectableFields: { 'status.replicas': (o) => String(num(status(o).replicas)) },
  defaults(obj) {
    const sp = child(obj, 'spec');
    defaultPtr(sp, 'replicas', 1);
    defaultPodTemplate(sp.template);
    obj.status = { replicas: 0 };
  },
  validate: (obj, old) => validateWorkloadSelector(obj, old),
};

function defaultClaimTemplate(claim: Obj): void {
  defaultPtr(child(claim, 'spec'), 'volumeMode', 'Filesystem');
  const st = child(claim, 'status');
  defaultTo(st, 'phase', 'Pending');
}

export const StatefulSet: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'StatefulSet',
  plural: 'statefulsets',
  singular: 'statefulset',
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  schema: protoSchema('apps.v1.StatefulSet'),
  subresources: { status: true },
  extraSubresources: [SCALE_SUBRESOURCE],
  printerColumns: [
    col('Ready', 'string', 'Number of the pod with ready state', (o) =>
      ready(status(o).readyReplicas, spec(o).replicas),
    ),
    AGE,
    ...containerColumns(templateSpec),
  ],
  defaults(obj) {
    const sp = child(obj, 'spec');
    defaultTo(sp, 'podManagementPolicy', 'OrderedReady');
    const strategy = child(sp, 'updateStrategy');
    defaultTo(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') defaultPtr(child(strategy, 'rollingUpdate'), 'partition', 0);
    const retention = child(sp, 'persistentVolumeClaimRetentionPolicy');
    defaultTo(retention, 'whenDeleted', 'Retain');
    defaultTo(retention, 'whenScaled', 'Retain');
    defaultPtr(sp, 'replicas', 1);
    defaultPtr(sp, 'revisionHistoryLimit', 10);
    for (const claim of list(sp.volumeClaimTemplates)) defaultClaimTemplate(claim);
    defaultPodTemplate(sp.template);
    obj.status = { replicas: 0, availableReplicas: 0 };
  },
  validate: (obj, old) => validateWorkloadSelector(obj, old),
};

export const DaemonSet: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  singular: 'daemonset',
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  schema: protoSchema('apps.v1.DaemonSet'),
  subresources: { status: true },
  printerColumns: [
    col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.', (o) =>
      num(status(o).desiredNumberScheduled),
    ),
    col(
      'Current',
      'integer',
      'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
      (o) => num(status(o).currentNumberScheduled),
    ),
    col(
      'Ready',
      'integer',
      'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
      (o) => num(status(o).numberReady),
    ),
    col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod', (o) =>
      num(status(o).updatedNumberScheduled),
    ),
    col(
      'Available',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
      (o) => num(status(o).numberAvailable),
    ),
    col(
      'Node Selector',
      'string',
      'NodeSelector is a selector which must be true for the pod to fit on a node.',
      (o) => formatLabels(at(o, 'spec', 'template', 'spec', 'nodeSelector')),
    ),
    AGE,
    ...containerColumns(templateSpec),
    selectorColumn(formatSelector),
  ],
  defaults(obj) {
    const sp = child(obj, 'spec');
    const strategy = child(sp, 'updateStrategy');
    defaultTo(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const rolling = child(strategy, 'rollingUpdate');
      defaultPtr(rolling, 'maxUnavailable', 1);
      defaultPtr(rolling, 'maxSurge', 0);
    }
    defaultPtr(sp, 'revisionHistoryLimit', 10);
    defaultPodTemplate(sp.template);
    obj.status = {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    };
  },
  validate: (obj, old) => validateWorkloadSelector(obj, old),
};

export const ControllerRevision: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'ControllerRevision',
  plural: 'controllerrevisions',
  singular: 'controllerrevision',
  namespaced: true,
  schema: protoSchema('apps.v1.ControllerRevision'),
  printerColumns: [
    col('Controller', 'string', 'Controller of the object', (o) => {
      const owner = (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
      if (!owner) return '<none>';
      const slash = owner.apiVersion.indexOf('/');
      const group = slash < 0 ? '' : owner.apiVersion.slice(0, slash);
      return `${owner.kind.toLowerCase()}${group ? `.${group}` : ''}/${owner.name}`;
    }),
    col('Revision', 'integer', 'Revision indicates the revision of the state represented by Data.', (o) =>
      num(o.revision),
    ),
    AGE,
  ],
};

export const appsKinds: readonly KindDefinition[] = [
  Deployment,
  ReplicaSet,
  StatefulSet,
  DaemonSet,
  ControllerRevision,
];
