// policy/v1 PodDisruptionBudget of a simulated cluster: printer, and the zero status kube serialises
// (its counters are not omitempty), which the disruption controller then fills.
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import { AGE, col, isObj, num, spec, status } from './kube-helpers.js';

const intOrPercent = (v: unknown): string =>
  typeof v === 'number' ? String(v) : typeof v === 'string' ? v : 'N/A';

export const PodDisruptionBudget: KindDefinition = {
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  singular: 'poddisruptionbudget',
  namespaced: true,
  shortNames: ['pdb'],
  schema: protoSchema('policy.v1.PodDisruptionBudget'),
  subresources: { status: true },
  printerColumns: [
    col('Min Available', 'string', 'The minimum number of pods that must be available.', (o) =>
      intOrPercent(spec(o).minAvailable),
    ),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.', (o) =>
      intOrPercent(spec(o).maxUnavailable),
    ),
    col(
      'Allowed Disruptions',
      'integer',
      'Calculated number of pods that may be disrupted at this time.',
      (o) => num(status(o).disruptionsAllowed),
    ),
    AGE,
  ],
  defaults(obj) {
    if (!isObj(obj.spec)) obj.spec = {};
    obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  },
};

export const policyKinds: readonly KindDefinition[] = [PodDisruptionBudget];
