// Typed errors of the remoteURL fetcher: a machine code for conditions and a human message that names the
// URL and the HTTP status or network error, written to be shown verbatim in a ClusterSummary's status.

export type RemoteErrorCode =
  /** The spec itself is wrong: URL scheme, interval syntax, credential keys. Retrying will not help. */
  | 'RemoteInvalidRef'
  /** Network error, TLS failure, HTTP error status, too many redirects. */
  | 'RemoteFetchFailed'
  /** No complete answer within the timeout. */
  | 'RemoteTimeout'
  /** The body (as sent, or once decompressed) exceeds the size cap. */
  | 'RemoteTooLarge'
  /** A format or scheme we do not read yet: oci://, tar archives, unknown encodings, binary content. */
  | 'RemoteUnsupported';

export class RemoteError extends Error {
  constructor(
    readonly code: RemoteErrorCode,
    /** The URL as written in the spec, with any password in it masked. */
    readonly url: string,
    message: string,
    /** The HTTP status of the answer, when there was one. */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }

  /** Failures that will not go away by themselves (worth no retry until the spec or the server changes). */
  get permanent(): boolean {
    return this.code === 'RemoteInvalidRef' || this.code === 'RemoteUnsupported';
  }
}

export function isRemoteError(e: unknown): e is RemoteError {
  return e instanceof RemoteError;
}

/** The URL for messages: user-info passwords masked, as Go's url.Redacted does. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = 'xxxxx';
    return u.password ? u.toString() : url;
  } catch {
    return url;
  }
}

/** `remoteURL <url>: <what>`, with the redirect target when it differs. */
export function remoteMessage(url: string, what: string, finalUrl?: string): string {
  const shown = redactUrl(url);
  const via = finalUrl && finalUrl !== url ? ` (redirected to ${redactUrl(finalUrl)})` : '';
  return `remoteURL ${shown}${via}: ${what}`;
}
