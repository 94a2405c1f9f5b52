/**
 * Where the client logs what an application's operator wants to know: failovers, retry rounds,
 * HiLo ranges that could not be given back and worker leases that could not be renewed. Nothing
 * is logged per ID. console is a Logger, and so is a winston logger (a message, then an object
 * of fields).
 */
export interface Logger {
  debug(message: string, fields: LogFields): void;
  info(message: string, fields: LogFields): void;
  warn(message: string, fields: LogFields): void;
  error(message: string, fields: LogFields): void;
}

/** The facts of a log record, for a logger that keeps them apart from the message. */
export type LogFields = Record<string, string | number | boolean | undefined>;

/** The logger of a client given none: it drops every record. */
export const SILENT: Logger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});
