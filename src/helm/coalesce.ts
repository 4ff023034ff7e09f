// helm's value coalescing (pkg/chart/common/util/coalesce.go, helm 4.1.4): user values over chart
// defaults, each subchart's defaults under its own key, globals copied down, and null deleting a key.
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import type { Chart } from './chart.js';
import { typeNameOf } from '../gotemplate/sprig/cast.js';
import { HelmChartError } from './errors.js';

const GLOBAL_KEY = 'global';

export function deepCopy(v: GoValue): GoValue {
  if (Array.isArray(v)) return v.map(deepCopy);
  if (isGoMap(v)) {
    const out: GoMap = {};
    for (const [k, child] of Object.entries(v)) out[k] = deepCopy(child);
    return out;
  }
  return v;
}

function deepCopyMap(m: GoMap): GoMap {
  return deepCopy(m) as GoMap;
}

/** CoalesceValues: the values a chart renders with; nulls from users remove chart defaults. */
export function coalesceValues(chart: Chart, values: GoMap): GoMap {
  return coalesce(chart, deepCopyMap(values), false);
}

/** MergeValues: as coalesceValues, but nulls are kept for a later coalescing to act on. */
export function mergeChartValues(chart: Chart, values: GoMap): GoMap {
  return coalesce(chart, deepCopyMap(values), true);
}

function coalesce(chart: Chart, dest: GoMap, merge: boolean): GoMap {
  coalesceChartValues(chart, dest, merge);
  return coalesceDeps(chart, dest, merge);
}

function coalesceDeps(chart: Chart, dest: GoMap, merge: boolean): GoMap {
  for (const sub of chart.dependencies) {
    const name = sub.metadata.name;
    const current = dest[name];
    if (current === undefined) dest[name] = {};
    else if (!isGoMap(current)) {
      // Go's %t of a non-bool prints %!t(TYPE=VALUE); the message is helm's all the same.
      throw new HelmChartError(`type mismatch on ${name}: %!t(${typeNameOf(current)}=${String(current)})`);
    }
    const dvmap = dest[name] as GoMap;
    coalesceGlobals(dvmap, dest);
    dest[name] = coalesce(sub, dvmap, merge);
  }
  return dest;
}

/** Copies the globals of `src` (the parent's values) into `dest` (a subchart's), merging tables top-down. */
function coalesceGlobals(dest: GoMap, src: GoMap): void {
  let dg: GoMap;
  const destGlobal = dest[GLOBAL_KEY];
  if (destGlobal === undefined) dg = {};
  else if (isGoMap(destGlobal)) dg = destGlobal;
  else return;
  let sg: GoMap;
  const srcGlobal = src[GLOBAL_KEY];
  if (srcGlobal === undefined) sg = {};
  else if (isGoMap(srcGlobal)) sg = srcGlobal;
  else return;
  for (const [key, val] of Object.entries(sg)) {
    if (isGoMap(val)) {
      const vv: GoMap = { ...val };
      const destv = dg[key];
      if (destv === undefined) dg[key] = vv;
      else if (isGoMap(destv)) {
        coalesceTables(vv, destv, true);
        dg[key] = vv;
      }
    } else if (isGoMap(dg[key])) {
      // A table in the subchart's globals is not replaced by a scalar from above.
    } else dg[key] = val;
  }
  dest[GLOBAL_KEY] = dg;
}

function isSubchartKey(chart: Chart, key: string): boolean {
  return chart.dependencies.some((d) => d.metadata.name === key);
}

/** coalesceValues: the chart's defaults fill what `v` lacks; tables merge, user values win. */
function coalesceChartValues(chart: Chart, v: GoMap, merge: boolean): void {
  const vc = deepCopyMap(chart.values);
  for (const [key, val] of Object.entries(vc)) {
    if (Object.prototype.hasOwnProperty.call(v, key)) {
      const value = v[key]!;
      if (value === null && !merge) {
        Reflect.deleteProperty(v, key);
      } else if (isGoMap(value)) {
        if (isGoMap(val)) coalesceTables(value, val, merge || isSubchartKey(chart, key));
      }
    } else {
      v[key] = val;
    }
  }
}

/** coalesceTablesFullKey: merges `src` into `dst`; dst is authoritative. Mutates both, as helm does. */
export function coalesceTables(dst: GoMap, src: GoMap, merge: boolean): GoMap {
  const srcOriginalNonNil = new Set<string>();
  for (const [key, val] of Object.entries(src)) if (val !== null) srcOriginalNonNil.add(key);
  for (const [key, val] of Object.entries(dst)) if (val === null) src[key] = null;
  for (const [key, val] of Object.entries(src)) {
    const has = Object.prototype.hasOwnProperty.call(dst, key);
    const dv = dst[key];
    if (has && !merge && dv === null && srcOriginalNonNil.has(key)) {
      Reflect.deleteProperty(dst, key);
    } else if (!has) {
      dst[key] = val;
    } else if (isGoMap(val)) {
      if (isGoMap(dv)) coalesceTables(dv, val, merge);
    }
  }
  return dst;
}
