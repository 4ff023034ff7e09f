// autoscaling/v2 HorizontalPodAutoscaler of a simulated cluster: kube's defaults (min 1 replica, 80 % CPU
// when no metric is given, behavior rules filled in when a behavior is given) and its TARGETS printer.
import type { KubeObject } from '../../store/types.js';
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import {
  AGE,
  at,
  child,
  col,
  defaultPtr,
  isObj,
  list,
  num,
  quantity,
  spec,
  status,
  str,
  type Obj,
} from './kube-helpers.js';

function percent(v: unknown): string | undefined {
  return typeof v === 'number' ? `${v}%` : undefined;
}

/** kube's formatHPAMetrics: `cpu: 40%/80%`, the first two metrics then `+ N more...`. */
export function hpaTargets(o: KubeObject): string {
  const metrics = list(spec(o).metrics);
  if (metrics.length === 0) return '<none>';
  const current = list(status(o).currentMetrics);
  const cells = metrics.map((m, i) => {
    const cur = current[i];
    switch (m.type) {
      case 'Resource':
      case 'ContainerResource': {
        const key = m.type === 'Resource' ? 'resource' : 'containerResource';
        const name = str(at(m, key, 'name'));
        const target = at(m, key, 'target');
        if (isObj(target) && target.averageValue !== undefined) {
          const now = quantity(at(cur, key, 'current', 'averageValue')) || '<unknown>';
          return `${name}: ${now}/${quantity(target.averageValue)}`;
        }
        const now = percent(at(cur, key, 'current', 'averageUtilization')) ?? '<unknown>';
        return `${name}: ${now}/${percent(at(target, 'averageUtilization')) ?? '<auto>'}`;
      }
      case 'Pods':
        return `${quantity(at(cur, 'pods', 'current', 'averageValue')) || '<unknown>'}/${quantity(at(m, 'pods', 'target', 'averageValue'))}`;
      case 'Object':
      case 'External': {
        const key = m.type === 'Object' ? 'object' : 'external';
        const target = at(m, key, 'target');
        if (isObj(target) && target.averageValue !== undefined)
          return `${quantity(at(cur, key, 'current', 'averageValue')) || '<unknown>'}/${quantity(target.averageValue)} (avg)`;
        return `${quantity(at(cur, key, 'current', 'value')) || '<unknown>'}/${quantity(at(target, 'value'))}`;
      }
      default:
        return '<unknown type>';
    }
  });
  const max = 2;
  if (cells.length <= max) return cells.join(', ');
  return `${cells.slice(0, max).join(', ')} + ${cells.length - max} more...`;
}

function scalingRules(rules: Obj, up: boolean): void {
  defaultPtr(rules, 'selectPolicy', 'Max');
  if (up) defaultPtr(rules, 'stabilizationWindowSeconds', 0);
  if (!Array.isArray(rules.policies) || rules.policies.length === 0)
    rules.policies = up
      ? [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ]
      : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
}

export const HorizontalPodAutoscaler: KindDefinition = {
  group: 'autoscaling',
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  schema: protoSchema('autoscaling.v2.HorizontalPodAutoscaler'),
  subresources: { status: true },
  printerColumns: [
    col(
      'Reference',
      'string',
      'The target reference of the autoscaler.',
      (o) =>
        `${str(at(o, 'spec', 'scaleTargetRef', 'kind'))}/${str(at(o, 'spec', 'scaleTargetRef', 'name'))}`,
    ),
    col('Targets', 'string', 'The target load and the current load.', hpaTargets),
    col('MinPods', 'string', 'Minimum number of pods the autoscaler may scale down to.', (o) =>
      typeof spec(o).minReplicas === 'number' ? String(spec(o).minReplicas) : '<unset>',
    ),
    col('MaxPods', 'integer', 'Maximum number of pods the autoscaler may scale up to.', (o) =>
      num(spec(o).maxReplicas),
    ),
    col('Replicas', 'integer', 'Current number of replicas of pods managed by this autoscaler.', (o) =>
      num(status(o).currentReplicas),
    ),
    AGE,
  ],
  defaults(obj) {
    const sp = child(obj, 'spec');
    defaultPtr(sp, 'minReplicas', 1);
    if (!Array.isArray(sp.metrics) || sp.metrics.length === 0)
      sp.metrics = [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
        },
      ];
    if (isObj(sp.behavior)) {
      scalingRules(child(sp.behavior, 'scaleUp'), true);
      scalingRules(child(sp.behavior, 'scaleDown'), false);
    }
    obj.status = { desiredReplicas: 0 };
  },
};

export const autoscalingKinds: readonly KindDefinition[] = [HorizontalPodAutoscaler];
