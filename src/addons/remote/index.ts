// The remoteURL fetcher's public surface: the per-process content cache, its typed errors, and the Go
// duration parser the interval field uses.
export {
  RemoteContentCache,
  credentialsFromSecret,
  DEFAULT_INTERVAL,
  DEFAULT_MAX_BYTES,
  type RemoteContent,
  type RemoteContentCacheOptions,
  type RemoteCredentials,
  type RemoteURLRef,
} from './cache.js';
export { DurationError, parseGoDuration } from './duration.js';
export { RemoteError, isRemoteError, redactUrl, type RemoteErrorCode } from './errors.js';
