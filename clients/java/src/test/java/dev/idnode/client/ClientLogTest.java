package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

/** The client's log, read where an application reads it: java.util.logging, System.Logger's default. */
class ClientLogTest {
  /** Keeps the messages logged to dev.idnode.client while installed. */
  private static final class Captured extends Handler implements AutoCloseable {
    private final Logger logger = Logger.getLogger("dev.idnode.client");
    private final SimpleFormatter formatter = new SimpleFormatter();
    private final List<String> messages = new ArrayList<>();

    Captured() {
      logger.addHandler(this);
    }

    @Override
    public synchronized void publish(LogRecord r) {
      messages.add(r.getLevel() + " " + formatter.formatMessage(r));
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

  @Test
  void aFailoverSaysFromWhichNodeToWhichAndWhy() {
    try (IdCluster cluster = new IdCluster(); Captured log = new Captured()) {
      cluster.start(3, false);
      String leader = cluster.select("leader").get(0);
      List<String> nodes = new ArrayList<>(List.of(cluster.grpc(leader)));
      cluster.grpcAddrs().stream().filter(a -> !a.equals(nodes.get(0))).forEach(nodes::add);
      cluster.command("kill", leader);

      try (IdnodeClient client = IdnodeClient.builder().nodes(nodes).nodesInOrder(true).deadline(Duration.ofSeconds(30)).build()) {
        assertEquals(List.of("users/1"), client.generate("users|", 1));
      }
      String failover = "INFO idnode: failing over from " + nodes.get(0) + " to " + nodes.get(1) + ": " + nodes.get(0) + " failed: ";
      assertTrue(log.messages().stream().anyMatch(m -> m.startsWith(failover) && m.contains("UNAVAILABLE")),
          "a line starting \"" + failover + "\" naming UNAVAILABLE in " + log.messages());
      assertTrue(log.messages().stream().noneMatch(m -> m.contains("users/1")), "nothing per ID: " + log.messages());
    }
  }
}
