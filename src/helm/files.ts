// helm's `.Files` (pkg/engine/files.go): the chart's non-template files as a Go map[string][]byte with
// Get/GetBytes/Glob/AsConfig/AsSecrets/Lines, plus which loaded files helm puts there.
import { tagSlice } from '../gotemplate/sprig/cast.js';
import { parseYAML, toYaml } from '../gotemplate/yaml.js';
import { isGoMap, type GoFunc, type GoValue } from '../gotemplate/value.js';

/**
 * The files helm's chart loader (pkg/chart/v2/loader LoadFiles) leaves in chart.Files, which is all
 * `.Files` sees: everything except Chart.yaml, Chart.lock, values.yaml, values.schema.json, templates/
 * and charts/ (but charts/*.prov stays). requirements.yaml/.lock stay only in apiVersion v1 charts.
 * `.helmignore` itself is a file like any other (unless it ignores itself). `all` is what
 * readChartArchive or loadDirectoryFiles returned; apiVersion defaults to Chart.yaml's (v1 when unset).
 */
export function chartFilesForFilesObject(all: Map<string, Buffer>, apiVersion?: string): Map<string, Buffer> {
  const version = apiVersion ?? chartApiVersion(all.get('Chart.yaml'));
  const out = new Map<string, Buffer>();
  for (const [name, data] of all) {
    switch (name) {
      case 'Chart.yaml':
      case 'Chart.lock':
      case 'values.yaml':
      case 'values.schema.json':
        continue;
      case 'requirements.yaml':
      case 'requirements.lock':
        if (version === 'v1') out.set(name, data);
        continue;
    }
    if (name.startsWith('templates/')) continue;
    if (name.startsWith('charts/') && !name.endsWith('.prov')) continue;
    out.set(name, data);
  }
  return out;
}

function chartApiVersion(chartYaml: Buffer | undefined): string {
  if (chartYaml === undefined) return 'v1';
  try {
    const meta = parseYAML(chartYaml.toString('utf8'));
    const v = isGoMap(meta) ? meta.apiVersion : undefined;
    return typeof v === 'string' && v !== '' ? v : 'v1';
  } catch {
    // A broken Chart.yaml fails the load elsewhere with helm's message; here any answer will do.
    return 'v1';
  }
}

/** Go's []byte as the template engine carries it: a slice of ints that %v prints as [104 105]. */
function goBytes(data: Buffer): GoValue[] {
  return tagSlice(
    [...data].map((b) => BigInt(b)),
    '[]uint8',
  );
}

function basename(p: string): string {
  // Go's path.Base: trailing slashes dropped, "" → "."; names here never end in '/'.
  const i = p.lastIndexOf('/');
  return p === '' ? '.' : p.slice(i + 1);
}

function str(v: GoValue | undefined): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

/** helm's `.Files`: an engine.files value over the given files (keys are chart-relative paths). */
export function filesObject(files: Map<string, Buffer>): GoValue {
  const sortedNames = (): string[] => [...files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const methods: Record<string, GoFunc> = {
    GetBytes: (n: GoValue) => goBytes(files.get(str(n)) ?? Buffer.alloc(0)),
    Get: (n: GoValue) => (files.get(str(n)) ?? Buffer.alloc(0)).toString('utf8'),
    Glob: (pattern: GoValue) => {
      const match = compileGlob(str(pattern));
      const picked = new Map<string, Buffer>();
      for (const [name, data] of files) if (match(name)) picked.set(name, data);
      return filesObject(picked);
    },
    // Later paths overwrite earlier ones with the same base name; Go's map order makes that
    // arbitrary in helm, sorted order here at least makes it stable.
    AsConfig: () =>
      toYaml(Object.fromEntries(sortedNames().map((n) => [basename(n), str(methods.Get?.(n))]))),
    AsSecrets: () =>
      toYaml(
        Object.fromEntries(
          sortedNames().map((n) => [basename(n), (files.get(n) ?? Buffer.alloc(0)).toString('base64')]),
        ),
      ),
    Lines: (n: GoValue) => {
      const data = files.get(str(n));
      if (data === undefined) return tagSlice([], '[]string');
      // helm 4.1.4 indexes s[len(s)-1] without a length check, so an empty file panics.
      if (data.length === 0) throw new Error('runtime error: index out of range [-1]');
      const s = data.toString('utf8');
      return tagSlice((s.endsWith('\n') ? s.slice(0, -1) : s).split('\n'), '[]string');
    },
  };
  return {
    goType: 'engine.files',
    // fmt prints a map[string][]byte: sorted keys, each value as a list of byte values.
    format: () =>
      `map[${sortedNames()
        .map((n) => `${n}:[${[...(files.get(n) ?? [])].join(' ')}]`)
        .join(' ')}]`,
    getMethod: (name: string): GoFunc | undefined =>
      Object.prototype.hasOwnProperty.call(methods, name) ? methods[name] : undefined,
    mapEntries: () => new Map([...files].map(([n, d]) => [n, goBytes(d)])),
    mapZero: tagSlice([], '[]uint8'),
  } as GoValue;
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'any' }
  | { kind: 'super' }
  | { kind: 'single' }
  | { kind: 'class'; not: boolean; chars: string[]; ranges: [number, number][] }
  | { kind: 'alt'; alternatives: Node[][] };

class GlobSyntaxError extends Error {}

/**
 * github.com/gobwas/glob v0.2.3 compiled with '/' as separator: `*` and `?` stop at '/', `**` does not,
 * `[abc]` `[!abc]` `[a-z]` ignore the separator, `{a,b}` alternates (an unclosed `{` just ends with the
 * pattern), `\` escapes. helm falls back to `**` (every file) when the pattern does not compile.
 */
export function compileGlob(pattern: string): (name: string) => boolean {
  let nodes: Node[];
  try {
    nodes = parseGlob(pattern);
  } catch (e) {
    if (e instanceof GlobSyntaxError) return () => true;
    throw e;
  }
  const re = new RegExp(`^${toRegExp(nodes)}$`, 'su');
  return (name: string) => re.test(name);
}

function parseGlob(pattern: string): Node[] {
  const chars = [...pattern];
  let pos = 0;
  // A stack of open `{` groups: each holds its finished alternatives and the one being read.
  const root: Node[] = [];
  const groups: { alternatives: Node[][]; current: Node[] }[] = [];
  const current = (): Node[] => groups[groups.length - 1]?.current ?? root;
  while (pos < chars.length) {
    const c = chars[pos] as string;
    if (c === '{') {
      pos++;
      const group = { alternatives: [] as Node[][], current: [] as Node[] };
      groups.push(group);
      continue;
    }
    if (c === ',' && groups.length > 0) {
      pos++;
      const g = groups[groups.length - 1] as { alternatives: Node[][]; current: Node[] };
      g.alternatives.push(g.current);
      g.current = [];
      continue;
    }
    if (c === '}' && groups.length > 0) {
      pos++;
      closeGroup();
      continue;
    }
    if (c === '[') {
      pos++;
      current().push(parseClass());
      continue;
    }
    if (c === '?') {
      pos++;
      current().push({ kind: 'single' });
      continue;
    }
    if (c === '*') {
      pos++;
      if (chars[pos] === '*') {
        pos++;
        current().push({ kind: 'super' });
      } else current().push({ kind: 'any' });
      continue;
    }
    const breakers = groups.length > 0 ? '?*[{},' : '?*[{';
    let text = '';
    while (pos < chars.length) {
      const ch = chars[pos] as string;
      if (ch === '\\') {
        pos++;
        if (pos >= chars.length) throw new GlobSyntaxError('trailing backslash');
        text += chars[pos];
        pos++;
        continue;
      }
      if (breakers.includes(ch)) break;
      text += ch;
      pos++;
    }
    current().push({ kind: 'text', text });
  }
  while (groups.length > 0) closeGroup();
  return root;

  function closeGroup(): void {
    const g = groups.pop() as { alternatives: Node[][]; current: Node[] };
    g.alternatives.push(g.current);
    current().push({ kind: 'alt', alternatives: g.alternatives });
  }

  function parseClass(): Node {
    const node = {
      kind: 'class' as const,
      not: false,
      chars: [] as string[],
      ranges: [] as [number, number][],
    };
    let seenNot = false;
    for (;;) {
      const r = chars[pos];
      if (r === undefined) throw new GlobSyntaxError('unexpected end of input');
      if (!seenNot && r === '!') {
        node.not = true;
        seenNot = true;
        pos++;
        continue;
      }
      if (chars[pos + 1] === '-') {
        const hi = chars[pos + 2];
        if (hi === undefined) throw new GlobSyntaxError('unexpected end of input');
        if (chars[pos + 3] !== ']') throw new GlobSyntaxError('expected close range character');
        node.ranges.push([r.codePointAt(0) ?? 0, hi.codePointAt(0) ?? 0]);
        pos += 4;
        return node;
      }
      // A run of literal characters up to ']', with escapes.
      while (pos < chars.length && chars[pos] !== ']') {
        if (chars[pos] === '\\') {
          pos++;
          if (pos >= chars.length) throw new GlobSyntaxError('trailing backslash');
        }
        node.chars.push(chars[pos] as string);
        pos++;
      }
      if (chars[pos] !== ']') throw new GlobSyntaxError('unexpected end of input');
      pos++;
      return node;
    }
  }
}

function escapeClassChar(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

function toRegExp(nodes: Node[]): string {
  return nodes
    .map((n): string => {
      switch (n.kind) {
        case 'text':
          return n.text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
        case 'any':
          return '[^/]*';
        case 'super':
          return '.*';
        case 'single':
          return '[^/]';
        case 'class': {
          const parts = [
            ...n.chars.map((c) => escapeClassChar(c.codePointAt(0) ?? 0)),
            ...n.ranges
              .filter(([lo, hi]) => lo <= hi)
              .map(([lo, hi]) => `${escapeClassChar(lo)}-${escapeClassChar(hi)}`),
          ];
          if (parts.length === 0) return n.not ? '.' : '(?!)';
          return `[${n.not ? '^' : ''}${parts.join('')}]`;
        }
        case 'alt':
          return `(?:${n.alternatives.map(toRegExp).join('|')})`;
      }
    })
    .join('');
}
