// The last Resources render of each summary, by what went into it: a summary is reconciled again for every
// event of its work (the agent's status among them) and would otherwise instantiate the same templates
// for the same cluster each time. The Helm feature's renders are cached by their inputs the same way.
import { createHash } from 'node:crypto';
import type { ResourceSource } from '../../addons/content/render.js';
import { deepFreeze } from '../../store/json.js';
import type { KubeObject } from '../../store/types.js';
import type { FeatureContent } from './feature.js';

/** Summaries remembered; past it the least recently rendered is forgotten (it renders again, that is all). */
const LIMIT = 20_000;

const digest = (text: string): string => createHash('sha256').update(text).digest('base64');

/** A stored object's version, or undefined when it has none (then the render is not remembered). */
function versionOf(obj: object): string | undefined {
  const meta = (obj as { metadata?: { uid?: unknown; resourceVersion?: unknown } }).metadata;
  const uid = meta?.uid;
  const rv = meta?.resourceVersion;
  return typeof uid === 'string' && uid && typeof rv === 'string' && rv ? `${uid}@${rv}` : undefined;
}

/**
 * Everything the render reads: the summary's spec (its generation), the owner (tier included), the
 * whole Cluster (templates may read any of it) and each source's version or text. Undefined when an
 * input has no version to name it by.
 */
export function renderKey(
  summary: KubeObject,
  owner: { kind: string; name: string; tier: number },
  cluster: KubeObject,
  sources: readonly ResourceSource[],
): string | undefined {
  const parts: unknown[] = [
    summary.metadata.generation,
    owner.kind,
    owner.name,
    owner.tier,
    versionOf(cluster),
  ];
  for (const source of sources) {
    if ('object' in source) parts.push(versionOf(source.object), source.templated ?? null);
    // A remote body by its digest: the key is kept per summary, the body may be large.
    else if ('text' in source) parts.push(digest(source.text), source.key ?? null, source.templated ?? null);
    else return undefined;
    parts.push(source.ref);
  }
  if (parts.includes(undefined)) return undefined;
  return JSON.stringify(parts);
}

export class RenderMemo {
  private readonly entries = new Map<string, { key: string; content: FeatureContent }>();

  /** The content rendered for this summary (by uid) from exactly these inputs, if it is the last one. */
  get(summaryUid: string, key: string): FeatureContent | undefined {
    const entry = this.entries.get(summaryUid);
    if (!entry || entry.key !== key) return undefined;
    // Most recently used last: the Map's order is the eviction order.
    this.entries.delete(summaryUid);
    this.entries.set(summaryUid, entry);
    return entry.content;
  }

  /** Remembers `content` (frozen: every later reconcile of the summary shares it). */
  set(summaryUid: string, key: string, content: FeatureContent): void {
    this.entries.delete(summaryUid);
    this.entries.set(summaryUid, { key, content: deepFreeze(content) });
    if (this.entries.size > LIMIT) this.entries.delete(this.entries.keys().next().value!);
  }
}
