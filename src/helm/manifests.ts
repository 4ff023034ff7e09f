// helm's manifest sorting (releaseutil.SortManifests, helm 4.1.4): rendered files split into documents,
// each read for its kind and hook annotations, hooks set apart, both sorted into install order.
import { parseYAML } from '../gotemplate/yaml.js';
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import { HelmChartError } from './errors.js';
import { fastHead } from './head.js';
import { scalarAsString } from './metadata.js';
import { jsonKindName } from '../gotemplate/json.js';

/** helm's releaseutil.InstallOrder: manifests of these kinds come out in this order, unknown kinds last. */
export const INSTALL_ORDER: readonly string[] = [
  'PriorityClass',
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
];

const ORDER = new Map(INSTALL_ORDER.map((k, i) => [k, i]));

/** The events `helm.sh/hook` may name (test-success is helm 2's spelling of test). */
const HOOK_EVENTS: ReadonlySet<string> = new Set([
  'pre-install',
  'post-install',
  'pre-delete',
  'post-delete',
  'pre-upgrade',
  'post-upgrade',
  'pre-rollback',
  'post-rollback',
  'test',
  'test-success',
]);

/**
 * helm's releaseutil.SplitManifests: the file trimmed, split on `---` separators; empty pieces dropped
 * before trimming (so a blank-only piece survives as an empty document, as in helm).
 */
export function splitManifests(text: string): string[] {
  return text
    .trim()
    .split(/(?:^|\s*\n)---\s*/)
    .filter((d) => d !== '')
    .map((d) => d.trim());
}

export interface Manifest {
  /** The template the document came from (`chart/templates/x.yaml`). */
  path: string;
  content: string;
  kind: string;
}

export interface Hook extends Manifest {
  events: string[];
  weight: number;
}

/** A document as helm's util.SimpleHead reads it: Go's JSON decoder into typed fields. */
export interface SimpleHead {
  kind: string;
  annotations: Record<string, string> | null;
}

/** The head of a document: the fast reader where it can, else the full parse (which also rejects bad YAML). */
export function readHead(path: string, content: string): SimpleHead {
  return fastHead(content) ?? parseHead(path, content);
}

/** Go's JSON decoding of the whole document into util.SimpleHead, with its error texts. */
export function parseHead(path: string, content: string): SimpleHead {
  const fail = (detail: string): never => {
    throw new HelmChartError(
      `YAML parse error on ${path}: error unmarshaling JSON: while decoding JSON: json: ${detail}`,
    );
  };
  let doc: GoValue;
  try {
    doc = content.trim() === '' ? null : parseYAML(content);
  } catch (e) {
    const message = (e as Error).message;
    const converting = message.startsWith('error converting YAML to JSON')
      ? ''
      : 'error converting YAML to JSON: ';
    throw new HelmChartError(`YAML parse error on ${path}: ${converting}${message}`);
  }
  if (doc === null) return { kind: '', annotations: null };
  if (!isGoMap(doc))
    return fail(`cannot unmarshal ${jsonKindName(doc)} into Go value of type util.SimpleHead`);
  const stringField = (m: GoMap, key: string, field: string): string => {
    const v = m[key];
    if (v === undefined || v === null) return '';
    const s = scalarAsString(v);
    if (s === undefined)
      fail(`cannot unmarshal ${jsonKindName(v)} into Go struct field ${field} of type string`);
    return s as string;
  };
  stringField(doc, 'apiVersion', 'SimpleHead.apiVersion');
  const kind = stringField(doc, 'kind', 'SimpleHead.kind');
  const metadata = doc.metadata;
  if (metadata === undefined || metadata === null) return { kind, annotations: null };
  if (!isGoMap(metadata))
    fail(
      `cannot unmarshal ${jsonKindName(metadata)} into Go struct field SimpleHead.metadata of type struct { Name string "json:\\"name\\""; Annotations map[string]string "json:\\"annotations\\"" }`,
    );
  const md = metadata as GoMap;
  stringField(md, 'name', 'SimpleHead.metadata.name');
  const annotations = md.annotations;
  if (annotations === undefined || annotations === null) return { kind, annotations: null };
  if (!isGoMap(annotations))
    fail(
      `cannot unmarshal ${jsonKindName(annotations)} into Go struct field .metadata.annotations of type map[string]string`,
    );
  const out: Record<string, string> = {};
  for (const key of Object.keys(annotations as GoMap))
    out[key] = stringField(annotations as GoMap, key, '.metadata.annotations');
  return { kind, annotations: out };
}

function lessByKind(a: string, b: string): number {
  const ia = ORDER.get(a);
  const ib = ORDER.get(b);
  if (ia === undefined && ib === undefined) return a < b ? -1 : a > b ? 1 : 0;
  if (ia === undefined) return 1;
  if (ib === undefined) return -1;
  return ia - ib;
}

/** Array.prototype.sort is stable, as helm's sort.SliceStable. */
function sortByKind<T extends Manifest>(items: T[]): T[] {
  return items.sort((a, b) => lessByKind(a.kind, b.kind));
}

/** SortManifests: rendered files (NOTES.txt already removed) → generic manifests and hooks, both in install order. */
export function sortManifests(files: Map<string, string>): { manifests: Manifest[]; hooks: Hook[] } {
  const manifests: Manifest[] = [];
  const hooks: Hook[] = [];
  for (const path of [...files.keys()].sort()) {
    const text = files.get(path)!;
    if ((path.split('/').pop() ?? '').startsWith('_')) continue;
    if (text.trim() === '') continue;
    for (const content of splitManifests(text)) {
      const head = readHead(path, content);
      const hookTypes = head.annotations?.['helm.sh/hook'];
      if (hookTypes === undefined) {
        manifests.push({ path, content, kind: head.kind });
        continue;
      }
      const events = hookTypes.split(',').map((e) => e.trim().toLowerCase());
      // A hook naming any event helm does not know is skipped altogether ("skipping unknown hooks").
      if (!events.every((e) => HOOK_EVENTS.has(e))) continue;
      const weight = head.annotations?.['helm.sh/hook-weight'] ?? '';
      hooks.push({
        path,
        content,
        kind: head.kind,
        events: events.map((e) => (e === 'test-success' ? 'test' : e)),
        weight: /^[+-]?\d+$/.test(weight) ? Number(weight) : 0,
      });
    }
  }
  return { manifests: sortByKind(manifests), hooks: sortByKind(hooks) };
}
