// Audit retention: events older than the retention are removed, oldest first. Event names start with
// their time in milliseconds, so the name order of a list is time order and a pass stops early.
import type { Store } from '../store/types.js';
import { deleteIfPresent } from '../store/delete-if-present.js';
import { AUDIT_RESOURCE } from './audit.js';

const PAGE = 500;

/** Time of an event from its name (`<13-digit ms>-…`); undefined for a name not made by the sink. */
function eventTime(name: string): number | undefined {
  const match = /^(\d{13})-/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Deletes audit events recorded before `cutoff`; returns how many went. */
export async function pruneAuditEvents(store: Store, cutoff: Date): Promise<number> {
  const limit = cutoff.getTime();
  let removed = 0;
  for (;;) {
    const page = await store.list(AUDIT_RESOURCE, { limit: PAGE });
    let reachedNewer = false;
    for (const event of page.items) {
      const name = event.metadata.name ?? '';
      const time = eventTime(name);
      if (time === undefined || time >= limit) {
        reachedNewer = true;
        break;
      }
      // false: another replica pruned it first.
      if (await deleteIfPresent(store, AUDIT_RESOURCE, '', name)) removed++;
    }
    if (reachedNewer || !page.continue) return removed;
  }
}

/** `30d`, `12h`, `90m` → milliseconds; 0 turns retention off. */
export function parseRetention(value: string): number {
  const match = /^(\d+)(d|h|m)$/.exec(value.trim());
  if (!match) throw new Error(`expected a duration like 30d, 12h or 90m, got "${value}"`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[match[2] as 'd' | 'h' | 'm'];
  return Number(match[1]) * unit;
}
