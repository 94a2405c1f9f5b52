package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The order of a generator's ranges: one below the previous range is taken, one on it refused. */
class HiLoRangeOrderTest {
  private FakeNode node;
  private IdnodeClient client;

  @BeforeEach
  void start() {
    node = new FakeNode("A");
    client = IdnodeClient.builder().nodes(node.addr()).deadline(Duration.ofSeconds(10)).build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    node.acquireGate.countDown();
    client.close();
    node.close();
  }

  @Test
  void aRangeBelowThePreviousOneIsTakenAndOneOnItRefused() {
    // A node cut off from the majority grants from its pool below the client's last_max.
    node.grant(3393, 3424).grant(2049, 2080).grant(2070, 2101);
    HiLoGenerator g = HiLoGenerator.create(client, "orders", HiLoOptions.DEFAULT);
    List<String> got = new ArrayList<>();
    List<String> want = new ArrayList<>();
    for (long n = 3393; n <= 3424; n++) {
      want.add("orders/" + n + "-A");
    }
    for (long n = 2049; n <= 2080; n++) {
      want.add("orders/" + n + "-A");
    }
    for (int i = 0; i < want.size(); i++) {
      got.add(g.nextId());
    }
    assertEquals(want, got);
    // The overlapping answer is refused (INTERNAL); the fetch asked again finds the fake's queue
    // empty (FAILED_PRECONDITION). Either way no number of it is printed.
    IdnodeException e = assertThrows(IdnodeException.class, g::nextId);
    assertTrue(e.code() == Status.Code.INTERNAL || e.code() == Status.Code.FAILED_PRECONDITION, e.toString());
    assertEquals(2, g.stats().fetches(), "only the two ranges that do not overlap were taken");
    g.close();
  }
}
