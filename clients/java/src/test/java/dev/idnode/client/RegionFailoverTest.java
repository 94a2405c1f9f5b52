package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.google.gson.JsonParser;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A client of region west against three real nodes in three regions (A east, B west, C south):
 * what any node answers leaves the region while B is down, and comes back once B serves again
 * and its pause is over. The pause is timed by a clock the test moves.
 */
class RegionFailoverTest {
  /** The node tag a server-side ID ends with: "users/0000000000000000001-B" is B's. */
  private static String servedBy(IdnodeClient client) {
    String id = client.generate("users/", 1).get(0);
    return id.substring(id.lastIndexOf('-') + 1);
  }

  @Test
  void callsLeaveTheRegionWhileItsNodeIsDownAndComeBackOnceItServes() {
    try (IdCluster cluster = new IdCluster()) {
      cluster.start(JsonParser.parseString("{\"nodes\": 3, \"regions\": {\"A\": \"east\", \"B\": \"west\", \"C\": \"south\"}}").getAsJsonObject());
      List<String> nodes = cluster.grpcAddrs();
      AtomicLong now = new AtomicLong();
      try (IdnodeClient client = IdnodeClient.builder().nodes(nodes).region("west", cluster.regions(nodes))
          .clock(now::get).deadline(Duration.ofSeconds(20)).build()) {
        assertEquals("B", servedBy(client));

        cluster.command("kill", "B");
        assertNotEquals("B", servedBy(client), "another region's node, once the region's own is down");
        assertEquals(1L, client.nextIdentity("invoices", 1).first(), "identities reach the leader");

        cluster.command("restart", "B");
        assertNotEquals("B", servedBy(client), "within its pause the node that failed is not asked");
        now.addAndGet(RegionRouting.SKIP.toNanos());
        assertEquals("B", servedBy(client), "the region's node, once its pause is over and it serves");
        assertEquals("B", servedBy(client));
      }
    }
  }
}
