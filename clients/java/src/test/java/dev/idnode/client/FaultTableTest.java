package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What an application using the Java client sees in each situation of docs/fault-table.md, one
 * after another on one three-node cluster: the leader killed, then the last follower (no
 * quorum), then every node. The error types, codes and reasons must be the committed ones; the
 * times are shown as measured and never compared. IDNODE_WRITE_FAULT_TABLE=1 writes the table
 * instead.
 */
class FaultTableTest {
  private static final String BEGIN = "<!-- begin java-client: written by FaultTableTest -->";
  private static final String END = "<!-- end java-client -->";

  /** A call of one situation; what it returns is not the table's concern. */
  private interface Call {
    void run();
  }

  /** How long a call took and what it threw (null when it returned). */
  private record Outcome(Duration took, RuntimeException error) {
    static Outcome of(Call call) {
      long began = System.nanoTime();
      RuntimeException error = null;
      try {
        call.run();
      } catch (RuntimeException e) {
        error = e;
      }
      return new Outcome(Duration.ofNanos(System.nanoTime() - began), error);
    }

    /** The outcome as a row; when the call returned, returned says what that meant. */
    FaultTablePage.Row row(String situation, String returned) {
      if (error == null) {
        return new FaultTablePage.Row(situation, took, returned, "—", "—");
      }
      String type = "`" + error.getClass().getSimpleName() + "`";
      if (!(error instanceof IdnodeException e)) {
        return new FaultTablePage.Row(situation, took, type, "—", "—");
      }
      return new FaultTablePage.Row(situation, took, type, e.code().name(), e.reason().isEmpty() ? "—" : e.reason());
    }

    FaultTablePage.Row row(String situation) {
      return row(situation, "none");
    }
  }

  @Test
  void theClientsAnswersWhenTheClusterFailsAreTheCommittedTable() throws Exception {
    FaultTablePage page = new FaultTablePage(BEGIN, END);
    List<FaultTablePage.Row> rows = new ArrayList<>();
    try (IdCluster cluster = new IdCluster()) {
      cluster.start(3, true);
      // An application's client: the default options.
      try (IdnodeClient c = IdnodeClient.builder().nodes(cluster.grpcAddrs()).build()) {
        c.withDeadline(Duration.ofSeconds(10)).nextIdentity("orders", 1);
        c.withDeadline(Duration.ofSeconds(10)).nextId("receipts"); // a HiLo range for close to give back

        cluster.command("kill", "leader");
        Outcome o = Outcome.of(() -> c.withDeadline(Duration.ofSeconds(10)).nextIdentity("orders", 1));
        assertNull(o.error(), () -> "an identity after the leader's kill: " + o.error());
        rows.add(o.row("leader killed: an identity right after (10 s deadline)", "none: the new leader answers"));

        cluster.command("kill", "followers");
        rows.add(Outcome.of(() -> c.withDeadline(Duration.ofSeconds(4)).nextIdentity("orders", 1))
            .row("no quorum: an identity from the leader left alone (4 s deadline)"));
        rows.add(Outcome.of(() -> c.withDeadline(Duration.ofSeconds(1)).nextId("invoices"))
            .row("caller's deadline: a HiLo ID waiting for its first range under no quorum (1 s deadline)"));

        cluster.command("kill", "all");
        rows.add(Outcome.of(() -> c.withDeadline(Duration.ofSeconds(2)).nextIdentity("orders", 1))
            .row("all nodes down: an identity (2 s deadline)"));
        rows.add(Outcome.of(c::close).row("client closed: close() holding a HiLo range, every node down (no deadline)",
            "none: returns, the numbers it held counted in `unreturned()` and logged as a gap"));
        assertTrue(c.unreturned() > 0, "close() with every node down gave back its HiLo range, or did not count it as a gap");
        rows.add(Outcome.of(() -> c.withDeadline(Duration.ofSeconds(1)).nextIdentity("orders", 1))
            .row("client closed: an identity after close()"));
      }
    }

    String measured = FaultTablePage.render(rows);
    if ("1".equals(System.getenv("IDNODE_WRITE_FAULT_TABLE"))) {
      page.write(measured);
      return;
    }
    assertEquals(FaultTablePage.withoutTimes(page.committed()), FaultTablePage.withoutTimes(measured),
        "docs/fault-table.md's Java client table differs from what the client does now (IDNODE_WRITE_FAULT_TABLE=1 "
            + "rewrites it); measured:\n" + measured + "\ncommitted:\n" + page.committed());
  }
}
