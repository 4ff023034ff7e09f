// Watch: chunked newline-delimited events with headers flushed at once, replay from a
// resourceVersion, bookmarks, timeoutSeconds, selector filtering, and client-go's WatchList
// (`sendInitialEvents=true`: the current state, then a bookmark marking its end).
import type { KubeObject, Store, WatchEvent } from '../../store/types.js';
import { ApiError, errors } from '../../util/errors.js';
import type { RequestContext } from '../context.js';
import { listPredicate } from '../list-options.js';
import { parseLabelRequirements } from '../selectors.js';
import { parseIncludeObject, tableWatchConverter, wantsTable } from '../table.js';
import { tableContentType, withTypeMeta } from './crud.js';
import { apiVersionOf } from '../../kinds/types.js';

export interface WatchRegistry {
  add(close: () => void): () => void;
}

const BOOKMARK_INTERVAL_MS = 10_000;
/** Unsent watch output one client may hold before its watch is ended. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

function watchTimeoutMs(value: string | null): number {
  if (value === null || value === '') return (1800 + Math.random() * 1800) * 1000;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw errors.badRequest(`timeoutSeconds must be a non-negative number, got "${value}"`);
  return n * 1000;
}

/**
 * Store events are shared, frozen objects, so every watcher of one event writes the same bytes:
 * serialise each (event, type) once, not once per watcher (the fan-out hot path).
 */
const serialised = new WeakMap<object, Map<string, string>>();

function eventLine(type: string, object: unknown, json?: string): string {
  // The stored text is what JSON.stringify(object) would give: parsed from it, then frozen.
  if (json !== undefined) return `{"type":${JSON.stringify(type)},"object":${json}}\n`;
  if (typeof object !== 'object' || object === null || !Object.isFrozen(object))
    return `${JSON.stringify({ type, object })}\n`;
  let byType = serialised.get(object);
  if (!byType) {
    byType = new Map();
    serialised.set(object, byType);
  }
  let line = byType.get(type);
  if (line === undefined) {
    line = `${JSON.stringify({ type, object })}\n`;
    byType.set(type, line);
  }
  return line;
}

export async function watchObjects(
  store: Store,
  ctx: RequestContext,
  registry: WatchRegistry,
): Promise<void> {
  const { query, def, res } = ctx;
  const predicate = listPredicate(def, query);
  const filtered = predicate !== undefined;
  const timeoutMs = watchTimeoutMs(query.get('timeoutSeconds'));
  const bookmarks = query.get('allowWatchBookmarks') === 'true';
  const sendInitialEvents = query.get('sendInitialEvents');
  const requestedVersion = query.get('resourceVersion') ?? '';
  if (sendInitialEvents !== null && query.get('resourceVersionMatch') !== 'NotOlderThan')
    throw errors.invalid('ListOptions', 'meta.k8s.io', '', [
      {
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan',
        field: 'sendInitialEvents',
      },
    ]);
  if (requestedVersion !== '' && !/^\d+$/.test(requestedVersion))
    throw errors.badRequest(
      `Invalid value: "${requestedVersion}": resourceVersion must be an unsigned integer`,
    );
  const namespace = def.namespaced && ctx.info.namespace ? ctx.info.namespace : undefined;
  const tableVersion = wantsTable(ctx.req.headers.accept);
  const toTable = tableVersion
    ? tableWatchConverter(def, { includeObject: parseIncludeObject(query), version: tableVersion })
    : undefined;

  // Initial state: WatchList asks for it explicitly; a watch from "" or "0" gets it as synthetic ADDEDs.
  const initial = sendInitialEvents === 'true' || requestedVersion === '' || requestedVersion === '0';
  let startVersion = requestedVersion;
  let initialItems: KubeObject[] = [];
  if (initial) {
    const listOptions: Parameters<Store['list']>[1] = {};
    if (namespace) listOptions.namespace = namespace;
    if (predicate) listOptions.predicate = predicate;
    const list = await store.list(ctx.resource, listOptions);
    initialItems = list.items;
    startVersion = list.resourceVersion;
  }

  ctx.code = 200;
  res.writeHead(200, {
    'Content-Type': tableVersion ? tableContentType(tableVersion) : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();

  /** `json`: the object's own JSON text, when the store event carried it and the object is sent as is. */
  const send = (type: string, object: unknown, json?: string): void => {
    if (res.destroyed) return;
    const line =
      toTable && type !== 'BOOKMARK' && type !== 'ERROR'
        ? `${JSON.stringify({ type, object: toTable(object as KubeObject) })}\n`
        : eventLine(type, object, json);
    res.write(line);
    // A client that stops reading must not make the hub buffer without bound: past the limit the
    // connection is cut, and the client re-watches from its last version (as kube-apiserver does).
    if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
  };

  const matching = new Set<string>();
  const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  for (const item of initialItems) {
    matching.add(keyOf(item));
    send('ADDED', withTypeMeta(def, item));
  }
  const bookmark = (version: string, annotations?: Record<string, string>) => {
    const metadata: Record<string, unknown> = { resourceVersion: version };
    if (annotations) metadata.annotations = annotations;
    send('BOOKMARK', { kind: def.kind, apiVersion: apiVersionOf(def), metadata });
  };
  if (sendInitialEvents === 'true') bookmark(startVersion, { 'k8s.io/initial-events-end': 'true' });
  if (res.destroyed) return;

  await new Promise<void>((resolve) => {
    let finished = false;
    let lastBookmark = Date.now();
    let lastVersion = startVersion;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      watcher.stop();
      unregister();
      res.end();
      resolve();
    };
    const timer = setTimeout(finish, timeoutMs);
    const unregister = registry.add(finish);
    const onEvent = (event: WatchEvent) => {
      const obj = event.object;
      lastVersion = String(event.resourceVersion);
      let type: string = event.type;
      if (filtered) {
        // Objects entering or leaving the selection appear as ADDED or DELETED, as the watch cache does.
        const key = keyOf(obj);
        const matches = event.type !== 'DELETED' && predicate(obj);
        const wasMatching = matching.has(key);
        if (event.type === 'DELETED') {
          if (!wasMatching && !predicate(obj)) return;
          matching.delete(key);
        } else if (matches) {
          matching.add(key);
          if (!wasMatching && event.type === 'MODIFIED' && initial) type = 'ADDED';
        } else {
          if (!wasMatching) return;
          matching.delete(key);
          type = 'DELETED';
        }
      }
      const sent = withTypeMeta(def, obj);
      send(type, sent, sent === obj ? event.json : undefined);
    };
    const watchOptions: Parameters<Store['watch']>[0] = { resource: ctx.resource };
    if (namespace) watchOptions.namespace = namespace;
    if (startVersion) watchOptions.resourceVersion = startVersion;
    const trigger = labelTrigger(query.get('labelSelector'));
    if (trigger) watchOptions.labelEquals = trigger;
    const watcher = store.watch(watchOptions, {
      onEvent,
      onError: (error) => {
        const status =
          error instanceof ApiError ? error.toStatus() : errors.internal('watch failed').toStatus();
        send('ERROR', status);
        finish();
      },
      onProgress: (version) => {
        lastVersion = version;
        if (bookmarks && Date.now() - lastBookmark >= BOOKMARK_INTERVAL_MS) {
          lastBookmark = Date.now();
          bookmark(lastVersion);
        }
      },
    });
    ctx.req.on('close', finish);
    res.on('close', finish);
    res.on('error', finish);
  });
}

/** The first `key=value` (or `key in (value)`) requirement of a selector: a hint for the store's fan-out. */
function labelTrigger(selector: string | null): { key: string; value: string } | undefined {
  if (!selector?.trim()) return undefined;
  try {
    const req = parseLabelRequirements(selector).find(
      (r) => (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1,
    );
    return req ? { key: req.key, value: req.values[0]! } : undefined;
  } catch {
    return undefined; // the predicate reports a malformed selector
  }
}
