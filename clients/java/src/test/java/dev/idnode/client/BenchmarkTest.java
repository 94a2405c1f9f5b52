package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The figures of docs/BENCHMARKS.md, one JSON line each, on request only (tag "bench", left out
 * of verify): HiLo IDs/s on one thread, numeric IDs/s from one generator, identities/s from
 * -Didnode.bench.callers threads (1–1024, default 64; bench/clients.sh passes its CALLERS), with
 * the client process's CPU per identity, after an uncounted warm-up of the same loop that lasts
 * until the JIT has compiled the call path.
 * Nodes from -Didnode.bench.nodes=host:port,..., else a three-node cluster from idcluster.
 */
@Tag("bench")
class BenchmarkTest {
  /** Where the numeric loop publishes its IDs' XOR, so that the JIT keeps the loop. */
  static volatile long numericSink;

  static final String CALLERS_PROPERTY = "idnode.bench.callers";
  private static final int DEFAULT_CALLERS = 64;
  private static final int MAX_CALLERS = 1024;
  private static final Duration IDENTITY_RUN = Duration.ofSeconds(5);
  /**
   * The warm-up runs the same loop in rounds of this length until the JIT compiles for less
   * than WARM_UP_QUIET_JIT in each of two rounds in a row (it compiles in bursts), as in a service that has run a while: on two busy cores
   * the JIT takes 20–30 s to compile the per-call path (one call serves about 50 identities,
   * so its code gets hot 50 times more slowly than the per-identity code), and a run in that
   * time measures the compilers as much as the client.
   */
  private static final Duration WARM_UP_ROUND = Duration.ofSeconds(1);
  private static final Duration WARM_UP_QUIET_JIT = Duration.ofMillis(10);
  private static final int WARM_UP_MAX_ROUNDS = 60;

  @Test
  void figures() throws Exception {
    String given = System.getProperty("idnode.bench.nodes", "");
    IdCluster idcluster = given.isEmpty() ? new IdCluster() : null;
    try {
      List<String> nodes = given.isEmpty() ? startCluster(idcluster) : List.of(given.split(","));
      int callers = callers(System.getProperty(CALLERS_PROPERTY));
      IdentityRun.CallCounter calls = new IdentityRun.CallCounter();
      try (IdnodeClient client = IdnodeClient.builder().nodes(nodes).interceptors(calls).build()) {
        print("hilo_ids_per_sec_one_thread", hilo(client), nodes, "");
        print("numeric_ids_per_sec_per_generator", numeric(client), nodes, "");
        int rounds = warmUp(client, callers, calls);
        IdentityRun run = IdentityRun.measure(client, callers, IDENTITY_RUN, calls);
        print("identities_per_sec_" + callers + "_threads", run.perSecond(), nodes,
            ",\"warm_up_s\":" + rounds * WARM_UP_ROUND.toSeconds() + "," + run.costJson());
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

  /** Prints one figure's JSON line, with more fields (each led by a comma) when given. */
  private static void print(String metric, double perSecond, List<String> nodes, String more) {
    System.out.printf(Locale.ROOT, "{\"client\":\"java\",\"metric\":\"%s\",\"value\":%.0f,\"nodes\":%d,\"java\":\"%s\"%s}%n",
        metric, perSecond, nodes.size(), System.getProperty("java.version"), more);
  }

  /** Runs the identity loop in rounds until the JIT is quiet; returns the rounds it took. */
  private static int warmUp(IdnodeClient client, int callers, IdentityRun.CallCounter calls) throws InterruptedException {
    int quiet = 0;
    int round = 0;
    while (quiet < 2 && round < WARM_UP_MAX_ROUNDS) {
      round++;
      boolean compiled = IdentityRun.measure(client, callers, WARM_UP_ROUND, calls).jitMillis() >= WARM_UP_QUIET_JIT.toMillis();
      quiet = compiled ? 0 : quiet + 1;
    }
    return round;
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
      // The IDs' XOR keeps the loop from being optimised away, but it may be 0: a millisecond's
      // full run of sequence numbers XORs to 0. It is published, not checked.
      numericSink = sink;
      assertTrue(n > 0, "no numeric ID in two seconds");
      return n / (took / 1e9);
    }
  }
}
