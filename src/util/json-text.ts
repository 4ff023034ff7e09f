// Text forms the whole codebase shares: JSON with sorted keys (equal values, equal text, whatever the key
// order) and metav1.MicroTime as Kubernetes writes it (Leases' renew and acquire times).

/** JSON with object keys sorted and undefined members left out, so equal values give equal text. */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** metav1.MicroTime: RFC 3339 with microseconds (`2024-01-02T03:04:05.678000Z`). */
export function formatMicroTime(t: Date | number): string {
  return new Date(t).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
