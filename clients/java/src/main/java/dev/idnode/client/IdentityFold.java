package dev.idnode.client;

import io.grpc.Deadline;
import io.grpc.Status;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PrimitiveIterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Folding of concurrent single identities: {@code nextIdentity} calls for one value of the same
 * counter made at the same time share one call for n values, whose block is split among them in
 * arrival order (the Go client's client/fold.go, the Python and TypeScript clients' folds).
 *
 * <p>Each identity is a Raft round on the cluster and each call a gRPC exchange both ends pay
 * for; one call for n values costs about what a call for one costs, so 64 threads taking
 * identities of one counter cost about one call a round instead of 64.
 *
 * <p>Real-time order holds: a caller only ever joins a batch that has not been sent, so a batch
 * is sent after every caller in it arrived, and the cluster numbers it after every call that had
 * returned by then. Each batch has a request id of its own, which the transport's retries reuse
 * (a retry never burns values). It runs until the earliest deadline among its callers and is
 * cancelled once every one of them has given up, so no batch outlives the callers it serves.
 *
 * <p>The state is under one lock; calls are sent and futures completed outside it, since either
 * may run a caller's stages on the spot. A batch's answers are handed out as a tree (handOut):
 * the thread that read the answer wakes one parked caller, and each woken caller two more, so
 * no one thread wakes them all, preempted by each (docs/BENCHMARKS-CLIENTS.md, "Where each
 * client's identity time went").
 */
final class IdentityFold {
  /** The callers one batch serves at most, far below the server's largest count (100,000). */
  static final int MAX_BATCH = 1024;
  /** The longest the next batch waits for the callers the last one answered. */
  static final long REGATHER_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** One call for {@code count} values of {@code name}; cancelling its future cancels the call. */
  interface Send {
    CompletableFuture<IdentityBlock> send(String name, long count, String requestId, Deadline deadline);
  }

  private final Send send;
  private final ScheduledExecutorService timer;
  private final Object lock = new Object();
  /** By name as the callers spell it; a counter goes once idle, so hostile names cannot pile up. */
  private final Map<String, Counter> counters = new HashMap<>();

  IdentityFold(Send send, ScheduledExecutorService timer) {
    this.send = send;
    this.timer = timer;
  }

  /**
   * One folded caller, and the future it waits on. A caller that waits in {@link #get()} on a
   * thread of its own (the blocking client's) relays: once woken, that thread hands the answers
   * of its part of the batch on (handOut), so a batch of n parked threads is woken by a tree
   * of them, the event loop waking one, rather than by the event loop alone, n times in a row.
   */
  private final class Waiter extends CompletableFuture<IdentityBlock> {
    private static final VarHandle RELAY;

    static {
      try {
        RELAY = MethodHandles.lookup().findVarHandle(Waiter.class, "relay", Runnable.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final Counter counter;
    final Deadline deadline;
    final boolean relays;
    /** The batch it is in; null while queued, and once answered or gone. */
    Batch batch;
    /** Fails it when its deadline passes while queued behind a batch that may outlast it. */
    ScheduledFuture<?> expiry;
    /** Its batch's answer to it, an IdentityBlock or a Throwable, set before handOut. */
    Object outcome;
    /** The hand-out its thread runs once woken; RELAYED once the thread looked. */
    @SuppressWarnings("unused") // through RELAY
    private volatile Runnable relay;

    Waiter(Counter counter, Deadline deadline, boolean relays) {
      this.counter = counter;
      this.deadline = deadline;
      this.relays = relays;
    }

    /** Takes its caller out of the queue or its batch when it gives up. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      if (cancelled) {
        leave(counter, this);
      }
      return cancelled;
    }

    @Override
    public IdentityBlock get() throws InterruptedException, ExecutionException {
      try {
        return super.get();
      } finally {
        relayed();
      }
    }

    @Override
    public IdentityBlock get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
      try {
        return super.get(timeout, unit);
      } finally {
        relayed();
      }
    }

    @Override
    public IdentityBlock join() {
      try {
        return super.join();
      } finally {
        relayed();
      }
    }

    /** Runs the hand-out left to this thread, if any; from now on the answering thread runs it. */
    private void relayed() {
      Runnable r = (Runnable) RELAY.getAndSet(this, RELAYED);
      if (r != null && r != RELAYED) {
        r.run();
      }
    }

    /**
     * Completes it with its outcome, and runs rest (the answers of the callers under it): on
     * its own thread once woken when it relays and that thread has not yet looked, else here.
     */
    void answer(Runnable rest) {
      Object o = outcome;
      outcome = null;
      if (rest != null && relays && RELAY.compareAndSet(this, null, rest)) {
        rest = null;
      }
      if (o instanceof Throwable t) {
        completeExceptionally(t);
      } else {
        complete((IdentityBlock) o);
      }
      if (rest != null) {
        rest.run();
      }
    }
  }

  /** What a relaying waiter's hand-out becomes once its thread has looked for it. */
  private static final Runnable RELAYED = () -> {};

  /**
   * Answers waiters[i] and, through it, the waiters under it in a binary tree (2i + 1 and
   * 2i + 2): each woken thread wakes at most two more, so the wake-ups of a batch spread over
   * the cores and take about log2(n) steps, not n on one thread.
   */
  private static void handOut(Waiter[] waiters, int n, int i) {
    int left = 2 * i + 1;
    waiters[i].answer(left >= n ? null : () -> {
      handOut(waiters, n, left);
      if (left + 1 < n) {
        handOut(waiters, n, left + 1);
      }
    });
  }

  private static final class Batch {
    final List<Waiter> waiters;
    /** The earliest of its callers' deadlines: the call's. */
    final Deadline deadline;
    /** Its callers still waiting for it: the last one to leave cancels the call. */
    int waiting;
    CompletableFuture<IdentityBlock> call;

    Batch(List<Waiter> waiters) {
      this.waiters = waiters;
      this.waiting = waiters.size();
      Deadline d = waiters.get(0).deadline;
      for (Waiter w : waiters) {
        d = d.minimum(w.deadline);
      }
      this.deadline = d;
    }
  }

  private static final class Counter {
    final String name;
    List<Waiter> queue = new ArrayList<>();
    /**
     * The one batch on the wire, null when none: while it is in a Raft round the next gathers
     * callers. A second one only waits at the leader for the round in progress (measured in Go,
     * docs/BENCHMARKS-ROUNDS.md).
     */
    Batch inFlight;
    /** When > 0, the next batch waits until the queue is this long or the timer fires. */
    int regather;
    ScheduledFuture<?> regatherTimer;

    Counter(String name) {
      this.name = name;
    }
  }

  /** What to do once the lock is released: waiters to answer, batches to send. */
  private static final class After {
    final List<Batch> sends = new ArrayList<>(1);
    Waiter[] answered;
    int n;

    void run(IdentityFold fold, Counter c) {
      if (n > 0) {
        handOut(answered, n, 0);
      }
      for (Batch b : sends) {
        fold.run(c, b);
      }
    }
  }

  /**
   * One value of counter {@code name}, shared in a batch with the callers of the same moment.
   *
   * @param name the counter
   * @param deadline the caller's deadline
   * @return its block of one value; cancelling it takes the caller out
   */
  CompletableFuture<IdentityBlock> next(String name, Deadline deadline) {
    return next(name, deadline, false);
  }

  /**
   * {@link #next(String, Deadline)}, where relays says the caller's own thread waits for the
   * future in get or join, and so may hand the answers of other callers on once woken. Such a
   * caller must wait that way, or its part of the batch waits with it.
   */
  CompletableFuture<IdentityBlock> next(String name, Deadline deadline, boolean relays) {
    if (deadline.isExpired()) {
      return CompletableFuture.failedFuture(IdnodeException.create(Status.Code.DEADLINE_EXCEEDED, Status.Code.DEADLINE_EXCEEDED.name(), Map.of(),
          "the call's deadline passed before it was sent", null));
    }
    Waiter w;
    Counter c;
    After after = new After();
    synchronized (lock) {
      c = counters.computeIfAbsent(name, Counter::new);
      w = new Waiter(c, deadline, relays);
      c.queue.add(w);
      if (c.inFlight != null && w.deadline.isBefore(c.inFlight.deadline)) {
        w.expiry = schedule(() -> expire(c, w), w.deadline.timeRemaining(TimeUnit.NANOSECONDS));
      }
      if (c.regather > 0 && c.queue.size() >= c.regather) {
        endRegatherLocked(c);
      }
      startLocked(c, after);
    }
    after.run(this, c);
    return w;
  }

  /** Takes w, whose caller cancelled, out of the queue or its batch. */
  private void leave(Counter c, Waiter w) {
    CompletableFuture<IdentityBlock> cancel = null;
    synchronized (lock) {
      Batch b = w.batch;
      if (b != null) {
        w.batch = null;
        if (--b.waiting == 0) {
          cancel = b.call;
        }
      } else if (c.queue.remove(w)) {
        cancelExpiry(w);
        dropIdleLocked(c);
      }
    }
    if (cancel != null) {
      cancel.cancel(false);
    }
  }

  /** Fails w if it is still queued when its deadline passes. */
  private void expire(Counter c, Waiter w) {
    synchronized (lock) {
      if (!c.queue.remove(w)) {
        return;
      }
      dropIdleLocked(c);
    }
    w.completeExceptionally(IdnodeException.create(Status.Code.DEADLINE_EXCEEDED, Status.Code.DEADLINE_EXCEEDED.name(), Map.of(),
        "the call's deadline passed while it waited to be sent with other callers of identity counter " + c.name, null));
  }

  /** Takes c's next batch, the oldest callers first, if one may go now; after sends it. */
  private void startLocked(Counter c, After after) {
    if (c.queue.isEmpty() || c.inFlight != null || c.regather > 0) {
      return;
    }
    List<Waiter> waiters;
    if (c.queue.size() <= MAX_BATCH) {
      waiters = c.queue;
      c.queue = new ArrayList<>();
    } else {
      waiters = new ArrayList<>(c.queue.subList(0, MAX_BATCH));
      c.queue = new ArrayList<>(c.queue.subList(MAX_BATCH, c.queue.size()));
    }
    Batch b = new Batch(waiters);
    for (Waiter w : waiters) {
      w.batch = b;
      cancelExpiry(w);
    }
    c.inFlight = b;
    after.sends.add(b);
  }

  /** Sends b (outside the lock) and hands its answer out when it comes. */
  private void run(Counter c, Batch b) {
    long sent = System.nanoTime();
    CompletableFuture<IdentityBlock> call;
    try {
      call = send.send(c.name, b.waiters.size(), AsyncIdnodeClient.newRequestId(), b.deadline);
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    boolean cancelNow;
    synchronized (lock) {
      b.call = call;
      cancelNow = b.waiting == 0;
    }
    if (cancelNow) {
      call.cancel(false);
    }
    call.whenComplete((block, error) -> finish(c, b, block, error, System.nanoTime() - sent));
  }

  /**
   * Hands the batch's answer out: one value to each caller still waiting, in arrival order, or
   * the error to all of them. Callers go back to the head of the queue, for the next batch, when
   * the block ends before their turn (the cluster ends a block early that steps over many
   * claimed values) or when the batch ended at another caller's deadline before theirs (a value
   * it may have reserved for them is a gap, never a duplicate: the next batch has a request id
   * of its own).
   */
  private void finish(Counter c, Batch b, IdentityBlock block, Throwable error, long roundNanos) {
    Throwable err = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    After after = new After();
    synchronized (lock) {
      c.inFlight = null;
      PrimitiveIterator.OfLong values = block == null ? null : block.valueIterator();
      boolean timedOut = err != null && b.deadline.isExpired();
      List<Waiter> back = new ArrayList<>();
      Waiter[] out = new Waiter[b.waiters.size()];
      int n = 0;
      int answered = 0;
      for (Waiter w : b.waiters) {
        if (w.batch != b) {
          continue; // left
        }
        w.batch = null;
        if (values != null && values.hasNext()) {
          long v = values.nextLong();
          w.outcome = new IdentityBlock(v, v, List.of());
          out[n++] = w;
          answered++;
        } else if (values != null || (timedOut && !w.deadline.isExpired() && b.deadline.isBefore(w.deadline))) {
          back.add(w);
        } else {
          w.outcome = err;
          out[n++] = w;
        }
      }
      after.answered = out;
      after.n = n;
      if (!back.isEmpty()) {
        back.addAll(c.queue);
        c.queue = back;
      }
      regatherLocked(c, answered, roundNanos);
      startLocked(c, after);
      dropIdleLocked(c);
    }
    after.run(this, c);
  }

  /**
   * Holds c's next batch until the callers the last batch answered are queued again, or for
   * half of that batch's round (at most REGATHER_MAX_NANOS). Threads that loop, taking one ID
   * after another, come back soon; without the wait the next batch would go with only those
   * that queued during the round, and the ones just answered would wait a whole round for the
   * one after: two halves taking turns, each round carrying half the callers. The wait is
   * bounded, so callers that do not come back cost little.
   *
   * <p>Go's fold waits a quarter of the round, enough for goroutines. Parked OS threads come
   * back more slowly, each woken through the kernel: at 64 threads the last was back 220–290
   * µs after an answer, past a quarter of most rounds, and batches averaged 49–51 callers.
   * With half, they carried 60–62, and the client took 6% less CPU per identity and 11% more
   * identities a second (the two bounds taking turns in one JVM; docs/BENCHMARKS-CLIENTS.md).
   */
  private void regatherLocked(Counter c, int answered, long roundNanos) {
    int want = c.queue.size() + answered;
    if (answered == 0 || want > MAX_BATCH) {
      return;
    }
    ScheduledFuture<?> t = schedule(() -> {
      After after = new After();
      synchronized (lock) {
        endRegatherLocked(c);
        startLocked(c, after);
        dropIdleLocked(c);
      }
      after.run(this, c);
    }, Math.min(roundNanos / 2, REGATHER_MAX_NANOS));
    if (t != null) {
      c.regather = want;
      c.regatherTimer = t;
    }
  }

  private static void endRegatherLocked(Counter c) {
    c.regather = 0;
    if (c.regatherTimer != null) {
      c.regatherTimer.cancel(false);
      c.regatherTimer = null;
    }
  }

  /** Forgets c once nothing of it is queued, in flight or regathering. */
  private void dropIdleLocked(Counter c) {
    if (c.queue.isEmpty() && c.inFlight == null && c.regather == 0 && counters.get(c.name) == c) {
      counters.remove(c.name);
    }
  }

  private static void cancelExpiry(Waiter w) {
    if (w.expiry != null) {
      w.expiry.cancel(false);
      w.expiry = null;
    }
  }

  /** Runs task after nanos on the client's timer; null once the client is closed (no wait then). */
  private ScheduledFuture<?> schedule(Runnable task, long nanos) {
    try {
      return timer.schedule(task, nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  /** The counters with callers queued, in flight or regathering (for tests). */
  int counters() {
    synchronized (lock) {
      return counters.size();
    }
  }
}
