package dev.idnode.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One JVM of the chaos test: eight threads take IDs from one HiLo generator until told to stop,
 * then the numbers go to a file and, when told, the generator closes (returning what it did not
 * hand out). Speaks lines: prints READY, then STOPPED n errors, then CLOSED returned; reads
 * "stop" and "close".
 *
 * <p>Arguments: comma-separated node addresses, the tag, the output file.
 */
public final class ChaosWorker {
  private static final int THREADS = 8;
  /** Each thread's cap, so memory stays bounded whatever the run's length. */
  private static final int MAX_PER_THREAD = 200_000;
  /** A pause between IDs: the run spans the faults with ranges fetched during them. */
  private static final long PAUSE_NANOS = 100_000;

  private ChaosWorker() {}

  public static void main(String[] args) throws Exception {
    List<String> nodes = List.of(args[0].split(","));
    String tag = args[1];
    Path out = Path.of(args[2]);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintWriter say = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    try (IdnodeClient client = IdnodeClient.builder().nodes(nodes).deadline(Duration.ofSeconds(30)).build()) {
      HiLoGenerator g = HiLoGenerator.create(client, tag, HiLoOptions.DEFAULT);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong errors = new AtomicLong();
      long[][] ids = new long[THREADS][MAX_PER_THREAD];
      int[] counts = new int[THREADS];
      g.nextId(); // the first range, before READY, so every thread starts hot
      Thread[] threads = new Thread[THREADS];
      for (int t = 0; t < THREADS; t++) {
        int me = t;
        threads[t] = new Thread(() -> {
          while (!stop.get() && counts[me] < MAX_PER_THREAD) {
            try {
              String id = g.nextId();
              ids[me][counts[me]++] = Long.parseLong(id.substring(tag.length() + 1, id.lastIndexOf('-')));
            } catch (IdnodeException e) {
              errors.incrementAndGet();
              System.err.println("chaos worker: " + e);
            }
            LockSupport.parkNanos(PAUSE_NANOS);
          }
        });
        threads[t].start();
      }
      say.println("READY");
      expect(in, "stop");
      stop.set(true);
      long total = 0;
      StringBuilder text = new StringBuilder();
      for (int t = 0; t < THREADS; t++) {
        threads[t].join(60_000);
        for (long n : Arrays.copyOf(ids[t], counts[t])) {
          text.append(n).append('\n');
        }
        total += counts[t];
      }
      Files.writeString(out, text);
      say.println("STOPPED " + total + " " + errors.get());
      expect(in, "close");
      g.close();
      say.println("CLOSED " + g.stats().returned());
    }
  }

  private static void expect(BufferedReader in, String word) throws IOException {
    String line = in.readLine();
    if (!word.equals(line)) {
      throw new IllegalStateException("chaos worker: want \"" + word + "\" on stdin, got " + line);
    }
  }
}
