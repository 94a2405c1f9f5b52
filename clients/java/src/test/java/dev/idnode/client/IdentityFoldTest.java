package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Deadline;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fold of concurrent single identities, against a fake call whose answers the test gives. */
class IdentityFoldTest {
  /** One call the fold made; the test completes its future. */
  record Sent(String name, long count, String requestId, Deadline deadline, CompletableFuture<IdentityBlock> future) {}

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final LinkedBlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
  private final IdentityFold fold = new IdentityFold((name, count, requestId, deadline) -> {
    CompletableFuture<IdentityBlock> f = new CompletableFuture<>();
    sent.add(new Sent(name, count, requestId, deadline, f));
    return f;
  }, timer);

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  private static Deadline in(long seconds) {
    return Deadline.after(seconds, TimeUnit.SECONDS);
  }

  private Sent nextSent() throws InterruptedException {
    Sent s = sent.poll(5, TimeUnit.SECONDS);
    assertTrue(s != null, "the fold sent no call within 5 s");
    return s;
  }

  private static long value(CompletableFuture<IdentityBlock> f) throws Exception {
    IdentityBlock b = f.get(5, TimeUnit.SECONDS);
    assertEquals(b.first(), b.last());
    return b.first();
  }

  @Test
  void callersQueuedDuringARoundShareTheNextCallInArrivalOrder() throws Exception {
    CompletableFuture<IdentityBlock> first = fold.next("orders", in(10));
    Sent one = nextSent();
    assertEquals(1, one.count());
    List<CompletableFuture<IdentityBlock>> queued = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      queued.add(fold.next("orders", in(10)));
    }
    assertTrue(sent.isEmpty(), "one call in flight per counter");

    one.future().complete(new IdentityBlock(1, 1, List.of()));
    assertEquals(1, value(first));
    Sent five = nextSent();
    assertEquals("orders", five.name());
    assertEquals(5, five.count());
    assertNotEquals(one.requestId(), five.requestId(), "each batch has a request id of its own");
    five.future().complete(new IdentityBlock(2, 6, List.of()));
    for (int i = 0; i < 5; i++) {
      assertEquals(2 + i, value(queued.get(i)));
    }
  }

  @Test
  void countersAreFoldedApartAndForgottenWhenIdle() throws Exception {
    CompletableFuture<IdentityBlock> a = fold.next("a", in(10));
    CompletableFuture<IdentityBlock> b = fold.next("b", in(10));
    Sent s1 = nextSent();
    Sent s2 = nextSent();
    assertEquals(Set.of("a", "b"), Set.of(s1.name(), s2.name()));
    assertEquals(2, fold.counters());
    s1.future().complete(new IdentityBlock(7, 7, List.of()));
    s2.future().complete(new IdentityBlock(9, 9, List.of()));
    value(a);
    value(b);
    // The regather wait (half the round, at most 1 ms) ends, then nothing is left.
    for (int i = 0; i < 500 && fold.counters() > 0; i++) {
      Thread.sleep(2);
    }
    assertEquals(0, fold.counters());
  }

  @Test
  void theNextCallWaitsForTheCallersTheLastOneAnswered() throws Exception {
    fold.next("loop", in(10));
    Sent one = nextSent();
    List<CompletableFuture<IdentityBlock>> pair = List.of(fold.next("loop", in(10)), fold.next("loop", in(10)));
    one.future().complete(new IdentityBlock(1, 1, List.of()));
    Sent two = nextSent();
    // The timer's one thread is held, so the wait's bound cannot end it: only callers can.
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    timer.execute(() -> {
      held.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertTrue(held.await(5, TimeUnit.SECONDS));
    try {
      two.future().complete(new IdentityBlock(2, 3, List.of()));
      value(pair.get(0));
      value(pair.get(1));
      CompletableFuture<IdentityBlock> back1 = fold.next("loop", in(10));
      assertEquals(null, sent.poll(50, TimeUnit.MILLISECONDS), "two were answered: the next call waits for a second caller");
      CompletableFuture<IdentityBlock> back2 = fold.next("loop", in(10));
      Sent three = nextSent();
      assertEquals(2, three.count());
      three.future().complete(new IdentityBlock(4, 5, List.of()));
      assertEquals(4, value(back1));
      assertEquals(5, value(back2));
    } finally {
      release.countDown();
    }
  }

  @Test
  void theWaitForCallersThatDoNotComeBackIsBounded() throws Exception {
    fold.next("once", in(10));
    Sent one = nextSent();
    List<CompletableFuture<IdentityBlock>> pair = List.of(fold.next("once", in(10)), fold.next("once", in(10)));
    one.future().complete(new IdentityBlock(1, 1, List.of()));
    Sent two = nextSent();
    two.future().complete(new IdentityBlock(2, 3, List.of()));
    value(pair.get(0));
    value(pair.get(1));
    CompletableFuture<IdentityBlock> alone = fold.next("once", in(10));
    Sent three = nextSent(); // after at most a millisecond, not a second caller
    assertEquals(1, three.count());
    three.future().complete(new IdentityBlock(4, 4, List.of()));
    assertEquals(4, value(alone));
  }

  @Test
  void aBlockCutShortSendsTheRestInTheNextCall() throws Exception {
    fold.next("claimed", in(10));
    Sent one = nextSent();
    List<CompletableFuture<IdentityBlock>> three = List.of(fold.next("claimed", in(10)), fold.next("claimed", in(10)),
        fold.next("claimed", in(10)));
    one.future().complete(new IdentityBlock(1, 1, List.of()));
    Sent s = nextSent();
    assertEquals(3, s.count());
    s.future().complete(new IdentityBlock(2, 4, List.of(3L))); // 3 is claimed: two values
    Sent rest = nextSent();
    assertEquals(1, rest.count());
    rest.future().complete(new IdentityBlock(5, 5, List.of()));
    assertEquals(2, value(three.get(0)));
    assertEquals(4, value(three.get(1)));
    assertEquals(5, value(three.get(2)), "the caller past the block's end goes in the next call");
  }

  @Test
  void anErrorGoesToEveryCallerOfTheBatch() throws Exception {
    fold.next("down", in(10));
    Sent one = nextSent();
    CompletableFuture<IdentityBlock> a = fold.next("down", in(10));
    CompletableFuture<IdentityBlock> b = fold.next("down", in(10));
    one.future().complete(new IdentityBlock(1, 1, List.of()));
    Sent two = nextSent();
    IdnodeException refusal = IdnodeException.create(Status.Code.UNAVAILABLE, Reasons.NO_QUORUM, Map.of(), "no quorum", null);
    two.future().completeExceptionally(refusal);
    for (CompletableFuture<IdentityBlock> f : List.of(a, b)) {
      ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
      assertSame(refusal, e.getCause());
    }
  }

  /** Three relaying callers queued behind a first call, and their batch, sent and not yet answered. */
  private Sent threeRelayingCallersInOneBatch(String name, List<CompletableFuture<IdentityBlock>> callers) throws Exception {
    fold.next(name, in(10));
    Sent one = nextSent();
    for (int i = 0; i < 3; i++) {
      callers.add(fold.next(name, in(10), true));
    }
    one.future().complete(new IdentityBlock(1, 1, List.of()));
    Sent three = nextSent();
    assertEquals(3, three.count());
    return three;
  }

  @Test
  void aWaitingThreadWokenByTheAnswerHandsItOnToTheOthers() throws Exception {
    List<CompletableFuture<IdentityBlock>> callers = new ArrayList<>();
    Sent three = threeRelayingCallersInOneBatch("relay", callers);
    three.future().complete(new IdentityBlock(2, 4, List.of()));
    // The fold may take the answer on its timer's thread: a stage of the first caller's future
    // says when it was answered, without waiting in get, which would hand the answers on.
    assertEquals(2, callers.get(0).thenApply(IdentityBlock::first).get(5, TimeUnit.SECONDS), "the answering thread wakes the first caller");
    assertFalse(callers.get(1).isDone() || callers.get(2).isDone(), "and leaves the others to it");
    assertEquals(2, value(callers.get(0)));
    assertTrue(callers.get(1).isDone() && callers.get(2).isDone(), "the first caller's thread answered the others");
    assertEquals(3, value(callers.get(1)));
    assertEquals(4, value(callers.get(2)));
  }

  @Test
  void aCallerThatStoppedWaitingLeavesTheHandingOnToTheAnsweringThread() throws Exception {
    List<CompletableFuture<IdentityBlock>> callers = new ArrayList<>();
    Sent three = threeRelayingCallersInOneBatch("relay-gone", callers);
    Thread.currentThread().interrupt();
    assertThrows(InterruptedException.class, () -> callers.get(0).get());
    three.future().complete(new IdentityBlock(2, 4, List.of()));
    // No thread of the first caller's will hand the answers on: the answering thread does.
    assertEquals(3, value(callers.get(1)));
    assertEquals(4, value(callers.get(2)));
  }

  @Test
  void theCallRunsToTheEarliestDeadlineAndTheOthersGoInTheNext() throws Exception {
    fold.next("deadlines", in(10));
    Sent one = nextSent();
    CompletableFuture<IdentityBlock> shortOne = fold.next("deadlines", Deadline.after(100, TimeUnit.MILLISECONDS));
    CompletableFuture<IdentityBlock> longOne = fold.next("deadlines", in(10));
    one.future().complete(new IdentityBlock(1, 1, List.of()));
    Sent two = nextSent();
    assertEquals(2, two.count());
    assertFalse(two.deadline().isBefore(Deadline.after(0, TimeUnit.MILLISECONDS)));
    assertTrue(two.deadline().timeRemaining(TimeUnit.MILLISECONDS) <= 100, "the batch's deadline is its earliest caller's");
    while (!two.deadline().isExpired()) {
      Thread.sleep(5);
    }
    IdnodeException late = IdnodeException.create(Status.Code.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", Map.of(), "deadline", null);
    two.future().completeExceptionally(late);
    ExecutionException e = assertThrows(ExecutionException.class, () -> shortOne.get(5, TimeUnit.SECONDS));
    assertSame(late, e.getCause());
    Sent three = nextSent();
    assertEquals(1, three.count(), "the caller whose deadline is later goes again");
    three.future().complete(new IdentityBlock(3, 3, List.of()));
    assertEquals(3, value(longOne));
  }

  @Test
  void aQueuedCallerFailsAtItsDeadlineWhenTheCallOutLastsIt() throws Exception {
    fold.next("slow", in(10));
    nextSent(); // never answered within this test
    CompletableFuture<IdentityBlock> queued = fold.next("slow", Deadline.after(50, TimeUnit.MILLISECONDS));
    ExecutionException e = assertThrows(ExecutionException.class, () -> queued.get(5, TimeUnit.SECONDS));
    IdnodeException ie = assertInstanceOf(IdnodeException.class, e.getCause());
    assertEquals(Status.Code.DEADLINE_EXCEEDED, ie.code());
    assertTrue(sent.isEmpty(), "it was never sent");
  }

  @Test
  void callersThatCancelLeaveAndTheLastOneCancelsTheCall() throws Exception {
    fold.next("gone", in(10));
    Sent one = nextSent();
    CompletableFuture<IdentityBlock> leaves = fold.next("gone", in(10));
    CompletableFuture<IdentityBlock> stays = fold.next("gone", in(10));
    leaves.cancel(true);
    one.future().complete(new IdentityBlock(1, 1, List.of()));
    Sent two = nextSent();
    assertEquals(1, two.count(), "the caller that left while queued is not sent");
    stays.cancel(true);
    // The fold may still be between sending the call and taking hold of it.
    assertThrows(java.util.concurrent.CancellationException.class, () -> two.future().get(5, TimeUnit.SECONDS),
        "no caller waits for it: the call is cancelled");
  }

  @Test
  void manyThreadsGetDistinctValuesInOrder() throws Exception {
    // A fake cluster: each call takes the next count values.
    long[] next = {1};
    IdentityFold counting = new IdentityFold((name, count, requestId, deadline) -> {
      synchronized (next) {
        long first = next[0];
        next[0] += count;
        return CompletableFuture.completedFuture(new IdentityBlock(first, first + count - 1, List.of()));
      }
    }, timer);
    int threads = 32;
    int calls = 200;
    List<List<Long>> got = new ArrayList<>();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<Long> mine = new ArrayList<>();
      got.add(mine);
      Thread th = new Thread(() -> {
        for (int i = 0; i < calls; i++) {
          mine.add(counting.next("many", in(10)).join().first());
        }
      });
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) {
      th.join(TimeUnit.SECONDS.toMillis(30));
      assertFalse(th.isAlive());
    }
    Set<Long> all = new HashSet<>();
    for (List<Long> mine : got) {
      for (int i = 1; i < mine.size(); i++) {
        assertTrue(mine.get(i) > mine.get(i - 1), "one thread's values rise: " + mine);
      }
      all.addAll(mine);
    }
    assertEquals(threads * calls, all.size(), "no value twice");
    assertTrue(next[0] - 1 >= threads * calls);
  }
}
