package dev.idnode.client;

import dev.idnode.v1.NextHiLoRequest;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prints HiLo IDs for one tag ({@code orders/17-A}). Safe for any number of threads, and never
 * returns the same ID twice: every number comes from one atomic increment within a range the
 * cluster reserved for this generator alone. No lock on that path. Once 80% of a range is handed
 * out, the next range is fetched in the background, so callers wait for the network only on a
 * cold start (or when they outrun a fetch).
 *
 * <p>{@link #close()} gives back what was not handed out: the prefetched range whole, then the
 * unused tail of the current one, so the tag's next range starts right after the last ID
 * handed out. The cluster takes a range back only from its grantee, once, while it is the newest
 * of its tag (or of the pool of the node that granted it); what cannot come back stays a gap,
 * which HiLo allows. A generator still open when the JVM shuts down is closed by a shutdown hook.
 *
 * <p>A generator from {@link IdnodeClient#hiloGenerator} belongs to the client, which lends it to
 * every caller of that tag: its {@code close()} does nothing (as {@code
 * ForkJoinPool.commonPool().shutdown()} does nothing), so a {@code try}-with-resources block
 * around it cannot break the client's {@link IdnodeClient#nextId}. The client closes it when it
 * closes. {@link #create} makes one the caller owns and closes.
 */
public final class HiLoGenerator implements AutoCloseable {
  /** One reserved range; everything but {@code used} is fixed once published. */
  private static final class Span {
    // Padding keeps the counter every taker increments off the cache line of the fields every
    // taker reads.
    long p1, p2, p3, p4, p5, p6, p7;
    final AtomicLong used = new AtomicLong(); // taker k (1-based) gets low + k - 1 while k <= size
    long q1, q2, q3, q4, q5, q6, q7;
    final long low;
    final long high;
    final long size;
    final long trigger;
    final String prefix;
    final String suffix;
    final String grant;

    Span(HiLoRange r, String prefix, String suffix, double prefetchAt) {
      this.low = r.low();
      this.high = r.high();
      this.size = high - low + 1;
      this.trigger = Math.min(Math.max((long) (size * prefetchAt), 1), size);
      this.prefix = prefix;
      this.suffix = suffix;
      this.grant = r.grantId();
    }
  }

  /** One NextHiLo call in flight, and its failed attempts so far. */
  private record Fetch(long seq, CompletableFuture<Void> done, Refusals refusals) {}

  /**
   * What a generator did.
   *
   * @param fetches ranges received
   * @param failures fetches that failed
   * @param waits nextId calls that had to wait for a range (the first always does)
   * @param rangeSize size of the newest range
   * @param returned whether close gave numbers back
   * @param unreturned numbers close could not give back because no node took the return within
   *     its bound: gaps, each range also logged as a warning
   */
  public record Stats(long fetches, long failures, long waits, long rangeSize, boolean returned, long unreturned) {}

  private volatile Span cur;

  private final AsyncIdnodeClient client;
  private final String tag;
  private final HiLoOptions options;
  private final Duration fetchTimeout;
  private final boolean clientOwned;

  private final Object lock = new Object();
  private boolean closed;
  private Span next;
  private Fetch inflight;
  private long fetchSeq;
  private NextHiLoRequest pending; // outcome unknown: retried with its request id
  private long lastSize;
  private long lastAt;
  private long lastMax;
  private long fetches;
  private long failures;
  private long waits;
  private boolean returned;
  private long unreturned;

  HiLoGenerator(AsyncIdnodeClient client, String tag, HiLoOptions options, boolean clientOwned) {
    Validation.hiloTag(tag, client.separator());
    if (!options.serverPrefix().isEmpty()) {
      Validation.serverPrefix(options.serverPrefix(), client.separator());
    }
    this.client = client;
    this.tag = tag;
    this.options = options;
    this.fetchTimeout = client.deadline();
    this.clientOwned = clientOwned;
    ExitHook.register(this, () -> closeNow(IdnodeClient.DEFAULT_CLOSE_TIMEOUT));
  }

  /**
   * A generator for {@code tag} taking ranges through {@code client}; the caller closes it.
   * {@link IdnodeClient#hiloGenerator} gives the client's shared one instead.
   *
   * @param client the client
   * @param tag the tag; blank, or ending with the separator, is refused ({@code INVALID_ARGUMENT})
   * @param options format and prefetch
   * @return the generator; it fetches nothing until the first {@link #nextId}
   */
  public static HiLoGenerator create(IdnodeClient client, String tag, HiLoOptions options) {
    return new HiLoGenerator(client.async(), tag, options, false);
  }

  /** @return the tag this generator prints IDs for */
  public String tag() {
    return tag;
  }

  /**
   * The next ID. Waits for the network only when the current range is used up before the next
   * arrived (and on the first call), at most the client's deadline.
   *
   * @return the ID, such as {@code orders/17-A}
   * @throws ClientClosedException after {@link #close()}
   * @throws IdnodeException when no range could be fetched
   */
  public String nextId() {
    return nextId(fetchTimeout);
  }

  /**
   * {@link #nextId()} waiting at most {@code wait} for a range (a client view's deadline): once
   * it passes, {@code DEADLINE_EXCEEDED} with the reason the nodes refused the fetch with, such
   * as {@code NO_QUORUM}. The fetch goes on for the callers after it.
   */
  String nextId(Duration wait) {
    long since = 0;
    boolean waited = false;
    while (true) {
      Span s = cur;
      if (s != null) {
        long k = s.used.incrementAndGet();
        if (k <= s.size) {
          if (k == s.trigger) {
            prefetch(s);
          }
          return s.prefix + (s.low + k - 1) + s.suffix;
        }
      }
      Fetch f;
      synchronized (lock) {
        if (closed) {
          throw new ClientClosedException(toString());
        }
        if (cur != s) {
          continue; // someone moved on already
        }
        if (next != null) {
          cur = next;
          next = null;
          continue;
        }
        if (since == 0) {
          since = fetchSeq + 1;
        }
        f = inflight != null ? inflight : startFetch();
        if (!waited) {
          waited = true;
          waits++;
        }
      }
      awaitFetch(f, since, wait);
    }
  }

  private void awaitFetch(Fetch f, long since, Duration wait) {
    try {
      f.done().get(Math.min(wait.toNanos(), fetchTimeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      // A fetch that began before this call arrived (a prefetch) gets one more try for it.
      if (f.seq() >= since) {
        Throwable cause = e.getCause();
        throw cause instanceof IdnodeException ie ? ie.forCaller()
            : IdnodeException.create(Status.Code.UNKNOWN, "UNKNOWN", Map.of(), "fetching a range for \"" + tag + "\": " + cause, cause);
      }
    } catch (TimeoutException e) {
      throw f.refusals().deadlineExceeded("waited " + (wait.compareTo(fetchTimeout) < 0 ? wait : fetchTimeout) + " for a HiLo range for \"" + tag + "\"");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw IdnodeException.create(Status.Code.CANCELLED, Status.Code.CANCELLED.name(), Map.of(),
          "interrupted while waiting for a HiLo range for \"" + tag + "\"", e);
    }
  }

  /** Starts fetching the range after s when s is still current and nothing is on its way. */
  private void prefetch(Span s) {
    synchronized (lock) {
      if (!closed && next == null && inflight == null && cur == s) {
        startFetch();
      }
    }
  }

  /** Starts a NextHiLo call; its answer is installed when it lands. Holds the lock. */
  private Fetch startFetch() {
    Fetch f = new Fetch(++fetchSeq, new CompletableFuture<>(), new Refusals());
    inflight = f;
    if (pending == null) {
      pending = NextHiLoRequest.newBuilder().setTag(tag).setLastBatchSize(lastSize).setLastRangeAt(lastAt)
          .setLastMax(lastMax).setRequestId(AsyncIdnodeClient.newRequestId()).build();
    }
    client.nextHiLo(pending, f.refusals()).whenComplete((range, error) -> install(f, range, error));
    return f;
  }

  private void install(Fetch f, HiLoRange range, Throwable error) {
    synchronized (lock) {
      inflight = null;
      Span s = null;
      if (error == null) {
        try {
          s = span(range);
        } catch (IdnodeException bad) {
          error = bad;
        }
      }
      if (error != null) {
        failures++;
        if (definite(error)) {
          pending = null; // refused: nothing was reserved under that request id
        }
      } else {
        pending = null;
        fetches++;
        lastSize = s.size;
        lastAt = range.lastRangeAt();
        lastMax = s.high;
        Span c = cur;
        if (!closed && (c == null || c.used.get() >= c.size)) {
          cur = s;
        } else {
          next = s; // after close it is kept for close to return
        }
      }
    }
    if (error != null) {
      f.done().completeExceptionally(error);
    } else {
      f.done().complete(null);
    }
  }

  private static boolean definite(Throwable error) {
    if (error instanceof IdnodeException e) {
      return switch (e.code()) {
        case INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE, PERMISSION_DENIED, UNAUTHENTICATED, UNIMPLEMENTED, NOT_FOUND -> true;
        default -> false;
      };
    }
    return false;
  }

  /** Checks an answer and prepares it for takers. Holds the lock. */
  private Span span(HiLoRange r) {
    if (r.low() < 1 || r.high() < r.low()) {
      throw invalidAnswer("an empty or invalid range [" + r.low() + ", " + r.high() + "]");
    }
    if (r.low() <= lastMax && r.high() > lastMax - lastSize) {
      // Ranges of one tag never overlap. A range may lie below the previous one (a node cut off
      // from the majority grants from its pool below last_max), never on it: refuse rather than
      // risk printing a number twice.
      throw invalidAnswer("[" + r.low() + ", " + r.high() + "], overlapping the previous range ["
          + (lastMax - lastSize + 1) + ", " + lastMax + "]");
    }
    if (r.prefix().isEmpty() || r.serverTag().isEmpty()) {
      throw invalidAnswer("a range without a prefix or server tag");
    }
    String prefix = r.prefix();
    if (!options.serverPrefix().isEmpty()) {
      prefix += options.serverPrefix() + prefix.charAt(prefix.length() - 1);
    }
    String suffix = options.nodeTag() ? "-" + r.serverTag() : "";
    return new Span(r, prefix, suffix, options.prefetchAt());
  }

  private IdnodeException invalidAnswer(String what) {
    return IdnodeException.create(Status.Code.INTERNAL, "INVALID_ANSWER", Map.of(), "the cluster answered \"" + tag + "\" with " + what, null);
  }

  /** @return what the generator did so far */
  public Stats stats() {
    synchronized (lock) {
      return new Stats(fetches, failures, waits, lastSize, returned, unreturned);
    }
  }

  /**
   * Stops the generator and gives back every number it did not hand out (see the class
   * comment). Waits for a fetch in flight; a nextId waiting for that fetch then fails with
   * {@link ClientClosedException}. All of it within {@link IdnodeClient#DEFAULT_CLOSE_TIMEOUT}
   * (2 s): numbers no node took back by then are a gap, counted in {@link Stats#unreturned} and
   * logged as a warning, never thrown. Idempotent. On the client's own generator
   * ({@link IdnodeClient#hiloGenerator}) it does nothing: the client closes that one.
   */
  @Override
  public void close() {
    if (!clientOwned) {
      closeNow(IdnodeClient.DEFAULT_CLOSE_TIMEOUT);
    }
  }

  /** Closes the generator, whoever owns it, within bound: {@link #close()}'s work. */
  void closeNow(Duration bound) {
    long end = System.nanoTime() + bound.toNanos();
    Span c;
    long used = 0;
    Fetch f;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      c = cur;
      if (c != null) {
        // Seal the range: every later increment lands past its end, so what was taken before
        // is exactly what was handed out.
        used = Math.min(c.used.getAndSet(c.size), c.size);
      }
      f = inflight;
    }
    ExitHook.unregister(this);
    if (f != null) {
      try {
        f.done().get(Math.min(end - System.nanoTime(), fetchTimeout.toNanos()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        // A failed fetch reserved nothing to return.
      } catch (TimeoutException e) {
        // One still on its way lands after the returns below and stays unused: a gap. Whoever
        // still waits for it learns why it will not come.
        f.done().completeExceptionally(new ClientClosedException(toString()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Span n;
    synchronized (lock) {
      n = next;
      next = null;
    }
    // Newest first: the current range's tail can come back only once the prefetched range,
    // right above it, did. When the two are not adjacent (HiLo pools: each node grants from its
    // own pool, and the prefetch may have gone to another node), the tail is its own pool's
    // newest grant and may come back though the prefetched range did not; the cluster judges
    // each return, so asking costs a call, never a number.
    List<long[]> returns = new ArrayList<>();
    List<String> grants = new ArrayList<>();
    if (n != null) {
      returns.add(new long[] {n.high, n.low - 1});
      grants.add(n.grant);
    }
    if (c != null && used < c.size) {
      returns.add(new long[] {c.high, c.low + used - 1});
      grants.add(c.grant);
    }
    // The tail below a prefetched range right above it cannot come back while that range is out.
    boolean stacked = returns.size() == 2 && n.low == c.high + 1;
    for (int i = 0; i < returns.size(); i++) {
      long[] r = returns.get(i);
      boolean back;
      try {
        long left = end - System.nanoTime();
        if (left <= 0) {
          throw IdnodeException.create(Status.Code.DEADLINE_EXCEEDED, Status.Code.DEADLINE_EXCEEDED.name(), Map.of(),
              "closing took its bound of " + bound, null);
        }
        back = IdnodeClient.await(client.withDeadline(Duration.ofNanos(left)).returnHiLo(tag, r[0], r[1], grants.get(i)));
      } catch (IdnodeException e) {
        lost(r, e.getMessage());
        if (i == 0 && stacked) {
          lost(returns.get(1), "the range right above them could not be given back");
          break;
        }
        continue;
      }
      if (!back) {
        ClientLog.LOGGER.log(System.Logger.Level.INFO,
            "idnode: {0} could not give back numbers {1}..{2}: the cluster granted a newer range of the tag, so they stay a gap",
            this, Long.toString(r[1] + 1), Long.toString(r[0]));
        if (i == 0 && stacked) {
          break; // a newer range of the tag stays right above: the tail below it cannot come back
        }
        continue;
      }
      synchronized (lock) {
        returned = true;
      }
    }
  }

  /** Counts the numbers of return r (end, last) as a gap close could not avoid, and logs them. */
  private void lost(long[] r, String why) {
    synchronized (lock) {
      unreturned += r[0] - r[1];
    }
    ClientLog.LOGGER.log(System.Logger.Level.WARNING, "idnode: {0}: numbers {1}..{2} could not be given back and are lost: {3}",
        this, Long.toString(r[1] + 1), Long.toString(r[0]), why);
  }

  @Override
  public String toString() {
    return "HiLo generator for \"" + tag + "\"";
  }
}
