package dev.idnode.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The generators a client owns: one HiLo generator per tag (the multi-tag generator behind
 * {@link IdnodeClient#nextId}), and the numeric generators it made. Closing the client closes
 * them, also one being made meanwhile: making one holds the read lock, and close takes the
 * write lock before it looks at what there is.
 */
final class Generators {
  private final AsyncIdnodeClient client;
  private final ConcurrentMap<String, HiLoGenerator> hilo = new ConcurrentHashMap<>();
  private final Set<NumericGenerator> numeric = ConcurrentHashMap.newKeySet();
  private final ReadWriteLock closing = new ReentrantReadWriteLock();
  private boolean closed; // guarded by closing

  Generators(AsyncIdnodeClient client) {
    this.client = client;
  }

  HiLoGenerator hilo(String tag) {
    HiLoGenerator g = hilo.get(tag); // lock-free on the hot path
    if (g != null) {
      return g;
    }
    closing.readLock().lock();
    try {
      checkOpen();
      return hilo.computeIfAbsent(tag, t -> new HiLoGenerator(client, t, HiLoOptions.DEFAULT, true));
    } finally {
      closing.readLock().unlock();
    }
  }

  NumericGenerator numeric(NumericOptions options) {
    closing.readLock().lock();
    try {
      checkOpen();
      NumericGenerator[] self = new NumericGenerator[1];
      self[0] = new NumericGenerator(client, options, () -> numeric.remove(self[0]));
      numeric.add(self[0]);
      return self[0];
    } finally {
      closing.readLock().unlock();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new ClientClosedException("idnode client");
    }
  }

  /**
   * Closes every generator, all by end (System.nanoTime): what no node took back by then is
   * logged and counted, not thrown. Any other failure is thrown after all were tried.
   */
  void close(long end) {
    closing.writeLock().lock();
    try {
      closed = true;
    } finally {
      closing.writeLock().unlock();
    }
    List<Runnable> all = new ArrayList<>();
    for (HiLoGenerator g : hilo.values()) {
      all.add(() -> g.closeNow(until(end)));
    }
    for (NumericGenerator g : numeric) {
      all.add(() -> g.close(until(end)));
    }
    RuntimeException first = null;
    for (Runnable close : all) {
      try {
        close.run();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** The time left until end (System.nanoTime), none once it passed. */
  private static Duration until(long end) {
    return Duration.ofNanos(Math.max(0, end - System.nanoTime()));
  }

  /** The numbers the HiLo generators' close could not give back ({@link HiLoGenerator.Stats#unreturned}). */
  long unreturned() {
    long n = 0;
    for (HiLoGenerator g : hilo.values()) {
      n += g.stats().unreturned();
    }
    return n;
  }
}
