// The set of served kinds, indexed the ways the API server looks them up: by URL (group, version,
// plural or short name) and by apiVersion + kind. Kinds can be added at run time.
import type { KindDefinition } from './types.js';
import { apiVersionOf, resourceName } from './types.js';

/** `/api/v1/k8s-clusters…` belongs to the REST facade (003's API), never to a Kubernetes resource. */
const RESERVED_CORE_RESOURCES = new Set(['k8s-clusters']);

export class KindRegistry {
  private readonly byResource = new Map<string, KindDefinition>();
  private readonly byKind = new Map<string, KindDefinition>();
  private generation = 0;
  private readonly listeners = new Set<() => void>();

  constructor(kinds: readonly KindDefinition[] = []) {
    for (const kind of kinds) this.add(kind);
  }

  add(def: KindDefinition): void {
    if (def.group === '' && RESERVED_CORE_RESOURCES.has(def.plural))
      throw new Error(`/api/v1/${def.plural} is reserved for the hub's REST facade and cannot be a resource`);
    const urlKey = `${def.group}/${def.version}/${def.plural}`;
    const existing = this.byResource.get(urlKey);
    if (existing && existing !== def) throw new Error(`kind already registered for ${urlKey}`);
    this.byResource.set(urlKey, def);
    this.byKind.set(`${apiVersionOf(def)}/${def.kind}`, def);
    this.generation++;
    for (const listener of this.listeners) listener();
  }

  /**
   * Takes `def` out again (a deleted CRD's versions); false when `def` is not the registered one, so a
   * stale definition never removes its replacement. Bumps the version like `add`.
   */
  remove(def: KindDefinition): boolean {
    const urlKey = `${def.group}/${def.version}/${def.plural}`;
    if (this.byResource.get(urlKey) !== def) return false;
    this.byResource.delete(urlKey);
    const kindKey = `${apiVersionOf(def)}/${def.kind}`;
    if (this.byKind.get(kindKey) === def) {
      this.byKind.delete(kindKey);
      // Another plural may serve the same apiVersion/kind; the latest one registered takes its place.
      const other = this.all().findLast((k) => `${apiVersionOf(k)}/${k.kind}` === kindKey);
      if (other) this.byKind.set(kindKey, other);
    }
    this.generation++;
    for (const listener of this.listeners) listener();
    return true;
  }

  /** Bumps on every change; caches of discovery/OpenAPI key off it. */
  get version(): number {
    return this.generation;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  byUrl(group: string, version: string, plural: string): KindDefinition | undefined {
    return this.byResource.get(`${group}/${version}/${plural}`);
  }

  byApiVersionKind(apiVersion: string, kind: string): KindDefinition | undefined {
    return this.byKind.get(`${apiVersion}/${kind}`);
  }

  /** Every kind in registration order. */
  all(): KindDefinition[] {
    return [...this.byResource.values()];
  }

  /** Storage names of every namespaced kind that is actually stored (for namespace deletion). */
  namespacedResources(): string[] {
    return this.all()
      .filter((k) => k.namespaced && isStored(k))
      .map(resourceName);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.all().some((k) => k.group === group && k.version === version);
  }
}

/** Review kinds are only created (answered), never stored. */
export function isStored(def: KindDefinition): boolean {
  return !(def.verbs && def.verbs.length === 1 && def.verbs[0] === 'create');
}
