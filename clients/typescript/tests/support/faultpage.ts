// The fault-table page (docs/fault-table.md): each client's table sits between marker comments
// of its own, written by that client's test; the rest of the page is prose and the others' tables.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./cluster.js";

/** What an application saw in one situation. */
export interface FaultRow {
  situation: string;
  tookMs: number;
  /** The error's type as an application matches it, or what the outcome was when there was none. */
  error: string;
  /** The gRPC code's name; "—" when there was no error. */
  code: string;
  /** The refusal's reason; "—" when there was none. */
  reason: string;
}

/** The table of rows, in the page's columns. */
export function renderFaultTable(rows: readonly FaultRow[]): string {
  let out = "| situation | time to answer | error | gRPC code | reason |\n|---|---|---|---|---|\n";
  for (const r of rows) out += `| ${r.situation} | ${shownTime(r.tookMs)} | ${r.error} | ${r.code} | ${r.reason} |\n`;
  return out;
}

/** A measured time as the table shows it. */
function shownTime(ms: number): string {
  if (ms < 1) return "< 1 ms";
  if (ms < 100) return `${Math.floor(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A table with its time column blanked: the times are measured and never compared. */
export function withoutTimes(table: string): string {
  return table
    .trim()
    .split("\n")
    .map((line, i) => {
      const cells = line.split("|");
      if (i < 2 || cells.length <= 3) return line;
      cells[2] = " ";
      return cells.join("|");
    })
    .join("\n");
}

/** One client's section of the repository's docs/fault-table.md, between its two markers. */
export class FaultPage {
  readonly path = join(repoRoot(), "docs", "fault-table.md");
  private readonly before: string;
  private readonly after: string;
  /** The table the page holds now. */
  readonly committed: string;

  constructor(private readonly begin: string, end: string) {
    const text = readFileSync(this.path, "utf8");
    const start = text.indexOf(begin + "\n");
    const stop = start < 0 ? -1 : text.indexOf(end, start);
    if (start < 0 || stop < 0) throw new Error(`${this.path} has no table between ${JSON.stringify(begin)} and ${JSON.stringify(end)}`);
    this.before = text.slice(0, start);
    this.committed = text.slice(start + begin.length + 1, stop);
    this.after = text.slice(stop);
  }

  /** Replaces the section's table with table, leaving the rest of the page as it is. */
  write(table: string): void {
    writeFileSync(this.path, this.before + this.begin + "\n" + table + this.after);
  }
}
