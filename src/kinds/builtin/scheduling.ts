// scheduling.k8s.io/v1 PriorityClass of a simulated cluster: printer and preemption default.
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import { AGE, col, defaultPtr, num, str } from './kube-helpers.js';

export const PriorityClass: KindDefinition = {
  group: 'scheduling.k8s.io',
  version: 'v1',
  kind: 'PriorityClass',
  plural: 'priorityclasses',
  singular: 'priorityclass',
  namespaced: false,
  shortNames: ['pc'],
  schema: protoSchema('scheduling.v1.PriorityClass'),
  printerColumns: [
    col('Value', 'integer', 'value represents the integer value of this priority class.', (o) =>
      num(o.value),
    ),
    col(
      'Global-Default',
      'boolean',
      'globalDefault specifies whether this PriorityClass should be considered as the default priority.',
      (o) => o.globalDefault === true,
    ),
    AGE,
    col(
      'PreemptionPolicy',
      'string',
      'preemptionPolicy is the Policy for preempting pods with lower priority.',
      (o) => str(o.preemptionPolicy),
    ),
  ],
  defaults(obj) {
    defaultPtr(obj, 'preemptionPolicy', 'PreemptLowerPriority');
  },
};

export const schedulingKinds: readonly KindDefinition[] = [PriorityClass];
