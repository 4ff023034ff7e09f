// Status feedback for a ManifestWork manifest: OCM's WellKnownStatus rules and JSONPaths rules read
// from the live object into typed FeedbackValues (Integer, String, Boolean, JsonRaw).
import { evaluateJsonPath } from '../../apiserver/jsonpath.js';
import type { KubeObject } from '../../store/types.js';
import type { FeedbackRule, FeedbackValue, FieldValue, JsonPath } from './types.js';
import { errorMessage, splitApiVersion } from './objects.js';

/** OCM caps a JsonRaw value at 1024 characters. */
export const MAX_JSON_RAW_LENGTH = 1024;

/**
 * OCM's well-known status list (ocm pkg/work/spoke/statusfeedback/rules): Deployment, Job, Pod and
 * DaemonSet. StatefulSet is not in OCM's list, so it is not here either (use JSONPaths rules).
 */
const WELL_KNOWN: Record<string, JsonPath[]> = {
  'apps/v1/Deployment': [
    { name: 'ReadyReplicas', path: '.status.readyReplicas' },
    { name: 'Replicas', path: '.status.replicas' },
    { name: 'AvailableReplicas', path: '.status.availableReplicas' },
  ],
  'batch/v1/Job': [
    { name: 'JobComplete', path: '.status.conditions[?(@.type=="Complete")].status' },
    { name: 'JobSucceeded', path: '.status.succeeded' },
  ],
  '/v1/Pod': [
    { name: 'PodReady', path: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'PodPhase', path: '.status.phase' },
  ],
  'apps/v1/DaemonSet': [
    { name: 'NumberReady', path: '.status.numberReady' },
    { name: 'DesiredNumberScheduled', path: '.status.desiredNumberScheduled' },
    { name: 'NumberAvailable', path: '.status.numberAvailable' },
  ],
};

/** The well-known paths of a group/version/kind; undefined when OCM defines none for it. */
export function wellKnownPaths(group: string, version: string, kind: string): JsonPath[] | undefined {
  return WELL_KNOWN[`${group}/${version}/${kind}`];
}

/** The typed value one path reads; undefined when the field is missing or null. Throws on a bad path. */
export function readFieldValue(obj: KubeObject, path: string): FieldValue | undefined {
  const found = evaluateJsonPath(path, obj);
  if (found.length === 0) return undefined;
  const value = found.length === 1 ? found[0] : found;
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return { type: 'String', string: value };
  if (typeof value === 'boolean') return { type: 'Boolean', boolean: value };
  if (typeof value === 'number' && Number.isInteger(value)) return { type: 'Integer', integer: value };
  // Objects, lists and non-integer numbers: their JSON text.
  const raw = JSON.stringify(value);
  if (raw.length > MAX_JSON_RAW_LENGTH) {
    throw new Error(`the JSON of ${path} is ${raw.length} characters, more than ${MAX_JSON_RAW_LENGTH}`);
  }
  return { type: 'JsonRaw', jsonRaw: raw };
}

export interface FeedbackResult {
  values: FeedbackValue[];
  /** One message per rule or path that could not be read (StatusFeedbackSynced=False when any). */
  errors: string[];
}

/** Every rule's values, in rule order; missing fields are simply absent. */
export function feedbackValues(obj: KubeObject, rules: readonly FeedbackRule[]): FeedbackResult {
  const values: FeedbackValue[] = [];
  const errors: string[] = [];
  const { group, version } = splitApiVersion(obj.apiVersion);
  const read = (p: JsonPath): void => {
    try {
      const fieldValue = readFieldValue(obj, p.path);
      if (fieldValue) values.push({ name: p.name, fieldValue });
    } catch (err) {
      errors.push(`failed to read ${p.name} (${p.path}): ${errorMessage(err)}`);
    }
  };
  for (const rule of rules) {
    if (rule.type === 'WellKnownStatus') {
      const paths = wellKnownPaths(group, version, obj.kind ?? '');
      if (!paths) {
        errors.push(`no well-known statuses for ${obj.apiVersion ?? ''}, Kind=${obj.kind ?? ''}`);
        continue;
      }
      paths.forEach(read);
    } else if (rule.type === 'JSONPaths') {
      for (const p of rule.jsonPaths ?? []) {
        if (p.version && p.version !== version) {
          errors.push(`version ${p.version} of path ${p.name} does not match the object's ${version}`);
          continue;
        }
        read(p);
      }
    } else {
      errors.push(`unknown feedback rule type ${String(rule.type)}`);
    }
  }
  return { values, errors };
}
