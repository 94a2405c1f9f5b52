package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idnode.v1.ListHiLoRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four JVMs, each with eight threads on a HiLo generator, through three nodes while the leader is
 * killed twice: no number is handed out twice, every JVM gives its unused numbers back. And 32
 * threads of folded identities through the same faults: no value twice, real-time order kept.
 */
class ChaosTest {
  private static final int JVMS = 4;
  private static final String TAG = "chaos";

  /** A worker JVM and its line protocol. */
  private record Worker(Process process, PrintWriter in, BufferedReader out, Path ids) {
    String read() throws IOException, InterruptedException {
      String line = out.readLine();
      if (line == null) {
        throw new IllegalStateException("chaos worker exited (" + exit(process) + ") early; see its stderr above");
      }
      return line;
    }

    void tell(String word) {
      in.println(word);
    }
  }

  @Test
  void fourJvmsThroughTwoLeaderKillsNeverRepeatAndReturnTheRest(@TempDir Path dir) throws Exception {
    try (IdCluster idcluster = new IdCluster()) {
      idcluster.start(3, false);
      String nodes = String.join(",", idcluster.grpcAddrs());
      List<Worker> workers = new ArrayList<>();
      try {
        for (int i = 0; i < JVMS; i++) {
          Path ids = dir.resolve("ids-" + i);
          Process p = new ProcessBuilder(IdCluster.javaBinary().toString(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
              ChaosWorker.class.getName(), nodes, TAG, ids.toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT).start();
          workers.add(new Worker(p, new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8),
              new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)), ids));
        }
        for (Worker w : workers) {
          assertEquals("READY", w.read());
        }
        for (int kill = 0; kill < 2; kill++) {
          String killed = idcluster.command("kill", "leader").getAsJsonArray("nodes").get(0).getAsString();
          idcluster.command("leader", null);
          idcluster.command("restart", killed);
        }
        long handedOut = 0;
        for (Worker w : workers) {
          w.tell("stop");
          String[] stopped = w.read().split(" ");
          assertEquals("STOPPED", stopped[0]);
          assertEquals("0", stopped[2], "calls that failed in worker " + w.ids());
          handedOut += Long.parseLong(stopped[1]);
        }

        Set<Long> seen = new HashSet<>();
        long highest = 0;
        for (Worker w : workers) {
          for (String line : Files.readAllLines(w.ids())) {
            long n = Long.parseLong(line);
            assertTrue(seen.add(n), "number " + n + " handed out twice");
            highest = Math.max(highest, n);
          }
        }
        assertEquals(handedOut, seen.size());
        assertTrue(handedOut > JVMS * 8 * 100, "the workers ran through the faults: " + handedOut + " IDs");

        long maxBefore;
        try (IdnodeClient c = IdnodeClient.builder().nodes(idcluster.grpcAddrs()).build()) {
          maxBefore = c.listHiLo(ListHiLoRequest.newBuilder().setPrefix(TAG).build()).getTags(0).getMax();
        }
        int returned = 0;
        for (Worker w : workers) {
          w.tell("close");
          String closed = w.read();
          assertTrue(closed.startsWith("CLOSED "), closed);
          returned += Boolean.parseBoolean(closed.substring(7)) ? 1 : 0;
          assertEquals(0, exit(w.process()));
        }
        assertTrue(returned > 0, "at least the holder of the newest range gave numbers back");
        try (IdnodeClient c = IdnodeClient.builder().nodes(idcluster.grpcAddrs()).build()) {
          String id = c.nextId(TAG);
          long next = Long.parseLong(id.substring(TAG.length() + 1, id.lastIndexOf('-')));
          assertTrue(next > highest, "never below a number handed out: " + next + " after " + highest);
          assertTrue(next <= maxBefore, "the returned numbers are handed out again: " + next + " with Max " + maxBefore);
        }
      } finally {
        for (Worker w : workers) {
          w.process().destroyForcibly();
        }
      }
    }
  }

  @Test
  void foldedIdentitiesThroughTwoLeaderKillsAreUniqueAndInRealTimeOrder() throws Exception {
    int threads = 32;
    try (IdCluster idcluster = new IdCluster();
        IdnodeClient c = clientOf(idcluster)) {
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
      List<List<LiveClusterTest.Call>> got = new ArrayList<>();
      List<Thread> ts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        List<LiveClusterTest.Call> mine = new ArrayList<>();
        got.add(mine);
        Thread th = new Thread(() -> {
          while (!stop.get()) {
            long start = System.nanoTime();
            try {
              long v = c.nextIdentity("chaos-folded", 1).first();
              mine.add(new LiveClusterTest.Call(start, System.nanoTime(), v));
            } catch (IdnodeException e) {
              failed.incrementAndGet();
            }
          }
        });
        ts.add(th);
        th.start();
      }
      try {
        for (int kill = 0; kill < 2; kill++) {
          String killed = idcluster.command("kill", "leader").getAsJsonArray("nodes").get(0).getAsString();
          idcluster.command("leader", null);
          idcluster.command("restart", killed);
        }
      } finally {
        stop.set(true);
        for (Thread th : ts) {
          th.join(TimeUnit.SECONDS.toMillis(60));
        }
      }
      for (Thread th : ts) {
        assertTrue(!th.isAlive(), "a thread still in a call a minute after the stop");
      }
      List<LiveClusterTest.Call> all = new ArrayList<>();
      got.forEach(all::addAll);
      assertEquals(0, failed.get(), "calls that failed within their 30 s deadline");
      assertTrue(all.size() > threads * 10, "the threads ran through the faults: " + all.size() + " identities");
      LiveClusterTest.checkRealTimeOrder(all);
    }
  }

  private static IdnodeClient clientOf(IdCluster idcluster) {
    idcluster.start(3, false);
    return IdnodeClient.builder().nodes(idcluster.grpcAddrs()).build();
  }

  /** The exit code of p, waiting at most a minute for it. */
  private static int exit(Process p) throws InterruptedException {
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("chaos worker did not exit within a minute");
    }
    return p.exitValue();
  }
}
