package dev.idnode.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The order in which a client with a region tries its nodes: its own region's first, then the
 * others', and a node that just failed itself (could not be reached, or was busy) last, for
 * {@link #SKIP} after its first failure and longer while it keeps failing (see {@link #failed}).
 * A call that any node answers then stays in the region while one of its nodes is up, and does
 * not pay a failed attempt on a dead neighbour each time it is made.
 */
final class RegionRouting {
  /**
   * How long a node that failed itself goes to the end of the order: about what a
   * restart takes, and short enough that calls come back to a local node soon after it does.
   */
  static final Duration SKIP = Duration.ofSeconds(1);

  /**
   * What the skip of a node that keeps failing grows to at most: it doubles each time the node
   * fails again after its skip ended. A node that hangs rather than refuses (paused, or its
   * network blackholed) costs a whole call timeout each time its skip ends, so a fixed second
   * would be a latency spike a second for as long as it hangs. But a skipped node is tried first
   * again only when its skip ends, so the skip is also how long calls keep crossing to other
   * regions after the node is back: 30 s keeps that to half a minute while a node that never
   * answers costs one call timeout every 30 s.
   */
  static final Duration SKIP_MAX = Duration.ofSeconds(30);

  /** The server's rule for {@code --region} (cmd/idnode/region.go), empty excepted. */
  private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  /** The client's region's nodes, as indexes into the client's addresses, in the order given. */
  private final int[] local;
  /** Every other node, those without a region included. */
  private final int[] remote;
  /** Where in {@link #local} calls start: the local node that answered last. */
  private final AtomicInteger localStart;
  /** Where in {@link #remote} calls start once no local node answers. */
  private final AtomicInteger remoteStart;
  /** Per node, the time (of {@link #clock}) until which it goes last; 0 when it is not. */
  private final AtomicLongArray skipUntil;
  /**
   * Per node, how long (nanoseconds) its last skip was; 0 once it answered. {@link #retryDue}
   * clears a skip that ended, but not this: a failure that follows makes the skip grow.
   */
  private final AtomicLongArray skipNanos;
  /** Orders the changes of a node's skip, so that two of them do not mix. */
  private final Object skipLock = new Object();
  private final LongSupplier clock;

  /**
   * Checks the configuration against the client's nodes and sorts them by region.
   *
   * @param addrs the client's node addresses
   * @param region the client's region, already checked by {@link #checkLabels}
   * @param nodeRegions each node address's region, already checked
   * @param inOrder start at the first local node rather than a random one
   * @param clock nanoseconds, as {@link System#nanoTime}
   * @throws IllegalStateException if a node address is not the client's, or no node is local
   */
  RegionRouting(List<String> addrs, String region, Map<String, String> nodeRegions, boolean inOrder, LongSupplier clock) {
    for (String addr : nodeRegions.keySet()) {
      if (!addrs.contains(addr)) {
        throw new IllegalStateException("the node regions name " + addr + ", which is not one of the client's nodes " + addrs);
      }
    }
    List<Integer> mine = new ArrayList<>();
    List<Integer> others = new ArrayList<>();
    for (int i = 0; i < addrs.size(); i++) {
      (region.equals(nodeRegions.get(addrs.get(i))) ? mine : others).add(i);
    }
    if (mine.isEmpty()) {
      throw new IllegalStateException("no node of the client is in its region " + region + ": the node regions are " + nodeRegions);
    }
    this.local = mine.stream().mapToInt(Integer::intValue).toArray();
    this.remote = others.stream().mapToInt(Integer::intValue).toArray();
    this.localStart = new AtomicInteger(inOrder ? 0 : ThreadLocalRandom.current().nextInt(local.length));
    this.remoteStart = new AtomicInteger(inOrder || remote.length == 0 ? 0 : ThreadLocalRandom.current().nextInt(remote.length));
    this.skipUntil = new AtomicLongArray(addrs.size());
    this.skipNanos = new AtomicLongArray(addrs.size());
    this.clock = clock;
  }

  /**
   * Checks what {@code IdnodeClient.Builder.region} was given, on its own.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  static void checkLabels(String region, Map<String, String> nodeRegions) {
    checkLabel("the client's region", region);
    if (nodeRegions == null) {
      throw new IllegalArgumentException("give each node's region with the client's (nodeRegions is null)");
    }
    nodeRegions.forEach((addr, label) -> {
      if (addr == null) {
        throw new IllegalArgumentException("the node regions name a null address");
      }
      checkLabel("the region of node " + addr, label);
    });
  }

  private static void checkLabel(String what, String label) {
    if (label == null || label.isEmpty()) {
      throw new IllegalArgumentException(what + " is empty");
    }
    if (!LABEL.matcher(label).matches()) {
      throw new IllegalArgumentException(what + " must be 1-64 letters, digits, '-', '_' or '.', as the nodes' --region; got \"" + label + "\"");
    }
  }

  /**
   * The nodes in the order a call tries them: {@code first} (unless negative), the client's
   * region's from the one that answered last, the others' likewise, then those that could not
   * be reached lately, local before remote.
   */
  int[] order(int first) {
    long now = clock.getAsLong();
    int[] out = new int[skipUntil.length()];
    boolean[] skipped = new boolean[out.length];
    for (int node = 0; node < out.length; node++) {
      skipped[node] = skipping(node, now);
    }
    int k = 0;
    if (first >= 0) {
      out[k++] = first;
    }
    k = append(out, k, local, localStart.get(), first, skipped, false);
    k = append(out, k, remote, remoteStart.get(), first, skipped, false);
    k = append(out, k, local, localStart.get(), first, skipped, true);
    append(out, k, remote, remoteStart.get(), first, skipped, true);
    return out;
  }

  private static int append(int[] out, int k, int[] group, int from, int first, boolean[] skipped, boolean whenSkipped) {
    for (int j = 0; j < group.length; j++) {
      int node = group[(from + j) % group.length];
      if (node != first && skipped[node] == whenSkipped) {
        out[k++] = node;
      }
    }
    return k;
  }

  /** Whether a node goes last now, having failed to be reached within {@link #SKIP}. */
  boolean skipping(int node) {
    return skipping(node, clock.getAsLong());
  }

  private boolean skipping(int node, long now) {
    long until = skipUntil.get(node);
    return until != 0 && now - until < 0;
  }

  /**
   * Whether a node that went last is due to be tried again: its time is up, and no call has
   * reached it since. The first call to ask is told yes, once.
   */
  boolean retryDue(int node) {
    long until = skipUntil.get(node);
    return until != 0 && clock.getAsLong() - until >= 0 && skipUntil.compareAndSet(node, until, 0);
  }

  /**
   * A node failed an attempt itself (could not be reached, or was busy; a refusal for the
   * cluster, such as NO_QUORUM, does not count): it goes last for {@link #SKIP} after its first
   * failure, twice its last skip when it fails again after that skip ended, up to
   * {@link #SKIP_MAX}. A failure within the skip (another call's attempt, or one that found
   * every other node failing too) starts the same skip again.
   */
  void failed(int node) {
    synchronized (skipLock) {
      long now = clock.getAsLong();
      long last = skipNanos.get(node);
      long until = skipUntil.get(node);
      long skip = last;
      if (last == 0) {
        skip = SKIP.toNanos();
      } else if (until == 0 || now - until >= 0) {
        skip = Math.min(2 * last, SKIP_MAX.toNanos());
      }
      skipNanos.set(node, skip);
      long end = now + skip;
      skipUntil.set(node, end == 0 ? 1 : end);
    }
  }

  /**
   * A node answered a call that started elsewhere ({@code first} of its order): later calls start
   * at it, within its group. A remote node that answered so leaves the local start alone, so
   * calls go back to the local nodes as soon as one answers again.
   */
  void answered(int node, int first) {
    if (skipNanos.get(node) != 0) {
      synchronized (skipLock) {
        skipUntil.set(node, 0);
        skipNanos.set(node, 0);
      }
    }
    if (node == first) {
      return;
    }
    for (int j = 0; j < local.length; j++) {
      if (local[j] == node) {
        localStart.set(j);
        return;
      }
    }
    for (int j = 0; j < remote.length; j++) {
      if (remote[j] == node) {
        remoteStart.set(j);
        return;
      }
    }
  }
}
