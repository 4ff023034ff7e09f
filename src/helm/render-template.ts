// Renders one template as a helm chart file would be rendered: values read the way helm reads
// values.yaml, the chart's built-in objects, helm's functions, and helm's blanking of `<no value>`.
import { parseTemplate } from '../gotemplate/template.js';
import { parseYAML } from '../gotemplate/yaml.js';
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import { helmFunctions } from './functions.js';
import { tagMap } from '../gotemplate/sprig/cast.js';

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
  /** Template name as helm reports it, e.g. `t/templates/t.yaml`. */
  templateName: string;
  release: ReleaseInfo;
  chart: ChartInfo;
  kubeVersion?: string;
}

/** values.yaml text → .Values (YAML 1.1, numbers as float64); empty text is an empty map. */
export function readValues(text: string): GoMap {
  if (text.trim() === '') return {};
  const parsed = parseYAML(text);
  if (parsed === null) return {};
  if (!isGoMap(parsed)) throw new Error('values must be a YAML mapping');
  return parsed;
}

export function renderOne(template: string, values: GoValue, options: RenderOneOptions): string {
  const kubeVersion = options.kubeVersion ?? 'v1.35.0';
  const [major = '1', minor = '35'] = kubeVersion.replace(/^v/, '').split('.');
  const root: GoMap = {
    // helm's .Values has its own named type: `typeOf .Values` is common.Values and dig refuses it.
    Values: isGoMap(values) ? tagMap(values, 'common.Values') : values,
    Release: {
      Name: options.release.name,
      Namespace: options.release.namespace,
      Revision: BigInt(options.release.revision ?? 1),
      IsInstall: options.release.isInstall ?? true,
      IsUpgrade: !(options.release.isInstall ?? true),
      Service: 'Helm',
    },
    Chart: {
      APIVersion: 'v2',
      Name: options.chart.name,
      Version: options.chart.version,
      AppVersion: options.chart.appVersion ?? '',
    },
    Capabilities: {
      KubeVersion: tagMap(
        { Version: kubeVersion, GitVersion: kubeVersion, Major: major, Minor: minor },
        'common.KubeVersion',
      ),
    },
    Template: {
      Name: options.templateName,
      BasePath: options.templateName.split('/').slice(0, -1).join('/'),
    },
  };
  const set = parseTemplate(options.templateName, template, { funcs: helmFunctions(), missingKey: 'zero' });
  return set.execute(options.templateName, root).replaceAll('<no value>', '');
}
