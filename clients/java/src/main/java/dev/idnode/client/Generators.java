package dev.idnode.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The generators a client owns: one HiLo generator per tag (the multi-tag generator behind
 * {@link IdnodeClient#nextId}), and the numeric generators it made. Closing the client closes
 * them.
 */
final class Generators {
  private final AsyncIdnodeClient client;
  private final ConcurrentMap<String, HiLoGenerator> hilo = new ConcurrentHashMap<>();
  private final Set<NumericGenerator> numeric = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  Generators(AsyncIdnodeClient client) {
    this.client = client;
  }

  HiLoGenerator hilo(String tag) {
    HiLoGenerator g = hilo.get(tag); // lock-free on the hot path
    if (g != null) {
      return g;
    }
    if (closed) {
      throw new ClientClosedException("idnode client");
    }
    return hilo.computeIfAbsent(tag, t -> new HiLoGenerator(client, t, HiLoOptions.DEFAULT, () -> {}));
  }

  NumericGenerator numeric(NumericOptions options) {
    if (closed) {
      throw new ClientClosedException("idnode client");
    }
    NumericGenerator[] self = new NumericGenerator[1];
    self[0] = new NumericGenerator(client, options, () -> numeric.remove(self[0]));
    numeric.add(self[0]);
    return self[0];
  }

  /** Closes every generator; the first failure is thrown after all were tried. */
  void close() {
    closed = true;
    List<AutoCloseable> all = new ArrayList<>(hilo.values());
    all.addAll(numeric);
    RuntimeException first = null;
    for (AutoCloseable g : all) {
      try {
        g.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
