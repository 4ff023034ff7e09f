// A fast reader for the head of a rendered manifest (kind, hook annotations) that avoids a full YAML
// parse: it accepts only plain block YAML it fully understands and answers undefined for anything else.
//
// Sorting manifests needs each document's kind and annotations, and helm gets them by decoding the whole
// document, which also rejects invalid YAML. A full parse is most of a chart render's cost, so this
// reader handles the common shape (block maps and sequences, single-line scalars, block scalars) and
// the caller falls back to the full parser whenever it returns undefined. Whatever it accepts is valid
// YAML whose head it reads exactly as the full parser would: the unit tests check that on every document
// of the chart corpus.

export interface ManifestHead {
  kind: string;
  annotations: Record<string, string> | null;
}

/** YAML 1.1 words that resolve to booleans or null: such plain scalars are not strings. */
const NON_STRING_WORD =
  /^(?:~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const PLAIN_KEY = /^([A-Za-z_][A-Za-z0-9_./-]*)[ ]*:(?=[ ]|$)/;
const DQ_KEY = /^"([^"\\]*)"[ ]*:(?=[ ]|$)/;
const SQ_KEY = /^'((?:[^']|'')*)'[ ]*:(?=[ ]|$)/;
const BLOCK_SCALAR_HEADER = /^[|>](?:[-+]?[1-9]?|[1-9][-+])[ ]*(?:#.*)?$/;
const DQ_SCALAR = /^"((?:[^"\\]|\\["\\/bfnrt])*)"[ ]*(?:#.*)?$/;
const SQ_SCALAR = /^'((?:[^']|'')*)'[ ]*(?:#.*)?$/;
const EMPTY_FLOW = /^(\{\}|\[\])[ ]*(?:#.*)?$/;
/** A one-line flow sequence of quoted or simple plain scalars: `['wget', "-q", x]`. */
const FLOW_ITEM = `(?:"(?:[^"\\\\]|\\\\["\\\\/bfnrt])*"|'(?:[^']|'')*'|(?:-(?=[^\\s,\\]])|[^\\s,\\[\\]{}#:'"&*!|>%@\`?-])[^,\\[\\]{}#:'"]*?)`;
const FLOW_SEQ = new RegExp(`^\\[[ ]*(?:${FLOW_ITEM}(?:[ ]*,[ ]*${FLOW_ITEM})*[ ]*,?)?[ ]*\\][ ]*(?:#.*)?$`);

type Scalar = { kind: 'string'; value: string } | { kind: 'other' };

/** What follows `key:` (or `- `) on the same line. */
type Inline =
  | { type: 'none' } // nothing: a nested node or null follows
  | { type: 'block' } // | or > block scalar
  | { type: 'emptyMap' }
  | { type: 'emptySeq' }
  | { type: 'scalar'; scalar: Scalar };

function readInline(rest: string): Inline | undefined {
  if (rest === '' || rest.startsWith('#')) return { type: 'none' };
  if (BLOCK_SCALAR_HEADER.test(rest)) return { type: 'block' };
  const flow = EMPTY_FLOW.exec(rest);
  if (flow) return flow[1] === '{}' ? { type: 'emptyMap' } : { type: 'emptySeq' };
  if (FLOW_SEQ.test(rest)) return { type: 'emptySeq' };
  const dq = DQ_SCALAR.exec(rest);
  if (dq) return { type: 'scalar', scalar: { kind: 'string', value: JSON.parse(`"${dq[1]!}"`) as string } };
  const sq = SQ_SCALAR.exec(rest);
  if (sq) return { type: 'scalar', scalar: { kind: 'string', value: sq[1]!.replaceAll("''", "'") } };
  // A plain scalar: no indicator first, no `: ` or ` #` inside except a trailing comment.
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(rest) && !/^-[^ ]/.test(rest)) return undefined;
  const hash = rest.indexOf(' #');
  const text = (hash >= 0 ? rest.slice(0, hash) : rest).trimEnd();
  if (text === '' || /:( |$)/.test(text) || text.includes('\t')) return undefined;
  const isString = /^[A-Za-z_/]/.test(text) && !NON_STRING_WORD.test(text) && !/^\.(?:inf|nan)/i.test(text);
  return { type: 'scalar', scalar: isString ? { kind: 'string', value: text } : { kind: 'other' } };
}

interface Context {
  indent: number;
  type: 'map' | 'seq';
  keys: Set<string>;
  /** Path of keys from the root to this map (empty for sequences and their items' maps). */
  path: string[] | null;
}

/**
 * Reads kind and annotations from a block-YAML document, or returns undefined when the document uses
 * anything this reader does not handle (the caller then parses it fully).
 */
export function fastHead(doc: string): ManifestHead | undefined {
  if (doc.includes('\t') || doc.includes('\r')) return undefined;
  const lines = doc.split('\n');
  const stack: Context[] = [];
  /** The key (or item) whose value is on the following lines, with its indentation. */
  let pending: { indent: number; path: string[] | null; seqItem: boolean; only?: 'scalar' | 'map' } | null =
    null;
  /** Inside a block scalar: lines indented more than this belong to it. */
  let blockParent = -1;
  let blockIndent = -1;
  let kind: string | null = null;
  let annotations: Record<string, string> | null = null;
  let sawContent = false;

  for (const line of lines) {
    if (blockParent >= 0) {
      if (line === '') continue;
      const indent = line.length - line.trimStart().length;
      if (indent === line.length) return undefined; // spaces-only line in a block scalar: leave it to the parser
      if (indent > blockParent) {
        if (blockIndent < 0) blockIndent = indent;
        else if (indent < blockIndent) return undefined;
        continue;
      }
      blockParent = -1;
      blockIndent = -1;
    }
    const trimmed = line.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    if (/^(?:---|\.\.\.)(?: |$)/.test(line) || line.startsWith('%')) return undefined;
    let col = line.length - trimmed.length;
    if (!sawContent && col !== 0) return undefined;
    sawContent = true;
    let rest = trimmed;

    // Close the contexts this line is outside of.
    while (stack.length > 0 && stack[stack.length - 1]!.indent > col) stack.pop();
    let top = stack[stack.length - 1];

    let itemPath: string[] | null = null;
    if (rest === '-' || rest.startsWith('- ')) {
      // A sequence item.
      // kind, apiVersion and metadata.name must be strings; metadata and its annotations maps.
      if (pending?.only && (col > pending.indent || (!pending.seqItem && col === pending.indent)))
        return undefined;
      if (pending && col > pending.indent) {
        stack.push({ indent: col, type: 'seq', keys: new Set(), path: null });
      } else if (pending && !pending.seqItem && col === pending.indent) {
        // `key:` followed by `- item` at the key's own indentation.
        stack.push({ indent: col, type: 'seq', keys: new Set(), path: null });
      } else if (!pending && top?.type === 'seq' && top.indent === col) {
        // another item
      } else return undefined;
      pending = null;
      top = stack[stack.length - 1]!;
      const after = rest.slice(1);
      const spaces = after.length - after.trimStart().length;
      rest = after.trimStart();
      if (rest === '' || rest.startsWith('#')) {
        pending = { indent: col, path: null, seqItem: true };
        continue;
      }
      if (rest.startsWith('- ') || rest === '-') return undefined;
      const isEntry = PLAIN_KEY.test(rest) || DQ_KEY.test(rest) || SQ_KEY.test(rest);
      if (!isEntry) {
        const inline = readInline(rest);
        if (!inline || inline.type === 'none') return undefined;
        if (inline.type === 'block') {
          blockParent = col;
        }
        continue;
      }
      // `- key: value`: a map whose keys sit after the dash.
      col = col + 1 + spaces;
      stack.push({ indent: col, type: 'map', keys: new Set(), path: null });
      top = stack[stack.length - 1]!;
      itemPath = null;
    } else if (pending && col > pending.indent) {
      if (pending.only === 'scalar') return undefined;
      stack.push({ indent: col, type: 'map', keys: new Set(), path: pending.path });
      pending = null;
      top = stack[stack.length - 1]!;
    } else if (pending) {
      // The pending key had no value (null): this line continues an enclosing map.
      pending = null;
      while (stack.length > 0 && stack[stack.length - 1]!.indent > col) stack.pop();
      top = stack[stack.length - 1];
    } else if (stack.length === 0 && col === 0) {
      stack.push({ indent: 0, type: 'map', keys: new Set(), path: [] });
      top = stack[0]!;
    }
    if (!top || top.type !== 'map' || top.indent !== col) return undefined;
    itemPath = top.path;

    // A mapping entry.
    let key: string;
    let m = PLAIN_KEY.exec(rest);
    if (m) {
      key = m[1]!;
      if (NON_STRING_WORD.test(key)) return undefined;
    } else if ((m = DQ_KEY.exec(rest))) key = m[1]!;
    else if ((m = SQ_KEY.exec(rest))) key = m[1]!.replaceAll("''", "'");
    else return undefined;
    if (top.keys.has(key)) return undefined;
    top.keys.add(key);
    const inline = readInline(rest.slice(m[0].length).trimStart());
    if (!inline) return undefined;
    const path = itemPath ? [...itemPath, key] : null;
    const where = path?.join('.');

    // The fields helm's SimpleHead decodes: each must come out as the full parser would read it.
    if (where === 'kind' || where === 'apiVersion' || where === 'metadata.name') {
      if (inline.type === 'scalar') {
        if (inline.scalar.kind !== 'string') return undefined;
        if (where === 'kind') kind = inline.scalar.value;
      } else if (inline.type !== 'none') return undefined;
    } else if (where === 'metadata') {
      if (inline.type === 'emptyMap') continue;
      if (inline.type !== 'none') return undefined;
    } else if (where === 'metadata.annotations') {
      // `annotations:` alone is null; its entries (below) make it a map.
      if (inline.type === 'emptyMap') annotations = {};
      else if (inline.type !== 'none') return undefined;
    } else if (path && path.length === 3 && path[0] === 'metadata' && path[1] === 'annotations') {
      if (inline.type !== 'scalar' || inline.scalar.kind !== 'string') return undefined;
      (annotations ??= {})[key] = inline.scalar.value;
      continue;
    }
    if (inline.type === 'none') {
      pending = { indent: col, path, seqItem: false };
      if (where === 'kind' || where === 'apiVersion' || where === 'metadata.name') pending.only = 'scalar';
      else if (where === 'metadata' || where === 'metadata.annotations') pending.only = 'map';
    } else if (inline.type === 'block') blockParent = col;
  }
  return { kind: kind ?? '', annotations };
}
