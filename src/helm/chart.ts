// A chart in memory and helm's loader: a directory (with .helmignore) or a .tgz becomes one tree of
// charts — metadata, default values, templates, other files and the subcharts found in charts/.
import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseYAML } from '../gotemplate/yaml.js';
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import { readChartArchive } from './archive.js';
import { HelmChartError } from './errors.js';
import { loadDirectoryFiles } from './ignore.js';
import { copyMetadata, readChartMetadata, type ChartMetadata } from './metadata.js';

/** A loaded chart: what helm's chart.Chart holds, subcharts included. */
export interface Chart {
  metadata: ChartMetadata;
  /** values.yaml as helm reads it (every YAML document merged). */
  values: GoMap;
  /** templates/ files keyed by their path relative to the chart root (`templates/_helpers.tpl`). */
  templates: Map<string, string>;
  /** The files templates reach through .Files: everything but Chart.yaml, values, templates/, charts/. */
  files: Map<string, Buffer>;
  /** values.schema.json, when the chart has one. */
  schema: Buffer | null;
  /** Subcharts, from charts/ (directories and .tgz archives). */
  dependencies: Chart[];
  parent: Chart | null;
}

/** helm's loader.MergeMaps: b over a, maps merged recursively, everything else replaced (nulls kept). */
export function mergeMaps(a: GoMap, b: GoMap): GoMap {
  const out: GoMap = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const current = out[k];
    out[k] = isGoMap(v) && isGoMap(current) ? mergeMaps(current, v) : v;
  }
  return out;
}

/** Kubernetes' YAMLReader splits a stream on lines that are `---` followed only by blanks. */
function yamlDocuments(text: string): string[] {
  const docs: string[] = [];
  let current: string[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith('---') && line.slice(3).trim() === '') {
      docs.push(current.join(''));
      current = [];
    } else current.push(line);
  }
  docs.push(current.join(''));
  return docs;
}

/**
 * helm's loader.LoadValues: each YAML document must be a mapping (or empty); documents merge in order.
 * Numbers are float64 and booleans YAML 1.1, as everywhere values are read.
 */
export function loadValues(text: string): GoMap {
  let values: GoMap = {};
  for (const doc of yamlDocuments(text)) {
    if (doc.trim() === '') continue;
    let parsed: GoValue;
    try {
      parsed = parseYAML(doc);
    } catch (e) {
      throw new HelmChartError(`cannot unmarshal yaml document: ${(e as Error).message}`);
    }
    if (parsed === null) continue;
    if (!isGoMap(parsed))
      throw new HelmChartError(
        `cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed === 'string' ? 'string' : 'number'} into Go value of type map[string]interface {}`,
      );
    values = mergeMaps(values, parsed);
  }
  return values;
}

/** helm's LoadFiles: files keyed by path relative to the chart root become a chart and its subcharts. */
export function buildChart(files: Map<string, Buffer>): Chart {
  const chartYaml = files.get('Chart.yaml');
  if (chartYaml === undefined) throw new HelmChartError('Chart.yaml file is missing');
  const metadata = readChartMetadata(chartYaml.toString('utf8'));
  const chart: Chart = {
    metadata,
    values: {},
    templates: new Map(),
    files: new Map(),
    schema: null,
    dependencies: [],
    parent: null,
  };
  const subcharts = new Map<string, Map<string, Buffer>>();
  for (const [name, data] of files) {
    if (name === 'Chart.yaml' || name === 'Chart.lock' || name === 'requirements.lock') continue;
    if (name === 'values.yaml') {
      try {
        chart.values = loadValues(data.toString('utf8'));
      } catch (e) {
        throw new HelmChartError(`cannot load values.yaml: ${(e as Error).message}`);
      }
    } else if (name === 'values.schema.json') chart.schema = data;
    else if (name === 'requirements.yaml') {
      if (metadata.apiVersion === 'v1') chart.files.set(name, data);
    } else if (name.startsWith('templates/')) chart.templates.set(name, data.toString('utf8'));
    else if (name.startsWith('charts/')) {
      if (extname(name) === '.prov') {
        chart.files.set(name, data);
        continue;
      }
      const rest = name.slice('charts/'.length);
      const slash = rest.indexOf('/');
      const sub = slash < 0 ? rest : rest.slice(0, slash);
      let group = subcharts.get(sub);
      if (!group) subcharts.set(sub, (group = new Map()));
      group.set(rest, data);
    } else chart.files.set(name, data);
  }
  // helm walks a Go map here (random order); sorted names make our output stable.
  for (const sub of [...subcharts.keys()].sort()) {
    if (sub.startsWith('_') || sub.startsWith('.')) continue;
    const group = subcharts.get(sub)!;
    let child: Chart;
    try {
      if (extname(sub) === '.tgz') {
        const data = group.get(sub);
        if (data === undefined)
          throw new HelmChartError(
            `error unpacking subchart tar in ${metadata.name}: expected ${sub}, got ${[...group.keys()][0] ?? ''}`,
          );
        child = buildChart(readChartArchive(data, sub));
      } else {
        const inner = new Map<string, Buffer>();
        for (const [path, data] of group) {
          const slash = path.indexOf('/');
          if (slash >= 0) inner.set(path.slice(slash + 1), data);
        }
        child = buildChart(inner);
      }
    } catch (e) {
      if (e instanceof HelmChartError && e.message.startsWith('error unpacking subchart tar')) throw e;
      throw new HelmChartError(
        `error unpacking subchart ${sub} in ${metadata.name}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    child.parent = chart;
    chart.dependencies.push(child);
  }
  return chart;
}

/** Loads a chart from a directory (honouring .helmignore) or from a packaged .tgz, as `helm template` does. */
export function loadChart(path: string): Chart {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new HelmChartError(`path "${path}" not found`);
  }
  if (isDir) return buildChart(loadDirectoryFiles(path));
  return buildChart(readChartArchive(readFileSync(path), basename(path)));
}

/** The loader of the first chart renderer, kept for callers that only ever pass directories. */
export const loadChartDir = loadChart;

/** A copy whose metadata, dependency list and values processing may rewrite without touching `chart`. */
export function copyChart(chart: Chart, parent: Chart | null = null): Chart {
  const copy: Chart = { ...chart, metadata: copyMetadata(chart.metadata), parent, dependencies: [] };
  copy.dependencies = chart.dependencies.map((d) => copyChart(d, copy));
  return copy;
}

export function isRoot(chart: Chart): boolean {
  return chart.parent === null;
}

/** `parent/charts/sub`: where templates of a (possibly aliased) subchart are named. */
export function chartFullPath(chart: Chart): string {
  return chart.parent === null
    ? chart.metadata.name
    : `${chartFullPath(chart.parent)}/charts/${chart.metadata.name}`;
}

/** crds/ files (.yaml, .yml, .json) of a chart and, after them, of its subcharts. */
export function crdObjects(chart: Chart): { filename: string; data: Buffer }[] {
  const out: { filename: string; data: Buffer }[] = [];
  for (const [name, data] of chart.files) {
    if (name.startsWith('crds/') && /\.(ya?ml|json)$/i.test(name))
      out.push({ filename: `${chartFullPath(chart)}/${name}`, data });
  }
  for (const dep of chart.dependencies) out.push(...crdObjects(dep));
  return out;
}
