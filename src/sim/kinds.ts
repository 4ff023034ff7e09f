// The kinds a simulated cluster serves: everything a real cluster's API has that kubectl, helm and
// client-node use, with the simulator's extra subresources (pods/log, pods/eviction) declared.
import { builtinKinds } from '../kinds/builtin/index.js';
import type { KindDefinition } from '../kinds/types.js';

let cached: readonly KindDefinition[] | undefined;

/** Built once per process and shared by every cluster (definitions are immutable). */
export function simulatorKinds(): readonly KindDefinition[] {
  cached ??= builtinKinds.filter((k) => k.kind !== 'AuditEvent');
  return cached;
}
