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
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
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
