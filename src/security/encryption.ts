// Encryption at rest for Secrets: a keyring file in the data dir (never in the database) and an
// AES-256-GCM envelope per stored value, plus the store codec and the re-encryption used by key rotation.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject, ResourceName, ValueCodec } from '../store/types.js';
import { errors } from '../util/errors.js';
import { writeFileAtomic } from './files.js';

export const ENCRYPTION_KEY_FILE = 'encryption-keys.json';
const PREFIX = 'fhenc';
const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const WRAPPED_BYTES = IV_BYTES + TAG_BYTES + KEY_BYTES;

/** The on-disk form of the keyring (`<data-dir>/encryption-keys.json`, mode 0600). */
export interface EncryptionKeyFile {
  kind: 'EncryptionKeys';
  version: 1;
  /** Id of the key new values are encrypted under. */
  primary: string;
  /** Every key that may have encrypted a stored value; old keys stay for reading. */
  keys: { id: string; secret: string; createdAt: string }[];
}

export function encryptionKeyFilePath(dataDir: string): string {
  return join(dataDir, ENCRYPTION_KEY_FILE);
}

/** `fhenc:v1:<keyId>:...`: true for values this module produced. */
export function isEnvelope(stored: string): boolean {
  return stored.startsWith(`${PREFIX}:`);
}

/** The id of the key that encrypted an envelope (undefined for anything else). */
export function envelopeKeyId(stored: string): string | undefined {
  if (!isEnvelope(stored)) return undefined;
  const parts = stored.split(':', 4);
  return parts.length === 4 ? parts[2] : undefined;
}

/**
 * The loaded keys. Each value gets a fresh 256-bit data key (AES-256-GCM over the value); the data key
 * is wrapped with the primary key (AES-256-GCM). Both steps authenticate the header, and the value's
 * step also the caller's context (the resource), so a value cannot be moved to another resource or
 * relabelled with another key id unnoticed.
 */
export class Keyring {
  private keys: Map<string, Buffer>;
  private primary: string;
  private loadedStamp: string | undefined;

  /** `path`: where the keys came from; a value under an unknown key re-reads it once (a rotation by the CLI). */
  constructor(
    file: EncryptionKeyFile,
    private readonly path?: string,
  ) {
    const parsed = parseKeyFile(file, path ?? 'keyring');
    this.keys = parsed.keys;
    this.primary = parsed.primary;
    this.loadedStamp = path ? fileStamp(path) : undefined;
  }

  get primaryKeyId(): string {
    return this.primary;
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** Encrypts under the primary key; `context` (the resource name) must be given again to decrypt. */
  encrypt(plaintext: string | Buffer, context: string): string {
    const kek = this.keys.get(this.primary);
    if (!kek) throw new Error(`primary encryption key ${this.primary} is missing`);
    const header = `${PREFIX}:${VERSION}:${this.primary}`;
    const dek = randomBytes(KEY_BYTES);
    const wrapIv = randomBytes(IV_BYTES);
    const wrap = createCipheriv('aes-256-gcm', kek, wrapIv);
    wrap.setAAD(Buffer.from(header, 'utf8'));
    const wrapped = Buffer.concat([wrap.update(dek), wrap.final()]);
    const dataIv = randomBytes(IV_BYTES);
    const data = createCipheriv('aes-256-gcm', dek, dataIv);
    data.setAAD(Buffer.from(`${header}:${context}`, 'utf8'));
    const body = Buffer.concat([data.update(plaintext), data.final()]);
    const payload = Buffer.concat([wrapIv, wrap.getAuthTag(), wrapped, dataIv, data.getAuthTag(), body]);
    dek.fill(0);
    return `${header}:${payload.toString('base64')}`;
  }

  /** Decrypts an envelope with whichever listed key made it; failures are 500s naming no content. */
  decrypt(envelope: string, context: string): Buffer {
    const parts = envelope.split(':');
    if (parts.length !== 4 || parts[0] !== PREFIX) {
      throw errors.internal(`stored ${context} value is not a fleethub encryption envelope`);
    }
    const [, version, keyId, b64] = parts as [string, string, string, string];
    if (version !== VERSION) {
      throw errors.internal(`stored ${context} value uses unknown encryption format ${version}`);
    }
    let kek = this.keys.get(keyId);
    if (!kek && this.reloadIfChanged()) kek = this.keys.get(keyId);
    if (!kek) {
      throw errors.internal(
        `stored ${context} value is encrypted with key "${keyId}", which is not in ${ENCRYPTION_KEY_FILE}`,
      );
    }
    const payload = Buffer.from(b64, 'base64');
    if (payload.length < WRAPPED_BYTES + IV_BYTES + TAG_BYTES) {
      throw errors.internal(`stored ${context} value is truncated and cannot be decrypted`);
    }
    const header = `${PREFIX}:${version}:${keyId}`;
    let offset = 0;
    const take = (n: number): Buffer => payload.subarray(offset, (offset += n));
    const wrapIv = take(IV_BYTES);
    const wrapTag = take(TAG_BYTES);
    const wrapped = take(KEY_BYTES);
    const dataIv = take(IV_BYTES);
    const dataTag = take(TAG_BYTES);
    const body = payload.subarray(offset);
    try {
      const unwrap = createDecipheriv('aes-256-gcm', kek, wrapIv);
      unwrap.setAAD(Buffer.from(header, 'utf8'));
      unwrap.setAuthTag(wrapTag);
      const dek = Buffer.concat([unwrap.update(wrapped), unwrap.final()]);
      const data = createDecipheriv('aes-256-gcm', dek, dataIv);
      data.setAAD(Buffer.from(`${header}:${context}`, 'utf8'));
      data.setAuthTag(dataTag);
      const plaintext = Buffer.concat([data.update(body), data.final()]);
      dek.fill(0);
      return plaintext;
    } catch {
      throw errors.internal(
        `stored ${context} value failed authentication under key "${keyId}": it was altered, truncated or ` +
          'moved from elsewhere',
      );
    }
  }

  /** Re-reads the key file if it changed since loading; true when keys were reloaded. */
  reloadIfChanged(): boolean {
    if (!this.path) return false;
    const stamp = fileStamp(this.path);
    if (stamp === undefined || stamp === this.loadedStamp) return false;
    const parsed = parseKeyFile(readKeyFile(this.path), this.path);
    this.keys = parsed.keys;
    this.primary = parsed.primary;
    this.loadedStamp = stamp;
    return true;
  }
}

/** Loads `<dataDir>/encryption-keys.json`, creating it with one fresh key on first start. */
export function ensureKeyring(dataDir: string): Keyring {
  const path = encryptionKeyFilePath(dataDir);
  if (!existsSync(path)) {
    const key = newKey();
    writeKeyFile(path, { kind: 'EncryptionKeys', version: 1, primary: key.id, keys: [key] });
  }
  return loadKeyring(dataDir);
}

/** Loads an existing key file; throws when it is missing (a replica that was not given the keys). */
export function loadKeyring(dataDir: string): Keyring {
  const path = encryptionKeyFilePath(dataDir);
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: copy it from the first hub replica (it is never stored in the database)`,
    );
  }
  return new Keyring(readKeyFile(path), path);
}

/**
 * Adds a fresh key to the key file; by default it becomes primary (new writes use it), old keys stay
 * for reading. `makePrimary: false` stages a key on every replica before any of them writes with it.
 * Follow with `reencryptAll` to move stored values to the new key.
 */
export function rotateKey(
  dataDir: string,
  options: { makePrimary?: boolean } = {},
): { keyring: Keyring; keyId: string } {
  const path = encryptionKeyFilePath(dataDir);
  const file = readKeyFile(path);
  parseKeyFile(file, path);
  const key = newKey();
  const next: EncryptionKeyFile = {
    ...file,
    primary: options.makePrimary === false ? file.primary : key.id,
    keys: [...file.keys, key],
  };
  writeKeyFile(path, next);
  return { keyring: loadKeyring(dataDir), keyId: key.id };
}

/** Makes an already listed key the primary one (the second step of a staged rotation). */
export function setPrimaryKey(dataDir: string, keyId: string): Keyring {
  const path = encryptionKeyFilePath(dataDir);
  const file = readKeyFile(path);
  if (!file.keys.some((k) => k.id === keyId)) throw new Error(`${path} has no key "${keyId}"`);
  writeKeyFile(path, { ...file, primary: keyId });
  return loadKeyring(dataDir);
}

/** What the codec needs of a keyring (lets a caller swap keyrings behind one codec). */
export type EnvelopeCipher = Pick<Keyring, 'encrypt' | 'decrypt'>;

/**
 * The store codec: objects of `encryptedResources` are stored as one envelope over their JSON, all
 * others as plain JSON. Decoding accepts an envelope for any resource and plain JSON for any resource
 * (rows written before a resource became encrypted; `reencryptAll` converts them).
 */
export function secretsCodec(
  keyring: EnvelopeCipher,
  encryptedResources: ReadonlySet<ResourceName>,
): ValueCodec {
  return {
    encode(resource: ResourceName, obj: KubeObject): string {
      const json = JSON.stringify(obj);
      return encryptedResources.has(resource) ? keyring.encrypt(json, resource) : json;
    },
    decode(resource: ResourceName, stored: string): KubeObject {
      const json = isEnvelope(stored) ? keyring.decrypt(stored, resource).toString('utf8') : stored;
      return JSON.parse(json) as KubeObject;
    },
    storesPlainJson: (resource: ResourceName) => !encryptedResources.has(resource),
  };
}

/**
 * What the store must offer for key rotation: rewrite the stored value of every row of a resource in
 * place (one transaction or resumable batches), WITHOUT a new resourceVersion and without watch events,
 * since the objects do not change. `fn` returns the stored string unchanged when nothing is to be done;
 * the result is the number of rows actually rewritten.
 */
export interface RawRowRewriter {
  rewriteAll(resource: ResourceName, fn: (stored: string) => string): Promise<number>;
}

/** One stored value moved under the primary key (plain JSON rows get encrypted); unchanged if already there. */
export function reencryptValue(keyring: Keyring, resource: ResourceName, stored: string): string {
  if (isEnvelope(stored)) {
    if (envelopeKeyId(stored) === keyring.primaryKeyId) return stored;
    return keyring.encrypt(keyring.decrypt(stored, resource), resource);
  }
  JSON.parse(stored); // refuse to wrap something that is not an object's JSON
  return keyring.encrypt(stored, resource);
}

/** Re-encrypts every row of `resources` under the keyring's primary key; rows rewritten per resource. */
export async function reencryptAll(
  rewriter: RawRowRewriter,
  keyring: Keyring,
  resources: Iterable<ResourceName>,
): Promise<Record<ResourceName, number>> {
  const counts: Record<ResourceName, number> = {};
  for (const resource of resources) {
    counts[resource] = await rewriter.rewriteAll(resource, (stored) =>
      reencryptValue(keyring, resource, stored),
    );
  }
  return counts;
}

// ---- key file ----

function newKey(): EncryptionKeyFile['keys'][number] {
  const now = new Date();
  const day = now.toISOString().slice(0, 10).replaceAll('-', '');
  return {
    id: `k${day}-${randomBytes(4).toString('hex')}`,
    secret: randomBytes(KEY_BYTES).toString('base64'),
    createdAt: now.toISOString(),
  };
}

function readKeyFile(path: string): EncryptionKeyFile {
  try {
    // Checked field by field in parseKeyFile.
    return JSON.parse(readFileSync(path, 'utf8')) as EncryptionKeyFile;
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
}

function writeKeyFile(path: string, file: EncryptionKeyFile): void {
  writeFileAtomic(path, JSON.stringify(file, null, 2) + '\n', 0o600);
}

function parseKeyFile(
  file: EncryptionKeyFile,
  where: string,
): { keys: Map<string, Buffer>; primary: string } {
  if (!file || typeof file !== 'object' || !Array.isArray(file.keys) || typeof file.primary !== 'string') {
    throw new Error(`${where}: not an encryption key file (needs "primary" and "keys")`);
  }
  const keys = new Map<string, Buffer>();
  for (const k of file.keys) {
    if (typeof k?.id !== 'string' || !/^[A-Za-z0-9._-]+$/.test(k.id)) {
      throw new Error(`${where}: key ids may hold only letters, digits, '.', '_' and '-'`);
    }
    const secret = typeof k.secret === 'string' ? Buffer.from(k.secret, 'base64') : Buffer.alloc(0);
    if (secret.length !== KEY_BYTES) throw new Error(`${where}: key "${k.id}" is not 256 bits of base64`);
    if (keys.has(k.id)) throw new Error(`${where}: key "${k.id}" is listed twice`);
    keys.set(k.id, secret);
  }
  if (!keys.has(file.primary)) throw new Error(`${where}: primary key "${file.primary}" is not listed`);
  return { keys, primary: file.primary };
}

function fileStamp(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {
    return undefined;
  }
}
