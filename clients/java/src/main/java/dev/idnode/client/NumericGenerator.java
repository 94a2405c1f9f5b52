package dev.idnode.client;

import dev.idnode.v1.AcquireWorkerRequest;
import dev.idnode.v1.ReleaseWorkerRequest;
import dev.idnode.v1.RenewWorkerRequest;
import dev.idnode.v1.WorkerLease;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Mints 64-bit numeric IDs (time | worker | sequence, {@link NumericLayout}) in-process under a
 * worker leased from the cluster: {@link #next()} makes no network call. The lease is renewed in
 * the background at a third of its length; minting stops a margin before it could lapse. Every
 * ID is greater than the one before, also when the clock steps back (it borrows up to a second
 * ahead, then refuses with {@code CLOCK_BEHIND}). Thread-safe. Close it to give the worker back;
 * a generator open at JVM exit is closed by a shutdown hook.
 */
public final class NumericGenerator implements AutoCloseable {
  /** How far ahead of the wall clock a minted ID's tick may run. */
  private static final long MAX_BORROW_MS = 1000;

  private final AsyncIdnodeClient client;
  private final NumericOptions options;
  private final NumericLayout layout;
  private final long epochMs;
  private final long unitMs;
  private final int seqBits;
  private final int tickShift;
  private final long seqMask;
  private final long borrowTicks;
  private final Runnable onClose;

  // Guarded by this.
  private WorkerLease grant;
  private long workerPart;
  private long maxTick;
  private long validUntilNanos;
  private long last = -1;
  private long minted = -1;
  private boolean lost;
  private boolean closed;
  private Throwable lastError;
  private ScheduledFuture<?> renewal;

  NumericGenerator(AsyncIdnodeClient client, NumericOptions options, Runnable onClose) {
    this.client = client.withDeadline(options.lease().dividedBy(3));
    this.options = options;
    this.layout = options.layout();
    this.epochMs = layout.epoch().toEpochMilli();
    this.unitMs = layout.unit().toMillis();
    this.seqBits = layout.sequenceBits();
    this.tickShift = layout.workerBits() + layout.sequenceBits();
    this.seqMask = (1L << seqBits) - 1;
    this.borrowTicks = MAX_BORROW_MS / unitMs;
    this.onClose = onClose;
    long sent = System.nanoTime();
    IdnodeClient.await(client.workers().acquire(acquireRequest()).thenAccept(l -> install(l, sent, true)));
    ExitHook.register(this, this::close);
    schedule(options.lease().dividedBy(3).toNanos());
  }

  /**
   * A generator leasing a worker of {@code client}'s database; the caller closes it.
   *
   * @param client the client
   * @param options layout, lease, margin, clock
   * @return the generator, holding a lease
   */
  public static NumericGenerator create(IdnodeClient client, NumericOptions options) {
    return new NumericGenerator(client.async(), options, () -> {});
  }

  /**
   * Mints an ID, with no network call.
   *
   * @return the ID, never negative
   * @throws IdnodeException {@code UNAVAILABLE} with reason {@code LEASE_EXPIRED} (renewals
   *     failed; the message says why), {@code LEASE_LOST} (the worker went to another holder; a
   *     new one is being acquired: retry shortly), {@code CLOCK_BEHIND} (the clock stepped back
   *     more than a second: wait), {@code LEASE_EXHAUSTED}
   */
  public long next() {
    long now = options.clock().millis();
    long nowTick = Math.floorDiv(now - epochMs, unitMs);
    long nanos = System.nanoTime();
    synchronized (this) {
      if (lost) {
        throw refusal(closed ? "LEASE_RELEASED" : "LEASE_LOST", closed ? "the generator is closed"
            : "the worker lease was lost to another holder; a new one is being acquired, retry shortly");
      }
      if (nanos - validUntilNanos >= 0) {
        throw refusal("LEASE_EXPIRED", "the worker lease could not be renewed in time"
            + (lastError != null ? " (the last renewal failed: " + lastError.getMessage() + ")" : ""));
      }
      long n = last + 1;
      if (nowTick > n >> seqBits) {
        if (nowTick > maxTick) {
          throw exhausted();
        }
        n = nowTick << seqBits;
      }
      long tick = n >> seqBits;
      if (tick > maxTick) {
        throw exhausted();
      }
      if (tick - nowTick > borrowTicks) {
        throw refusal("CLOCK_BEHIND", "the clock is more than " + MAX_BORROW_MS + " ms behind the IDs minted; wait");
      }
      last = n;
      minted = n;
      return tick << tickShift | workerPart | (n & seqMask);
    }
  }

  /** @return the lease the generator mints under */
  public synchronized WorkerLease lease() {
    return grant;
  }

  private IdnodeException exhausted() {
    return refusal(maxTick < layout.maxTick() ? "LEASE_EXHAUSTED" : "LAYOUT_EXHAUSTED", "no tick left under the lease or layout");
  }

  private static IdnodeException refusal(String reason, String message) {
    return IdnodeException.create(Status.Code.UNAVAILABLE, reason, Map.of(), message, null);
  }

  private AcquireWorkerRequest acquireRequest() {
    return AcquireWorkerRequest.newBuilder().setHolder(options.holder()).setWorkerBits(layout.workerBits())
        .setLeaseMs(options.lease().toMillis()).build();
  }

  /**
   * Makes a grant current. A new worker or epoch mints from the next tick above the last ID, so
   * IDs keep increasing; validity counts from before the request, so the local end comes no
   * later than the cluster's.
   */
  private synchronized void install(WorkerLease l, long sentNanos, boolean fresh) {
    long minTick = Math.max(layout.tickOfMs(l.getMinMs()), -1);
    long leaseMax = layout.tickOfMs(l.getMaxMs());
    if (l.getWorker() >= 1L << layout.workerBits() || leaseMax <= minTick || minTick >= layout.maxTick()) {
      throw IdnodeException.create(Status.Code.INTERNAL, "INVALID_ANSWER", Map.of(),
          "the cluster answered a worker lease this layout cannot use: " + l, null);
    }
    if (fresh || grant == null || l.getWorker() != grant.getWorker() || l.getEpoch() != grant.getEpoch()) {
      last = Math.max(last, minted | seqMask);
    }
    grant = l;
    workerPart = (long) l.getWorker() << seqBits;
    maxTick = Math.min(leaseMax, layout.maxTick());
    last = Math.max(last, minTick << seqBits | seqMask);
    validUntilNanos = sentNanos + options.lease().minus(options.margin()).toNanos();
    lost = false;
  }

  private synchronized void schedule(long delayNanos) {
    if (!closed) {
      renewal = client.transport().timer().schedule(this::renew, delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** Renews the lease, or after it was lost acquires another; then schedules the next renewal. */
  private void renew() {
    WorkerLease g;
    boolean wasLost;
    synchronized (this) {
      g = grant;
      wasLost = lost;
    }
    long sent = System.nanoTime();
    CompletableFuture<WorkerLease> renewed = wasLost ? acquire(sent)
        : client.workers().renew(RenewWorkerRequest.newBuilder().setWorker(g.getWorker()).setEpoch(g.getEpoch())
            .setLeaseMs(options.lease().toMillis()).build())
            .thenApply(l -> {
              install(l, sent, false);
              return l;
            })
            .exceptionallyCompose(e -> {
              if (e.getCause() instanceof IdnodeException ie && ie.code() == Status.Code.FAILED_PRECONDITION) {
                synchronized (this) {
                  lost = true; // fenced: another holder has the worker, so not one more ID under it
                }
                return acquire(System.nanoTime());
              }
              return CompletableFuture.failedFuture(e);
            });
    renewed.whenComplete((l, e) -> {
      Throwable error = e == null ? null : (e.getCause() != null ? e.getCause() : e);
      synchronized (this) {
        lastError = error;
      }
      java.time.Duration next = e == null ? options.lease().dividedBy(3) : options.lease().dividedBy(10);
      if (error != null) {
        ClientLog.LOGGER.log(System.Logger.Level.WARNING, "idnode: {0} failed, trying again in {1} ms: {2}",
            wasLost ? "acquiring a numeric worker lease" : "renewing the lease of numeric worker " + g.getWorker(),
            Long.toString(next.toMillis()), error.getMessage());
      }
      schedule(next.toNanos());
    });
  }

  private CompletableFuture<WorkerLease> acquire(long sent) {
    return client.workers().acquire(acquireRequest()).thenApply(l -> {
      install(l, sent, true);
      return l;
    });
  }

  /**
   * Stops renewing and releases the worker; mints nothing after. Idempotent. The release takes
   * at most {@link IdnodeClient#DEFAULT_CLOSE_TIMEOUT} (2 s); one that fails is logged as a
   * warning, not thrown: the lease then lapses by itself.
   */
  @Override
  public void close() {
    close(IdnodeClient.DEFAULT_CLOSE_TIMEOUT);
  }

  /** {@link #close()} with its release bounded by bound (none left: not asked). */
  void close(Duration bound) {
    WorkerLease g;
    boolean wasLost;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      wasLost = lost;
      lost = true;
      g = grant;
      if (renewal != null) {
        renewal.cancel(false);
      }
    }
    ExitHook.unregister(this);
    onClose.run();
    if (wasLost) {
      return;
    }
    try {
      if (bound.isZero() || bound.isNegative()) {
        throw IdnodeException.create(Status.Code.DEADLINE_EXCEEDED, Status.Code.DEADLINE_EXCEEDED.name(), Map.of(),
            "closing took its bound", null);
      }
      IdnodeClient.await(client.withDeadline(bound.compareTo(client.deadline()) < 0 ? bound : client.deadline())
          .workers().release(ReleaseWorkerRequest.newBuilder().setWorker(g.getWorker()).setEpoch(g.getEpoch()).build()));
    } catch (IdnodeException e) {
      ClientLog.LOGGER.log(System.Logger.Level.WARNING, "idnode: worker {0} could not be released; its lease lapses by itself: {1}",
          Long.toString(g.getWorker()), e.getMessage());
    }
  }
}
