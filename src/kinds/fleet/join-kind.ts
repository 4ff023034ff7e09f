// The shape both join kinds share (FleetClusterJoin, FleetHostJoin): an immutable invitation naming
// what joins, a TTL, status with phase and the one-time token's whereabouts, and the same printer columns.
import { Type, type TSchema } from '@sinclair/typebox';
import { FLEET_API_VERSION, FLEET_GROUP, FLEET_VERSION } from '../../fleet/names.js';
import type { KubeObject } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { AGE } from '../builtin/kube-helpers.js';
import { closed, kindSchema } from '../meta.js';
import type { KindDefinition } from '../types.js';
import {
  EXPIRES_COLUMN,
  FLEET_CATEGORIES,
  JoinTtlSeconds,
  Site,
  StringMap,
  defaultJoinTtl,
  joinStatus,
  spec,
  status,
  validateConditions,
  validateDns1123Label,
  validateImmutableSpec,
  validateLabels,
  validateSite,
} from './common.js';

export interface JoinKindOptions {
  kind: 'FleetClusterJoin' | 'FleetHostJoin';
  namespaced: boolean;
  shortName: string;
  description: string;
  /** The spec field naming what joins (`clusterName`), its column header and description. */
  target: { field: string; column: string; description: string };
  /** Spec fields beyond the target, site, labels and ttlSeconds. */
  extraSpec?: Record<string, TSchema>;
  /** The status field pointing at what was created (`clusterRef`). */
  ref: Record<string, TSchema>;
  /** Checks of the extra spec fields. */
  validateExtra?(causes: StatusCause[], obj: KubeObject): void;
}

export function joinKind(o: JoinKindOptions): KindDefinition {
  const plural = `${o.kind.toLowerCase()}s`;
  return {
    group: FLEET_GROUP,
    version: FLEET_VERSION,
    kind: o.kind,
    plural,
    singular: o.kind.toLowerCase(),
    namespaced: o.namespaced,
    shortNames: [o.shortName],
    categories: FLEET_CATEGORIES,
    subresources: { status: true },
    description: o.description,
    schema: kindSchema(o.kind, FLEET_API_VERSION, {
      spec: closed({
        [o.target.field]: Type.String({ description: o.target.description }),
        site: Site,
        labels: Type.Optional(StringMap),
        ...(o.extraSpec ?? {}),
        ttlSeconds: JoinTtlSeconds,
      }),
      status: Type.Optional(closed(joinStatus(o.ref))),
    }),
    printerColumns: [
      {
        name: o.target.column,
        type: 'string',
        jsonPath: `.spec.${o.target.field}`,
        description: `The joining ${o.target.column.toLowerCase()}.`,
      },
      {
        name: 'Status',
        type: 'string',
        jsonPath: '.status.phase',
        description: 'Pending, Ready, Used or Expired.',
      },
      EXPIRES_COLUMN,
      AGE,
    ],
    defaults(obj) {
      defaultJoinTtl(obj);
      obj.status = { phase: 'Pending' };
    },
    admit(obj, { operation }) {
      // A PUT of the manifest as first applied must not read as a spec change of ttlSeconds.
      if (operation === 'update') defaultJoinTtl(obj);
    },
    validate(obj, old) {
      const causes: StatusCause[] = [];
      const sp = spec(obj);
      validateDns1123Label(causes, sp[o.target.field], `spec.${o.target.field}`);
      validateSite(causes, obj);
      validateLabels(causes, sp['labels'], 'spec.labels');
      o.validateExtra?.(causes, obj);
      validateImmutableSpec(causes, obj, old);
      validateConditions(causes, status(obj)['conditions'], 'status.conditions');
      return causes;
    },
  };
}
