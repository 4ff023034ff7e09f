// Loading a chart directory and rendering it whole the way `helm template` does: one template set for
// all of templates/, helm's built-in objects, and helm's manifest splitting, kind ordering and framing.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { TemplateSet } from '../gotemplate/template.js';
import { parseYAML } from '../gotemplate/yaml.js';
import { isGoMap, type GoFunc, type GoMap, type GoValue } from '../gotemplate/value.js';
import { tagMap } from '../gotemplate/sprig/cast.js';
import { helmFunctions } from './functions.js';
import { readValues } from './render-template.js';
import { mergeValues } from './values.js';

/** A chart read from disk: Chart.yaml, values.yaml, templates/ and every other file (for .Files). */
export interface Chart {
  /** Chart.yaml as parsed (keys as written: name, version, appVersion …). */
  metadata: GoMap;
  /** values.yaml as helm reads it. */
  values: GoMap;
  /** templates/ files keyed by their path relative to the chart root (`templates/_helpers.tpl`). */
  templates: Map<string, string>;
  /** Every other file keyed by its path relative to the chart root, as raw bytes. */
  files: Map<string, Buffer>;
}

export interface RenderChartOptions {
  releaseName: string;
  namespace: string;
  /** User values (-f / --set), merged over the chart's values.yaml. */
  values?: GoMap;
  /** Defaults to v1.35.0, what helm 4.1.4 reports without a cluster. */
  kubeVersion?: string;
  /** Extra group/versions (or group/version/kind) for .Capabilities.APIVersions.Has (`--api-versions`). */
  apiVersions?: string[];
}

/** The helm release whose `helm template` output renderChart reproduces. */
export const HELM_VERSION = 'v4.1.4';

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

/** The events `helm.sh/hook` may name (test-success is the old spelling of test). */
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

/** Built-in group/versions a cluster-less helm reports in .Capabilities.APIVersions (the common ones). */
const DEFAULT_API_VERSIONS: readonly string[] = [
  'v1',
  'admissionregistration.k8s.io/v1',
  'apiextensions.k8s.io/v1',
  'apiregistration.k8s.io/v1',
  'apps/v1',
  'authentication.k8s.io/v1',
  'authorization.k8s.io/v1',
  'autoscaling/v1',
  'autoscaling/v2',
  'batch/v1',
  'certificates.k8s.io/v1',
  'coordination.k8s.io/v1',
  'discovery.k8s.io/v1',
  'events.k8s.io/v1',
  'flowcontrol.apiserver.k8s.io/v1',
  'networking.k8s.io/v1',
  'node.k8s.io/v1',
  'policy/v1',
  'rbac.authorization.k8s.io/v1',
  'resource.k8s.io/v1',
  'scheduling.k8s.io/v1',
  'storage.k8s.io/v1',
];

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
}

export function loadChartDir(dir: string): Chart {
  const chartYaml = parseYAML(readFileSync(join(dir, 'Chart.yaml'), 'utf8'));
  if (!isGoMap(chartYaml)) throw new Error(`${dir}/Chart.yaml: not a mapping`);
  const valuesPath = join(dir, 'values.yaml');
  let values: GoMap = {};
  try {
    values = readValues(readFileSync(valuesPath, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const templates = new Map<string, string>();
  const files = new Map<string, Buffer>();
  const all: string[] = [];
  walk(dir, all);
  for (const path of all) {
    const rel = relative(dir, path).split(sep).join('/');
    if (rel === 'Chart.yaml' || rel === 'values.yaml') continue;
    if (rel.startsWith('templates/')) templates.set(rel, readFileSync(path, 'utf8'));
    else files.set(rel, readFileSync(path));
  }
  return { metadata: chartYaml, values, templates, files };
}

function str(v: GoValue | undefined): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

/** .Chart: helm 4 gives templates chart.Metadata as a map with Go's capitalised field names. */
function chartObject(meta: GoMap): GoMap {
  const list = (v: GoValue | undefined): GoValue => (Array.isArray(v) ? v : []);
  return {
    APIVersion: str(meta.apiVersion),
    Annotations: isGoMap(meta.annotations) ? meta.annotations : null,
    AppVersion: str(meta.appVersion),
    Condition: str(meta.condition),
    Dependencies: list(meta.dependencies),
    Deprecated: meta.deprecated === true,
    Description: str(meta.description),
    Home: str(meta.home),
    Icon: str(meta.icon),
    IsRoot: true,
    Keywords: list(meta.keywords),
    KubeVersion: str(meta.kubeVersion),
    Maintainers: list(meta.maintainers),
    Name: str(meta.name),
    Sources: list(meta.sources),
    Tags: str(meta.tags),
    Type: str(meta.type),
    Version: str(meta.version),
  };
}

/** A Go struct value: fields reachable from templates, printed as fmt's %v prints a struct. */
function goStruct(goType: string, fields: GoMap, methods: Record<string, GoFunc> = {}): GoValue {
  return {
    goType,
    format: () => `{${Object.values(fields).map(str).join(' ')}}`,
    getMethod: (name: string): GoFunc | undefined => methods[name],
    getField: (name: string): GoValue | undefined => fields[name],
  } as GoValue;
}

/** .Files: the chart's non-template files (Get, GetBytes, Lines; globbing comes later). */
function filesObject(files: Map<string, Buffer>): GoValue {
  const text = (name: GoValue): string => files.get(str(name))?.toString('utf8') ?? '';
  return {
    goType: 'engine.files',
    format: () => `map[${[...files.keys()].sort().join(' ')}]`,
    getMethod(name: string): GoFunc | undefined {
      switch (name) {
        case 'Get':
          return (n: GoValue) => text(n);
        case 'GetBytes':
          return (n: GoValue) => [...(files.get(str(n)) ?? Buffer.alloc(0))].map((b) => BigInt(b));
        case 'Lines':
          // helm drops one trailing newline before splitting.
          return (n: GoValue) => (files.has(str(n)) ? text(n).replace(/\n$/, '').split('\n') : []);
        default:
          return undefined;
      }
    },
  } as GoValue;
}

/** .Capabilities.APIVersions: a Go chartutil.VersionSet, reachable through its Has method. */
function versionSet(versions: readonly string[]): GoValue {
  const set = new Set(versions);
  return {
    goType: 'common.VersionSet',
    format: () => `[${[...set].join(' ')}]`,
    getMethod(name: string): GoFunc | undefined {
      if (name === 'Has') return (v: GoValue) => set.has(str(v));
      return undefined;
    },
  } as GoValue;
}

// helm's engine parses deeper paths first and, within a depth, in reverse lexical order.
function parseOrder(names: string[]): string[] {
  const depth = (s: string): number => s.split('/').length - 1;
  return [...names].sort((a, b) => {
    const d = depth(b) - depth(a);
    if (d !== 0) return d;
    return a < b ? 1 : a > b ? -1 : 0;
  });
}

/** helm's releaseutil.SplitManifests: documents split on `---`, trimmed, empty ones dropped. */
export function splitManifests(text: string): string[] {
  return text
    .trim()
    .split(/(?:^|\s*\n)---\s*/)
    .filter((d) => d !== '')
    .map((d) => d.trim());
}

interface Manifest {
  path: string;
  content: string;
  kind: string;
}

function sortByKind(manifests: Manifest[]): Manifest[] {
  const order = new Map(INSTALL_ORDER.map((k, i) => [k, i]));
  // Array.prototype.sort is stable, as helm's sort.SliceStable.
  return [...manifests].sort((a, b) => {
    const ia = order.get(a.kind);
    const ib = order.get(b.kind);
    if (ia === undefined && ib === undefined) return a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0;
    if (ia === undefined) return 1;
    if (ib === undefined) return -1;
    return ia - ib;
  });
}

/** Renders every template of the chart; the keys are helm's template names (`<chart>/templates/…`). */
export function renderTemplates(chart: Chart, options: RenderChartOptions): Map<string, string> {
  const chartName = str(chart.metadata.name);
  const kubeVersion = options.kubeVersion ?? 'v1.35.0';
  const [major = '1', minor = '35'] = kubeVersion.replace(/^v/, '').split('.');
  const values = mergeValues(mergeValues({}, chart.values), options.values ?? {});
  const set = new TemplateSet({ funcs: helmFunctions(), missingKey: 'zero' });
  const names = [...chart.templates.keys()].map((rel) => `${chartName}/${rel}`);
  for (const name of parseOrder(names)) {
    set.parse(name, chart.templates.get(name.slice(chartName.length + 1)) ?? '');
  }
  const base: GoMap = {
    Values: tagMap(values, 'common.Values'),
    Release: {
      Name: options.releaseName,
      Namespace: options.namespace,
      Revision: 1n,
      IsInstall: true,
      IsUpgrade: false,
      Service: 'Helm',
    },
    Chart: chartObject(chart.metadata),
    Capabilities: goStruct('*common.Capabilities', {
      APIVersions: versionSet([...DEFAULT_API_VERSIONS, ...(options.apiVersions ?? [])]),
      KubeVersion: goStruct('common.KubeVersion', {
        Version: kubeVersion,
        GitVersion: kubeVersion,
        Major: major,
        Minor: minor,
      }),
      HelmVersion: goStruct('common.BuildInfo', {
        Version: HELM_VERSION,
        GitCommit: '',
        GitTreeState: '',
        GoVersion: '',
        KubeClientVersion: 'v1.35',
      }),
    }),
    Files: filesObject(chart.files),
    Subcharts: {},
  };
  const out = new Map<string, string>();
  for (const name of [...names].sort()) {
    const file = name.split('/').pop() ?? '';
    if (file.startsWith('_')) continue;
    const root: GoMap = {
      ...base,
      Template: { Name: name, BasePath: `${chartName}/templates` },
    };
    out.set(name, set.execute(name, root).replaceAll('<no value>', ''));
  }
  return out;
}

/** What `helm template <release> <chart> -n <namespace>` prints for a chart without subcharts. */
export function renderChart(chart: Chart, options: RenderChartOptions): string {
  const rendered = renderTemplates(chart, options);
  const generic: Manifest[] = [];
  const hooks: Manifest[] = [];
  for (const [path, text] of [...rendered].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (path.endsWith('NOTES.txt')) continue;
    if (text.trim() === '') continue;
    for (const content of splitManifests(text)) {
      let head: GoValue;
      try {
        head = parseYAML(content);
      } catch (e) {
        throw new Error(`YAML parse error on ${path}: ${(e as Error).message}`);
      }
      const kind = isGoMap(head) ? str(head.kind) : '';
      const metadata = isGoMap(head) && isGoMap(head.metadata) ? head.metadata : {};
      const annotations = isGoMap(metadata.annotations) ? metadata.annotations : {};
      if (!Object.prototype.hasOwnProperty.call(annotations, 'helm.sh/hook')) {
        generic.push({ path, content, kind });
        continue;
      }
      // A hook naming any event helm does not know is skipped altogether ("skipping unknown hooks").
      const events = str(annotations['helm.sh/hook']).split(',');
      if (events.every((e) => HOOK_EVENTS.has(e.trim().toLowerCase()))) hooks.push({ path, content, kind });
    }
  }
  let out = '';
  for (const m of [...sortByKind(generic), ...sortByKind(hooks)]) {
    out += `---\n# Source: ${m.path}\n${m.content}\n`;
  }
  return out;
}
