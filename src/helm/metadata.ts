// Chart.yaml as helm reads it: typed fields (a wrong type fails the load, as Go's decoder does),
// helm's validation rules and messages, and the map templates see as .Chart.
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import { parseYAML } from '../gotemplate/yaml.js';
import { jsonKindName } from '../gotemplate/json.js';
import { newVersion } from '../gotemplate/sprig/semver.js';
import { formatFloat } from '../gotemplate/strconv.js';
import { HelmChartError } from './errors.js';

export interface Maintainer {
  name: string;
  email: string;
  url: string;
}

/** One entry of Chart.yaml `dependencies:`; `enabled` and `importValues` are rewritten by processing. */
export interface Dependency {
  name: string;
  version: string;
  repository: string;
  condition: string;
  tags: string[];
  enabled: boolean;
  importValues: GoValue[];
  alias: string;
}

export interface ChartMetadata {
  name: string;
  home: string;
  sources: string[];
  version: string;
  description: string;
  keywords: string[];
  maintainers: Maintainer[];
  icon: string;
  apiVersion: string;
  condition: string;
  tags: string;
  appVersion: string;
  deprecated: boolean;
  annotations: Record<string, string> | null;
  kubeVersion: string;
  dependencies: Dependency[];
  type: string;
}

/**
 * sigs.k8s.io/yaml decodes a YAML scalar into a Go string field by printing it: booleans as true/false,
 * integers in decimal, floats as float32 with strconv's shortest %g (so `appVersion: 1.10` reads "1.1",
 * helm's well-known surprise). Undefined for lists and maps, which fail to decode.
 */
export function scalarAsString(v: GoValue): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    // go-yaml reads 5 as an int; our values model holds every number as float64, 5.0 included.
    if (Number.isInteger(v) && Math.abs(v) < 2 ** 63) return BigInt(v).toString();
    return formatFloat32(v);
  }
  return undefined;
}

/** strconv.FormatFloat(f, 'g', -1, 32): the shortest decimal that reads back as the same float32. */
function formatFloat32(f: number): string {
  const f32 = Math.fround(f);
  if (!Number.isFinite(f32)) return formatFloat(f32, 'g', -1);
  let shortest = f32;
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(f32.toPrecision(p));
    if (Math.fround(candidate) === f32) {
      shortest = candidate;
      break;
    }
  }
  return formatFloat(shortest, 'g', -1);
}

class FieldReader {
  constructor(
    private readonly file: string,
    private readonly struct: string,
  ) {}

  private fail(field: string, v: GoValue, want: string): never {
    throw new HelmChartError(
      `cannot load ${this.file}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKindName(v)} into Go struct field ${this.struct}.${field} of type ${want}`,
    );
  }

  string(m: GoMap, field: string): string {
    const v = m[field];
    if (v === undefined || v === null) return '';
    const s = scalarAsString(v);
    if (s === undefined) this.fail(field, v, 'string');
    return s;
  }

  bool(m: GoMap, field: string): boolean {
    const v = m[field];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') this.fail(field, v, 'bool');
    return v;
  }

  strings(m: GoMap, field: string): string[] {
    const v = m[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(field, v, '[]string');
    return v.map((item) => {
      const s = item === null ? '' : scalarAsString(item);
      if (s === undefined) this.fail(field, item, 'string');
      return s;
    });
  }

  list(m: GoMap, field: string, elem: string): (GoMap | null)[] {
    const v = m[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(field, v, `[]*${elem}`);
    return v.map((item) => {
      if (item === null) return null;
      if (!isGoMap(item)) this.fail(field, item, elem);
      return item;
    });
  }
}

/** Go's unicode.IsSpace → ' ', non-printable runes dropped (helm's sanitizeString). */
function sanitize(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\t\n\v\f\r\u0085\u00a0]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

function readDependency(r: FieldReader, m: GoMap): Dependency {
  const importValues = m['import-values'];
  return {
    name: r.string(m, 'name'),
    version: r.string(m, 'version'),
    repository: r.string(m, 'repository'),
    condition: r.string(m, 'condition'),
    tags: r.strings(m, 'tags'),
    enabled: r.bool(m, 'enabled'),
    importValues: Array.isArray(importValues) ? importValues : [],
    alias: r.string(m, 'alias'),
  };
}

const ALIAS_FORMAT = /^[a-zA-Z0-9_-]+$/;

/** Parses and validates Chart.yaml; errors carry helm's wording (`validation: chart.metadata.name is required`). */
export function readChartMetadata(text: string, file = 'Chart.yaml'): ChartMetadata {
  let doc: GoValue;
  try {
    doc = text.trim() === '' ? {} : parseYAML(text);
  } catch (e) {
    throw new HelmChartError(`cannot load ${file}: ${(e as Error).message}`);
  }
  if (doc === null) doc = {};
  if (!isGoMap(doc))
    throw new HelmChartError(
      `cannot load ${file}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKindName(doc)} into Go value of type v2.Metadata`,
    );
  const r = new FieldReader(file, 'Metadata');
  const annotations = doc.annotations;
  let annotationMap: Record<string, string> | null = null;
  if (annotations !== undefined && annotations !== null) {
    if (!isGoMap(annotations))
      throw new HelmChartError(
        `cannot load ${file}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKindName(annotations)} into Go struct field Metadata.annotations of type map[string]string`,
      );
    annotationMap = {};
    for (const key of Object.keys(annotations)) annotationMap[key] = r.string(annotations, key);
  }
  const maintainers = r.list(doc, 'maintainers', 'v2.Maintainer');
  const dependencies = r.list(doc, 'dependencies', 'v2.Dependency');
  const depReader = new FieldReader(file, 'Metadata.dependencies');
  const mReader = new FieldReader(file, 'Metadata.maintainers');
  const md: ChartMetadata = {
    name: sanitize(r.string(doc, 'name')),
    home: sanitize(r.string(doc, 'home')),
    sources: r.strings(doc, 'sources').map(sanitize),
    version: r.string(doc, 'version'),
    description: sanitize(r.string(doc, 'description')),
    keywords: r.strings(doc, 'keywords').map(sanitize),
    maintainers: maintainers.map((m) => {
      if (m === null)
        throw new HelmChartError('validation: maintainers must not contain empty or null nodes');
      return {
        name: sanitize(mReader.string(m, 'name')),
        email: sanitize(mReader.string(m, 'email')),
        url: sanitize(mReader.string(m, 'url')),
      };
    }),
    icon: sanitize(r.string(doc, 'icon')),
    apiVersion: r.string(doc, 'apiVersion') || 'v1',
    condition: sanitize(r.string(doc, 'condition')),
    tags: sanitize(r.string(doc, 'tags')),
    appVersion: sanitize(r.string(doc, 'appVersion')),
    deprecated: r.bool(doc, 'deprecated'),
    annotations: annotationMap,
    kubeVersion: sanitize(r.string(doc, 'kubeVersion')),
    dependencies: dependencies.map((d) => {
      if (d === null)
        throw new HelmChartError('validation: dependencies must not contain empty or null nodes');
      return readDependency(depReader, d);
    }),
    type: r.string(doc, 'type'),
  };
  validateMetadata(md);
  return md;
}

function validateMetadata(md: ChartMetadata): void {
  const invalid = (msg: string): never => {
    throw new HelmChartError(`validation: ${msg}`);
  };
  if (md.name === '') invalid('chart.metadata.name is required');
  if (md.name === '.' || md.name === '..') invalid(`chart.metadata.name "${md.name}" is not allowed`);
  if (md.name.includes('/')) invalid(`chart.metadata.name "${md.name}" is invalid`);
  if (md.version === '') invalid('chart.metadata.version is required');
  try {
    newVersion(md.version);
  } catch {
    invalid(`chart.metadata.version "${md.version}" is invalid`);
  }
  if (!['', 'application', 'library'].includes(md.type))
    invalid('chart.metadata.type must be application or library');
  const seen = new Set<string>();
  for (const d of md.dependencies) {
    d.name = sanitize(d.name);
    d.version = sanitize(d.version);
    d.repository = sanitize(d.repository);
    d.condition = sanitize(d.condition);
    d.tags = d.tags.map(sanitize);
    if (d.alias !== '' && !ALIAS_FORMAT.test(d.alias))
      invalid(`dependency "${d.name}" has disallowed characters in the alias`);
    const key = d.alias || d.name;
    if (seen.has(key)) invalid(`more than one dependency with name or alias "${key}"`);
    seen.add(key);
  }
}

export function copyMetadata(md: ChartMetadata): ChartMetadata {
  return { ...md, dependencies: md.dependencies.map((d) => ({ ...d, tags: [...d.tags] })) };
}

/**
 * .Chart as helm 4 builds it: the Metadata struct turned into a map by reflection, so keys are Go's
 * field names, nested structs become maps and nil pointers nil.
 */
export function metadataAsMap(md: ChartMetadata, isRoot: boolean): GoMap {
  const list = (items: string[]): GoValue => items;
  return {
    Name: md.name,
    Home: md.home,
    Sources: list(md.sources),
    Version: md.version,
    Description: md.description,
    Keywords: list(md.keywords),
    Maintainers: md.maintainers.map((m) => ({ Name: m.name, Email: m.email, URL: m.url })),
    Icon: md.icon,
    APIVersion: md.apiVersion,
    Condition: md.condition,
    Tags: md.tags,
    AppVersion: md.appVersion,
    Deprecated: md.deprecated,
    // A nil Go map: toJson gives null, as helm's.
    Annotations: md.annotations,
    KubeVersion: md.kubeVersion,
    Dependencies: md.dependencies.map((d) => ({
      Name: d.name,
      Version: d.version,
      Repository: d.repository,
      Condition: d.condition,
      Tags: d.tags,
      Enabled: d.enabled,
      ImportValues: d.importValues,
      Alias: d.alias,
    })),
    Type: md.type,
    IsRoot: isRoot,
  };
}
