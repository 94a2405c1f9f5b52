package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.idnode.client.tour.Tour;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's tour is Tour.java's, verbatim, and runs against real nodes. PackagedJarIT runs
 * the README's first example, against the packaged jar.
 */
class TourTest {
  /** The text between the first start marker and the end marker after it. */
  static String between(String text, String start, String end) {
    int s = text.indexOf(start);
    int e = text.indexOf(end, s + start.length());
    assertTrue(s >= 0 && e > s, "markers " + start + " … " + end + " not found");
    return text.substring(s + start.length(), e);
  }

  @Test
  void theReadmeShowsTheTourAsItRuns() throws IOException {
    String tour = between(Files.readString(Path.of("src/test/java/dev/idnode/client/tour/Tour.java")), "// tour:start\n", "    // tour:end");
    String readme = between(Files.readString(Path.of("README.md")), "<!-- tour:start -->\n```java\n", "```\n<!-- tour:end -->");
    String unindented = tour.lines().map(l -> l.startsWith("    ") ? l.substring(4) : l).collect(Collectors.joining("\n", "", "\n"));
    assertEquals(unindented, readme);
  }

  @Test
  void theTourRuns() throws Exception {
    try (IdCluster cluster = new IdCluster()) {
      cluster.start(1, true);
      PrintStream out = System.out;
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      try {
        Tour.main(cluster.grpcAddrs().toArray(new String[0]));
      } finally {
        System.setOut(out);
      }
      String text = printed.toString(StandardCharsets.UTF_8);
      assertTrue(text.contains("refused: CLAIMED"), text);
      assertTrue(text.contains("products/1-A"), text);
      assertTrue(text.contains("orders/1-A [users/1, users/2] [carts/0000000000000000001-A] 1..10"), text);
    }
  }
}
