// The few Reflect metadata functions tsyringe (a dependency of @peculiar/x509) insists on at load time.
// Imported before @peculiar/x509; replaceable by the `reflect-metadata` package if that is ever added.

type Key = unknown;
const store = new WeakMap<object, Map<Key, unknown>>();

function ownMap(target: object, create: boolean): Map<Key, unknown> | undefined {
  let map = store.get(target);
  if (!map && create) {
    map = new Map();
    store.set(target, map);
  }
  return map;
}

function getOwnMetadata(key: Key, target: object): unknown {
  return ownMap(target, false)?.get(key);
}

function getMetadata(key: Key, target: object): unknown {
  // Walks the prototype chain like the reference implementation does.
  for (let t: object | null = target; t; t = Object.getPrototypeOf(t) as object | null) {
    const map = ownMap(t, false);
    if (map?.has(key)) return map.get(key);
  }
  return undefined;
}

function defineMetadata(key: Key, value: unknown, target: object): void {
  ownMap(target, true)?.set(key, value);
}

function metadata(key: Key, value: unknown): (target: object) => void {
  return (target) => defineMetadata(key, value, target);
}

// Reflect has no metadata members in its standard typing; we only add what is missing.
const reflect = Reflect as unknown as Record<string, unknown>;
if (typeof reflect['getMetadata'] !== 'function') {
  reflect['getMetadata'] = getMetadata;
  reflect['getOwnMetadata'] = getOwnMetadata;
  reflect['defineMetadata'] = defineMetadata;
  reflect['metadata'] = metadata;
}
