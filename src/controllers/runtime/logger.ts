// The logging surface controllers depend on: the subset of pino's API they use, so the hub passes its pino
// logger straight in and tests pass a silent or recording one.

/** pino's call shapes: `log.info('text')` or `log.info({ key }, 'text')`. */
export interface LogFn {
  (obj: object, msg?: string): void;
  (msg: string): void;
}

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

const discard: LogFn = () => undefined;

/** A logger that drops everything: the default when no logger is given. */
export const noopLogger: Logger = {
  debug: discard,
  info: discard,
  warn: discard,
  error: discard,
  child: () => noopLogger,
};
