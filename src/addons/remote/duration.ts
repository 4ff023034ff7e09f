// Go's time.ParseDuration for spec fields such as remoteURL.interval ("5m", "1h30m", "500ms"), in
// milliseconds, with a typed error naming the field. The grammar lives once, in the sprig port.
import { parseDuration } from '../../gotemplate/sprig/dates.js';

export class DurationError extends Error {
  readonly code = 'InvalidDuration';
  constructor(
    readonly field: string | undefined,
    readonly value: string,
    message: string,
  ) {
    super(message);
    this.name = 'DurationError';
  }
}

/**
 * time.ParseDuration(s) in milliseconds (sub-millisecond parts are truncated, as a Go Duration would
 * be when compared at millisecond resolution). `field` names the spec field in the error message.
 */
export function parseGoDuration(s: string, field?: string): number {
  let ns: bigint;
  try {
    ns = parseDuration(s);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new DurationError(field, s, field ? `${field}: ${why}` : why);
  }
  return Number(ns / 1_000_000n);
}
