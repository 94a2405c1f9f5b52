import type { LogFields, Logger } from "../../src/index.js";

export interface LogRecord {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields: LogFields;
}

/** A Logger that keeps every record, and lets a test wait for one. */
export class CapturedLog implements Logger {
  readonly records: LogRecord[] = [];
  private waiters: { match: (r: LogRecord) => boolean; resolve: (r: LogRecord) => void }[] = [];

  debug(message: string, fields: LogFields): void {
    this.add({ level: "debug", message, fields });
  }
  info(message: string, fields: LogFields): void {
    this.add({ level: "info", message, fields });
  }
  warn(message: string, fields: LogFields): void {
    this.add({ level: "warn", message, fields });
  }
  error(message: string, fields: LogFields): void {
    this.add({ level: "error", message, fields });
  }

  private add(r: LogRecord): void {
    this.records.push(r);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(r)) return true;
      w.resolve(r);
      return false;
    });
  }

  /** The first record that matches, logged already or once it is. */
  waitFor(match: (r: LogRecord) => boolean): Promise<LogRecord> {
    const found = this.records.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
}
