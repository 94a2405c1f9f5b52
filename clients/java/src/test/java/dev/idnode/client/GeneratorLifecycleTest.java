package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idnode.v1.ReturnHiLoRequest;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How generators open and close, and how a shared failure reaches each caller, on a fake node. */
class GeneratorLifecycleTest {
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
  void closingTheClientsOwnGeneratorLeavesItWorking() {
    node.grant(1, 10);
    try (HiLoGenerator products = client.hiloGenerator("products")) {
      assertEquals("products/1-A", products.nextId());
    }
    assertEquals("products/2-A", client.nextId("products"), "the client still owns the generator it lent");
    assertTrue(node.returns.isEmpty(), "nothing goes back before the client closes: " + node.returns);
  }

  @Test
  void closeReturnsTheCurrentTailAlsoWhenThePrefetchedRangeIsNotAdjacent() {
    node.grant(1, 10).grant(21, 30); // another node's pool, or another client, took 11..20
    HiLoGenerator g = HiLoGenerator.create(client, "orders", HiLoOptions.DEFAULT);
    for (int i = 1; i <= 8; i++) {
      assertEquals("orders/" + i + "-A", g.nextId()); // the 8th starts the prefetch
    }
    g.close(); // waits for the prefetch, then returns both

    List<ReturnHiLoRequest> returns = node.returns;
    assertEquals(2, returns.size(), "the prefetched range and the current tail: " + returns);
    assertEquals(List.of(30L, 20L, 10L, 8L),
        List.of(returns.get(0).getEnd(), returns.get(0).getLast(), returns.get(1).getEnd(), returns.get(1).getLast()));
    assertEquals(List.of("grant-21", "grant-1"), List.of(returns.get(0).getGrantId(), returns.get(1).getGrantId()));
  }

  @Test
  void eachCallerGetsAnExceptionOfItsOwn() {
    IdnodeException shared = IdnodeException.create(Status.Code.UNAVAILABLE, Reasons.NO_QUORUM, Map.of(), "one folded call failed", null);
    CompletableFuture<IdentityBlock> call = CompletableFuture.failedFuture(shared);

    UnavailableException first = assertThrows(UnavailableException.class, () -> IdnodeClient.await(call));
    UnavailableException second = assertThrows(UnavailableException.class, () -> IdnodeClient.await(call));

    assertNotSame(first, second);
    assertNotSame(shared, first);
    assertEquals(0, shared.getSuppressed().length, "the shared exception is left as it was");
    assertEquals(1, first.getSuppressed().length);
    assertEquals(1, second.getSuppressed().length);
    for (IdnodeException e : List.of(first, second)) {
      assertEquals(Status.Code.UNAVAILABLE, e.code());
      assertEquals(Reasons.NO_QUORUM, e.reason());
      assertEquals(shared.getMessage(), e.getMessage());
      assertEquals(List.of(shared.getStackTrace()), List.of(e.getStackTrace()));
    }
  }

  @Test
  void aGeneratorMadeWhileTheClientClosesIsClosedWithIt() throws Exception {
    CompletableFuture<NumericGenerator> made = CompletableFuture.supplyAsync(() -> client.numericGenerator(NumericOptions.DEFAULT));
    assertTrue(node.acquireArrived.await(10, TimeUnit.SECONDS), "the lease request reached the node");
    Thread closer = new Thread(client::close, "closer");
    closer.start();
    awaitBlocked(closer);
    node.acquireGate.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(20));

    NumericGenerator g = made.get(10, TimeUnit.SECONDS);
    IdnodeException e = assertThrows(IdnodeException.class, g::next);
    assertEquals("LEASE_RELEASED", e.reason());
    assertTrue(node.calls.contains("releaseWorker"), "the worker went back: " + node.calls);
  }

  /** Waits until t waits for something (a lock, a channel), at most 10 s. */
  private static void awaitBlocked(Thread t) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (t.getState() == Thread.State.RUNNABLE || t.getState() == Thread.State.NEW) {
      assertTrue(System.nanoTime() < end, "the closing thread never waited");
      Thread.onSpinWait();
    }
  }
}
