// helm's .helmignore rules (pkg/ignore) and its chart directory loader's walk (pkg/chart/v2/loader
// LoadDir over internal/sympath): which files of a chart directory helm loads, keyed like an archive's.
import {
  lstatSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { MAX_DECOMPRESSED_FILE_SIZE } from './archive.js';

/** A .helmignore helm would refuse, or a chart directory helm could not load; helm's wording. */
export class ChartLoadError extends Error {}

/** Go's filepath.ErrBadPattern. */
const BAD_PATTERN = 'syntax error in pattern';

interface Pattern {
  negate: boolean;
  mustDir: boolean;
  match: (path: string) => boolean;
}

export interface IgnoreRules {
  /** Whether helm skips `path` (chart-relative, '/'-separated); an ignored directory is skipped whole. */
  ignores(path: string, isDir: boolean): boolean;
}

/** Every chart gets this rule after its own: dotfiles directly in templates/ are never templates. */
export const DEFAULT_IGNORE_RULE = 'templates/.?*';

/**
 * The rules of a .helmignore text, with helm's default rule appended (`addDefaults: false` for the
 * file's rules alone). Throws ChartLoadError for `**` or a malformed glob, as helm does.
 */
export function parseIgnore(text: string, options: { addDefaults?: boolean } = {}): IgnoreRules {
  const patterns: Pattern[] = [];
  // bufio.Scanner lines: split on \n, one trailing \r dropped (TrimSpace takes it anyway).
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    const p = parseRule(line);
    if (p !== undefined) patterns.push(p);
  }
  if (options.addDefaults !== false) patterns.push(parseRule(DEFAULT_IGNORE_RULE) as Pattern);
  return {
    ignores(path: string, isDir: boolean): boolean {
      if (path === '' || path === '.' || path === './') return false;
      for (const p of patterns) {
        // helm's quirk: a negated rule ends evaluation with "ignored" for anything it does not match.
        if (p.negate) {
          if (p.mustDir && !isDir) return true;
          if (!p.match(path)) return true;
          continue;
        }
        if (p.mustDir && !isDir) continue;
        if (p.match(path)) return true;
      }
      return false;
    },
  };
}

function parseRule(raw: string): Pattern | undefined {
  let rule = raw.trim();
  if (rule === '' || rule.startsWith('#')) return undefined;
  if (rule.includes('**')) throw new ChartLoadError('double-star (**) syntax is not supported');
  goMatch(rule, 'abc');
  let negate = false;
  let mustDir = false;
  if (rule.startsWith('!')) {
    negate = true;
    rule = rule.slice(1);
  }
  if (rule.endsWith('/')) {
    mustDir = true;
    rule = rule.slice(0, -1);
  }
  const glob = rule.startsWith('/') ? rule.slice(1) : rule;
  const safe = (name: string): boolean => {
    try {
      return goMatch(glob, name);
    } catch {
      return false;
    }
  };
  // Without a slash only the base name is tested; with one (or rooted) the whole path.
  const match =
    rule.startsWith('/') || rule.includes('/')
      ? safe
      : (path: string): boolean => safe(path.slice(path.lastIndexOf('/') + 1));
  return { negate, mustDir, match };
}

/** Go's path/filepath.Match on a Unix system; throws ChartLoadError for a malformed pattern. */
export function goMatch(pattern: string, name: string): boolean {
  let pat = pattern;
  let s = name;
  patternLoop: while (pat.length > 0) {
    const { star, chunk, rest } = scanChunk(pat);
    pat = rest;
    if (star && chunk === '') return !s.includes('/');
    const first = matchChunk(chunk, s);
    if (first !== undefined && (first.length === 0 || pat.length > 0)) {
      s = first;
      continue;
    }
    if (star) {
      for (let i = 0; i < s.length && s[i] !== '/'; i++) {
        const t = matchChunk(chunk, s.slice(i + 1));
        if (t !== undefined) {
          if (pat.length === 0 && t.length > 0) continue;
          s = t;
          continue patternLoop;
        }
      }
    }
    // Before answering no, Go checks the rest of the pattern is well formed.
    while (pat.length > 0) {
      const next = scanChunk(pat);
      pat = next.rest;
      matchChunk(next.chunk, '');
    }
    return false;
  }
  return s.length === 0;
}

function scanChunk(pattern: string): { star: boolean; chunk: string; rest: string } {
  let p = pattern;
  let star = false;
  while (p.startsWith('*')) {
    p = p.slice(1);
    star = true;
  }
  let inRange = false;
  let i = 0;
  scan: for (; i < p.length; i++) {
    switch (p[i]) {
      case '\\':
        if (i + 1 < p.length) i++;
        break;
      case '[':
        inRange = true;
        break;
      case ']':
        inRange = false;
        break;
      case '*':
        if (!inRange) break scan;
    }
  }
  return { star, chunk: p.slice(0, i), rest: p.slice(i) };
}

/** The rest of `s` after `chunk` matched its start, or undefined; throws for a malformed chunk. */
function matchChunk(chunkIn: string, sIn: string): string | undefined {
  // Code points, as Go decodes runes for '?' and classes.
  const chunk = [...chunkIn];
  let s = [...sIn];
  let failed = false;
  let c = 0;
  while (c < chunk.length) {
    if (!failed && s.length === 0) failed = true;
    const ch = chunk[c] as string;
    if (ch === '[') {
      let r = -1;
      if (!failed) {
        r = (s[0] as string).codePointAt(0) ?? -1;
        s = s.slice(1);
      }
      c++;
      let negated = false;
      if (chunk[c] === '^') {
        negated = true;
        c++;
      }
      let matched = false;
      let nrange = 0;
      for (;;) {
        if (chunk[c] === ']' && nrange > 0) {
          c++;
          break;
        }
        const lo = getEsc(chunk, c);
        c = lo.next;
        let hi = lo.r;
        if (chunk[c] === '-') {
          const h = getEsc(chunk, c + 1);
          hi = h.r;
          c = h.next;
        }
        if (lo.r <= r && r <= hi) matched = true;
        nrange++;
      }
      if (matched === negated) failed = true;
      continue;
    }
    if (ch === '?') {
      if (!failed) {
        if (s[0] === '/') failed = true;
        s = s.slice(1);
      }
      c++;
      continue;
    }
    let lit = ch;
    if (ch === '\\') {
      c++;
      if (c >= chunk.length) throw new ChartLoadError(BAD_PATTERN);
      lit = chunk[c] as string;
    }
    if (!failed) {
      if (lit !== s[0]) failed = true;
      s = s.slice(1);
    }
    c++;
  }
  return failed ? undefined : s.join('');
}

function getEsc(chunk: string[], at: number): { r: number; next: number } {
  let c = at;
  const first = chunk[c];
  if (first === undefined || first === '-' || first === ']') throw new ChartLoadError(BAD_PATTERN);
  if (first === '\\') {
    c++;
    if (c >= chunk.length) throw new ChartLoadError(BAD_PATTERN);
  }
  const r = (chunk[c] as string).codePointAt(0) ?? 0;
  c++;
  if (c >= chunk.length) throw new ChartLoadError(BAD_PATTERN);
  return { r, next: c };
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The files helm's directory loader reads from a chart directory, keyed by '/'-separated path relative
 * to it, in helm's (lexical, depth-first) order: .helmignore and the default rule applied, symbolic
 * links followed (a linked directory is walked under the link's name), a UTF-8 BOM dropped from each
 * file. Throws ChartLoadError with helm's messages (irregular files, files over 5 MiB, broken links).
 */
export function loadDirectoryFiles(dir: string): Map<string, Buffer> {
  const topdir = resolve(dir);
  let rules = parseIgnore('', { addDefaults: true });
  const ignoreFile = join(topdir, '.helmignore');
  let hasIgnoreFile = false;
  try {
    hasIgnoreFile = statSync(ignoreFile) !== undefined;
  } catch {
    hasIgnoreFile = false;
  }
  if (hasIgnoreFile) rules = parseIgnore(readFileSync(ignoreFile, 'utf8'));
  const files = new Map<string, Buffer>();
  const prefix = topdir + sep;

  // helm's walkFn: returns false to skip a directory's contents.
  const visit = (path: string, info: Stats): boolean => {
    const n = path.startsWith(prefix) ? path.slice(prefix.length).split(sep).join('/') : '';
    if (n === '') return true;
    if (info.isDirectory()) return !rules.ignores(n, true);
    if (rules.ignores(n, false)) return true;
    if (!info.isFile()) {
      throw new ChartLoadError(`cannot load irregular file ${path} as it has file mode type bits set`);
    }
    if (info.size > MAX_DECOMPRESSED_FILE_SIZE) {
      throw new ChartLoadError(
        `chart file ${JSON.stringify(path.slice(path.lastIndexOf(sep) + 1))} is larger than the maximum file size ${MAX_DECOMPRESSED_FILE_SIZE}`,
      );
    }
    const data = readFileSync(path);
    files.set(n, data.subarray(0, 3).equals(UTF8_BOM) ? data.subarray(3) : data);
    return true;
  };

  // sympath.symwalk: a symlink is replaced by what it resolves to, under its own name.
  const walk = (path: string, lst: Stats): void => {
    let info = lst;
    if (lst.isSymbolicLink()) {
      let resolved: string;
      try {
        resolved = realpathSync(path);
      } catch {
        throw new ChartLoadError(`error evaluating symlink ${path}: ${brokenLinkReason(path)}`);
      }
      info = lstatSync(resolved);
    }
    if (!visit(path, info) || !info.isDirectory()) return;
    const names = readdirSync(path).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) walk(join(path, name), lstatSync(join(path, name)));
  };
  walk(topdir, statSync(topdir));
  return files;
}

/** Go's EvalSymlinks error for a dangling link: the lstat of the first missing target. */
function brokenLinkReason(link: string): string {
  let target = link;
  for (let hops = 0; hops < 255; hops++) {
    let st: Stats;
    try {
      st = lstatSync(target);
    } catch {
      return `lstat ${target}: no such file or directory`;
    }
    if (!st.isSymbolicLink()) return `lstat ${target}: not a directory`;
    target = resolve(dirname(target), readlinkSync(target));
  }
  return `EvalSymlinks: too many links`;
}
