package dev.idnode.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One client's section of the repository's docs/fault-table.md: each client's table sits
 * between marker comments of its own, written by that client's test; the rest of the page is
 * prose and the other clients' tables.
 */
final class FaultTablePage {
  /** What an application saw in one situation: the error's type, code and reason, "—" where there was none. */
  record Row(String situation, Duration took, String error, String code, String reason) {}

  private final Path path = IdCluster.repoRoot().resolve("docs/fault-table.md");
  private final String begin;
  private final String before;
  private final String after;
  private final String committed;

  FaultTablePage(String begin, String end) throws IOException {
    String text = Files.readString(path, StandardCharsets.UTF_8);
    int start = text.indexOf(begin + "\n");
    int stop = start < 0 ? -1 : text.indexOf(end, start);
    if (stop < 0) {
      throw new IllegalStateException(path + " has no table between " + begin + " and " + end);
    }
    this.begin = begin;
    this.before = text.substring(0, start);
    this.committed = text.substring(start + begin.length() + 1, stop);
    this.after = text.substring(stop);
  }

  /** The table the page holds now. */
  String committed() {
    return committed;
  }

  /** Replaces the section's table with table, leaving the rest of the page as it is. */
  void write(String table) throws IOException {
    Files.writeString(path, before + begin + "\n" + table + after, StandardCharsets.UTF_8);
  }

  /** The rows as a table in the page's columns. */
  static String render(List<Row> rows) {
    StringBuilder b = new StringBuilder("| situation | time to answer | error | gRPC code | reason |\n|---|---|---|---|---|\n");
    for (Row r : rows) {
      b.append("| ").append(r.situation()).append(" | ").append(shown(r.took())).append(" | ").append(r.error())
          .append(" | ").append(r.code()).append(" | ").append(r.reason()).append(" |\n");
    }
    return b.toString();
  }

  /** A measured time as the table shows it. */
  private static String shown(Duration d) {
    if (d.compareTo(Duration.ofMillis(1)) < 0) {
      return "< 1 ms";
    }
    if (d.compareTo(Duration.ofMillis(100)) < 0) {
      return d.toMillis() + " ms";
    }
    return String.format("%.1f s", d.toNanos() / 1e9);
  }

  /** A table with its time column blanked: the times are measured and never compared. */
  static String withoutTimes(String table) {
    String[] lines = table.strip().split("\n");
    for (int i = 2; i < lines.length; i++) {
      String[] cells = lines[i].split("\\|", -1);
      if (cells.length > 3) {
        cells[2] = " ";
        lines[i] = String.join("|", cells);
      }
    }
    return String.join("\n", lines);
  }
}
