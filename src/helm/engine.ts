// helm's rendering engine for a whole chart tree: one template set for every chart, values scoped per
// subchart, the built-in objects (.Chart .Release .Capabilities .Files .Subcharts .Template) and errors.
import { TemplateSet } from '../gotemplate/template.js';
import { TemplateParseError } from '../gotemplate/parse.js';
import { TemplateExecError } from '../gotemplate/exec.js';
import { isGoMap, type GoFunc, type GoMap, type GoValue } from '../gotemplate/value.js';
import { tagMap } from '../gotemplate/sprig/cast.js';
import { chartFullPath, isRoot, type Chart } from './chart.js';
import { HelmChartError } from './errors.js';
import { filesObject } from './files.js';
import { helmFunctions } from './functions.js';
import { metadataAsMap } from './metadata.js';

/** The helm release whose `helm template` output this renderer reproduces. */
export const HELM_VERSION = 'v4.1.4';

/** What .Capabilities.HelmVersion holds in the helm 4.1.4 release binary. */
const HELM_BUILD = {
  Version: HELM_VERSION,
  GitCommit: '05fa37973dc9e42b76e1d2883494c87174b6074f',
  GitTreeState: 'clean',
  GoVersion: 'go1.25.9',
  KubeClientVersion: 'v1.35',
};

/** helm 4.1.4's DefaultVersionSet (client-go 0.35's scheme in priority order, plus apiextensions). */
export const DEFAULT_API_VERSIONS: readonly string[] = [
  'v1',
  'admissionregistration.k8s.io/v1',
  'admissionregistration.k8s.io/v1alpha1',
  'admissionregistration.k8s.io/v1beta1',
  'internal.apiserver.k8s.io/v1alpha1',
  'apps/v1',
  'apps/v1beta1',
  'apps/v1beta2',
  'authentication.k8s.io/v1',
  'authentication.k8s.io/v1alpha1',
  'authentication.k8s.io/v1beta1',
  'authorization.k8s.io/v1',
  'authorization.k8s.io/v1beta1',
  'autoscaling/v1',
  'autoscaling/v2',
  'autoscaling/v2beta1',
  'autoscaling/v2beta2',
  'batch/v1',
  'batch/v1beta1',
  'certificates.k8s.io/v1',
  'certificates.k8s.io/v1beta1',
  'certificates.k8s.io/v1alpha1',
  'coordination.k8s.io/v1alpha2',
  'coordination.k8s.io/v1beta1',
  'coordination.k8s.io/v1',
  'discovery.k8s.io/v1',
  'discovery.k8s.io/v1beta1',
  'events.k8s.io/v1',
  'events.k8s.io/v1beta1',
  'extensions/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1',
  'flowcontrol.apiserver.k8s.io/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1beta2',
  'flowcontrol.apiserver.k8s.io/v1beta3',
  'networking.k8s.io/v1',
  'networking.k8s.io/v1beta1',
  'node.k8s.io/v1',
  'node.k8s.io/v1alpha1',
  'node.k8s.io/v1beta1',
  'policy/v1',
  'policy/v1beta1',
  'rbac.authorization.k8s.io/v1',
  'rbac.authorization.k8s.io/v1beta1',
  'rbac.authorization.k8s.io/v1alpha1',
  'resource.k8s.io/v1',
  'resource.k8s.io/v1beta2',
  'resource.k8s.io/v1beta1',
  'resource.k8s.io/v1alpha3',
  'scheduling.k8s.io/v1alpha1',
  'scheduling.k8s.io/v1beta1',
  'scheduling.k8s.io/v1',
  'storage.k8s.io/v1beta1',
  'storage.k8s.io/v1',
  'storage.k8s.io/v1alpha1',
  'storagemigration.k8s.io/v1beta1',
  'apiextensions.k8s.io/v1beta1',
  'apiextensions.k8s.io/v1',
];

/** common.KubeVersion: what `--kube-version` parses into (k8s' generic version: two or more numbers). */
export interface KubeVersion {
  /** As given, with a leading v. */
  version: string;
  /** v + the numeric components only: what constraints are checked against. */
  normalized: string;
  major: string;
  minor: string;
}

export function parseKubeVersion(input: string): KubeVersion {
  const m = /^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)$/.exec(input);
  if (!m) throw new HelmChartError(`invalid kube version '${input}': could not parse "${input}" as version`);
  const parts = m[1]!.split('.').map((p) => BigInt(p));
  if (parts.length < 2)
    throw new HelmChartError(`invalid kube version '${input}': illegal version string "${input}"`);
  return {
    version: input.startsWith('v') ? input : `v${input}`,
    normalized: `v${parts.join('.')}`,
    major: String(parts[0]),
    minor: String(parts[1]),
  };
}

export const DEFAULT_KUBE_VERSION: KubeVersion = parseKubeVersion('v1.35.0');

/** A Go struct value: fields reachable from templates, printed as fmt's %v prints a struct. */
function goStruct(
  goType: string,
  fields: GoMap,
  print: string,
  methods: Record<string, GoFunc> = {},
  templateText?: () => string,
): GoValue {
  return {
    goType,
    format: () => print,
    ...(templateText ? { templateText } : {}),
    getMethod: (name: string): GoFunc | undefined => methods[name],
    getField: (name: string): GoValue | undefined => fields[name],
  } as GoValue;
}

/** .Capabilities.APIVersions: a Go VersionSet ([]string) with its Has method. */
function versionSet(versions: readonly string[]): GoValue {
  const list = [...versions];
  const set = new Set(list);
  return {
    goType: 'common.VersionSet',
    format: () => `[${list.join(' ')}]`,
    getMethod(name: string): GoFunc | undefined {
      if (name === 'Has') return (v: GoValue) => set.has(typeof v === 'string' ? v : String(v));
      return undefined;
    },
  } as GoValue;
}

export function capabilitiesObject(kube: KubeVersion, apiVersions: readonly string[]): GoValue {
  const versions = [...DEFAULT_API_VERSIONS, ...apiVersions];
  const kv = goStruct(
    'common.KubeVersion',
    { Version: kube.version, Major: kube.major, Minor: kube.minor },
    `{${kube.version} ${kube.normalized} ${kube.major} ${kube.minor}}`,
    { GitVersion: () => kube.version, String: () => kube.normalized },
    () => kube.normalized,
  );
  const build = Object.values(HELM_BUILD).join(' ');
  return goStruct(
    '*common.Capabilities',
    {
      KubeVersion: kv,
      APIVersions: versionSet(versions),
      HelmVersion: goStruct('version.BuildInfo', HELM_BUILD, `{${build}}`),
    },
    `{{${kube.version} ${kube.normalized} ${kube.major} ${kube.minor}} [${versions.join(' ')}] {${build}}}`,
  );
}

interface Renderable {
  text: string;
  vals: GoMap;
  basePath: string;
}

/** recAllTpls: every template of the tree with the values its chart sees; returns the chart's scope. */
function collectTemplates(chart: Chart, templates: Map<string, Renderable>, parentScope: GoMap): GoMap {
  const subcharts: GoMap = {};
  const scope: GoMap = {
    Chart: metadataAsMap(chart.metadata, isRoot(chart)),
    Files: filesObject(chart.files),
    Release: parentScope.Release ?? null,
    Capabilities: parentScope.Capabilities ?? null,
    Values: tagMap({}, 'common.Values'),
    Subcharts: subcharts,
  };
  if (isRoot(chart)) scope.Values = parentScope.Values ?? null;
  else {
    const parentValues = parentScope.Values;
    const own = isGoMap(parentValues) ? parentValues[chart.metadata.name] : undefined;
    if (isGoMap(own)) scope.Values = tagMap(own, 'common.Values');
  }
  for (const child of chart.dependencies)
    subcharts[child.metadata.name] = collectTemplates(child, templates, scope);
  const fullPath = chartFullPath(chart);
  const library = chart.metadata.type.toLowerCase() === 'library';
  for (const [name, text] of chart.templates) {
    // A library chart contributes only its partials.
    if (library && !(name.split('/').pop() ?? '').startsWith('_')) continue;
    templates.set(`${fullPath}/${name}`, { text, vals: scope, basePath: `${fullPath}/templates` });
  }
  return scope;
}

/** helm parses (and renders) deeper paths first and, within a depth, in reverse lexical order. */
function sortTemplates(names: Iterable<string>): string[] {
  const depth = (s: string): number => s.split('/').length - 1;
  return [...names].sort((a, b) => {
    const d = depth(b) - depth(a);
    if (d !== 0) return d;
    return a < b ? 1 : a > b ? -1 : 0;
  });
}

// Parsing is most of a render's cost: one template set per chart and set of enabled templates.
const setCache = new WeakMap<Map<string, string>, Map<string, TemplateSet>>();

function templateSet(root: Chart, keys: string[], templates: Map<string, Renderable>): TemplateSet {
  let perChart = setCache.get(root.templates);
  if (!perChart) setCache.set(root.templates, (perChart = new Map()));
  const cacheKey = keys.join('\n');
  let set = perChart.get(cacheKey);
  if (!set) {
    // helm's engine names its root template gotpl; Go's messages name the receiver.
    set = new TemplateSet({ funcs: helmFunctions(), missingKey: 'zero', name: 'gotpl' });
    for (const name of keys) {
      try {
        set.parse(name, templates.get(name)!.text);
      } catch (e) {
        throw helmParseError(name, e);
      }
    }
    if (perChart.size > 64) perChart.clear();
    perChart.set(cacheKey, set);
  }
  return set;
}

/** Renders every template of a processed chart tree; keys are helm's names (`chart/charts/sub/templates/x`). */
export function renderTemplates(chart: Chart, top: GoMap): Map<string, string> {
  const templates = new Map<string, Renderable>();
  collectTemplates(chart, templates, top);
  const keys = sortTemplates(templates.keys());
  const set = templateSet(chart, keys, templates);
  const rendered = new Map<string, string>();
  for (const name of keys) {
    if ((name.split('/').pop() ?? '').startsWith('_')) continue;
    const r = templates.get(name)!;
    r.vals.Template = { Name: name, BasePath: r.basePath };
    let out: string;
    try {
      out = set.execute(name, r.vals);
    } catch (e) {
      throw helmExecError(name, e);
    }
    rendered.set(name, out.replaceAll('<no value>', ''));
  }
  return rendered;
}

/** cleanupParseError: `parse error at (name:line): message`. */
function helmParseError(name: string, e: unknown): Error {
  if (!(e instanceof TemplateParseError)) return e instanceof Error ? e : new Error(String(e));
  const tokens = e.message.split(': ');
  if (tokens.length === 1) return new HelmChartError(`parse error in (${name}): ${e.message}`);
  return new HelmChartError(`parse error at (${tokens[1]!}): ${tokens[tokens.length - 1]!}`);
}

interface Traceable {
  location: string;
  message: string;
  executedFunction: string;
}

/** helm's parseTemplateExecErrorString over one link of Go's error chain. */
function parseExecLink(s: string): Traceable | undefined {
  if (!s.startsWith('template: ')) return undefined;
  const rest = s.slice('template: '.length);
  if (rest.startsWith('no template ')) return { location: '', message: s, executedFunction: '' };
  const idx = rest.indexOf(': executing ');
  if (idx >= 0) {
    const after = rest.slice(idx + ': executing '.length);
    if (after.startsWith('"')) {
      const endQuote = after.indexOf('"', 1);
      if (endQuote > 0) {
        const fn = after.slice(1, endQuote);
        const afterFunc = after.slice(endQuote + 1);
        if (afterFunc.startsWith(' at <')) {
          const afterAt = afterFunc.slice(' at <'.length);
          const endLoc = afterAt.indexOf('>: ');
          if (endLoc >= 0) {
            let message = afterAt.slice(endLoc + 3);
            const cut = message.indexOf(' template:');
            if (cut >= 0) message = message.slice(0, cut);
            return {
              location: rest.slice(0, idx),
              message,
              executedFunction: `executing "${fn}" at <${afterAt.slice(0, endLoc)}>:`,
            };
          }
        }
      }
      return undefined;
    }
  }
  const sep = rest.lastIndexOf(': ');
  if (sep < 0) return undefined;
  let message = rest.slice(sep + 2);
  const cut = message.indexOf(' template:');
  if (cut >= 0) message = message.slice(0, cut);
  return { location: rest.slice(0, sep), message, executedFunction: '' };
}

/**
 * The next link of Go's error chain, read from the text: only "error calling F: %w" wraps a cause.
 * Returns null at the end of the chain, or a plain (non-template) error string.
 */
function unwrapExec(s: string): string | null {
  const m = /^template: .*?>: error calling [^:]+: ([\s\S]*)$/.exec(s);
  return m ? m[1]! : null;
}

/** reformatExecErrorMsg: helm's multi-line trace, or Go's message when the chain ends in a plain error. */
function helmExecError(name: string, e: unknown): Error {
  if (!(e instanceof TemplateExecError)) return e instanceof Error ? e : new Error(String(e));
  const msg = e.message;
  const tokens = msg.split(': ');
  if (tokens.length < 3) return new HelmChartError(`execution error in (${name}): ${msg}`);
  const location = tokens[1]!;
  const warn = /HELM_ERR_START([\s\S]*)HELM_ERR_END/.exec(tokens.slice(2).join(': '));
  if (warn) return new HelmChartError(`execution error at (${location}): ${warn[1]!}`);
  const links: Traceable[] = [];
  let current: string | null = msg;
  while (current !== null) {
    const t = parseExecLink(current);
    if (!t) return new HelmChartError(msg);
    const last = links[links.length - 1];
    if (
      !last ||
      last.location !== t.location ||
      last.message !== t.message ||
      last.executedFunction !== t.executedFunction
    )
      links.push(t);
    current = unwrapExec(current);
  }
  const text = links
    .map((t) => {
      let s = '';
      if (t.location) s += `${t.location}\n  `;
      if (t.executedFunction) s += `${t.executedFunction}\n    `;
      if (t.message) s += `${t.message}\n`;
      return s;
    })
    .join('');
  return new HelmChartError(text.trim());
}

/** Formats any engine error the way helm prints it for template `name`. */
export function helmTemplateError(name: string, e: unknown): Error {
  return e instanceof TemplateParseError ? helmParseError(name, e) : helmExecError(name, e);
}
