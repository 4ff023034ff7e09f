// Where the hub keeps what it applied to itself for each local ManifestWork (the agent keeps the same in
// its state dir): one Secret per work in fleethub-system, so pruning and deletion survive restarts and failover.
//
// Why a Secret of its own and not an annotation on the work: the ClusterSummary controller owns the work's
// metadata and replaces its annotations on every change of content, so a record there would be wiped (and
// pruning lost). Why a Secret and not a ConfigMap: the record decides what the hub deletes as admin, so it
// must not be writable by anyone who is not already admin — Secrets are admin-only (operators may write
// ManifestWorks, viewers read ConfigMaps) and encrypted at rest. The store is shared by every replica and
// only the leader runs controllers, so the next leader reads the same record.
import { createHash } from 'node:crypto';
import { RESOURCES, SYSTEM_NAMESPACE } from '../../fleet/names.js';
import type { AppliedRecord, DeleteOption } from '../../agent/work/types.js';
import type { KubeObject, Store } from '../../store/types.js';
import { deleteIfPresent } from '../../store/delete-if-present.js';
import { stableStringify } from '../../util/json-text.js';
import { retryOnConflict } from '../runtime/retry.js';

/** The Secret type of a record; the controller watches only Secrets of this type. */
export const LOCAL_RECORD_TYPE = 'fleethub.io/local-work-record';
/** `<namespace>/<name>` of the work a record belongs to (names may be longer than a label value allows). */
export const ANNOTATION_RECORD_OF = 'fleethub.io/local-work';
const DATA_KEY = 'record';
const NAME_PREFIX = 'local-work.';
const MAX_NAME = 253;

/** What is kept per local work. */
export interface LocalRecord {
  record: AppliedRecord;
  /** The deleteOption at the last apply: used only when the work is gone altogether. */
  deleteOption?: DeleteOption;
  /** The work's generation when it was last applied in full: that generation is not applied again. */
  generation?: number;
}

/**
 * `local-work.<namespace>.<name>`: readable in `kubectl get secrets -n fleethub-system`, and unambiguous
 * because namespaces have no dots. Names too long for a Secret end in a hash of the work's name instead.
 */
export function recordName(namespace: string, name: string): string {
  const plain = `${NAME_PREFIX}${namespace}.${name}`;
  if (plain.length <= MAX_NAME) return plain;
  return `${NAME_PREFIX}${namespace}.${createHash('sha256').update(name).digest('hex').slice(0, 40)}`;
}

/** The work a record Secret belongs to, from its annotation. */
export function workOfRecord(secret: KubeObject): { namespace: string; name: string } | undefined {
  const of = secret.metadata.annotations?.[ANNOTATION_RECORD_OF] ?? '';
  const slash = of.indexOf('/');
  if (slash <= 0 || slash === of.length - 1) return undefined;
  return { namespace: of.slice(0, slash), name: of.slice(slash + 1) };
}

/** A record Secret that cannot be read: never guessed at, since it decides what the hub deletes. */
export class LocalRecordError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalRecordError';
  }
}

/** Reads, writes and forgets records; writes go to the store directly (the hub's own bookkeeping). */
export class LocalRecordStore {
  constructor(private readonly store: Store) {}

  async load(namespace: string, name: string): Promise<LocalRecord | undefined> {
    const secret = await this.store.get(RESOURCES.secrets, SYSTEM_NAMESPACE, recordName(namespace, name));
    if (!secret) return undefined;
    const of = workOfRecord(secret);
    // A hashed name could in theory be another work's: the annotation says whose it is.
    if (of?.namespace !== namespace || of.name !== name) return undefined;
    const data = (secret['data'] as Record<string, string> | undefined)?.[DATA_KEY];
    try {
      const parsed = JSON.parse(Buffer.from(data ?? '', 'base64').toString('utf8')) as LocalRecord;
      if (!Array.isArray(parsed.record?.resources)) throw new Error('no record.resources');
      return parsed;
    } catch (e) {
      throw new LocalRecordError(
        `the record of local ManifestWork ${namespace}/${name} (Secret ${SYSTEM_NAMESPACE}/${secret.metadata.name ?? ''}) cannot be read: ${(e as Error).message}`,
        { cause: e },
      );
    }
  }

  /** Writes the record unless it is already stored as is. */
  async save(namespace: string, name: string, next: LocalRecord, known?: LocalRecord): Promise<void> {
    if (known && stableStringify(known) === stableStringify(next)) return;
    const secretName = recordName(namespace, name);
    const data = { [DATA_KEY]: Buffer.from(JSON.stringify(next), 'utf8').toString('base64') };
    await retryOnConflict(async () => {
      const stored = await this.store.get(RESOURCES.secrets, SYSTEM_NAMESPACE, secretName);
      if (stored) {
        await this.store.update(RESOURCES.secrets, { ...stored, data });
        return;
      }
      await this.store.create(RESOURCES.secrets, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: secretName,
          namespace: SYSTEM_NAMESPACE,
          labels: { 'app.kubernetes.io/managed-by': 'fleethub' },
          annotations: { [ANNOTATION_RECORD_OF]: `${namespace}/${name}` },
        },
        type: LOCAL_RECORD_TYPE,
        data,
      });
    });
  }

  async forget(namespace: string, name: string): Promise<void> {
    await deleteIfPresent(this.store, RESOURCES.secrets, SYSTEM_NAMESPACE, recordName(namespace, name));
  }
}
