package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idnode.v1.NextHiLoRequest;
import io.grpc.Status;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client with a region, watched from two fake nodes of its region (west) and one of another
 * (east). A bare UNAVAILABLE is what a node that cannot be reached looks like to the client.
 */
class RegionRoutingTest {
  private final AtomicLong now = new AtomicLong();
  private FakeNode west1;
  private FakeNode west2;
  private FakeNode east;
  private IdnodeClient client;

  @BeforeEach
  void start() {
    west1 = new FakeNode("W1");
    west2 = new FakeNode("W2");
    east = new FakeNode("E");
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (client != null) {
      client.close();
    }
    west1.close();
    west2.close();
    east.close();
  }

  /** A client of region west over the nodes in the order given, its back-off timed by {@link #now}. */
  private IdnodeClient westClient(boolean inOrder, FakeNode... nodes) {
    Map<String, String> regions = Map.of(west1.addr(), "west", west2.addr(), "west", east.addr(), "east");
    List<String> addrs = java.util.Arrays.stream(nodes).map(FakeNode::addr).toList();
    Map<String, String> given = new HashMap<>();
    addrs.forEach(a -> given.put(a, regions.get(a)));
    client = builder(addrs).nodesInOrder(inOrder).region("west", given).clock(now::get).build();
    return client;
  }

  private static IdnodeClient.Builder builder(List<String> addrs) {
    return IdnodeClient.builder().nodes(addrs)
        .backoff(new Backoff(Duration.ofMillis(5), Duration.ofMillis(20), 2, 0.2, 0)).deadline(Duration.ofSeconds(5));
  }

  @Test
  void callsAnyNodeAnswersStartInTheClientsRegionWhereverItIsListed() {
    westClient(false, east, west1);
    for (int i = 0; i < 20; i++) {
      assertEquals(List.of("users/@W1"), client.generate("users/", 1));
    }
    assertEquals(List.of(), east.calls);
  }

  @Test
  void aFailedLocalNodeFailsOverToTheOtherLocalOneThenToTheRemoteOne() {
    westClient(true, west1, east, west2);
    west1.refuseBare(Status.Code.UNAVAILABLE);
    assertEquals(List.of("users/@W2"), client.generate("users/", 1), "the other node of the region before the remote one");
    assertEquals(List.of(), east.calls);

    west2.refuseBare(Status.Code.UNAVAILABLE); // and W1 is still skipped
    assertEquals(List.of("users/@E"), client.generate("users/", 1), "the remote node once no local one answers");
    assertEquals(1, west1.calls.size());
  }

  @Test
  void aLocalNodeThatFailedIsSkippedForASecondThenCallsGoBackToIt() {
    westClient(true, west1, east);
    west1.refuseBare(Status.Code.UNAVAILABLE);
    assertEquals(List.of("users/@E"), client.generate("users/", 1));
    assertEquals(List.of("users/@E"), client.generate("users/", 1));
    assertEquals(1, west1.calls.size(), "within the second after its failure, the local node costs no attempt");

    now.addAndGet(RegionRouting.SKIP.toNanos());
    assertEquals(List.of("users/@W1"), client.generate("users/", 1), "the remote node that answered is not where calls start");
    assertEquals(List.of("users/@W1"), client.generate("users/", 1));
    assertEquals(2, east.calls.size());
  }

  @Test
  void onlyTheNodesOwnFailureSkipsIt() {
    westClient(true, west1, east);
    // A refusal for the cluster: the other nodes share it, so W1 stays first.
    for (String reason : List.of(Reasons.NO_QUORUM, Reasons.OUTCOME_UNKNOWN)) {
      west1.refuse(Status.Code.UNAVAILABLE, reason, Map.of());
      assertEquals(List.of("users/@E"), client.generate("users/", 1));
      assertEquals(List.of("users/@W1"), client.generate("users/", 1), "W1 was skipped after refusing " + reason);
    }
    // Busy, or not reached at all: W1 itself failed, and goes last for a second.
    west1.refuse(Status.Code.RESOURCE_EXHAUSTED, Reasons.NODE_BUSY, Map.of());
    int asked = west1.calls.size();
    assertEquals(List.of("users/@E"), client.generate("users/", 1));
    assertEquals(List.of("users/@E"), client.generate("users/", 1), "W1 asked again at once after refusing NODE_BUSY");
    assertEquals(asked + 1, west1.calls.size());
    now.addAndGet(RegionRouting.SKIP.toNanos());
    assertEquals(List.of("users/@W1"), client.generate("users/", 1));
    west1.refuseBare(Status.Code.UNAVAILABLE);
    asked = west1.calls.size();
    assertEquals(List.of("users/@E"), client.generate("users/", 1));
    assertEquals(List.of("users/@E"), client.generate("users/", 1), "W1 asked again at once after it could not be reached");
    assertEquals(asked + 1, west1.calls.size());
  }

  @Test
  void aRefusalAboutTheNodeAloneSkipsIt() {
    westClient(true, west1, east);
    // Stopping, behind, or unable to write its storage: W1 itself cannot serve, and would cost
    // every call a round trip if it stayed first.
    for (String reason : List.of(Reasons.SHUTTING_DOWN, Reasons.NOT_CAUGHT_UP, Reasons.STORAGE_FULL,
        Reasons.STORAGE_FAILED, Reasons.NOT_REGISTERED, Reasons.REPLICA_DIVERGED)) {
      now.addAndGet(RegionRouting.SKIP_MAX.toNanos());
      west1.refuse(Status.Code.UNAVAILABLE, reason, Map.of());
      int asked = west1.calls.size();
      assertEquals(List.of("users/@E"), client.generate("users/", 1));
      assertEquals(List.of("users/@E"), client.generate("users/", 1), "W1 asked again at once after refusing " + reason);
      assertEquals(asked + 1, west1.calls.size(), "W1 asked again at once after refusing " + reason);
    }
  }

  @Test
  void aNodeThatKeepsFailingIsSkippedTwiceAsLongEachTimeUpToTheCap() {
    // Nodes 0 and 2 are west's, 1 is east's; the order starts at node 0.
    RegionRouting r = new RegionRouting(List.of("a:1", "b:1", "c:1"), "west",
        Map.of("a:1", "west", "b:1", "east", "c:1", "west"), true, now::get);
    long second = RegionRouting.SKIP.toNanos();
    for (long skip : new long[] {second, 2 * second, 4 * second, 8 * second, 16 * second, 30 * second, 30 * second}) {
      r.failed(0);
      assertTrue(!goesLast(r, 2), "node 2 goes last while only node 0 failed");
      wantSkip(r, 0, skip);
    }
    assertEquals(Duration.ofSeconds(30), RegionRouting.SKIP_MAX);

    r.answered(0, 0);
    r.failed(0);
    now.addAndGet(second / 2);
    r.failed(0); // within its skip: the same second again, from now
    wantSkip(r, 0, second);

    r.failed(0);
    r.failed(2);
    now.addAndGet(second);
    assertTrue(goesLast(r, 0) && !goesLast(r, 2), "node 0 failed for the second time, node 2 for the first: want 2 s and 1 s");
  }

  @Test
  void aSkipThatEndedAndWasRetriedStillGrowsOnTheNextFailure() {
    RegionRouting r = new RegionRouting(List.of("a:1", "b:1"), "west", Map.of("a:1", "west", "b:1", "east"), true, now::get);
    r.failed(0);
    now.addAndGet(RegionRouting.SKIP.toNanos());
    assertTrue(r.retryDue(0), "the first call after the skip is told to retry");
    r.failed(0);
    wantSkip(r, 0, 2 * RegionRouting.SKIP.toNanos());
  }

  @Test
  void aLocalNodeThatStaysDownIsAskedEverMoreRarely() {
    westClient(true, west1, east);
    for (int i = 0; i < 4; i++) {
      west1.refuseBare(Status.Code.UNAVAILABLE);
    }
    assertEquals(3, askedOver(west1, 14), "W1 asked at 0 s, 1 s and 3 s of its first 7 s down: skipped 1 s, then 2 s, then 4 s");
    assertEquals(1, askedOver(west1, 1), "W1 asked again once its 4 s skip ended");
    now.addAndGet(Duration.ofSeconds(8).toNanos());
    assertEquals(List.of("users/@W1"), client.generate("users/", 1), "W1 answers once its 8 s skip ended");

    west1.refuseBare(Status.Code.UNAVAILABLE).refuseBare(Status.Code.UNAVAILABLE);
    assertEquals(1, askedOver(west1, 2), "W1 failed again, then skipped");
    assertEquals(1, askedOver(west1, 1), "once W1 answered, its next failure skips it for a second again");
  }

  /** Makes calls half a second apart; how many of them asked node. */
  private int askedOver(FakeNode node, int calls) {
    int before = node.calls.size();
    for (int i = 0; i < calls; i++) {
      assertEquals(List.of("users/@E"), client.generate("users/", 1));
      now.addAndGet(Duration.ofMillis(500).toNanos());
    }
    return node.calls.size() - before;
  }

  private static boolean goesLast(RegionRouting r, int node) {
    int[] order = r.order(-1);
    return order[order.length - 1] == node;
  }

  /** Node goes last for skip nanoseconds from now, not one more; the clock is left at its end. */
  private void wantSkip(RegionRouting r, int node, long skip) {
    assertTrue(goesLast(r, node), "node " + node + " not last right after its failure");
    now.addAndGet(skip - 1);
    assertTrue(goesLast(r, node), "node " + node + " back in its place before " + skip + " ns");
    now.addAndGet(1);
    assertTrue(!goesLast(r, node), "node " + node + " still last " + skip + " ns after its failure");
  }

  @Test
  void identitiesGoToTheLeaderInAnotherRegion() {
    westClient(true, east, west1);
    west1.leader(east.addr());
    client.generate("users/", 1); // W1, which names E as the leader
    client.nextIdentity("invoices", 1);
    client.generate("users/", 1);
    assertEquals(List.of("generate", "generate"), west1.calls);
    assertEquals(List.of("nextIdentity"), east.calls);
  }

  @Test
  void aLeaderThatCouldNotBeReachedIsNotAskedFirstDuringItsPause() {
    westClient(true, east, west1);
    west1.leader(east.addr());
    client.generate("users/", 1);
    east.refuseBare(Status.Code.UNAVAILABLE);
    client.nextIdentity("invoices", 1); // E fails, W1 relays
    client.nextIdentity("invoices", 1); // W1 first, though its answers still name E
    assertEquals(List.of("nextIdentity"), east.calls);
    assertEquals(List.of("generate", "nextIdentity", "nextIdentity"), west1.calls);

    // Its failure made the client forget it as leader and distrust hints naming it for a while:
    // once that is over, W1's hint names it again, and the next identity goes there.
    now.addAndGet(Transport.LEADER_HINT_DISTRUST.toNanos());
    client.nextIdentity("invoices", 1);
    client.nextIdentity("invoices", 1);
    assertEquals(List.of("nextIdentity", "nextIdentity"), east.calls, "the leader again once its pause is over");
  }

  @Test
  void withNoLeaderKnownIdentitiesStartInTheClientsRegion() {
    westClient(true, east, west1);
    client.nextIdentity("invoices", 1);
    assertEquals(List.of("nextIdentity"), west1.calls);
    assertEquals(List.of(), east.calls);
  }

  @Test
  void hiloRangesComeFromTheClientsRegionEvenWhenTheLeaderIsElsewhere() {
    westClient(true, east, west1);
    west1.leader(east.addr()).grant(1, 32);
    client.generate("users/", 1);
    HiLoRange r = client.nextHiLo(NextHiLoRequest.newBuilder().setTag("orders").build());
    assertEquals("W1", r.serverTag());
    assertEquals(List.of(), east.calls);
  }

  @Test
  void withoutARegionHiloRangesStillComeFromTheLeader() {
    west1.leader(east.addr());
    east.grant(1, 32);
    client = builder(List.of(west1.addr(), east.addr())).nodesInOrder(true).build();
    client.generate("users/", 1);
    assertEquals("E", client.nextHiLo(NextHiLoRequest.newBuilder().setTag("orders").build()).serverTag());
  }

  @Test
  void badRegionsAreRefusedWhenTheClientIsMade() {
    List<String> addrs = List.of(west1.addr(), east.addr());
    String empty = assertThrows(IllegalArgumentException.class, () -> builder(addrs).region("", Map.of())).getMessage();
    assertTrue(empty.contains("the client's region is empty"), empty);
    String label = assertThrows(IllegalArgumentException.class,
        () -> builder(addrs).region("west", Map.of(east.addr(), "east coast"))).getMessage();
    assertTrue(label.contains("east coast"), label);
    assertThrows(IllegalArgumentException.class, () -> builder(addrs).region("west", null));

    String stranger = assertThrows(IllegalStateException.class,
        () -> builder(addrs).region("west", Map.of(west1.addr(), "west", "10.0.0.9:7070", "west")).build()).getMessage();
    assertTrue(stranger.contains("10.0.0.9:7070") && stranger.contains("not one of the client's nodes"), stranger);
    String none = assertThrows(IllegalStateException.class,
        () -> builder(addrs).region("north", Map.of(west1.addr(), "west", east.addr(), "east")).build()).getMessage();
    assertTrue(none.contains("no node of the client is in its region north"), none);
  }
}
