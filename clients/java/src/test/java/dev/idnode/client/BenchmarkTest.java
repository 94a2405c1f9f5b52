package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The figures of docs/BENCHMARKS.md, one JSON line each, on request only (tag "bench", left out
 * of verify): HiLo IDs/s on one thread, numeric IDs/s from one generator, identities/s from
 * -Didnode.bench.callers threads (1–1024, default 64; bench/clients.sh passes its CALLERS), after
 * an uncounted warm-up of the same loop, as the HiLo figure has.
 * Nodes from -Didnode.bench.nodes=host:port,..., else a three-node cluster from idcluster.
 */
@Tag("bench")
class BenchmarkTest {
  static final String CALLERS_PROPERTY = "idnode.bench.callers";
  private static final int DEFAULT_CALLERS = 64;
  private static final int MAX_CALLERS = 1024;
  private static final Duration IDENTITY_RUN = Duration.ofSeconds(5);
  /** The same loop first, uncounted, so the JIT has compiled the call path, as in a running service. */
  private static final Duration IDENTITY_WARM_UP = Duration.ofSeconds(2);

  @Test
  void figures() throws Exception {
    String given = System.getProperty("idnode.bench.nodes", "");
    IdCluster idcluster = given.isEmpty() ? new IdCluster() : null;
    try {
      List<String> nodes = given.isEmpty() ? startCluster(idcluster) : List.of(given.split(","));
      int callers = callers(System.getProperty(CALLERS_PROPERTY));
      try (IdnodeClient client = IdnodeClient.builder().nodes(nodes).build()) {
        print("hilo_ids_per_sec_one_thread", hilo(client), nodes);
        print("numeric_ids_per_sec_per_generator", numeric(client), nodes);
        identities(client, callers, IDENTITY_WARM_UP);
        print("identities_per_sec_" + callers + "_threads", identities(client, callers, IDENTITY_RUN), nodes);
      }
    } finally {
      if (idcluster != null) {
        idcluster.close();
      }
    }
  }

  /**
   * The identity callers the property asks for: a whole number from 1 to 1024, the default
   * when the property is unset or blank.
   *
   * @param given the property's value, or null
   * @return the callers
   * @throws IllegalArgumentException for anything else, naming the property and the range
   */
  static int callers(String given) {
    if (given == null || given.isBlank()) {
      return DEFAULT_CALLERS;
    }
    int n;
    try {
      n = Integer.parseInt(given.strip());
    } catch (NumberFormatException e) {
      n = 0;
    }
    if (n < 1 || n > MAX_CALLERS) {
      throw new IllegalArgumentException(CALLERS_PROPERTY + " must be a whole number from 1 to " + MAX_CALLERS + ", got \"" + given + "\"");
    }
    return n;
  }

  private static List<String> startCluster(IdCluster idcluster) {
    idcluster.start(3, true);
    return idcluster.grpcAddrs();
  }

  private static void print(String metric, double perSecond, List<String> nodes) {
    System.out.printf("{\"client\":\"java\",\"metric\":\"%s\",\"value\":%.0f,\"nodes\":%d,\"java\":\"%s\"}%n",
        metric, perSecond, nodes.size(), System.getProperty("java.version"));
  }

  /** IDs/s from one generator on one thread, after a warm-up that also grows the ranges. */
  private static double hilo(IdnodeClient client) {
    HiLoGenerator g = client.hiloGenerator("bench-hilo");
    long sink = 0;
    for (int i = 0; i < 5_000_000; i++) {
      sink += g.nextId().length();
    }
    int n = 20_000_000;
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      sink += g.nextId().length();
    }
    long took = System.nanoTime() - start;
    assertTrue(sink > 0);
    return n / (took / 1e9);
  }

  /**
   * IDs/s from one numeric generator on one thread over two seconds: longer than the second it
   * may borrow ahead of the clock, so the figure is the sustained one, which the layout's
   * sequence bits cap (4,096 per ms by default). A refusal for running ahead is waited out.
   */
  private static double numeric(IdnodeClient client) {
    try (NumericGenerator g = client.numericGenerator(NumericOptions.DEFAULT)) {
      long sink = 0;
      long n = 0;
      long start = System.nanoTime();
      long end = start + TimeUnit.SECONDS.toNanos(2);
      while (System.nanoTime() < end) {
        try {
          sink ^= g.next();
          n++;
        } catch (IdnodeException e) {
          if (!"CLOCK_BEHIND".equals(e.reason())) {
            throw e;
          }
          Thread.onSpinWait();
        }
      }
      long took = System.nanoTime() - start;
      assertTrue(sink != 0);
      return n / (took / 1e9);
    }
  }

  /** Identities/s from callers threads each calling nextIdentity in a loop for run. */
  private static double identities(IdnodeClient client, int callers, Duration run) throws InterruptedException {
    AtomicLong done = new AtomicLong();
    CountDownLatch go = new CountDownLatch(1);
    long end = System.nanoTime() + run.toNanos();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < callers; t++) {
      Thread th = new Thread(() -> {
        try {
          go.await();
          while (System.nanoTime() < end) {
            client.nextIdentity("bench-identities", 1);
            done.incrementAndGet();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      th.start();
      threads.add(th);
    }
    long start = System.nanoTime();
    go.countDown();
    for (Thread th : threads) {
      th.join(run.toMillis() + 30_000);
    }
    return done.get() / ((System.nanoTime() - start) / 1e9);
  }
}
