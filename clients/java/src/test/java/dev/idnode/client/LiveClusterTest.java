package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idnode.v1.CreateSeriesRequest;
import dev.idnode.v1.IssueRequest;
import dev.idnode.v1.SeriesEntry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The client against three real nodes started by idcluster (HiLo pools off: exact ranges). */
class LiveClusterTest {
  private static IdCluster idcluster;
  private static List<String> nodes;

  @BeforeAll
  static void startCluster() {
    idcluster = new IdCluster();
    idcluster.start(3, false);
    nodes = idcluster.grpcAddrs();
  }

  @AfterAll
  static void stopCluster() {
    idcluster.close();
  }

  private static IdnodeClient client() {
    return IdnodeClient.builder().nodes(nodes).deadline(Duration.ofSeconds(20)).build();
  }

  /** Runs task(i) on n threads released together; returns every result. */
  private static <T> List<T> onThreads(int n, IntFunction<Callable<T>> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Callable<T> t = task.apply(i);
        futures.add(pool.submit(() -> {
          go.await();
          return t.call();
        }));
      }
      go.countDown();
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private static long numberOf(String hiloId) {
    int slash = hiloId.indexOf('/');
    return Long.parseLong(hiloId.substring(slash + 1, hiloId.lastIndexOf('-')));
  }

  @Test
  void hiloUnderContentionNeverRepeatsAndCloseGivesTheRestBack() throws Exception {
    int threads = 16;
    int each = 25_000;
    HiLoGenerator.Stats stats;
    List<List<String>> perThread;
    try (IdnodeClient c = client()) {
      HiLoGenerator g = HiLoGenerator.create(c, "contended", HiLoOptions.DEFAULT);
      perThread = onThreads(threads, i -> () -> {
        List<String> ids = new ArrayList<>(each);
        for (int k = 0; k < each; k++) {
          ids.add(g.nextId());
        }
        return ids;
      });
      g.close();
      stats = g.stats();
    }
    Set<Long> seen = new HashSet<>();
    for (List<String> ids : perThread) {
      long prev = 0;
      for (String id : ids) {
        assertTrue(id.matches("contended/[0-9]+-[ABC]"), id);
        long n = numberOf(id);
        assertTrue(seen.add(n), "handed out twice: " + id);
        assertTrue(n > prev, "one thread's numbers increase: " + prev + " then " + n);
        prev = n;
      }
    }
    assertEquals((long) threads * each, seen.size());
    assertTrue(stats.returned(), "close gave the unused numbers back: " + stats);
    assertTrue(stats.fetches() > 3, "ranges were prefetched and grew: " + stats);
    try (IdnodeClient next = client()) {
      assertEquals((long) threads * each + 1, numberOf(next.nextId("contended")),
          "the next client starts right after the last ID handed out");
    }
  }

  static class Shipment {
    private String id;
  }

  static class PackageTracking {
    String Id;
    int weight;
  }

  static class Parcel extends Shipment {}

  static class Passport {
    private String id;

    Passport(String id) {
      this.id = id;
    }
  }

  record Visa(String id) {}

  @Test
  void assignIdFillsAnEntitysIdByWhatItHolds() {
    try (IdnodeClient c = client()) {
      Shipment s = new Shipment();
      String id = c.assignId(s);
      assertTrue(id.matches("shipments/1-[ABC]"), id);
      assertEquals(id, s.id);
      Parcel p = new Parcel();
      assertTrue(c.assignId(p).matches("parcels/1-[ABC]"), "the superclass's field, the class's own collection: " + ((Shipment) p).id);

      PackageTracking t = new PackageTracking();
      t.weight = 5;
      assertTrue(c.assignId(t).matches("PackageTrackings/1-[ABC]"), t.Id);
      t.Id = "trackings|";
      assertEquals("trackings/1", c.assignId(t), "an identity");
      assertEquals(5, t.weight);
      t.Id = "trackings/";
      assertTrue(c.assignId(t).matches("trackings/0{18}1-[ABC]"), t.Id);

      Passport mine = new Passport("passports/ayende");
      assertEquals("passports/ayende", c.assignAndClaimId(mine, "me"));
      AlreadyExistsException taken = assertThrows(AlreadyExistsException.class,
          () -> c.assignAndClaimId(new Passport("Passports/Ayende"), "mallory"));
      assertEquals(Reasons.CLAIMED, taken.reason());
      Passport bad = new Passport("passports\\1");
      assertThrows(InvalidRequestException.class, () -> c.assignId(bad));
      assertEquals("passports\\1", bad.id, "left as it was");

      assertThrows(IllegalArgumentException.class, () -> c.assignId(new Visa(null)), "a record's id is final");
      assertThrows(IllegalArgumentException.class, () -> c.assignId(new Object()), "no id field");
      assertThrows(IllegalArgumentException.class, () -> c.assignId(new Object() {
        @SuppressWarnings("unused")
        String id;
      }), "an anonymous class has no collection");
    }
    try (IdnodeClient named = IdnodeClient.builder().nodes(nodes).collectionName(type -> "x" + type.getSimpleName().toLowerCase()).build()) {
      assertTrue(named.assignId(new Shipment()).matches("xshipment/1-[ABC]"));
    }
  }

  @Test
  void eachTagHasItsOwnGenerator() {
    try (IdnodeClient c = client()) {
      assertTrue(c.nextId("carts").matches("carts/1-[ABC]"));
      assertTrue(c.nextId("invoices").matches("invoices/1-[ABC]"));
      assertTrue(c.nextId("carts").matches("carts/2-[ABC]"));
      try (HiLoGenerator legacy = HiLoGenerator.create(c, "legacy", HiLoOptions.DEFAULT.withoutNodeTag().withServerPrefix("NorthServer"))) {
        assertEquals("legacy/NorthServer/1", legacy.nextId());
      }
    }
  }

  @Test
  void numericIdsAreDistinctIncreasingAndCarryTheLeasedWorker() throws Exception {
    try (IdnodeClient c = client(); NumericGenerator g = c.numericGenerator(NumericOptions.DEFAULT)) {
      long worker = g.lease().getWorker();
      List<long[]> perThread = onThreads(8, i -> () -> {
        long[] ids = new long[50_000];
        for (int k = 0; k < ids.length; k++) {
          ids[k] = g.next();
        }
        return ids;
      });
      Set<Long> seen = new HashSet<>();
      for (long[] ids : perThread) {
        for (int k = 0; k < ids.length; k++) {
          assertTrue(seen.add(ids[k]), "minted twice: " + ids[k]);
          assertTrue(k == 0 || ids[k] > ids[k - 1]);
          assertEquals(worker, NumericLayout.DEFAULT.decompose(ids[k]).worker());
        }
      }
      long id = perThread.get(0)[0];
      var explained = c.explain(NumericIds.toCrockford(id));
      assertEquals("numeric", explained.getKind());
      assertEquals("crockford", explained.getEncoding());
      assertEquals(id, explained.getValue());
      assertEquals(worker, explained.getWorker());
    }
  }

  @Test
  void numericIdsKeepIncreasingWhenTheClockStepsBack() {
    AtomicLong offsetMs = new AtomicLong();
    Clock stepped = new Clock() {
      @Override
      public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return Instant.ofEpochMilli(millis());
      }

      @Override
      public long millis() {
        return System.currentTimeMillis() - offsetMs.get();
      }
    };
    try (IdnodeClient c = client(); NumericGenerator g = c.numericGenerator(NumericOptions.DEFAULT.withClock(stepped))) {
      long before = g.next();
      offsetMs.set(500);
      long after = g.next();
      assertTrue(after > before, "after a step back of 500 ms: " + before + " then " + after);
      offsetMs.set(5_000);
      IdnodeException e = assertThrows(IdnodeException.class, g::next);
      assertEquals("CLOCK_BEHIND", e.reason());
    }
  }

  @Test
  void seriesNumbersAreGaplessJournaledAndVerified() {
    try (IdnodeClient c = client()) {
      c.series().create(CreateSeriesRequest.newBuilder().setName("LIVE").setFormat("L-{n:03}").build());
      SeriesEntry first = c.series().issue(IssueRequest.newBuilder().setSeries("LIVE").setRequestId("live-doc-1").build());
      SeriesEntry again = c.series().issue(IssueRequest.newBuilder().setSeries("LIVE").setRequestId("live-doc-1").build());
      SeriesEntry second = c.series().issue(IssueRequest.newBuilder().setSeries("LIVE").build());
      assertEquals("L-001", first.getId());
      assertEquals(first, again, "a retried issue with its request id answers the same entry");
      assertEquals("L-002", second.getId());
      assertEquals(first.getHash(), second.getPrevHash());
      assertEquals(List.of(first, second), c.series().journal("LIVE", 0, 0));
      assertEquals(List.of(second), c.series().journal("LIVE", 2, 0));
      assertTrue(c.series().verify("LIVE").getOk());
      assertThrows(InvalidRequestException.class, () -> c.series().journal("LIVE", -1, 0));
    }
  }

  /** One folded call as its thread saw it: when it began and returned (System.nanoTime), what it got. */
  record Call(long start, long end, long value) {}

  /**
   * Fails when a value repeats, or when a call that began after another returned got a smaller
   * value: what folding must keep of each call being its own Raft round.
   */
  static void checkRealTimeOrder(List<Call> calls) {
    Set<Long> seen = new HashSet<>();
    for (Call c : calls) {
      assertTrue(seen.add(c.value()), "value " + c.value() + " twice");
    }
    List<Call> byEnd = new ArrayList<>(calls);
    byEnd.sort(java.util.Comparator.comparingLong(Call::end));
    List<Call> byStart = new ArrayList<>(calls);
    byStart.sort(java.util.Comparator.comparingLong(Call::start));
    long highestReturned = Long.MIN_VALUE;
    int e = 0;
    for (Call c : byStart) {
      while (e < byEnd.size() && byEnd.get(e).end() < c.start()) {
        highestReturned = Math.max(highestReturned, byEnd.get(e).value());
        e++;
      }
      assertTrue(c.value() > highestReturned, "value " + c.value() + " began after " + highestReturned + " had returned");
    }
  }

  @Test
  void theOrderCheckCatchesASmallerValueAfterAReturnAndADuplicate() {
    checkRealTimeOrder(List.of(new Call(0, 3, 2), new Call(1, 2, 1))); // overlapping: either order
    assertThrows(AssertionError.class, () -> checkRealTimeOrder(List.of(new Call(0, 1, 2), new Call(2, 3, 1))));
    assertThrows(AssertionError.class, () -> checkRealTimeOrder(List.of(new Call(0, 1, 1), new Call(2, 3, 1))));
  }

  @Test
  void foldedIdentitiesFromManyThreadsAreUniqueAndInRealTimeOrder() throws Exception {
    int threads = 64;
    int callsEach = 40;
    try (IdnodeClient c = client()) {
      List<List<Call>> got = onThreads(threads, i -> () -> {
        List<Call> mine = new ArrayList<>();
        for (int k = 0; k < callsEach; k++) {
          long start = System.nanoTime();
          IdentityBlock b = c.nextIdentity("folded", 1);
          mine.add(new Call(start, System.nanoTime(), b.first()));
          assertEquals(b.first(), b.last());
        }
        return mine;
      });
      List<Call> all = new ArrayList<>();
      got.forEach(all::addAll);
      assertEquals(threads * callsEach, all.size());
      checkRealTimeOrder(all);
    }
  }

  @Test
  void concurrentAsyncIdentitiesAreConsecutive() {
    try (IdnodeClient c = client()) {
      List<CompletableFuture<IdentityBlock>> calls = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        calls.add(c.async().nextIdentity("async-orders", 1));
      }
      Set<Long> values = new HashSet<>();
      for (CompletableFuture<IdentityBlock> f : calls) {
        IdentityBlock b = f.join();
        assertEquals(b.first(), b.last());
        values.add(b.first());
      }
      Set<Long> want = new HashSet<>();
      for (long v = 1; v <= 64; v++) {
        want.add(v);
      }
      assertEquals(want, values);
    }
  }
}
