// helm's dependency processing (pkg/chart/v2/util/dependencies.go, helm 4.1.4): aliases, conditions
// and tags decide which subcharts render; import-values lift child values into the parent.
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import { newVersion, SemverConstraints } from '../gotemplate/sprig/semver.js';
import { formatValue } from '../gotemplate/fmt.js';
import type { Chart } from './chart.js';
import { coalesceTables, coalesceValues, deepCopy, mergeChartValues } from './coalesce.js';
import { HelmChartError } from './errors.js';
import { copyMetadata, type Dependency } from './metadata.js';

/** Chart.yaml dependency versions are ranges; an empty range or a bad version never matches. */
export function isCompatibleRange(range: string, version: string): boolean {
  try {
    return SemverConstraints.parse(range).check(newVersion(version));
  } catch {
    return false;
  }
}

/** `helm template` refuses a chart whose Chart.yaml names a dependency charts/ does not hold. */
export function checkDependencies(chart: Chart): void {
  const missing = chart.metadata.dependencies
    .filter((d) => !chart.dependencies.some((c) => c.metadata.name === d.name))
    .map((d) => d.name);
  if (missing.length > 0)
    throw new HelmChartError(
      `an error occurred while checking for chart dependencies. You may need to run \`helm dependency build\` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: ${missing.join(', ')}`,
    );
}

/** ProcessDependencies: drops disabled subcharts (recursively) and applies import-values. Mutates `chart`. */
export function processDependencies(chart: Chart, values: GoMap): void {
  processDependencyEnabled(chart, values, '');
  processDependencyImportValues(chart);
}

function table(values: GoMap, path: string): GoMap | undefined {
  let t: GoValue = values;
  for (const part of path.split('.')) {
    if (!isGoMap(t)) return undefined;
    const next: GoValue | undefined = t[part];
    if (next === undefined || !isGoMap(next)) return undefined;
    t = next;
  }
  return isGoMap(t) ? t : undefined;
}

/** Values.PathValue: the non-table value at a dotted path, or undefined. */
function pathValue(values: GoMap, path: string): GoValue | undefined {
  const parts = path.split('.');
  const key = parts.pop()!;
  const t = parts.length === 0 ? values : table(values, parts.join('.'));
  if (t === undefined) return undefined;
  const v = t[key];
  return v === undefined || isGoMap(v) ? undefined : v;
}

function processDependencyConditions(reqs: Dependency[], cvals: GoMap, cpath: string): void {
  for (const r of reqs) {
    for (const c of r.condition.trim().split(',')) {
      if (c === '') continue;
      const v = pathValue(cvals, cpath + c);
      // A condition that is missing or not a boolean falls through to the next one (helm only warns).
      if (typeof v === 'boolean') {
        r.enabled = v;
        break;
      }
    }
  }
}

function processDependencyTags(reqs: Dependency[], cvals: GoMap): void {
  const tags = cvals.tags;
  if (!isGoMap(tags)) return;
  for (const r of reqs) {
    let hasTrue = false;
    let hasFalse = false;
    for (const k of r.tags) {
      const b = tags[k];
      if (b === true) hasTrue = true;
      else if (b === false) hasFalse = true;
    }
    if (!hasTrue && hasFalse) r.enabled = false;
    else r.enabled = true;
  }
}

/** The subchart a dependency names (version range respected), copied and renamed to its alias. */
function aliasDependency(charts: Chart[], dep: Dependency): Chart | undefined {
  for (const c of charts) {
    if (c.metadata.name !== dep.name) continue;
    if (!isCompatibleRange(dep.version, c.metadata.version)) continue;
    const out: Chart = { ...c, metadata: copyMetadata(c.metadata), dependencies: [] };
    out.dependencies = c.dependencies.map((d) => ({ ...d, parent: out }));
    if (dep.alias !== '') out.metadata.name = dep.alias;
    return out;
  }
  return undefined;
}

function processDependencyEnabled(c: Chart, v: GoMap, path: string): void {
  const reqs = c.metadata.dependencies;
  if (reqs.length === 0) return;
  // Subcharts that Chart.yaml does not declare stay, ahead of the declared ones.
  const chartDependencies: Chart[] = c.dependencies.filter(
    (existing) =>
      !reqs.some(
        (r) => existing.metadata.name === r.name && isCompatibleRange(r.version, existing.metadata.version),
      ),
  );
  for (const req of reqs) {
    const dep = aliasDependency(c.dependencies, req);
    if (dep) {
      dep.parent = c;
      chartDependencies.push(dep);
    }
    if (req.alias !== '') req.name = req.alias;
  }
  c.dependencies = chartDependencies;
  for (const r of reqs) r.enabled = true;
  const cvals = coalesceValues(c, v);
  processDependencyTags(reqs, cvals);
  processDependencyConditions(reqs, cvals, path);
  const removed = new Set(reqs.filter((r) => !r.enabled).map((r) => r.name));
  const kept = c.dependencies.filter((d) => !removed.has(d.metadata.name));
  const keptMeta = reqs.filter((r) => !removed.has(r.name));
  for (const t of kept) processDependencyEnabled(t, cvals, `${path}${t.metadata.name}.`);
  c.metadata.dependencies = keptMeta;
  c.dependencies = kept;
}

function processDependencyImportValues(c: Chart): void {
  for (const d of c.dependencies) processDependencyImportValues(d);
  processImportValues(c);
}

/** Builds {a: {b: data}} from "a.b"; "." is the root itself. */
function pathToMap(path: string, data: GoMap): GoMap {
  if (path === '.') return data;
  let cur: GoMap = data;
  for (const part of path.split('.').reverse()) cur = { [part]: cur };
  return cur;
}

function processImportValues(c: Chart): void {
  const reqs = c.metadata.dependencies;
  if (reqs.length === 0) return;
  const cvals = mergeChartValues(c, {});
  let b: GoMap = {};
  for (const r of reqs) {
    const outiv: GoValue[] = [];
    for (const riv of r.importValues) {
      if (isGoMap(riv)) {
        const child = formatValue(riv.child === undefined ? null : riv.child);
        const parent = formatValue(riv.parent === undefined ? null : riv.parent);
        outiv.push({ child, parent });
        const vv = table(cvals, `${r.name}.${child}`);
        if (vv === undefined) continue;
        b = coalesceTables(b, pathToMap(parent, deepCopy(vv) as GoMap), true);
      } else if (typeof riv === 'string') {
        const child = `exports.${riv}`;
        outiv.push({ child, parent: '.' });
        const vm = table(cvals, `${r.name}.${child}`);
        if (vm === undefined) continue;
        b = coalesceTables(b, deepCopy(vm) as GoMap, true);
      }
    }
    r.importValues = outiv;
  }
  c.values = coalesceTables(deepCopy(cvals) as GoMap, b, true);
}
