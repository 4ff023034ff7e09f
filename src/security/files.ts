// Writing secret-bearing files (keys, kubeconfigs): owner-only permissions from the first byte and an
// atomic replace, so a crash never leaves a half-written key or a briefly world-readable one.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  chmodSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Creates `dir` (and parents) and forces its mode; key directories are 0700. */
export function ensurePrivateDir(dir: string, mode = 0o700): void {
  mkdirSync(dir, { recursive: true, mode });
  chmodSync(dir, mode);
}

/**
 * Writes `data` to `path` through a temporary file in the same directory (created with `mode`, so the
 * content is never readable by others), fsyncs it and renames it over `path`.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = tempName(path);
  const fd = openSync(tmp, 'wx', mode);
  try {
    // The umask may have narrowed the mode further; it can never widen it, but make it exact.
    chmodSync(tmp, mode);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
  // Make the rename itself durable: a key file that vanishes after a power loss would orphan data.
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/**
 * writeFileAtomic off the event loop, for writes on a hot path (the agent's per-work records): the same
 * guarantees, with the fsyncs in libuv's thread pool. The directory must exist.
 */
export async function writeFileAtomicAsync(path: string, data: string, mode = 0o600): Promise<void> {
  const tmp = tempName(path);
  // Created with `mode`, which the umask can only narrow: these records are not keys, narrower is fine.
  const file = await open(tmp, 'wx', mode);
  try {
    await file.writeFile(data, 'utf8');
    await file.sync();
  } catch (e) {
    await file.close();
    await unlink(tmp);
    throw e;
  }
  await file.close();
  await rename(tmp, path);
  const dirHandle = await open(dirname(path), 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}
