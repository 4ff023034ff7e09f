// Field sets as server-side apply tracks them: paths of `f:` fields, `k:` keyed list items, `v:` set
// items and `i:` indexes, with set algebra and the `fieldsV1` JSON form Kubernetes stores in managedFields.

/** A JSON value as found in a Kubernetes object. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One step of a path: a map field, an associative-list item by its keys, a set item, or an index. */
export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, Json])[] }
  | { readonly kind: 'value'; readonly value: Json }
  | { readonly kind: 'index'; readonly index: number };

export type FieldPath = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

/** Key fields are kept sorted by name: `{protocol, containerPort}` and `{containerPort, protocol}` are one item. */
export function keyElement(fields: Record<string, Json>): PathElement {
  const sorted = Object.keys(fields)
    .sort(compareStrings)
    .map((name) => [name, fields[name] as Json] as const);
  return { kind: 'key', fields: sorted };
}

export function valueElement(value: Json): PathElement {
  return { kind: 'value', value };
}

export function indexElement(index: number): PathElement {
  return { kind: 'index', index };
}

/** `['spec', 'replicas']` → a path of field elements. */
export function fieldPath(...names: string[]): FieldPath {
  return names.map(fieldElement);
}

// Byte order for ASCII, code-unit order otherwise: what Go's strings.Compare gives for the names in practice.
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function typeRank(v: Json): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null) return 4;
  return 5;
}

/** The total order structured-merge-diff gives values: numbers < strings < booleans < lists < maps < null. */
export function compareJson(a: Json, b: Json): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareJson(a[i] as Json, b[i] as Json);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ma = a as Record<string, Json>;
    const mb = b as Record<string, Json>;
    const ka = Object.keys(ma).sort(compareStrings);
    const kb = Object.keys(mb).sort(compareStrings);
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
      const c = compareStrings(ka[i]!, kb[i]!) || compareJson(ma[ka[i]!] as Json, mb[kb[i]!] as Json);
      if (c !== 0) return c;
    }
    return ka.length - kb.length;
  }
  return 0;
}

const ELEMENT_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Fields, then keys, then values, then indexes; within a kind by content. This is the serialization order. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return ELEMENT_RANK[a.kind] - ELEMENT_RANK[b.kind];
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'index':
      return a.index - (b as typeof a).index;
    case 'value':
      return compareJson(a.value, (b as typeof a).value);
    case 'key': {
      const bf = (b as typeof a).fields;
      for (let i = 0; i < Math.min(a.fields.length, bf.length); i++) {
        const [an, av] = a.fields[i]!;
        const [bn, bv] = bf[i]!;
        const c = compareStrings(an, bn) || compareJson(av, bv);
        if (c !== 0) return c;
      }
      return a.fields.length - bf.length;
    }
  }
}

/**
 * JSON the way Go's encoding/json writes it: map keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped.
 * Used for `k:`/`v:` keys and manager identifiers so ours match byte for byte.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort(compareStrings))
      out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** `f:name`, `k:{"name":"nginx"}`, `v:"x"`, `i:0`: the key form in fieldsV1. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key': {
      // Keys stay in their (sorted) order rather than goJson's, which sorts too: same result, no reliance.
      const body = pe.fields.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',');
      return `k:{${body}}`;
    }
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Parses a fieldsV1 key; undefined for an unknown element type (Kubernetes drops those silently). */
export function parsePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new Error(`key must be 2 characters long: ${s}`);
  if (s[1] !== ':') throw new Error(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(body);
    case 'v':
      return valueElement(JSON.parse(body) as Json);
    case 'k': {
      const parsed = JSON.parse(body) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new Error(`invalid key element: ${s}`);
      }
      return keyElement(parsed as Record<string, Json>);
    }
    case 'i': {
      if (!/^-?\d+$/.test(body)) throw new Error(`invalid index element: ${s}`);
      return indexElement(Number(body));
    }
    default:
      return undefined;
  }
}

function goValueString(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValueString).join(',')}]`;
  return Object.keys(v)
    .sort(compareStrings)
    .map((k) => `${k}=${goValueString(v[k] as Json)}`)
    .join('');
}

/** `.spec.containers[name="nginx"].image`: how conflicts print a path. */
export function pathToString(path: FieldPath): string {
  return path
    .map((pe) => {
      switch (pe.kind) {
        case 'field':
          return `.${pe.name}`;
        case 'key':
          return `[${pe.fields.map(([n, v]) => `${n}=${goValueString(v)}`).join(',')}]`;
        case 'value':
          return `[=${goValueString(pe.value)}]`;
        case 'index':
          return `[${pe.index}]`;
      }
    })
    .join('');
}

interface ChildNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of field paths, stored as a tree: `members` are paths ending at this level, `children` hold the
 * longer ones. A path and its extensions are independent members ("owns the list item" vs "owns its image").
 * Operations return new sets; only `insert` mutates.
 */
export class FieldSet {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, ChildNode>();

  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path; the empty path (the object itself) is never a member. */
  insert(path: FieldPath): this {
    if (path.length === 0) return this;
    const last = path[path.length - 1]!;
    const node = path.slice(0, -1).reduce<FieldSet>((n, pe) => n.descend(pe), this);
    node.members.set(serializePathElement(last), last);
    return this;
  }

  private descend(pe: PathElement): FieldSet {
    const k = serializePathElement(pe);
    let child = this.children.get(k);
    if (!child) {
      child = { pe, set: new FieldSet() };
      this.children.set(k, child);
    }
    return child.set;
  }

  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    const node = path
      .slice(0, -1)
      .reduce<FieldSet | undefined>((n, pe) => n?.children.get(serializePathElement(pe))?.set, this);
    return node?.members.has(serializePathElement(path[path.length - 1]!)) ?? false;
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(serializePathElement(pe));
  }

  /** The paths below `pe`, without the prefix (empty set when none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(serializePathElement(pe))?.set ?? new FieldSet();
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    for (const [k, pe] of other.members) out.members.set(k, pe);
    for (const [k, c] of other.children) {
      const mine = out.children.get(k);
      out.children.set(k, { pe: c.pe, set: mine ? mine.set.union(c.set) : c.set.copy() });
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      if (!theirs) continue;
      const sub = c.set.intersection(theirs.set);
      if (!sub.isEmpty()) out.children.set(k, { pe: c.pe, set: sub });
    }
    return out;
  }

  /** Paths of this set not in `other`; a member of `other` does not remove the paths below it. */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      const sub = theirs ? c.set.difference(theirs.set) : c.set.copy();
      if (!sub.isEmpty()) out.children.set(k, { pe: c.pe, set: sub });
    }
    return out;
  }

  /** Like `difference`, but a member of `other` also removes everything below it (prefix exclusion). */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (other.members.has(k)) continue;
      const theirs = other.children.get(k);
      const sub = theirs ? c.set.recursiveDifference(theirs.set) : c.set.copy();
      if (!sub.isEmpty()) out.children.set(k, { pe: c.pe, set: sub });
    }
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, { pe: c.pe, set: c.set.copy() });
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.members.size !== other.members.size || this.children.size !== other.children.size) return false;
    for (const k of this.members.keys()) if (!other.members.has(k)) return false;
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      if (!theirs || !c.set.equals(theirs.set)) return false;
    }
    return true;
  }

  /** Every path, in structured-merge-diff's order: this level's members sorted, then each child's subtree. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    this.collect([], out);
    return out;
  }

  private collect(prefix: PathElement[], out: FieldPath[]): void {
    for (const pe of sortedElements(this.members.values())) out.push([...prefix, pe]);
    for (const c of sortedNodes(this.children.values())) c.set.collect([...prefix, c.pe], out);
  }

  /** Internal tree walk for the typed layer: member and child views in element order. */
  mapChildren<T>(fn: (pe: PathElement, sub: FieldSet) => T): T[] {
    return sortedNodes(this.children.values()).map((c) => fn(c.pe, c.set));
  }

  memberElements(): PathElement[] {
    return sortedElements(this.members.values());
  }

  /** The `fieldsV1` object: keys in Kubernetes' order, `{}` for leaves, `".": {}` where a node is also a member. */
  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (includeSelf && !this.isEmpty()) out['.'] = {};
    const entries: { pe: PathElement; key: string; node?: FieldSet; member: boolean }[] = [];
    for (const [key, pe] of this.members) entries.push({ pe, key, member: true });
    for (const [key, c] of this.children) {
      const existing = entries.find((e) => e.key === key);
      if (existing) existing.node = c.set;
      else entries.push({ pe: c.pe, key, node: c.set, member: false });
    }
    entries.sort((a, b) => comparePathElements(a.pe, b.pe));
    for (const e of entries) out[e.key] = e.node ? e.node.emit(e.member) : {};
    return out;
  }

  /** Reads a `fieldsV1` object; throws on malformed keys. Unknown element types are dropped. */
  static fromFieldsV1(obj: unknown): FieldSet {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      throw new Error('fieldsV1 must be a JSON object');
    }
    const [set] = FieldSet.read(obj as Record<string, unknown>);
    return set ?? new FieldSet();
  }

  /** The children found under `obj`, and whether `obj` itself is a member of its parent. */
  private static read(obj: Record<string, unknown>): [FieldSet | undefined, boolean] {
    let children: FieldSet | undefined;
    let isMember = false;
    for (const [key, value] of Object.entries(obj)) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new Error(`fieldsV1 entry ${JSON.stringify(key)} must be an object`);
      }
      if (key === '.') {
        isMember = true;
        continue;
      }
      const pe = parsePathElement(key);
      if (!pe) continue;
      const [grandchildren, childIsMember] = FieldSet.read(value as Record<string, unknown>);
      if (childIsMember || grandchildren) children ??= new FieldSet();
      if (childIsMember) children!.members.set(serializePathElement(pe), pe);
      if (grandchildren) children!.children.set(serializePathElement(pe), { pe, set: grandchildren });
    }
    if (!children) isMember = true;
    return [children, isMember];
  }
}

function sortedElements(it: Iterable<PathElement>): PathElement[] {
  return [...it].sort(comparePathElements);
}

function sortedNodes(it: Iterable<ChildNode>): ChildNode[] {
  return [...it].sort((a, b) => comparePathElements(a.pe, b.pe));
}
