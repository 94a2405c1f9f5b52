package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Deadline;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The retry loop watched from the server side, on two fake nodes. */
class RetryTest {
  private FakeNode a;
  private FakeNode b;
  private IdnodeClient client;

  /**
   * Makes this JVM's first call through gRPC before any test does. Loading and linking the
   * client's classes and Netty's took seconds of the first test's 5 s deadline on a loaded
   * machine (3 of 42 runs, three JVMs on one core, failed that test with DEADLINE_EXCEEDED
   * before its call left the client). Waits for an answer, not for a time: the call is repeated
   * until one comes, within a minute.
   */
  @BeforeAll
  static void firstCallThroughGrpc() throws InterruptedException {
    FakeNode node = new FakeNode("W");
    try (IdnodeClient c = IdnodeClient.builder().nodes(node.addr()).deadline(Duration.ofSeconds(5)).build()) {
      long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      while (true) {
        try {
          c.generate("users/", 1);
          return;
        } catch (IdnodeException e) {
          if (System.nanoTime() > until) {
            throw new AssertionError("no first call through gRPC was answered within a minute", e);
          }
        }
      }
    } finally {
      node.close();
    }
  }

  @BeforeEach
  void start() {
    a = new FakeNode("A");
    b = new FakeNode("B");
    client = IdnodeClient.builder().nodes(a.addr(), b.addr()).nodesInOrder(true)
        .backoff(new Backoff(Duration.ofMillis(5), Duration.ofMillis(20), 2, 0.2, 0)).deadline(Duration.ofSeconds(5)).build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    client.close();
    a.close();
    b.close();
  }

  @Test
  void everyAttemptOfAnIdentityCallCarriesTheSameRequestId() {
    a.refuse(Status.Code.UNAVAILABLE, Reasons.OUTCOME_UNKNOWN, Map.of()).refuse(Status.Code.UNAVAILABLE, Reasons.NO_QUORUM, Map.of());
    b.refuse(Status.Code.UNAVAILABLE, Reasons.OUTCOME_UNKNOWN, Map.of());

    IdentityBlock block = client.nextIdentity("orders", 2);

    assertEquals(new IdentityBlock(7, 8, List.of()), block);
    List<String> ids = new java.util.ArrayList<>(a.requestIds);
    ids.addAll(b.requestIds);
    assertEquals(4, ids.size(), "A refused twice, B once, then A answered: " + ids);
    assertEquals(1, Set.copyOf(ids).size(), "one request id for every attempt: " + ids);
    assertFalse(ids.get(0).isEmpty());
  }

  @Test
  void aReleaseWhoseAnswerWasLostAnswersItsFirstCountOnItsRetry() {
    // A releases two IDs and its answer is lost; the cluster answers the retry by its request
    // id with the first attempt's count, where the IDs alone, released by then, would say 0.
    a.refuseBare(Status.Code.UNAVAILABLE);
    b.released = r -> !r.getRequestId().isEmpty() && a.releases.stream().anyMatch(x -> x.getRequestId().equals(r.getRequestId())) ? 2 : 0;

    assertEquals(2, client.release("", List.of("users/1", "users/2")), "the retry of a release that took effect answered another count");
    assertEquals(1, a.releases.size());
    assertEquals(1, b.releases.size());
    assertEquals(a.releases.get(0).getRequestId(), b.releases.get(0).getRequestId(), "one request id for every attempt");
  }

  @Test
  void aReturnWhoseAnswerWasLostAnswersReturnedOnItsRetry() {
    // A gives the numbers back and its answer is lost; the cluster answers the retry by its
    // request id as the first attempt did, where the range alone would say false.
    a.refuseBare(Status.Code.UNAVAILABLE);
    b.takesBack = r -> !r.getRequestId().isEmpty() && a.returns.stream().anyMatch(x -> x.getRequestId().equals(r.getRequestId()));

    assertTrue(client.returnHiLo("orders", 32, 4, "g1"), "the retry of a return that took effect answered false");
    assertEquals(1, a.returns.size());
    assertEquals(1, b.returns.size());
    assertEquals(a.returns.get(0).getRequestId(), b.returns.get(0).getRequestId(), "one request id for every attempt");
  }

  @Test
  void eachLogicalCallGetsItsOwnRequestId() {
    client.nextIdentity("orders", 1);
    client.nextIdentity("orders", 1);
    assertEquals(2, a.requestIds.size());
    assertNotEquals(a.requestIds.get(0), a.requestIds.get(1));
  }

  @Test
  void aCallersRequestIdIsSentAsGiven() {
    a.refuse(Status.Code.UNAVAILABLE, Reasons.NO_QUORUM, Map.of());
    client.nextIdentity("orders", 1, "doc-42");
    assertEquals(List.of("doc-42"), b.requestIds);
    assertEquals(List.of("doc-42"), a.requestIds);
  }

  @Test
  void identityCallsGoToTheLeaderTheHeaderNamed() {
    a.leader(b.addr());
    client.generate("users/", 1); // any node: A, which names B as leader
    client.nextIdentity("orders", 1);
    assertEquals(List.of("generate"), a.calls);
    assertEquals(List.of("nextIdentity"), b.calls);
  }

  @Test
  void aFollowerStillNamingALeaderThatFailedDoesNotSendCallsBackToIt() {
    // After the leader dies the followers name it until they elect another: the client believes
    // its own observation over such a hint for a while. That while is timed on a clock of the
    // test's, which stands still: on a loaded machine the calls below may take longer than the
    // distrust lasts in real time.
    a.leader(b.addr());
    b.leader(b.addr());
    try (IdnodeClient c = IdnodeClient.builder().nodes(a.addr(), b.addr()).nodesInOrder(true)
        .backoff(new Backoff(Duration.ofMillis(5), Duration.ofMillis(20), 2, 0.2, 0)).clock(() -> 0L).build()) {
      c.generate("users/", 1); // any node: A, which names B as leader
      c.nextIdentity("orders", 2);
      assertEquals(List.of("nextIdentity"), b.calls);
      b.refuseBare(Status.Code.UNAVAILABLE).refuseBare(Status.Code.UNAVAILABLE).refuseBare(Status.Code.UNAVAILABLE);
      for (int k = 0; k < 3; k++) {
        c.nextIdentity("orders", 2);
      }
    }
    assertEquals(List.of("nextIdentity", "nextIdentity"), b.calls,
        "after B failed, A's stale hint sent the next calls to B first again");
  }

  @Test
  void aBusyNodeIsLeftForTheNext() {
    a.refuse(Status.Code.RESOURCE_EXHAUSTED, Reasons.NODE_BUSY, Map.of());
    assertEquals(List.of("users/@B"), client.generate("users/", 1));
    assertEquals(1, a.calls.size());
  }

  @Test
  void aConnectionLostUnderACallIsTriedOnTheNextNodeButANodesUnknownIsNot() {
    a.refuseBare(Status.Code.UNKNOWN);
    assertEquals(new IdentityBlock(7, 7, List.of()), client.nextIdentity("orders", 1));
    assertEquals(a.requestIds, b.requestIds);

    a.refuse(Status.Code.UNKNOWN, "SOMETHING_NEW", Map.of());
    b.refuse(Status.Code.UNKNOWN, "SOMETHING_NEW", Map.of());
    IdnodeException e = assertThrows(IdnodeException.class, () -> client.generate("users/", 1));
    assertEquals("SOMETHING_NEW", e.reason());
    long generates = java.util.stream.Stream.concat(a.calls.stream(), b.calls.stream()).filter("generate"::equals).count();
    assertEquals(1, generates, "a node's own UNKNOWN ends the call");
  }

  @Test
  void aRefusalForBadInputIsNotRetriedAndCarriesItsErrorInfo() {
    a.refuse(Status.Code.INVALID_ARGUMENT, Reasons.INVALID_INPUT, Map.of("field", "name"));
    IdnodeException e = assertThrows(InvalidRequestException.class, () -> client.generate("a\\b", 1));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.code());
    assertEquals(Reasons.INVALID_INPUT, e.reason());
    assertEquals(Map.of("field", "name"), e.metadata());
    assertEquals(List.of(), b.calls);
  }

  @Test
  void aClusterWithoutQuorumFailsAtTheDeadlineWithDeadlineExceededAndTheNodesReason() {
    // The deadline passes on a clock of the test's, as the fifth attempt reaches its node: how
    // many attempts fit in a real 400 ms depends on the machine's load, and on a busy one the
    // first attempt, which dials its node in a fresh JVM, took longer than that alone. The
    // deadline and the call timeout are long, since grpc-java also times each attempt itself,
    // in real time, by what the test's clock says is left.
    AtomicLong now = new AtomicLong();
    Deadline.Ticker ticker = new Deadline.Ticker() {
      @Override
      public long nanoTime() {
        return now.get();
      }
    };
    AtomicInteger arrived = new AtomicInteger();
    Runnable attempt = () -> {
      if (arrived.incrementAndGet() == 5) {
        now.addAndGet(TimeUnit.MINUTES.toNanos(2));
      }
    };
    a.onArrival(attempt);
    b.onArrival(attempt);
    for (int i = 0; i < 1000; i++) {
      a.refuse(Status.Code.UNAVAILABLE, Reasons.NO_QUORUM, Map.of());
      b.refuse(Status.Code.UNAVAILABLE, Reasons.NO_QUORUM, Map.of());
    }
    try (IdnodeClient c = IdnodeClient.builder().nodes(a.addr(), b.addr()).nodesInOrder(true)
        .backoff(new Backoff(Duration.ofMillis(5), Duration.ofMillis(20), 2, 0.2, 0)).callTimeout(Duration.ofSeconds(30))
        .deadlineTicker(ticker).build()) {
      NodesFailedException e = assertThrows(NodesFailedException.class, () -> c.withDeadline(Duration.ofMinutes(1)).nextIdentity("orders", 1));
      assertEquals(Status.Code.DEADLINE_EXCEEDED, e.code(), e.getMessage());
      assertEquals(Reasons.NO_QUORUM, e.reason());
      assertEquals(Reasons.NO_QUORUM, assertInstanceOf(IdnodeException.class, e.getCause()).reason());
      assertEquals(5, e.attempts(), "rounds with backoff until the deadline, and none after it");
    }
    assertEquals(1, Set.copyOf(a.requestIds).size());
  }

  @Test
  void aSilentNodeCostsOneAttemptTimeoutThenTheNextAnswers() {
    a.silent();
    try (IdnodeClient c = IdnodeClient.builder().nodes(a.addr(), b.addr()).nodesInOrder(true).callTimeout(Duration.ofMillis(200)).build()) {
      assertEquals(List.of("users/@B"), c.generate("users/", 1));
    }
  }

  @Test
  void theCallersDeadlineEndsAWaitOnASilentNode() {
    a.silent();
    b.silent();
    UnavailableException e = assertThrows(UnavailableException.class, () -> client.withDeadline(Duration.ofMillis(300)).generate("users/", 1));
    assertEquals(Status.Code.DEADLINE_EXCEEDED, e.code());
  }

  @Test
  void theAsyncApiAnswersWithFuturesAndFailsThemWithTheHierarchy() throws Exception {
    CompletableFuture<IdentityBlock> ok = client.async().nextIdentity("orders", 3);
    assertEquals(new IdentityBlock(7, 9, List.of()), ok.get(5, TimeUnit.SECONDS));

    a.refuse(Status.Code.ALREADY_EXISTS, Reasons.CLAIMED, Map.of());
    ExecutionException e = assertThrows(ExecutionException.class, () -> client.async().generate("users/ayende", 1).get(5, TimeUnit.SECONDS));
    assertInstanceOf(AlreadyExistsException.class, e.getCause());
  }

  @Test
  void argumentsOutOfRangeAreRefusedBeforeAnyCall() {
    IdnodeException e = assertThrows(InvalidRequestException.class, () -> client.nextIdentity("orders", -1));
    assertEquals(Reasons.INVALID_INPUT, e.reason());
    assertThrows(InvalidRequestException.class, () -> client.seedIdentity("orders", -5, false));
    assertThrows(InvalidRequestException.class, () -> client.hiloGenerator("orders/"));
    assertThrows(InvalidRequestException.class, () -> client.hiloGenerator(" "));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofMillis(10), Duration.ofMillis(5), 2, 0.2, 0));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofMillis(10), Duration.ofMillis(50), 0.5, 0.2, 0));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofMillis(10), Duration.ofMillis(50), 2, 1.5, 0));
    assertThrows(IllegalArgumentException.class, () -> client.withDeadline(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> IdnodeClient.builder().database("no spaces"));
    assertThrows(IllegalArgumentException.class, () -> IdnodeClient.builder().apiKey("k").adminToken("t"));
    assertEquals(List.of(), a.calls);
  }

  @Test
  void aStageOfAFoldedIdentityMayWaitForAnotherCall() throws Exception {
    // A folded call's answer is read on the connection's event loop; a caller's stage that
    // blocks there would stall the very connection its own call needs.
    IdentityBlock inner = client.async().nextIdentity("orders", 1)
        .thenApply(first -> client.nextIdentity("orders", 1)).get(10, TimeUnit.SECONDS);
    assertEquals(new IdentityBlock(7, 7, List.of()), inner);
    assertEquals(2, a.requestIds.size());
  }

  @Test
  void callsAfterCloseAreRefused() {
    client.close();
    assertThrows(ClientClosedException.class, () -> client.generate("users/", 1));
  }
}
