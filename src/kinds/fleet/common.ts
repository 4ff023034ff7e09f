// Pieces the fleet kinds share: metav1.Condition, cluster networks, join specs and statuses, and the
// checks and label stamping their admission and validation do.
import { Type, type TSchema } from '@sinclair/typebox';
import type { KubeObject } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { parseCidr } from '../../util/ipv4.js';
import { humanDuration } from '../../apiserver/printers.js';
import { at, isObj, list, str, type Obj } from '../builtin/kube-helpers.js';
import { closed, nameProblem, StringMap, validateObjectMeta } from '../meta.js';
import type { PrinterColumn } from '../types.js';

export const FLEET_CATEGORIES = ['fleet'];

export const Site = Type.Optional(
  Type.String({ description: 'Where it runs (a data centre, a shop); stamped as the fleet.site label.' }),
);

const Time = Type.String({ format: 'date-time' });

/** A string field whose allowed values `checkEnum` enforces (the schema publishes them as `enum`). */
export function enumString(values: readonly string[], description?: string) {
  return Type.String(description ? { enum: [...values], description } : { enum: [...values] });
}

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

/** metav1.Condition. */
export const ConditionSchema = closed({
  type: Type.String({ description: 'Type of condition in CamelCase, e.g. Available.' }),
  status: enumString(CONDITION_STATUSES, 'True, False or Unknown.'),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  lastTransitionTime: Type.Optional(Time),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

export const Conditions = Type.Optional(Type.Array(ConditionSchema));

const CidrBlocks = closed({
  cidrBlocks: Type.Array(Type.String(), { description: 'IPv4 CIDRs such as 10.42.0.0/16.' }),
});

/** The pod and service networks of a cluster (Cluster API's shape). */
export const ClusterNetworkSchema = closed({
  pods: Type.Optional(CidrBlocks),
  services: Type.Optional(CidrBlocks),
});

export const MIN_JOIN_TTL_SECONDS = 60;
export const MAX_JOIN_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_JOIN_TTL_SECONDS = 86400;

export const JoinTtlSeconds = Type.Optional(
  Type.Integer({
    minimum: MIN_JOIN_TTL_SECONDS,
    maximum: MAX_JOIN_TTL_SECONDS,
    description: `How long the join token is valid, ${MIN_JOIN_TTL_SECONDS} s to 30 days; default ${DEFAULT_JOIN_TTL_SECONDS}.`,
  }),
);

export const JOIN_PHASES = ['Pending', 'Ready', 'Used', 'Expired'] as const;

/** The status fields both join kinds carry; each adds its reference to what joined. */
export function joinStatus(ref: Record<string, TSchema>) {
  return {
    phase: Type.Optional(enumString(JOIN_PHASES, 'Pending, Ready (token issued), Used or Expired.')),
    conditions: Conditions,
    command: Type.Optional(Type.String({ description: 'The command that joins, with the token in it.' })),
    tokenSecretName: Type.Optional(Type.String()),
    expirationTime: Type.Optional(Time),
    usedTime: Type.Optional(Time),
    ...ref,
  };
}

export { StringMap };

// ---------------------------------------------------------------------------------------------------
// Checks

export const spec = (o: KubeObject): Obj => (isObj(o.spec) ? o.spec : {});
export const status = (o: KubeObject): Obj => (isObj(o.status) ? o.status : {});

/** FieldValueNotSupported as apimachinery words it, when `value` is set and not one of `allowed`. */
export function checkEnum(
  causes: StatusCause[],
  value: unknown,
  allowed: readonly string[],
  field: string,
): void {
  if (value === undefined || (typeof value === 'string' && allowed.includes(value))) return;
  causes.push({
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((v) => `"${v}"`).join(', ')}`,
    field,
  });
}

export function required(causes: StatusCause[], field: string, detail?: string): void {
  causes.push({
    reason: 'FieldValueRequired',
    message: detail ? `Required value: ${detail}` : 'Required value',
    field,
  });
}

/** Conditions: a status kube recognises, and each type at most once. */
export function validateConditions(causes: StatusCause[], conditions: unknown, field: string): void {
  const seen = new Set<string>();
  list(conditions).forEach((c, i) => {
    checkEnum(causes, c.status, CONDITION_STATUSES, `${field}[${i}].status`);
    const type = str(c.type);
    if (!type) required(causes, `${field}[${i}].type`);
    else if (seen.has(type))
      causes.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${JSON.stringify(type)}`,
        field: `${field}[${i}].type`,
      });
    seen.add(type);
  });
}

/** A DNS-1123 label (≤ 63 characters): names that end up in certificate CNs and Lease names. */
export function validateDns1123Label(causes: StatusCause[], value: unknown, field: string): void {
  if (typeof value !== 'string' || value === '') {
    required(causes, field);
    return;
  }
  const problem = nameProblem(value, 'dns1123-label');
  if (problem)
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: "${value}": ${problem}`, field });
}

/** Label keys and values under metadata.labels' rules, reported at `field`. */
export function validateLabels(causes: StatusCause[], labels: unknown, field: string): void {
  if (!isObj(labels)) return;
  const probe: KubeObject = { metadata: { name: 'x', labels: labels as Record<string, string> } };
  for (const cause of validateObjectMeta(probe, 'path-segment', true))
    if (cause.field === 'metadata.labels') causes.push({ ...cause, field });
}

/** Why `value` cannot be a label value (the apimachinery message), or undefined. */
export function labelValueProblem(value: string): string | undefined {
  const probe: KubeObject = { metadata: { name: 'x', labels: { k: value } } };
  return validateObjectMeta(probe, 'path-segment', true)[0]?.message.replace(/^Invalid value: "[^"]*": /, '');
}

/** spec.site becomes the fleet.site label, so it must be a valid label value. */
export function validateSite(causes: StatusCause[], obj: KubeObject): void {
  const site = spec(obj).site;
  if (typeof site !== 'string' || site === '') return;
  const problem = labelValueProblem(site);
  if (problem)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${site}": ${problem}`,
      field: 'spec.site',
    });
}

/** Every entry of a cluster network's cidrBlocks is an IPv4 CIDR. */
export function validateClusterNetwork(causes: StatusCause[], network: unknown, field: string): void {
  for (const part of ['pods', 'services'] as const) {
    const blocks = at(network, part, 'cidrBlocks');
    if (!Array.isArray(blocks)) continue;
    blocks.forEach((block: unknown, i) => {
      const where = `${field}.${part}.cidrBlocks[${i}]`;
      const text = String(block);
      try {
        if (text !== text.trim()) throw new Error('may not contain spaces');
        parseCidr(text);
      } catch (e) {
        // ipv4.ts says `"10.0.0/8" is not an IPv4 CIDR such as 10.42.0.0/16`: keep what follows the value.
        const why = (e as Error).message.replace(/^"[^"]*" /, '');
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(text)}: ${why}`,
          field: where,
        });
      }
    });
  }
}

/** Go's reflect.DeepEqual on decoded JSON: key order does not matter. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameJson(v, b[i]));
  }
  if (isObj(a) && isObj(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    if (keys.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false;
    return keys.every((k) => sameJson(a[k], b[k]));
  }
  return false;
}

/** A join's spec cannot change: a different cluster or token lifetime is a different join. */
export function validateImmutableSpec(
  causes: StatusCause[],
  obj: KubeObject,
  old: KubeObject | undefined,
): void {
  if (old && !sameJson(obj.spec, old.spec))
    causes.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: spec is immutable after creation; delete the join and create a new one',
      field: 'spec',
    });
}

// ---------------------------------------------------------------------------------------------------
// Admission

/**
 * Sets (or, for undefined, removes) labels whatever the client sent. A `metadata.labels` of the wrong
 * type is left for validation to report.
 */
export function stampLabels(obj: KubeObject, labels: Record<string, string | undefined>): void {
  const meta = obj.metadata as unknown;
  if (!isObj(meta)) return;
  const current = meta.labels;
  if (current !== undefined && current !== null && !isObj(current)) return;
  const next: Obj = isObj(current) ? current : {};
  for (const [key, value] of Object.entries(labels)) {
    if (value === undefined) Reflect.deleteProperty(next, key);
    else next[key] = value;
  }
  if (Object.keys(next).length > 0) meta.labels = next;
  else delete meta.labels;
}

/** spec.site when it can be the fleet.site label (validation reports an invalid one at spec.site). */
export function siteOf(obj: KubeObject): string | undefined {
  const site = spec(obj).site;
  return typeof site === 'string' && site !== '' && !labelValueProblem(site) ? site : undefined;
}

/** Join defaults (at create, and on update where kube would default the decoded body too). */
export function defaultJoinTtl(obj: KubeObject): void {
  if (isObj(obj.spec) && (obj.spec.ttlSeconds === undefined || obj.spec.ttlSeconds === null))
    obj.spec.ttlSeconds = DEFAULT_JOIN_TTL_SECONDS;
}

// ---------------------------------------------------------------------------------------------------
// Printer columns

export const conditionColumn = (name: string, type: string, description: string): PrinterColumn => ({
  name,
  type: 'string',
  jsonPath: `.status.conditions[?(@.type=="${type}")].status`,
  description,
});

/** Time left until `.status.expirationTime` (`23h`), `Expired` once past, empty when unset. */
export const EXPIRES_COLUMN: PrinterColumn = {
  name: 'Expires',
  type: 'string',
  jsonPath: '.status.expirationTime',
  description: 'Time left until the join token expires.',
  value: (o) => {
    const t = Date.parse(str(status(o).expirationTime));
    if (Number.isNaN(t)) return undefined;
    const left = t - Date.now();
    return left > 0 ? humanDuration(left) : 'Expired';
  },
};
