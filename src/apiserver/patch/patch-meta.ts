// The per-kind facts strategic merge patch needs (the Go `patchStrategy`/`patchMergeKey` struct tags),
// written as one flat table of field paths per kind and compiled into a tree for lookups.

/**
 * `merge`: a list merges with the live list (maps by `mergeKey`, primitives as a set); `replace` (or no
 * strategy) replaces lists and merges maps; `retainKeys`: only documents that clients send
 * `$retainKeys` for this map or list item (the directive itself is honoured wherever it appears).
 */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

export interface FieldPatchMeta {
  strategy?: PatchStrategy;
  /** For merged lists of maps: the field that identifies an item (`name`, `containerPort`, `uid`). */
  mergeKey?: string;
}

/**
 * Dotted field path from the object root → meta. List items are transparent: the fields of
 * `spec.containers` items are `spec.containers.env`. `*` matches any key of a map-valued field.
 * Fields not listed merge if they are maps and are replaced if they are lists.
 */
export type PatchMetaTable = Readonly<Record<string, FieldPatchMeta>>;

export interface PatchMetaNode {
  readonly meta: FieldPatchMeta | undefined;
  child(field: string): PatchMetaNode;
}

/** The compiled patch metadata of one kind; build it with `definePatchMeta`. */
export interface KindPatchMeta {
  readonly root: PatchMetaNode;
  /** The merged table it was compiled from, for inspection (e.g. discovery of list merge keys). */
  readonly table: PatchMetaTable;
}

const STRATEGIES: readonly string[] = ['merge', 'replace', 'retainKeys', 'merge,retainKeys'];

class Node implements PatchMetaNode {
  meta: FieldPatchMeta | undefined;
  readonly children = new Map<string, Node>();

  child(field: string): PatchMetaNode {
    return this.children.get(field) ?? this.children.get('*') ?? EMPTY;
  }
}

const EMPTY: PatchMetaNode = { meta: undefined, child: () => EMPTY };

/** Prefixes every path of `table` with `prefix`: reuse one table (PodSpec, ObjectMeta) at several places. */
export function mountPatchMeta(prefix: string, table: PatchMetaTable): PatchMetaTable {
  return Object.fromEntries(Object.entries(table).map(([path, meta]) => [`${prefix}.${path}`, meta]));
}

/** Compiles tables (later ones win on the same path); throws on a malformed entry, a programming error. */
export function definePatchMeta(...tables: PatchMetaTable[]): KindPatchMeta {
  const table: Record<string, FieldPatchMeta> = Object.assign({}, ...tables) as Record<
    string,
    FieldPatchMeta
  >;
  const root = new Node();
  for (const [path, meta] of Object.entries(table)) {
    if (meta.strategy !== undefined && !STRATEGIES.includes(meta.strategy)) {
      throw new Error(`patch meta ${path}: unknown strategy ${String(meta.strategy)}`);
    }
    if (meta.mergeKey !== undefined && listStrategy(meta) !== 'merge') {
      throw new Error(`patch meta ${path}: a mergeKey needs a merge strategy`);
    }
    let node = root;
    for (const part of path.split('.')) {
      if (part === '') throw new Error(`patch meta: empty segment in path "${path}"`);
      let next = node.children.get(part);
      if (!next) {
        next = new Node();
        node.children.set(part, next);
      }
      node = next;
    }
    node.meta = meta;
  }
  return { root, table };
}

/** How a list field combines: only an explicit merge strategy merges. */
export function listStrategy(meta: FieldPatchMeta | undefined): 'merge' | 'replace' {
  return meta?.strategy === 'merge' || meta?.strategy === 'merge,retainKeys' ? 'merge' : 'replace';
}

/** How a map field combines: maps merge unless the field says `replace`. */
export function mapStrategy(meta: FieldPatchMeta | undefined): 'merge' | 'replace' {
  return meta?.strategy === 'replace' ? 'replace' : 'merge';
}
