// Parses HTTP Accept headers into ordered media-type clauses the way the Kubernetes apiserver does
// (goautoneg): q-values first, then specific types before wildcards; parameters kept for `as=Table` etc.

export interface AcceptClause {
  type: string;
  subtype: string;
  /** Lower-cased keys, unquoted values, without `q`. */
  params: Record<string, string>;
  q: number;
}

/** Clauses in preference order; a missing or empty header means `*\/*`. Clauses with q=0 are dropped. */
export function parseAccept(header: string | undefined): AcceptClause[] {
  if (header === undefined || header.trim() === '') return [{ type: '*', subtype: '*', params: {}, q: 1 }];
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [range, ...rawParams] = part.split(';');
    const [type, subtype] = (range ?? '').trim().toLowerCase().split('/');
    if (!type) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const raw of rawParams) {
      const eq = raw.indexOf('=');
      if (eq < 0) continue;
      const key = raw.slice(0, eq).trim().toLowerCase();
      let value = raw.slice(eq + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (key === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? parsed : 0;
      } else {
        params[key] = value;
      }
    }
    if (q <= 0) continue;
    clauses.push({ type, subtype: subtype ?? '*', params, q });
  }
  const rank = (c: AcceptClause) => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  // Array.prototype.sort is stable, so equal clauses keep the client's order.
  return clauses.sort((a, b) => b.q - a.q || rank(a) - rank(b));
}

/** Whether `clause` admits `type/subtype` (wildcards included). */
export function acceptsMediaType(clause: AcceptClause, type: string, subtype: string): boolean {
  return (
    (clause.type === '*' || clause.type === type) && (clause.subtype === '*' || clause.subtype === subtype)
  );
}
