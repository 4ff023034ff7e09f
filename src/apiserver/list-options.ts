// Label and field selectors of a list or watch request, as one predicate over stored objects.
import type { KindDefinition } from '../kinds/types.js';
import type { KubeObject } from '../store/types.js';
import { fieldSelectorPredicate, parseFieldSelector, parseLabelSelector } from './selectors.js';

/** undefined when the request selects everything (no filtering cost). */
export function listPredicate(
  def: KindDefinition,
  query: URLSearchParams,
): ((obj: KubeObject) => boolean) | undefined {
  const labelSelector = query.get('labelSelector') ?? '';
  const fieldSelector = query.get('fieldSelector') ?? '';
  const checks: ((obj: KubeObject) => boolean)[] = [];
  if (labelSelector.trim()) {
    const matches = parseLabelSelector(labelSelector);
    checks.push((obj) => matches(obj.metadata.labels));
  }
  if (fieldSelector.trim()) {
    const requirements = parseFieldSelector(fieldSelector);
    if (requirements.length > 0)
      checks.push(fieldSelectorPredicate(requirements, def.selectableFields ?? {}));
  }
  if (checks.length === 0) return undefined;
  if (checks.length === 1) return checks[0];
  return (obj) => checks.every((check) => check(obj));
}
