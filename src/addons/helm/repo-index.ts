// A Helm chart repository's index.yaml: which versions of a chart exist, and where each archive is
// (relative URLs resolved against the repository URL, as helm does), with the sha256 digest it promises.
import { parse } from 'yaml';
import {
  SemverConstraints,
  compareVersions,
  newVersion,
  type SemverVersion,
} from '../../gotemplate/sprig/semver.js';
import { ChartFetchError } from './errors.js';

/** One `entries.<name>[]` item: the fields chart fetching reads. */
export interface IndexEntry {
  name: string;
  version: string;
  urls: string[];
  /** sha256 hex of the archive, when the index says. */
  digest?: string;
}

export interface RepoIndex {
  entries: Map<string, IndexEntry[]>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads index.yaml (JSON is YAML too); `url` names the index in errors. */
export function parseIndex(text: string, url: string): RepoIndex {
  let doc: unknown;
  try {
    // Every scalar a string (as Go's typed decoding reads them): version 1.10 must not become 1.1,
    // nor an all-digit digest a number. Big public indexes share anchors: no alias-expansion guard.
    doc = parse(text, { schema: 'failsafe', maxAliasCount: -1 });
  } catch (e) {
    throw new ChartFetchError(
      'RepositoryUnavailable',
      `${url}: index is not valid YAML: ${(e as Error).message.split('\n')[0]}`,
      url,
    );
  }
  if (!isObj(doc) || !isObj(doc['entries']))
    throw new ChartFetchError(
      'RepositoryUnavailable',
      `${url}: not a chart repository index (no entries)`,
      url,
    );
  const entries = new Map<string, IndexEntry[]>();
  for (const [name, list] of Object.entries(doc['entries'])) {
    if (!Array.isArray(list)) continue;
    const out: IndexEntry[] = [];
    for (const item of list) {
      if (!isObj(item)) continue;
      const version = item['version'];
      if (typeof version !== 'string') continue;
      const urls = Array.isArray(item['urls']) ? item['urls'].filter((u) => typeof u === 'string') : [];
      const digest = typeof item['digest'] === 'string' ? item['digest'] : undefined;
      out.push({ name, version, urls, ...(digest ? { digest } : {}) });
    }
    entries.set(name, out);
  }
  return { entries };
}

function tryVersion(v: string): SemverVersion | undefined {
  try {
    return newVersion(v);
  } catch {
    return undefined;
  }
}

/** Versions newest first (semver order; unparsable ones last, as given). */
export function sortedVersions(list: readonly IndexEntry[]): IndexEntry[] {
  return [...list].sort((a, b) => {
    const va = tryVersion(a.version);
    const vb = tryVersion(b.version);
    if (va && vb) return compareVersions(vb, va);
    return va ? -1 : vb ? 1 : 0;
  });
}

/**
 * The entry for `chart` at `version`, as helm's IndexFile.Get picks it: the exact version string, else
 * the newest version a semver constraint (`^1.2`, `>=1.0 <2`) accepts. Errors list what exists.
 */
export function findEntry(index: RepoIndex, chart: string, version: string, repoURL: string): IndexEntry {
  const list = index.entries.get(chart);
  if (!list || list.length === 0) {
    const names = [...index.entries.keys()].sort();
    const some = names.slice(0, 10).join(', ');
    throw new ChartFetchError(
      'ChartNotFound',
      `chart ${JSON.stringify(chart)} not found in repository ${repoURL}` +
        (names.length
          ? ` (it has ${names.length} chart${names.length > 1 ? 's' : ''}: ${some}${names.length > 10 ? ', …' : ''})`
          : ' (its index is empty)'),
      repoURL,
    );
  }
  const exact = list.find((e) => e.version === version || e.version === version.replace(/^v/, ''));
  if (exact) return exact;
  let constraint: SemverConstraints | undefined;
  try {
    constraint = SemverConstraints.parse(version);
  } catch {
    constraint = undefined;
  }
  const sorted = sortedVersions(list);
  if (constraint) {
    const match = sorted.find((e) => {
      const v = tryVersion(e.version);
      return v !== undefined && constraint.check(v);
    });
    if (match) return match;
  }
  const some = sorted.slice(0, 8).map((e) => e.version);
  throw new ChartFetchError(
    'VersionNotFound',
    `chart ${JSON.stringify(chart)} version ${JSON.stringify(version)} not found in repository ${repoURL}; ` +
      `available: ${some.join(', ')}${sorted.length > some.length ? `, … (${sorted.length} versions)` : ''}`,
    repoURL,
  );
}

/** Where the archive is: the first URL, relative ones resolved against the repository URL (a directory). */
export function archiveUrl(entry: IndexEntry, repoURL: string): string {
  const first = entry.urls[0];
  if (!first)
    throw new ChartFetchError(
      'DownloadFailed',
      `chart ${JSON.stringify(entry.name)} version ${entry.version} has no URL in the index of ${repoURL}`,
      repoURL,
    );
  const base = repoURL.endsWith('/') ? repoURL : `${repoURL}/`;
  return new URL(first, base).toString();
}

/** `<repo>/index.yaml`. */
export function indexUrl(repoURL: string): string {
  return `${repoURL.replace(/\/+$/, '')}/index.yaml`;
}
