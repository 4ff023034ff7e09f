// The logging the store needs, shaped so a pino logger fits as is; the default drops info and
// sends warnings and errors to the console.

export interface StoreLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const consoleLogger: StoreLogger = {
  info() {
    // Routine store messages are not worth a console line without a configured logger.
  },
  warn(obj, msg) {
    console.warn(msg ?? '', obj);
  },
  error(obj, msg) {
    console.error(msg ?? '', obj);
  },
};
