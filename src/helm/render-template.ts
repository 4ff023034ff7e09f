// Renders one template as a file of a one-template chart: the same engine, built-in objects, values
// coalescing and error wording as a whole chart, without splitting or sorting the output.
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import { tagMap } from '../gotemplate/sprig/cast.js';
import { parseYAML } from '../gotemplate/yaml.js';
import type { Chart } from './chart.js';
import { coalesceValues } from './coalesce.js';
import { capabilitiesObject, DEFAULT_KUBE_VERSION, parseKubeVersion, renderTemplates } from './engine.js';
import { readChartMetadata } from './metadata.js';

export interface ReleaseInfo {
  name: string;
  namespace: string;
  revision?: number;
  isInstall?: boolean;
}

export interface ChartInfo {
  name: string;
  version: string;
  appVersion?: string;
}

export interface RenderOneOptions {
  /** Template name as helm reports it: `<chart>/templates/<file>`. */
  templateName: string;
  release: ReleaseInfo;
  chart: ChartInfo;
  kubeVersion?: string;
  /** Other files of the chart, reachable through .Files. */
  files?: Map<string, Buffer>;
}

/** values.yaml text → .Values (YAML 1.1, numbers as float64); empty text is an empty map. */
export function readValues(text: string): GoMap {
  if (text.trim() === '') return {};
  const parsed = parseYAML(text);
  if (parsed === null) return {};
  if (!isGoMap(parsed)) throw new Error('values must be a YAML mapping');
  return parsed;
}

/**
 * The file `helm template` renders for `template` in a chart of its own with `values` as values.yaml
 * (`<no value>` blanked, nothing trimmed). Errors are worded as helm words them.
 */
export function renderOne(template: string, values: GoValue, options: RenderOneOptions): string {
  const prefix = `${options.chart.name}/`;
  if (!options.templateName.startsWith(`${prefix}templates/`))
    throw new Error(`template name ${options.templateName} is not under ${prefix}templates/`);
  const chartYaml =
    `apiVersion: v2\nname: ${JSON.stringify(options.chart.name)}\nversion: ${JSON.stringify(options.chart.version)}\n` +
    (options.chart.appVersion ? `appVersion: ${JSON.stringify(options.chart.appVersion)}\n` : '');
  const chart: Chart = {
    metadata: readChartMetadata(chartYaml),
    values: isGoMap(values) ? values : {},
    templates: new Map([[options.templateName.slice(prefix.length), template]]),
    files: options.files ?? new Map(),
    schema: null,
    dependencies: [],
    parent: null,
  };
  const isInstall = options.release.isInstall ?? true;
  const kube = options.kubeVersion ? parseKubeVersion(options.kubeVersion) : DEFAULT_KUBE_VERSION;
  const top: GoMap = {
    Release: {
      Name: options.release.name,
      Namespace: options.release.namespace,
      IsUpgrade: !isInstall,
      IsInstall: isInstall,
      Revision: BigInt(options.release.revision ?? 1),
      Service: 'Helm',
    },
    Capabilities: capabilitiesObject(kube, []),
    Values: tagMap(coalesceValues(chart, {}), 'common.Values'),
  };
  return renderTemplates(chart, top).get(options.templateName) ?? '';
}
