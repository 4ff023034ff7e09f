// Coalescing values the way helm merges `-f` files and `--set` flags: later sources win key by key,
// maps merge deeply, and a null removes the key.
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';

/** Merges `override` into `base` (mutating it) with helm's rules for user-supplied values. */
export function mergeValues(base: GoMap, override: GoMap): GoMap {
  for (const [key, value] of Object.entries(override)) {
    const current = base[key];
    if (value === null) {
      Reflect.deleteProperty(base, key);
    } else if (isGoMap(value) && isGoMap(current)) {
      mergeValues(current, value);
    } else {
      base[key] = cloneValue(value);
    }
  }
  return base;
}

function cloneValue(v: GoValue): GoValue {
  if (Array.isArray(v)) return v.map(cloneValue);
  if (isGoMap(v)) {
    const out: GoMap = {};
    for (const [k, child] of Object.entries(v)) out[k] = cloneValue(child);
    return out;
  }
  return v;
}
