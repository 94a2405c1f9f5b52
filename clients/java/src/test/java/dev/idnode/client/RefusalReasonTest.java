package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A cluster that lost its majority, as a client that has been running meets it: of three nodes
 * two are killed, and the one left refuses NO_QUORUM. The client's final error must say so,
 * whichever node it tried last, and closing the client once no node is up must be bounded and
 * quiet.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RefusalReasonTest {
  private static IdCluster cluster;
  /** The survivor first, then the two dead nodes: a round ends on a dead node. */
  private static List<String> nodes;
  /** A client that took a HiLo range before the nodes died, and holds its unused rest. */
  private static IdnodeClient holder;

  /** Keeps the warnings logged to dev.idnode.client while installed. */
  private static final class Warnings extends Handler implements AutoCloseable {
    private final Logger logger = Logger.getLogger("dev.idnode.client");
    private final SimpleFormatter formatter = new SimpleFormatter();
    private final List<String> messages = new ArrayList<>();

    Warnings() {
      logger.addHandler(this);
    }

    @Override
    public synchronized void publish(LogRecord r) {
      if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
        messages.add(formatter.formatMessage(r));
      }
    }

    synchronized List<String> messages() {
      return List.copyOf(messages);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      logger.removeHandler(this);
    }
  }

  @BeforeAll
  static void loseTheMajority() {
    cluster = new IdCluster();
    cluster.start(3, true);
    holder = IdnodeClient.builder().nodes(cluster.grpcAddrs()).nodesInOrder(true).build();
    assertTrue(holder.nextId("orders").matches("orders/1-[ABC]"));
    String survivor = cluster.select("leader").get(0);
    cluster.command("kill", "followers");
    nodes = new ArrayList<>(List.of(cluster.grpc(survivor)));
    cluster.grpcAddrs().stream().filter(a -> !a.equals(nodes.get(0))).forEach(nodes::add);
    awaitNoQuorum(cluster.grpc(survivor));
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  /** Waits until the node at addr refuses identities with NO_QUORUM: it noticed it lost its majority. */
  private static void awaitNoQuorum(String addr) {
    Backoff once = new Backoff(Duration.ofMillis(25), Duration.ofSeconds(1), 2, 0.2, 1);
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    String seen = "";
    try (IdnodeClient c = IdnodeClient.builder().nodes(addr).backoff(once).deadline(Duration.ofSeconds(5)).build()) {
      while (System.nanoTime() < until) {
        try {
          c.nextIdentity("probe", 1);
          seen = "an answer";
        } catch (IdnodeException e) {
          if (Reasons.NO_QUORUM.equals(e.reason())) {
            return;
          }
          seen = e.toString();
        }
      }
    }
    throw new AssertionError("the survivor did not refuse NO_QUORUM within 30 s; last: " + seen);
  }

  @Test
  @Order(1)
  void everyNodeFailedGivesTheLiveNodesNoQuorumNotTheDeadNodeTriedLast() {
    Backoff sixAttempts = new Backoff(Duration.ofMillis(25), Duration.ofSeconds(1), 2, 0.2, 6);
    try (IdnodeClient c = IdnodeClient.builder().nodes(nodes).nodesInOrder(true).backoff(sixAttempts)
        .deadline(Duration.ofSeconds(20)).build()) {
      IdnodeException e = assertThrows(IdnodeException.class, () -> c.nextIdentity("orders", 1));
      assertEquals(Reasons.NO_QUORUM, e.reason(), e.getMessage());
      assertEquals(Status.Code.UNAVAILABLE, e.code(), e.getMessage());
      NodesFailedException all = assertInstanceOf(NodesFailedException.class, e, e.getMessage());
      assertEquals(6, all.attempts());
    }
  }

  @Test
  @Order(2)
  void theCallersDeadlineEndsTheCallWithTheNoQuorumInside() {
    try (IdnodeClient c = IdnodeClient.builder().nodes(nodes).nodesInOrder(true).deadline(Duration.ofMillis(1500)).build()) {
      for (IdnodeClient view : List.of(c, c.withDeadline(Duration.ofMillis(1200)))) {
        IdnodeException e = assertThrows(IdnodeException.class, () -> view.nextIdentity("orders", 1));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, e.code(), e.getMessage());
        assertEquals(Reasons.NO_QUORUM, e.reason(), e.getMessage());
        IdnodeException cause = assertInstanceOf(IdnodeException.class, e.getCause(), e.getMessage());
        assertEquals(Reasons.NO_QUORUM, cause.reason(), cause.getMessage());
        assertEquals(Status.Code.UNAVAILABLE, cause.code(), cause.getMessage());
      }
    }
  }

  @Test
  @Order(3)
  void aHiLoCallerWhoseDeadlineEndsWhileItWaitsForARangeGetsTheFetchsRefusal() {
    try (IdnodeClient c = IdnodeClient.builder().nodes(nodes).nodesInOrder(true).build()) {
      IdnodeException e = assertThrows(IdnodeException.class, () -> c.withDeadline(Duration.ofMillis(1500)).nextId("invoices"));
      assertEquals(Status.Code.DEADLINE_EXCEEDED, e.code(), e.getMessage());
      assertEquals(Reasons.NO_QUORUM, e.reason(), e.getMessage());
    }
  }

  /** Last: it kills the survivor too. */
  @Test
  @Order(4)
  void closeWithNoNodeUpReturnsCountsWhatItCouldNotGiveBackAndLogsIt() {
    cluster.command("kill", "all");
    try (Warnings log = new Warnings()) {
      holder.close();
      assertTrue(holder.unreturned() > 0, "unreturned: " + holder.unreturned());
      String gap = "numbers 2.." ;
      assertTrue(log.messages().stream().anyMatch(m -> m.contains("orders") && m.contains(gap) && m.contains("lost")),
          "a warning naming " + gap + " in " + log.messages());
    }
  }
}
